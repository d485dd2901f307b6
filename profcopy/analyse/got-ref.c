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
   the instruction of the step before.  The tables found go to
   jump-tables.c, which proves their bounds and enters their words; the
   references found wait in settle.c until no other value is seen to
   reach them.  */

#include <config.h>

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "object.h"
#include "insn.h"
#include "mips-ops.h"
#include "regflow.h"
#include "reloc-finders.h"
#include "finder.h"

bool
is_addu (const struct insn *insn)
{
  return insn->op == 0 && (insn->word & 0x3f) == FUNCT_ADDU;
}

/* If INSN copies a register to another (`move`: addu or or with zero),
   return the source register, else 0.  */

unsigned
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

/* A malloc'd copy of the readers that the walk of RF just made found
   (the walker's own list is reused by nested walks), or NULL with *N
   zero when there are none or on failure: WALKED false (the walk's) or
   no memory, which also set *OK false.  */

const struct insn **
copy_readers (const struct regflow *rf, bool walked, size_t *n, bool *ok)
{
  const struct insn **copy;

  *n = 0;
  if (!walked)
    {
      *ok = false;
      return NULL;
    }
  if (rf->n_uses == 0)
    return NULL;
  copy = malloc (rf->n_uses * sizeof *copy);
  if (copy == NULL)
    {
      *ok = false;
      return NULL;
    }
  memcpy (copy, rf->uses, rf->n_uses * sizeof *copy);
  *n = rf->n_uses;
  return copy;
}

/* Run a walk of REG from DEF and return a malloc'd copy of the readers
   (copy_readers).  */

const struct insn **
readers (struct finder *f, const struct insn *def, unsigned reg, size_t *n,
	 bool *ok)
{
  return copy_readers (f->rf, regflow_follow (f->rf, def, reg), n, ok);
}

/* Make EP's base a table of the jump at JR, unless the sum of its
   address and the index came from a stack slot (EP->spill) that
   another store may have written: the jump may read another table
   then, and its addu of gp stays unexplained
   (analysis_unknown_entries).  False when out of memory.  */

static bool
add_table (struct finder *f, const struct entry_path *ep, uint32_t jr)
{
  bool ok = true;

  for (size_t i = 0; i < f->n_tables; i++)
    if (f->tables[i].base == ep->base && f->tables[i].jr == jr)
      return true;
  if (ep->spill[0] != 0
      && reload_sees_other_store (f, code_insn_at (f->code, ep->spill[0]),
				  code_insn_at (f->code, ep->spill[1]), &ok))
    return ok;
  if (!array_room (&f->tables, &f->alloc_tables, f->n_tables,
		   sizeof *f->tables, 64))
    return false;
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
	  if (other == REG_GP
	      || reloc_table_holds_gp (f->table, u->addr, other))
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

static bool follow_indexed_spill (struct finder *f, const struct insn *store,
				  uint32_t c, uint32_t add,
				  unsigned index_reg);

/* REG, set by DEF, holds the constant C plus an index: the sum that
   the addu at ADD of the table's address and the index register
   INDEX_REG made.  A load through it reads an element of the table at
   C plus the load's offset.  The sum may wait in a stack slot once
   (SPILL, the store and the reload, then): perl's S_regmatch computes
   it before a loop and reloads it at each turn's jump.  */

static bool
follow_indexed (struct finder *f, const struct insn *def, unsigned reg,
		uint32_t c, uint32_t add, unsigned index_reg,
		const uint32_t spill[2])
{
  bool ok = true;
  size_t n;
  const struct insn **use = readers (f, def, reg, &n, &ok);

  for (size_t i = 0; ok && i < n; i++)
    {
      const struct insn *u = use[i];
      if (u->op == OP_LW && u->rs == reg && u->rt != REG_ZERO
	  && u->rt != REG_SP)
	{
	  struct entry_path ep = { c + (uint32_t) u->imm, TABLE_ABS, 0, 0,
				   add, index_reg, { 0, 0 } };
	  if (spill != NULL)
	    memcpy (ep.spill, spill, sizeof ep.spill);
	  ok = follow_entry (f, u, u->rt, &ep, ENTRY_HOPS);
	}
      else if (spill == NULL && u->op == OP_SW && u->rs == REG_SP
	       && u->rt == reg)
	ok = follow_indexed_spill (f, u, c, add, index_reg);
    }
  free (use);
  return ok;
}

/* The sum of follow_indexed waits in the stack slot that STORE writes:
   follow it from every reload in STORE's function.  Whether another
   store reaches the reload is asked only of a reload that leads to a
   table's jump (add_table).  */

static bool
follow_indexed_spill (struct finder *f, const struct insn *store,
		      uint32_t c, uint32_t add, unsigned index_reg)
{
  const struct insn **reloads;
  uint32_t lo, hi;
  size_t m;
  bool ok = true;

  if (!function_span (f, store->addr, &lo, &hi))
    return true;
  if (!regflow_follow_slot (f->rf, store))
    return false;
  m = f->rf->n_uses;
  if (m == 0)
    return true;
  reloads = malloc (m * sizeof *reloads);
  if (reloads == NULL)
    return false;
  memcpy (reloads, f->rf->uses, m * sizeof *reloads);
  for (size_t k = 0; ok && k < m; k++)
    {
      const struct insn *r = reloads[k];
      uint32_t spill[2] = { store->addr, r->addr };
      if (r->rt == REG_ZERO || r->rt == REG_SP || r->addr < lo
	  || r->addr >= hi)
	continue;
      ok = follow_indexed (f, r, r->rt, c, add, index_reg, spill);
    }
  free (reloads);
  return ok;
}

/* Record that the local GOT slot at SLOT_ADDR (index I) holds the text
   address VALUE used as a code pointer.  */

static bool
add_got_slot (struct finder *f, uint32_t i, uint32_t slot_addr,
	      uint32_t value)
{
  struct reloc_entry e = { 0 };

  if (i >= f->n_slot_done || f->slot_done[i])
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
  if (!array_room (&f->spills, &f->alloc_spills, f->n_spills,
		   sizeof *f->spills, 64))
    return false;
  f->spills[f->n_spills].store = store->addr;
  f->spills[f->n_spills].value = c;
  f->spills[f->n_spills].slot_addr = slot_addr;
  f->spills[f->n_spills].origin = origin;
  f->n_spills++;
  return true;
}

/* Enter the code reference of the addiu USE to the GOT page or %hi C,
   loaded first by ORIGIN (from the GOT slot SLOT_ADDR, 0 for a lui).  */

bool
enter_code_ref (struct finder *f, const struct insn *use, uint32_t c,
		uint32_t slot_addr, uint32_t origin)
{
  uint32_t t = c + (uint32_t) use->imm;
  struct reloc_entry e = { 0 };

  e.type = slot_addr != 0 ? RELOC_GOT_REF : RELOC_HI_LO;
  e.addr = origin;
  e.target = t;
  e.aux = use->addr;
  e.aux2 = c;
  e.index = slot_addr;
  e.info = t - slot_addr;
  if (!reloc_table_add (f->table, &e))
    return false;
  /* The copy keeps the addresses that pairs build (plan_got).  */
  if (slot_addr == 0 && use->rt != REG_T9)
    return true;
  return use->rt == REG_ZERO || note_value (f, use, use->rt, t);
}

static bool
add_pending (struct finder *f, const struct insn *def, unsigned reg,
	     const struct insn *use, uint32_t c, uint32_t slot_addr,
	     uint32_t origin)
{
  struct pending_ref *p;

  if (!array_room (&f->pending, &f->alloc_pending, f->n_pending,
		   sizeof *f->pending, 64))
    return false;
  p = &f->pending[f->n_pending++];
  p->def = def;
  p->use = use;
  p->reg = reg;
  p->c = c;
  p->slot_addr = slot_addr;
  p->origin = origin;
  return true;
}

/* Whether the code address T that a lui/addiu pair builds starts a
   function: a known entry, an absolute gp set-up (`lui gp,%hi(_gp)',
   the abicalls code of an executable that is not PIE), or the word
   after a return's delay slot.  pandoc hands libc a function of its
   runtime that no symbol names, at 0xdf3dd14, which starts so; the
   stripped non-PIC fnvalue gives qsort a comparison that only follows
   the function before it.  */

static bool
pair_entry (const struct finder *f, uint32_t t)
{
  const struct insn *first = code_insn_at (f->code, t);
  const struct insn *ret = t >= 8 ? code_insn_at (f->code, t - 8) : NULL;

  if (known_entry (f, t))
    return true;
  if (first != NULL && first->op == OP_LUI && first->rt == REG_GP
      && ((uint32_t) first->imm & 0xffff)
	 == (((f->obj->gp + 0x8000) >> 16) & 0xffff))
    return true;
  return ret != NULL && ret->kind == INSN_RETURN;
}

/* REG, set by DEF, holds the constant C, first loaded by the
   instruction at ORIGIN: a GOT load when SLOT_ADDR is not 0, else a
   lui.  A store of REG to the stack is followed from its reloads.
   A code address put in any register but t9 waits in F's pending list
   until every spill is known (settle_pending).  MAYBE: REG may also
   hold another value (a reload that another store reaches too,
   reload_sees_other): no code address is entered but one put in t9,
   since a code reference the copy changed in a pointer that
   was not one breaks the program, while one left alone is translated
   where it is jumped to; an address in t9 is the entry of a function
   that computes its gp from it, which must be the copy's.  */

static bool
follow_constant (struct finder *f, const struct insn *def, unsigned reg,
		 uint32_t c, uint32_t slot_addr, uint32_t origin, bool maybe)
{
  uint32_t lo, hi;
  bool have_span;
  const struct mips_object *obj = f->obj;
  bool ok = true;
  size_t n;
  const struct insn **use;

  /* A GOT slot that holds a whole code address (a function that binds
     locally) gives the address itself.  */
  if (slot_addr != 0 && (c & 0xffff) != 0 && !maybe
      && !note_value (f, def, reg, c))
    return false;
  have_span = function_span (f, def->addr, &lo, &hi);
  use = readers (f, def, reg, &n, &ok);
  for (size_t i = 0; ok && i < n; i++)
    {
      const struct insn *u = use[i];
      /* A register's value does not live on into another function: a
	 walk that went there (through a tail jump or a table's words,
	 past the break after a call that does not return) meets another
	 value.  */
      bool in_function = have_span && u->addr >= lo && u->addr < hi;
      bool elsewhere = have_span && !in_function;

      if (u->op == OP_ADDIU && u->rs == reg)
	{
	  uint32_t t = c + (uint32_t) u->imm;

	  /* Only a 64 KiB page plus %lo is a GOT reference: a local entry
	     that holds a whole address (a function that binds locally) is
	     used as it is, and an addiu to it is arithmetic on a pointer.  */
	  if (object_is_code (obj, t) && (t & 3) == 0 && (c & 0xffff) == 0)
	    {
	      if (elsewhere)
		continue;
	      /* A lui/addiu pair builds constants of every kind: one that
		 happens to equal a code address (cc1: 0xec0400, a bit
		 field or-ed into a word) is one only when it is called or
		 a function starts there.  */
	      if (slot_addr == 0 && u->rt != REG_T9 && !pair_entry (f, t))
		continue;
	      if (u->rt == REG_T9)
		ok = enter_code_ref (f, u, c, slot_addr, origin);
	      else if (!maybe)
		ok = add_pending (f, def, reg, u, c, slot_addr, origin);
	      else
		ok = reloc_table_add_unsure (f->table, t);
	    }
	  else if (u->rt != REG_ZERO)
	    {
	      /* A full data address: perhaps a table base.  */
	      size_t m;
	      const struct insn **use2 = readers (f, u, u->rt, &m, &ok);
	      for (size_t k = 0; ok && k < m; k++)
		if (is_addu (use2[k]) && use2[k]->rd != REG_ZERO)
		  ok = follow_indexed (f, use2[k], use2[k]->rd, t,
				       use2[k]->addr,
				       use2[k]->rs == u->rt ? use2[k]->rt
				       : use2[k]->rs, NULL);
		else if (use2[k]->op == OP_SW && use2[k]->rs == REG_SP
			 && use2[k]->rt == u->rt && !is_reload (def))
		  ok = add_spill (f, use2[k], t, 0, origin);
	      free (use2);
	    }
	}
      else if (is_addu (u) && u->rd != REG_ZERO)
	ok = follow_indexed (f, u, u->rd, c, u->addr,
			     u->rs == reg ? u->rt : u->rs, NULL);
      /* Another function's store of the register is not a spill of
	 the constant (fd-find: a load of s4, walked on into the next
	 function and further).  */
      else if (u->op == OP_SW && u->rs == REG_SP && u->rt == reg)
	{
	  if (!elsewhere)
	    ok = add_spill (f, u, c, slot_addr, origin);
	}
      /* A jump through the slot's value makes it a function's address
	 that the copy must move.  A page is one only if a function starts
	 there and the jump is in the load's own function: a walk cut
	 across a noreturn call or a path the program never takes met a
	 register that holds another value there (fd-find: pages 0xc0000
	 and 0x20000, in the middle of functions, were moved, and every
	 %lo reference through them went astray).  Not a page of a
	 secondary GOT, which the copy leaves as it is (plan_got's
	 moved_pages are the primary GOT's).  */
      else if (slot_addr != 0 && !maybe
	       && (u->kind == INSN_IJUMP || u->kind == INSN_ICALL)
	       && u->rs == reg && object_is_code (obj, c)
	       && ((c & 0xffff) != 0
		   || (known_entry (f, c) && in_function
		       && slot_addr - obj->got_addr < obj->got_primary)))
	ok = add_got_slot (f, (slot_addr - obj->got_addr) / 4, slot_addr, c);
    }
  free (use);
  return ok;
}

/* Sorted, unique function entries known so far, for bounding tables.  */

uint32_t *
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
  qsort (v, k, sizeof *v, array_compare_u32);
  *n = k;
  return v;
}

/* The number of the sorted entries V (N of them) at or before ADDR.  */

size_t
entries_upto (const uint32_t *v, size_t n, uint32_t addr)
{
  size_t a = 0, b = n;

  while (a < b)
    {
      size_t mid = a + (b - a) / 2;
      if (v[mid] <= addr)
	a = mid + 1;
      else
	b = mid;
    }
  return a;
}

/* Whether ADDR is a function entry known so far.  */

bool
known_entry (const struct finder *f, uint32_t addr)
{
  size_t a = entries_upto (f->funcs, f->n_funcs, addr);

  return a > 0 && f->funcs[a - 1] == addr;
}

/* The bounds [*LO, *HI) of the function around ADDR, as far as the
   entries known so far tell.  */

void
function_bounds (const struct finder *f, uint32_t addr, uint32_t *lo,
		 uint32_t *hi)
{
  size_t a = entries_upto (f->funcs, f->n_funcs, addr);

  *lo = a > 0 ? f->funcs[a - 1] : 0;
  *hi = a < f->n_funcs ? f->funcs[a] : UINT32_MAX;
}

/* The function around ADDR, as function_bounds, clipped to ADDR's code
   section; false when ADDR is in none.  */

bool
function_span (const struct finder *f, uint32_t addr, uint32_t *lo,
	       uint32_t *hi)
{
  const struct insn_section *sec = NULL;

  for (size_t s = 0; s < f->code->n_sections; s++)
    if (addr >= f->code->sections[s].start
	&& addr < f->code->sections[s].end)
      sec = &f->code->sections[s];
  if (sec == NULL)
    return false;
  function_bounds (f, addr, lo, hi);
  if (*lo < sec->start)
    *lo = sec->start;
  if (*hi > sec->end)
    *hi = sec->end;
  return true;
}

/* Follow each constant stored to the stack from every reload that can
   see the store (for code addresses, only the store:
   reload_sees_other).  gcc spills a
   GOT page or a switch table's address this way when registers run
   short.  Walks can add spills; the loop takes those too.  */

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
      uint32_t lo, hi;
      bool have_span;

      if (store == NULL)
	continue;
      have_span = function_span (f, store->addr, &lo, &hi);
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
	  {
	    /* A slot is one of the store's frame: a walk that left its
	       function (through a tail jump or a table's words) meets
	       another function's slot.  */
	    if (have_span
		&& (reloads[k]->addr < lo || reloads[k]->addr >= hi))
	      continue;
	    bool maybe = reload_sees_other (f, sp.value, sp.slot_addr,
					    reloads[k], &ok);
	    if (ok)
	      ok = follow_constant (f, reloads[k], reloads[k]->rt, sp.value,
				    sp.slot_addr, sp.origin, maybe);
	  }
      free (reloads);
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
  /* Only a fixed-address program builds code addresses with luis.  */
  bool fixed = obj->e_type != ET_DYN;
  bool ok = true;
  size_t first = table->n_entries;

  f.obj = obj;
  f.code = code;
  f.table = table;
  f.rf = rf;
  /* The GOT's words that the file holds (its size may come from the
     dynamic section alone).  */
  f.n_slot_done = obj->got_size / 4 < obj->size / 4 ? obj->got_size / 4
		  : (uint32_t) (obj->size / 4);
  f.slot_done = calloc (f.n_slot_done + 1, 1);
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
	&& table->entries[i].index < obj->dyn.local_gotno
	&& table->entries[i].index < f.n_slot_done)
      f.slot_done[table->entries[i].index] = 1;

  for (size_t s = 0; ok && s < code->n_sections; s++)
    {
      const struct insn_section *sec = &code->sections[s];
      for (size_t i = 0; ok && i < sec->n_insns; i++)
	{
	  const struct insn *insn = &sec->insns[i];
	  if (insn->op == OP_LW && insn->rt != REG_ZERO && insn->rt != REG_GP
	      && (insn->rs == REG_GP
		  || reloc_table_holds_gp (table, insn->addr, insn->rs)))
	    {
	      uint32_t slot = reloc_table_gp_at (table, insn->addr)
			      + (uint32_t) insn->imm, value, primary;
	      enum got_slot_kind kind = object_got_slot (obj, slot, &value,
							 &primary);
	      if (kind == GOT_SLOT_GLOBAL)
		{
		  /* A global entry: the symbol's address (of its lazy
		     stub when undefined), the new one once ld.so has
		     read .dynsym.  */
		  ok = note_value (&f, insn, insn->rt, value);
		  continue;
		}
	      if (kind != GOT_SLOT_LOCAL)
		continue;
	      ok = follow_constant (&f, insn, insn->rt, value, slot,
				    insn->addr, false);
	    }
	  else if (fixed && insn->op == OP_LUI && insn->rt != REG_ZERO
		   && insn->rt != REG_GP)
	    ok = follow_constant (&f, insn, insn->rt,
				  (uint32_t) insn->imm << 16, 0, insn->addr, false);
	}
    }
  if (ok)
    ok = follow_spills (&f);
  if (ok)
    ok = settle_pending (&f);
  if (ok)
    ok = drop_conflicts (table, first);
  if (ok)
    ok = emit_tables (&f);
  free (f.branch_in);
  free (f.entered);
  free (f.seen);
  free (f.tables);
  free (f.slot_done);
  free (f.spills);
  free (f.pending);
  free (f.funcs);
  for (unsigned r = 0; r < 32; r++)
    {
      free (f.writers[r].by_use);
      free (f.writers[r].cut);
    }
  return ok;
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
  size_t keep_unsure = table->n_unsure;
  uint32_t (*edges)[2] = NULL;
  struct regflow rf;
  bool ok;

  /* The second pass follows registers through the switch tables the
     first one found; the walks of the first that met no indirect jump
     are kept for it.  */
  ok = regflow_init (&rf, code) && find_gp_bases (code, table, &rf)
       && find_code_refs_1 (obj, code, table, &rf);
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
  qsort (edges, n_edges, sizeof *edges, array_compare_u32_pairs);
  for (size_t i = keep; i < table->n_entries; i++)
    table->n_by_type[table->entries[i].type]--;
  table->n_entries = keep;
  table->n_values = keep_values;
  table->n_unsure = keep_unsure;
  regflow_set_jump_edges (&rf, (const uint32_t (*)[2]) edges, n_edges);
  table->n_gp_bases = 0;
  ok = find_gp_bases (code, table, &rf)
       && find_code_refs_1 (obj, code, table, &rf);
  regflow_free (&rf);
  free (edges);
  return ok;
}
