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
#include "regflow.h"
#include "reloc-finders.h"

#define OP_ADDIU	0x09
#define OP_LUI		0x0f
#define OP_LW		0x23
#define OP_SLTIU	0x0b
#define OP_SW		0x2b
#define FUNCT_ADDU	0x21

/* How far back from a table's jr to look for the bound check.  */
#define BOUND_LOOKBACK	48

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
  uint32_t add;			/* TABLE_LABEL: the addu of the label.  */
  unsigned label_reg;		/* TABLE_LABEL: the register with the label.  */
  uint32_t label;		/* TABLE_LABEL: the label, once found.  */
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
};

static bool
is_addu (const struct insn *insn)
{
  return insn->op == 0 && (insn->word & 0x3f) == FUNCT_ADDU;
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
add_table (struct finder *f, uint32_t base, uint32_t jr, enum table_kind kind,
	   uint32_t add, unsigned label_reg)
{
  for (size_t i = 0; i < f->n_tables; i++)
    if (f->tables[i].base == base && f->tables[i].jr == jr)
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
  f->tables[f->n_tables].base = base;
  f->tables[f->n_tables].jr = jr;
  f->tables[f->n_tables].kind = kind;
  f->tables[f->n_tables].add = add;
  f->tables[f->n_tables].label_reg = label_reg;
  f->tables[f->n_tables].label = 0;
  f->n_tables++;
  return true;
}

/* REG, set by DEF, holds a table element loaded from the table at BASE,
   as an address (KIND TABLE_ABS) or with gp or a label added (the addu
   at ADD, the label in LABEL_REG).  A jr of it makes BASE a table.  */

static bool
follow_entry (struct finder *f, const struct insn *def, unsigned reg,
	      uint32_t base, enum table_kind kind, uint32_t add,
	      unsigned label_reg)
{
  bool ok = true;
  size_t n;
  const struct insn **use = readers (f, def, reg, &n, &ok);

  for (size_t i = 0; ok && i < n; i++)
    {
      const struct insn *u = use[i];
      if (u->kind == INSN_IJUMP && u->rs == reg)
	ok = add_table (f, base, u->addr, kind, add, label_reg);
      else if (kind == TABLE_ABS && is_addu (u) && u->rd != REG_ZERO
	       && (u->rs == reg || u->rt == reg) && u->rs != u->rt)
	{
	  unsigned other = u->rs == reg ? u->rt : u->rs;
	  if (other == REG_GP)
	    ok = follow_entry (f, u, u->rd, base, TABLE_GPREL, 0, 0);
	  else if (other != REG_ZERO)
	    ok = follow_entry (f, u, u->rd, base, TABLE_LABEL, u->addr, other);
	}
    }
  free (use);
  return ok;
}

/* REG, set by DEF, holds the constant C plus an index.  A load through
   it reads an element of the table at C plus the load's offset.  */

static bool
follow_indexed (struct finder *f, const struct insn *def, unsigned reg,
		uint32_t c)
{
  bool ok = true;
  size_t n;
  const struct insn **use = readers (f, def, reg, &n, &ok);

  for (size_t i = 0; ok && i < n; i++)
    {
      const struct insn *u = use[i];
      if (u->op == OP_LW && u->rs == reg && u->rt != REG_ZERO)
	ok = follow_entry (f, u, u->rt, c + (uint32_t) u->imm, TABLE_ABS, 0, 0);
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
		  ok = follow_indexed (f, use2[k], use2[k]->rd, t);
		else if (use2[k]->op == OP_SW && use2[k]->rs == REG_SP
			 && use2[k]->rt == u->rt && !is_reload (def))
		  ok = add_spill (f, use2[k], t, 0, origin);
	      free (use2);
	    }
	}
      else if (is_addu (u) && u->rd != REG_ZERO)
	ok = follow_indexed (f, u, u->rd, c);
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

/* The bound N of `sltiu t,index,N` closest before JR, or 0.  */

static uint32_t
bound_check (const struct code *code, uint32_t jr)
{
  for (uint32_t k = 1; k <= BOUND_LOOKBACK && jr >= 4 * k; k++)
    {
      const struct insn *insn = code_insn_at (code, jr - 4 * k);
      if (insn == NULL)
	break;
      if (insn->op == OP_SLTIU)
	return (uint32_t) insn->imm & 0xffff;
      if (insn->kind == INSN_RETURN || insn->kind == INSN_IJUMP)
	break;
    }
  return 0;
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
      bound = bound_check (f->code, t->jr);
      for (uint32_t a = t->base; a < t->base + 4 * bound; a += 4)
	{
	  uint32_t word;
	  if (!object_read_word (obj, a, &word)
	      || !object_is_code (obj, table_target (obj, t, word)))
	    break;
	  all_code++;
	}
      if (bound != 0 && all_code == bound)
	count = bound;

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
