/* got-ref.c -- text addresses computed by code: GOT references, switch
   jump tables and non-PIC lui/addiu pairs.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   Position-independent MIPS code reaches a local text address in two
   steps: `lw x,%got(sym)(gp)` loads the 64 KiB page of sym from a local
   GOT entry, and `addiu y,x,%lo(sym)` adds the rest.  The seed patent
   looks for `lw; nop; addiu`, the MIPS I schedule; gcc today moves the
   addiu anywhere later, into another block or a delay slot, so this
   file follows x through the code (regflow.c) and takes every addiu
   that reads it.

   The same walk finds switch tables.  gcc emits, in PIC code,
     lw    b,%got(.L4)(gp)      the table's page         (a constant)
     [addiu b,b,%lo(.L4)]       the table                (a constant)
     addu  p,b,index            an element address       (indexed)
     lw    w,%lo(.L4)(p) / 0(p) the element              (entry)
     addu  t,w,gp               a .gpword entry is relative to gp
     jr    t
   and in fixed-address code `lui b,%hi(.L4)` for the first step and
   absolute words without the gp addition.  Each step is a walk from
   the instruction of the step before.  */

#include <config.h>

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "object.h"
#include "insn.h"
#include "mips-ops.h"
#include "regflow.h"
#include "reloc-finders.h"


/* How far a proof of a table's bound walks back from the addu that
   indexes the table: instructions on one path, and paths.  */
#define BOUND_STEPS	96
#define BOUND_PATHS	32

/* How many stack slots and register copies an entry loaded from a
   table may pass through before its jump.  */
#define ENTRY_HOPS	6

enum table_kind
{
  TABLE_ABS,			/* The entries are addresses.  */
  TABLE_GPREL,			/* Offsets from gp (.gpword).  */
  TABLE_LABEL			/* Offsets from a code label (GCC's computed
				   goto in PIC code: &&l - &&base).  */
};

struct jump_table
{
  uint32_t base;		/* Address of the first entry.  */
  uint32_t jr;			/* The jump that uses it.  */
  enum table_kind kind;
  uint32_t add;			/* TABLE_LABEL: the addu of the label;
				   TABLE_GPREL: the addu of gp.  */
  unsigned label_reg;		/* TABLE_LABEL: the register with the label.  */
  uint32_t label;		/* TABLE_LABEL: the label, once found.  */
  uint32_t index_add;		/* The addu of the table and the index.  */
  unsigned index_reg;		/* The index register there (4 x the
				   entry's number).  */
};

/* Where an entry loaded from a table goes: the table, the addu that
   indexed it, and what was added to the entry so far.  */
struct entry_path
{
  uint32_t base;
  enum table_kind kind;
  uint32_t add;
  unsigned label_reg;
  uint32_t index_add;
  unsigned index_reg;
};

/* A constant stored to the stack, to be followed from its reloads.  */
struct spill
{
  uint32_t store;		/* The sw.  */
  uint32_t value;		/* The constant stored.  */
  uint32_t slot_addr;		/* GOT slot it came from, or 0 for a lui.  */
  uint32_t origin;		/* The instruction that loaded it first.  */
};

struct finder
{
  const struct mips_object *obj;
  const struct code *code;
  struct reloc_table *table;
  struct regflow *rf;
  struct jump_table *tables;
  size_t n_tables, alloc_tables;
  unsigned char *slot_done;	/* Local GOT slots already entered.  */
  struct spill *spills;
  size_t n_spills, alloc_spills;
  uint32_t *funcs;		/* Sorted function entries known so far.  */
  size_t n_funcs;
  /* For proving table bounds: the direct branches and jumps as (target,
     source) pairs sorted by target, and the sorted addresses that
     control may reach other than by those and by falling in (function
     entries, code addresses the table holds, switch cases).  Built on
     first use.  */
  uint32_t (*branch_in)[2];
  size_t n_branch_in;
  uint32_t *entered;
  size_t n_entered;
  bool proof_ready;
  /* The (instruction, register, table) walks follow_entry made, so that
     copies and spills that go round in circles end: an open-addressed
     set of N_SEEN keys (a power of two), USED_SEEN of them taken.  */
  uint64_t *seen;
  size_t n_seen, used_seen;
};

static bool
is_addu (const struct insn *insn)
{
  return insn->op == 0 && (insn->word & 0x3f) == FUNCT_ADDU;
}

/* If INSN copies a register to another (`move`: addu or or with zero),
   return the source register, else 0.  */

static unsigned
copy_source (const struct insn *insn)
{
  unsigned funct = insn->word & 0x3f;

  if (insn->op != 0 || (funct != FUNCT_ADDU && funct != FUNCT_OR)
      || insn->rd == REG_ZERO || (insn->word >> 6 & 0x1f) != 0)
    return 0;
  if (insn->rt == REG_ZERO)
    return insn->rs;
  if (insn->rs == REG_ZERO)
    return insn->rt;
  return 0;
}

/* Run a walk of REG from DEF and return a malloc'd copy of the readers
   (the walker's own list is reused by nested walks), or NULL with *N
   zero on failure or when there are none.  */

static const struct insn **
readers (struct finder *f, const struct insn *def, unsigned reg, size_t *n,
	 bool *ok)
{
  const struct insn **copy;

  *n = 0;
  if (!regflow_follow (f->rf, def, reg))
    {
      *ok = false;
      return NULL;
    }
  if (f->rf->n_uses == 0)
    return NULL;
  copy = malloc (f->rf->n_uses * sizeof *copy);
  if (copy == NULL)
    {
      *ok = false;
      return NULL;
    }
  memcpy (copy, f->rf->uses, f->rf->n_uses * sizeof *copy);
  *n = f->rf->n_uses;
  return copy;
}

static bool
add_table (struct finder *f, const struct entry_path *ep, uint32_t jr)
{
  for (size_t i = 0; i < f->n_tables; i++)
    if (f->tables[i].base == ep->base && f->tables[i].jr == jr)
      return true;
  if (f->n_tables == f->alloc_tables)
    {
      size_t n = f->alloc_tables ? 2 * f->alloc_tables : 64;
      struct jump_table *t = realloc (f->tables, n * sizeof *t);
      if (t == NULL)
	return false;
      f->tables = t;
      f->alloc_tables = n;
    }
  f->tables[f->n_tables].base = ep->base;
  f->tables[f->n_tables].jr = jr;
  f->tables[f->n_tables].kind = ep->kind;
  f->tables[f->n_tables].add = ep->add;
  f->tables[f->n_tables].label_reg = ep->label_reg;
  f->tables[f->n_tables].label = 0;
  f->tables[f->n_tables].index_add = ep->index_add;
  f->tables[f->n_tables].index_reg = ep->index_reg;
  f->n_tables++;
  return true;
}

/* Add the walk of REG from DEF along EP to F's set; false if it was
   there already or memory ran out (*OK false then).  */

static bool
entry_walk_new (struct finder *f, const struct insn *def, unsigned reg,
		const struct entry_path *ep, bool *ok)
{
  uint64_t key = ((uint64_t) def->addr << 32 | ep->base) ^ ((uint64_t) reg << 2)
		 ^ ((uint64_t) ep->kind << 8) ^ ((uint64_t) ep->add << 12);
  size_t mask, i;

  key = key * 0x9e3779b97f4a7c15ull + 1;
  if (key == 0)
    key = 1;
  if (2 * (f->used_seen + 1) > f->n_seen)
    {
      size_t n = f->n_seen ? 2 * f->n_seen : 1024;
      uint64_t *t = calloc (n, sizeof *t);
      if (t == NULL)
	{
	  *ok = false;
	  return false;
	}
      for (size_t k = 0; k < f->n_seen; k++)
	if (f->seen[k] != 0)
	  {
	    for (i = (size_t) (f->seen[k] >> 20) & (n - 1); t[i] != 0;
		 i = (i + 1) & (n - 1))
	      continue;
	    t[i] = f->seen[k];
	  }
      free (f->seen);
      f->seen = t;
      f->n_seen = n;
    }
  mask = f->n_seen - 1;
  for (i = (size_t) (key >> 20) & mask; f->seen[i] != 0; i = (i + 1) & mask)
    if (f->seen[i] == key)
      return false;
  f->seen[i] = key;
  f->used_seen++;
  return true;
}

/* REG, set by DEF, holds a table element loaded along EP, as an address
   (TABLE_ABS) or with gp or a label added.  A jr of it makes EP's base
   a table.  The element may be copied to another register or go
   through a stack slot (HOPS more times at most) on its way.  */

static bool
follow_entry (struct finder *f, const struct insn *def, unsigned reg,
	      const struct entry_path *ep, int hops)
{
  bool ok = true;
  size_t n;
  const struct insn **use;

  if (!entry_walk_new (f, def, reg, ep, &ok))
    return ok;
  use = readers (f, def, reg, &n, &ok);
  for (size_t i = 0; ok && i < n; i++)
    {
      const struct insn *u = use[i];
      if (u->kind == INSN_IJUMP && u->rs == reg)
	ok = add_table (f, ep, u->addr);
      else if (hops > 0 && copy_source (u) == reg && u->rd != reg)
	ok = follow_entry (f, u, u->rd, ep, hops - 1);
      else if (ep->kind == TABLE_ABS && is_addu (u) && u->rd != REG_ZERO
	       && (u->rs == reg || u->rt == reg) && u->rs != u->rt)
	{
	  unsigned other = u->rs == reg ? u->rt : u->rs;
	  struct entry_path next = *ep;
	  if (other == REG_ZERO)
	    continue;
	  next.add = u->addr;
	  if (other == REG_GP)
	    next.kind = TABLE_GPREL;
	  else
	    {
	      next.kind = TABLE_LABEL;
	      next.label_reg = other;
	    }
	  ok = follow_entry (f, u, u->rd, &next, hops);
	}
      else if (hops > 0 && u->op == OP_SW && u->rs == REG_SP
	       && u->rt == reg)
	{
	  /* The element waits in a stack slot: follow it from every
	     reload that can see the store.  */
	  size_t m;
	  const struct insn **reloads;
	  if (!regflow_follow_slot (f->rf, u))
	    {
	      ok = false;
	      break;
	    }
	  m = f->rf->n_uses;
	  if (m == 0)
	    continue;
	  reloads = malloc (m * sizeof *reloads);
	  if (reloads == NULL)
	    {
	      ok = false;
	      break;
	    }
	  memcpy (reloads, f->rf->uses, m * sizeof *reloads);
	  for (size_t k = 0; ok && k < m; k++)
	    if (reloads[k]->rt != REG_ZERO && reloads[k]->rt != REG_SP)
	      ok = follow_entry (f, reloads[k], reloads[k]->rt, ep,
				 hops - 1);
	  free (reloads);
	}
    }
  free (use);
  return ok;
}

/* REG, set by DEF (the addu of the table's address and the index
   register INDEX_REG), holds the constant C plus an index.  A load
   through it reads an element of the table at C plus the load's
   offset.  */

static bool
follow_indexed (struct finder *f, const struct insn *def, unsigned reg,
		uint32_t c, unsigned index_reg)
{
  bool ok = true;
  size_t n;
  const struct insn **use = readers (f, def, reg, &n, &ok);

  for (size_t i = 0; ok && i < n; i++)
    {
      const struct insn *u = use[i];
      if (u->op == OP_LW && u->rs == reg && u->rt != REG_ZERO)
	{
	  struct entry_path ep = { c + (uint32_t) u->imm, TABLE_ABS, 0, 0,
				   def->addr, index_reg };
	  ok = follow_entry (f, u, u->rt, &ep, ENTRY_HOPS);
	}
    }
  free (use);
  return ok;
}

/* Record that the local GOT slot at SLOT_ADDR (index I) holds the text
   address VALUE used as a code pointer.  */

static bool
add_got_slot (struct finder *f, uint32_t i, uint32_t slot_addr,
	      uint32_t value)
{
  struct reloc_entry e = { 0 };

  if (f->slot_done[i])
    return true;
  f->slot_done[i] = 1;
  e.type = RELOC_GOT;
  e.addr = slot_addr;
  e.target = value;
  e.index = i;
  return reloc_table_add (f->table, &e);
}

/* In a fixed-address executable, record the code address C as a value
   of the program when REG, which DEF sets to C, is read by anything
   but an indirect jump or call through it (find_data_scan takes the
   data words equal to those).  */

static bool
note_value (struct finder *f, const struct insn *def, unsigned reg,
	    uint32_t c)
{
  bool ok = true, value = false;
  size_t n;
  const struct insn **use;

  if (f->obj->e_type != ET_EXEC || !object_is_code (f->obj, c))
    return true;
  use = readers (f, def, reg, &n, &ok);
  for (size_t i = 0; i < n && !value; i++)
    if (!((use[i]->kind == INSN_IJUMP || use[i]->kind == INSN_ICALL)
	  && use[i]->rs == reg))
      value = true;
  free (use);
  if (ok && value)
    ok = reloc_table_add_value (f->table, c);
  return ok;
}

static bool
add_spill (struct finder *f, const struct insn *store, uint32_t c,
	   uint32_t slot_addr, uint32_t origin)
{
  for (size_t i = 0; i < f->n_spills; i++)
    if (f->spills[i].store == store->addr && f->spills[i].value == c)
      return true;
  if (f->n_spills == f->alloc_spills)
    {
      size_t n = f->alloc_spills ? 2 * f->alloc_spills : 64;
      struct spill *v = realloc (f->spills, n * sizeof *v);
      if (v == NULL)
	return false;
      f->spills = v;
      f->alloc_spills = n;
    }
  f->spills[f->n_spills].store = store->addr;
  f->spills[f->n_spills].value = c;
  f->spills[f->n_spills].slot_addr = slot_addr;
  f->spills[f->n_spills].origin = origin;
  f->n_spills++;
  return true;
}

/* True if INSN reloads a register from the stack.  A value derived
   from a reload is not spilled again: a counter kept on the stack would
   otherwise look like an endless series of constants.  */

static bool
is_reload (const struct insn *insn)
{
  return insn->op == OP_LW && insn->rs == REG_SP;
}

/* REG, set by DEF, holds the constant C, first loaded by the
   instruction at ORIGIN: a GOT load when SLOT_ADDR is not 0, else a
   lui.  A store of REG to the stack is followed from its reloads.  */

static bool
follow_constant (struct finder *f, const struct insn *def, unsigned reg,
		 uint32_t c, uint32_t slot_addr, uint32_t origin)
{
  const struct mips_object *obj = f->obj;
  bool ok = true;
  size_t n;
  const struct insn **use;

  /* A GOT slot that holds a whole code address (a function that binds
     locally) gives the address itself.  */
  if (slot_addr != 0 && (c & 0xffff) != 0
      && !note_value (f, def, reg, c))
    return false;
  use = readers (f, def, reg, &n, &ok);
  for (size_t i = 0; ok && i < n; i++)
    {
      const struct insn *u = use[i];

      if (u->op == OP_ADDIU && u->rs == reg)
	{
	  uint32_t t = c + (uint32_t) u->imm;
	  struct reloc_entry e = { 0 };

	  /* Only a 64 KiB page plus %lo is a GOT reference: a local entry
	     that holds a whole address (a function that binds locally) is
	     used as it is, and an addiu to it is arithmetic on a pointer.  */
	  if (object_is_code (obj, t) && (t & 3) == 0 && (c & 0xffff) == 0)
	    {
	      e.type = slot_addr != 0 ? RELOC_GOT_REF : RELOC_HI_LO;
	      e.addr = origin;
	      e.target = t;
	      e.aux = u->addr;
	      e.aux2 = c;
	      e.index = slot_addr;
	      e.info = t - slot_addr;
	      ok = reloc_table_add (f->table, &e);
	      if (ok && u->rt != REG_ZERO)
		ok = note_value (f, u, u->rt, t);
	    }
	  else if (u->rt != REG_ZERO)
	    {
	      /* A full data address: perhaps a table base.  */
	      size_t m;
	      const struct insn **use2 = readers (f, u, u->rt, &m, &ok);
	      for (size_t k = 0; ok && k < m; k++)
		if (is_addu (use2[k]) && use2[k]->rd != REG_ZERO)
		  ok = follow_indexed (f, use2[k], use2[k]->rd, t,
				       use2[k]->rs == u->rt ? use2[k]->rt
				       : use2[k]->rs);
		else if (use2[k]->op == OP_SW && use2[k]->rs == REG_SP
			 && use2[k]->rt == u->rt && !is_reload (def))
		  ok = add_spill (f, use2[k], t, 0, origin);
	      free (use2);
	    }
	}
      else if (is_addu (u) && u->rd != REG_ZERO)
	ok = follow_indexed (f, u, u->rd, c, u->rs == reg ? u->rt : u->rs);
      else if (u->op == OP_SW && u->rs == REG_SP && u->rt == reg)
	ok = add_spill (f, u, c, slot_addr, origin);
      else if (slot_addr != 0 && (u->kind == INSN_IJUMP || u->kind == INSN_ICALL)
	       && u->rs == reg && object_is_code (obj, c))
	ok = add_got_slot (f, (slot_addr - obj->got_addr) / 4, slot_addr, c);
    }
  free (use);
  return ok;
}

/* Sorted, unique function entries known so far, for bounding tables.  */

static int
compare_u32 (const void *pa, const void *pb)
{
  uint32_t a = *(const uint32_t *) pa, b = *(const uint32_t *) pb;
  return a < b ? -1 : a > b;
}

static uint32_t *
function_entries (const struct reloc_table *table, size_t *n)
{
  uint32_t *v = malloc ((table->n_entries + 1) * sizeof *v);
  size_t k = 0;

  if (v == NULL)
    return NULL;
  for (size_t i = 0; i < table->n_entries; i++)
    {
      const struct reloc_entry *e = &table->entries[i];
      if (e->type == RELOC_PROLOGUE || e->type == RELOC_SYMBOL
	  || e->type == RELOC_FDE || e->type == RELOC_ENTRY)
	v[k++] = e->target;
    }
  qsort (v, k, sizeof *v, compare_u32);
  *n = k;
  return v;
}

/* The bounds [*LO, *HI) of the function around ADDR, as far as the
   entries known so far tell.  */

static void
function_bounds (const struct finder *f, uint32_t addr, uint32_t *lo,
		 uint32_t *hi)
{
  size_t a = 0, b = f->n_funcs;

  while (a < b)
    {
      size_t mid = a + (b - a) / 2;
      if (f->funcs[mid] <= addr)
	a = mid + 1;
      else
	b = mid;
    }
  *lo = a > 0 ? f->funcs[a - 1] : 0;
  *hi = a < f->n_funcs ? f->funcs[a] : UINT32_MAX;
}

/* Follow each constant stored to the stack from every reload that can
   see the store.  gcc spills a GOT page or a switch table's address
   this way when registers run short.  Walks can add spills; the loop
   takes those too.  */

static bool
follow_spills (struct finder *f)
{
  bool ok = true;

  for (size_t i = 0; ok && i < f->n_spills; i++)
    {
      struct spill sp = f->spills[i];
      const struct insn *store = code_insn_at (f->code, sp.store);
      size_t n;
      const struct insn **reloads;

      if (store == NULL)
	continue;
      if (!regflow_follow_slot (f->rf, store))
	return false;
      n = f->rf->n_uses;
      if (n == 0)
	continue;
      reloads = malloc (n * sizeof *reloads);
      if (reloads == NULL)
	return false;
      memcpy (reloads, f->rf->uses, n * sizeof *reloads);
      for (size_t k = 0; ok && k < n; k++)
	if (reloads[k]->rt != REG_ZERO && reloads[k]->rt != REG_SP)
	  ok = follow_constant (f, reloads[k], reloads[k]->rt, sp.value,
				sp.slot_addr, sp.origin);
      free (reloads);
    }
  return ok;
}

/* Proving a table's bound.  The index that selects an entry is bounded
   on a path by a mask (`andi i,x,M`), by a byte or halfword load, or by
   a range check (`sltiu c,i,N` or `sltu c,i,r` with r a constant, and a
   branch on c) whose in-range edge the path takes, as long as nothing
   else writes the index between there and the table's addu.  The
   table's bound is the largest bound over every path that reaches the
   addu; a path that meets anything else (a function entry, an address
   the relocation table or a switch reaches, a call, another write of
   the index, the walk's limits) leaves the table unproven.  */

static int
compare_pair (const void *pa, const void *pb)
{
  const uint32_t *a = pa, *b = pb;

  if (a[0] != b[0])
    return a[0] < b[0] ? -1 : 1;
  return a[1] < b[1] ? -1 : a[1] > b[1];
}

/* Build F's branch_in and entered lists.  False when out of memory.  */

static bool
proof_prepare (struct finder *f)
{
  const struct code *code = f->code;
  const struct reloc_table *table = f->table;
  size_t n = 0, k = 0;

  if (f->proof_ready)
    return true;
  for (size_t s = 0; s < code->n_sections; s++)
    for (size_t i = 0; i < code->sections[s].n_insns; i++)
      {
	const struct insn *insn = &code->sections[s].insns[i];
	if (insn->kind == INSN_BRANCH || insn->kind == INSN_JUMP
	    || insn->kind == INSN_CALL)
	  n++;
      }
  f->branch_in = malloc ((n + 1) * sizeof *f->branch_in);
  f->entered = malloc ((table->n_entries + f->rf->n_jump_edges + n + 1)
		       * sizeof *f->entered);
  if (f->branch_in == NULL || f->entered == NULL)
    return false;
  for (size_t s = 0; s < code->n_sections; s++)
    for (size_t i = 0; i < code->sections[s].n_insns; i++)
      {
	const struct insn *insn = &code->sections[s].insns[i];
	if (insn->kind == INSN_BRANCH || insn->kind == INSN_JUMP)
	  {
	    f->branch_in[k][0] = insn->target;
	    f->branch_in[k][1] = insn->addr;
	    k++;
	  }
      }
  qsort (f->branch_in, k, sizeof *f->branch_in, compare_pair);
  f->n_branch_in = k;
  k = 0;
  for (size_t i = 0; i < table->n_entries; i++)
    f->entered[k++] = table->entries[i].target;
  /* A call enters a function, which may have no entry in the table.  */
  for (size_t s = 0; s < code->n_sections; s++)
    for (size_t i = 0; i < code->sections[s].n_insns; i++)
      if (code->sections[s].insns[i].kind == INSN_CALL)
	f->entered[k++] = code->sections[s].insns[i].target;
  for (size_t i = 0; i < f->rf->n_jump_edges; i++)
    f->entered[k++] = f->rf->jump_edges[i][1];
  qsort (f->entered, k, sizeof *f->entered, compare_u32);
  f->n_entered = k;
  f->proof_ready = true;
  return true;
}

static bool
is_entered (const struct finder *f, uint32_t addr)
{
  size_t a = 0, b = f->n_entered;

  while (a < b)
    {
      size_t mid = a + (b - a) / 2;
      if (f->entered[mid] < addr)
	a = mid + 1;
      else
	b = mid;
    }
  return (a < f->n_entered && f->entered[a] == addr)
	 || bsearch (&addr, f->funcs, f->n_funcs, sizeof *f->funcs,
		     compare_u32) != NULL;
}

/* The first of F's branch_in pairs whose target is ADDR.  */

static size_t
first_branch_in (const struct finder *f, uint32_t addr)
{
  size_t a = 0, b = f->n_branch_in;

  while (a < b)
    {
      size_t mid = a + (b - a) / 2;
      if (f->branch_in[mid][0] < addr)
	a = mid + 1;
      else
	b = mid;
    }
  return a;
}

/* One path of a proof, walking back: the tracked register REG holds the
   index (scaled by 4 while SCALED) just before the instruction at AT.
   EDGE says how the path left the branch at AT - 4 when AT - 4 is the
   branch and the path came through its taken (1) or fall-through (2)
   edge, else 0.  */
struct bound_path
{
  uint32_t at;
  unsigned reg;
  bool scaled;
  int edge;
  int steps;
};

enum { EDGE_NONE, EDGE_TAKEN, EDGE_FALL };

/* The constant that the instruction before BRANCH (within a few words,
   none of which writes REG or C) compares the tracked register REG
   against for C, `sltiu c,reg,N` or `sltu c,reg,r` with `li r,N`; 0 if
   there is none.  */

static uint32_t
range_check (const struct finder *f, uint32_t branch, unsigned c,
	     unsigned reg)
{
  unsigned limit_reg = 0;

  for (uint32_t k = 1; k <= 8 && branch >= 4 * k; k++)
    {
      const struct insn *insn = code_insn_at (f->code, branch - 4 * k);
      if (insn == NULL || insn->kind != INSN_OTHER
	  || (k > 1 && is_entered (f, branch - 4 * (k - 1))))
	return 0;
      if (limit_reg != 0 && (insn->writes & REG_BIT (limit_reg)))
	{
	  if ((insn->op == OP_ADDIU || insn->op == OP_ORI)
	      && insn->rs == REG_ZERO && insn->rt == limit_reg)
	    return insn->op == OP_ORI ? (uint32_t) insn->imm & 0xffff
		   : (uint32_t) insn->imm;
	  return 0;
	}
      if (insn->writes & REG_BIT (c))
	{
	  if (insn->op == OP_SLTIU && insn->rt == c && insn->rs == reg)
	    return (uint32_t) insn->imm;
	  if (insn->op == 0 && (insn->word & 0x3f) == FUNCT_SLTU
	      && insn->rd == c && insn->rs == reg && insn->rt != REG_ZERO
	      && insn->rt != reg)
	    {
	      limit_reg = insn->rt;
	      continue;
	    }
	  return 0;
	}
      if (insn->writes & REG_BIT (reg))
	return 0;
    }
  return 0;
}

/* What the instruction INSN on path P says of the index: a bound (the
   number of entries, > 0), 0 to go on (P updated), or -1 when the path
   cannot be proven.  */

static int64_t
bound_step (const struct finder *f, const struct insn *insn,
	    struct bound_path *p)
{
  unsigned reg = p->reg;

  if (insn->kind == INSN_BRANCH && p->edge != EDGE_NONE
      && (insn->op == 0x04 || insn->op == 0x05
	  || insn->op == 0x14 || insn->op == 0x15)	/* beq, bne(l) */
      && insn->rt == REG_ZERO && insn->rs != REG_ZERO)
    {
      /* beqz c leaves the range when taken, bnez c enters it.  */
      bool bnez = insn->op == 0x05 || insn->op == 0x15;
      uint32_t n = range_check (f, insn->addr, insn->rs, reg);
      if (n != 0 && (p->edge == EDGE_TAKEN) == bnez)
	return p->scaled ? (n + 3) / 4 : n;
      return 0;
    }
  if (insn->kind != INSN_OTHER)
    return insn->kind == INSN_BRANCH ? 0 : -1;
  if (!(insn->writes & REG_BIT (reg)))
    return 0;
  if (insn->op == OP_ANDI && insn->rt == reg)
    {
      uint32_t m = (uint32_t) insn->imm & 0xffff;
      return p->scaled ? (m >> 2) + 1 : (int64_t) m + 1;
    }
  if ((insn->op == OP_LBU || insn->op == OP_LHU) && insn->rt == reg
      && !p->scaled)
    return insn->op == OP_LBU ? 256 : 65536;
  if (p->scaled && insn->op == 0 && (insn->word & 0x3f) == FUNCT_SLL
      && insn->rd == reg && (insn->word >> 6 & 0x1f) == 2
      && insn->rt != REG_ZERO)
    {
      p->reg = insn->rt;
      p->scaled = false;
      return 0;
    }
  if (copy_source (insn) != 0 && insn->rd == reg)
    {
      p->reg = copy_source (insn);
      return 0;
    }
  return -1;
}

/* The number of entries that the index of table T can select, proven on
   every path to its addu; 0 if that cannot be proven.  */

static uint32_t
prove_bound (struct finder *f, const struct jump_table *t)
{
  struct bound_path stack[BOUND_PATHS];
  size_t depth = 0, paths = 1;
  uint32_t bound = 0;

  if (t->index_add == 0 || t->index_reg == REG_ZERO || !proof_prepare (f))
    return 0;
  stack[depth++] = (struct bound_path) { t->index_add, t->index_reg, true,
					 EDGE_NONE, 0 };
  while (depth > 0)
    {
      struct bound_path p = stack[--depth];
      for (;;)
	{
	  const struct insn *prev, *before;
	  int64_t r;

	  if (++p.steps > BOUND_STEPS || p.at < 4)
	    return 0;
	  prev = code_insn_at (f->code, p.at - 4);
	  if (prev == NULL)
	    return 0;
	  if (p.edge != EDGE_NONE)
	    {
	      /* PREV is the branch the path came through.  */
	      r = bound_step (f, prev, &p);
	      p.edge = EDGE_NONE;
	      if (r < 0)
		return 0;
	      if (r > 0)
		{
		  bound = bound > r ? bound : (uint32_t) r;
		  break;
		}
	      p.at -= 4;
	      continue;
	    }
	  if (is_entered (f, p.at))
	    return 0;
	  /* Branches into AT: each is another path, through the branch's
	     delay slot and then the branch itself, taken.  */
	  for (size_t k = first_branch_in (f, p.at);
	       k < f->n_branch_in && f->branch_in[k][0] == p.at; k++)
	    {
	      uint32_t src = f->branch_in[k][1];
	      const struct insn *slot = code_insn_at (f->code, src + 4);
	      struct bound_path q = p;
	      if (slot == NULL || depth == BOUND_PATHS
		  || ++paths > BOUND_PATHS)
		return 0;
	      r = bound_step (f, slot, &q);
	      if (r < 0)
		return 0;
	      if (r > 0)
		{
		  bound = bound > r ? bound : (uint32_t) r;
		  continue;
		}
	      q.at = src + 4;
	      q.edge = EDGE_TAKEN;
	      stack[depth++] = q;
	    }
	  /* Falling in from the word before.  */
	  before = p.at >= 8 ? code_insn_at (f->code, p.at - 8) : NULL;
	  if (before != NULL && (before->flags & INSN_F_DELAY))
	    {
	      /* PREV is the delay slot of BEFORE.  */
	      if (before->kind == INSN_JUMP || before->kind == INSN_IJUMP
		  || before->kind == INSN_RETURN)
		break;		/* Only the branches into AT reach it.  */
	      if (before->kind != INSN_BRANCH)
		return 0;	/* A call comes back here.  */
	      if (!(before->flags & INSN_F_LIKELY))
		{
		  r = bound_step (f, prev, &p);
		  if (r < 0)
		    return 0;
		  if (r > 0)
		    {
		      bound = bound > r ? bound : (uint32_t) r;
		      break;
		    }
		}
	      p.at = before->addr + 4;
	      p.edge = EDGE_FALL;
	      continue;
	    }
	  r = bound_step (f, prev, &p);
	  if (r < 0)
	    return 0;
	  if (r > 0)
	    {
	      bound = bound > r ? bound : (uint32_t) r;
	      break;
	    }
	  p.at -= 4;
	}
    }
  return bound;
}

/* The target of table word WORD.  */

static uint32_t
table_target (const struct mips_object *obj, const struct jump_table *t,
	      uint32_t word)
{
  return t->kind == TABLE_GPREL ? obj->gp + word
	 : t->kind == TABLE_LABEL ? t->label + word : word;
}

/* True if the value that DEF puts in REG reaches the instruction at ADD,
   directly or through stack spills (DEPTH levels at most).  */

static bool
value_reaches (struct finder *f, const struct insn *def, unsigned reg,
	       uint32_t add, int depth)
{
  bool ok = true, found = false;
  size_t n;
  const struct insn **use = readers (f, def, reg, &n, &ok);

  for (size_t i = 0; !found && i < n; i++)
    {
      const struct insn *u = use[i];
      if (u->addr == add)
	found = true;
      else if (depth > 0 && u->op == OP_SW && u->rs == REG_SP && u->rt == reg
	       && regflow_follow_slot (f->rf, u) && f->rf->n_uses > 0)
	{
	  size_t m = f->rf->n_uses;
	  const struct insn **reloads = malloc (m * sizeof *reloads);
	  if (reloads == NULL)
	    break;
	  memcpy (reloads, f->rf->uses, m * sizeof *reloads);
	  for (size_t k = 0; !found && k < m; k++)
	    if (reloads[k]->rt != REG_ZERO)
	      found = value_reaches (f, reloads[k], reloads[k]->rt, add,
				     depth - 1);
	  free (reloads);
	}
    }
  free (use);
  return found;
}

/* The label of T when the GOT references of the function [LO, HI) that
   write T's label register all compute the same code address: compiled
   code keeps the base label of its computed gotos in one register, set
   once, and reaches its uses through the computed gotos themselves,
   whose targets a walk does not know.  0 if there is no such reference
   or they disagree.  */

static uint32_t
only_writer_label (struct finder *f, const struct jump_table *t, uint32_t lo,
		   uint32_t hi)
{
  uint32_t label = 0;

  for (size_t k = 0; k < f->table->n_entries; k++)
    {
      const struct reloc_entry *e = &f->table->entries[k];
      const struct insn *p;
      if (e->type != RELOC_GOT_REF || e->aux < lo || e->aux >= hi)
	continue;
      p = code_insn_at (f->code, e->aux);
      if (p == NULL || p->rt != t->label_reg)
	continue;
      if (label != 0 && label != e->target)
	return 0;
      label = e->target;
    }
  return label;
}

/* The code label that register T->label_reg holds at T's addu: the
   target of a GOT reference of the same function whose value reaches
   the addu in that register.  0 if there is none, or several different
   ones.  */

static uint32_t
find_label (struct finder *f, const struct jump_table *t)
{
  uint32_t lo, hi, label = 0;

  function_bounds (f, t->add, &lo, &hi);
  for (size_t k = 0; k < f->table->n_entries; k++)
    {
      const struct reloc_entry *e = &f->table->entries[k];
      const struct insn *addiu;
      if (e->type != RELOC_GOT_REF || e->aux < lo || e->aux >= hi
	  || e->target == label)
	continue;
      addiu = code_insn_at (f->code, e->aux);
      if (addiu == NULL || !value_reaches (f, addiu, addiu->rt, t->add, 2))
	continue;
      if (label != 0)
	return 0;
      label = e->target;
    }
  if (label == 0)
    label = only_writer_label (f, t, lo, hi);
  return label;
}

/* Enter every element of each table found.  The number of elements is
   the bound of the switch's range check when one is found and all its
   elements are code addresses; else the run of elements that lead into
   the function of the jr, up to the next table.  */

static bool
emit_tables (struct finder *f)
{
  const struct mips_object *obj = f->obj;
  bool ok = true;

  for (size_t i = 0; ok && i < f->n_tables; i++)
    {
      struct jump_table *t = &f->tables[i];
      uint32_t lo = 0, hi = UINT32_MAX, limit = UINT32_MAX;

      if (t->kind == TABLE_LABEL)
	{
	  t->label = find_label (f, t);
	  if (t->label == 0)
	    continue;
	}
      uint32_t count = 0, bound, all_code = 0;
      bool proven;

      function_bounds (f, t->jr, &lo, &hi);
      for (size_t k = 0; k < f->n_tables; k++)
	if (f->tables[k].base > t->base && f->tables[k].base < limit)
	  limit = f->tables[k].base;

      for (uint32_t a = t->base; a < limit; a += 4)
	{
	  uint32_t word, target;
	  if (!object_read_word (obj, a, &word))
	    break;
	  target = table_target (obj, t, word);
	  if (target < lo || target >= hi || (target & 3)
	      || !object_is_code (obj, target))
	    break;
	  count++;
	}
      /* A proven bound extends the scan, never shortens it: the words
	 after a bounded table that still look like its entries are
	 entries of a table that shares its jump, or of the next.  The
	 index may reach further than the table (a mask of 7 bits over
	 83 cases) as long as no word it reaches there holds a code
	 address: the program would not go there either.  */
      bound = prove_bound (f, t);
      proven = bound != 0;
      for (uint32_t k = 0; proven && k < bound; k++)
	{
	  uint32_t word;
	  bool code = object_read_word (obj, t->base + 4 * k, &word)
		      && object_is_code (obj, table_target (obj, t, word));
	  if (code && all_code == k)
	    all_code++;
	  else if (code)
	    proven = false;
	}
      if (proven && all_code > count)
	count = all_code;

      for (uint32_t k = 0; ok && k < count; k++)
	{
	  struct reloc_entry e = { 0 };
	  uint32_t word;
	  object_read_word (obj, t->base + 4 * k, &word);
	  e.type = RELOC_JUMP_TABLE;
	  e.via = t->kind == TABLE_GPREL ? VIA_GPREL
		  : t->kind == TABLE_LABEL ? VIA_LABEL : VIA_ABS;
	  e.base = t->label;
	  e.addr = t->base + 4 * k;
	  e.target = table_target (obj, t, word);
	  e.aux = t->base;
	  e.aux2 = t->jr;
	  e.info = count;
	  e.index = t->kind == TABLE_GPREL ? t->add : 0;
	  e.flags = proven ? 0 : RELOC_F_UNPROVEN;
	  ok = reloc_table_add (f->table, &e);
	}
    }
  return ok;
}

/* One pass of find_code_refs, walking with RF, which knows the targets
   of the switch tables in the second pass.  */

static bool
find_code_refs_1 (const struct mips_object *obj, const struct code *code,
		  struct reloc_table *table, struct regflow *rf)
{
  struct finder f = { 0 };
  bool pic = (obj->e_flags & EF_MIPS_PIC) != 0 || obj->e_type == ET_DYN;
  uint32_t local_end = obj->got_addr + 4 * obj->dyn.local_gotno;
  uint32_t global_end = local_end + 4 * (obj->dyn.symtabno > obj->dyn.gotsym
					 ? obj->dyn.symtabno - obj->dyn.gotsym
					 : 0);
  bool ok = true;

  f.obj = obj;
  f.code = code;
  f.table = table;
  f.rf = rf;
  f.slot_done = calloc (obj->dyn.local_gotno + 1, 1);
  f.funcs = function_entries (table, &f.n_funcs);
  if (f.slot_done == NULL || f.funcs == NULL)
    {
      free (f.slot_done);
      free (f.funcs);
      return false;
    }
  /* Slots already entered by their value alone.  */
  for (size_t i = 0; i < table->n_entries; i++)
    if (table->entries[i].type == RELOC_GOT
	&& table->entries[i].index < obj->dyn.local_gotno)
      f.slot_done[table->entries[i].index] = 1;

  for (size_t s = 0; ok && s < code->n_sections; s++)
    {
      const struct insn_section *sec = &code->sections[s];
      for (size_t i = 0; ok && i < sec->n_insns; i++)
	{
	  const struct insn *insn = &sec->insns[i];
	  if (insn->op == OP_LW && insn->rs == REG_GP && insn->rt != REG_ZERO
	      && insn->rt != REG_GP)
	    {
	      uint32_t slot = obj->gp + (uint32_t) insn->imm, value;
	      if (slot >= local_end && slot < global_end
		  && object_got_entry (obj, (slot - obj->got_addr) / 4,
				       &value))
		{
		  /* A global entry: the symbol's address (of its lazy
		     stub when undefined), the new one once ld.so has
		     read .dynsym.  */
		  ok = note_value (&f, insn, insn->rt, value);
		  continue;
		}
	      if (slot < obj->got_addr || slot >= local_end
		  || !object_got_entry (obj, (slot - obj->got_addr) / 4,
					&value))
		continue;
	      ok = follow_constant (&f, insn, insn->rt, value, slot,
				    insn->addr);
	    }
	  else if (!pic && insn->op == OP_LUI && insn->rt != REG_ZERO
		   && insn->rt != REG_GP)
	    ok = follow_constant (&f, insn, insn->rt,
				  (uint32_t) insn->imm << 16, 0, insn->addr);
	}
    }
  if (ok)
    ok = follow_spills (&f);
  if (ok)
    ok = emit_tables (&f);
  free (f.branch_in);
  free (f.entered);
  free (f.seen);
  free (f.tables);
  free (f.slot_done);
  free (f.spills);
  free (f.funcs);
  return ok;
}

static int
compare_edges (const void *pa, const void *pb)
{
  const uint32_t *a = pa, *b = pb;

  if (a[0] != b[0])
    return a[0] < b[0] ? -1 : 1;
  return a[1] < b[1] ? -1 : a[1] > b[1];
}

/* Find GOT references, switch tables, GOT slots used as code pointers
   and non-PIC address pairs.  A value that a switch carries into one of
   its cases can only be followed once the switch's table is known, so
   a first pass finds the tables and a second pass, walking through
   them, finds everything; the first pass's entries are dropped.  */

bool
find_code_refs (const struct mips_object *obj, const struct code *code,
		struct reloc_table *table)
{
  size_t keep = table->n_entries, keep_values = table->n_values, n_edges = 0;
  uint32_t (*edges)[2] = NULL;
  struct regflow rf;
  bool ok;

  /* The second pass follows registers through the switch tables the
     first one found; the walks of the first that met no indirect jump
     are kept for it.  */
  ok = regflow_init (&rf, code) && find_code_refs_1 (obj, code, table, &rf);
  if (ok)
    edges = malloc ((table->n_entries - keep + 1) * sizeof *edges);
  if (edges == NULL)
    {
      regflow_free (&rf);
      return false;
    }
  for (size_t i = keep; i < table->n_entries; i++)
    {
      const struct reloc_entry *e = &table->entries[i];
      if (e->type == RELOC_JUMP_TABLE)
	{
	  edges[n_edges][0] = e->aux2;
	  edges[n_edges][1] = e->target;
	  n_edges++;
	}
    }
  qsort (edges, n_edges, sizeof *edges, compare_edges);
  for (size_t i = keep; i < table->n_entries; i++)
    table->n_by_type[table->entries[i].type]--;
  table->n_entries = keep;
  table->n_values = keep_values;
  regflow_set_jump_edges (&rf, (const uint32_t (*)[2]) edges, n_edges);
  ok = find_code_refs_1 (obj, code, table, &rf);
  regflow_free (&rf);
  free (edges);
  return ok;
}
