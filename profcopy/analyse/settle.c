/* settle.c -- whether a code reference that the walks found sees one
   value: the other writers of its register, the other stores to its
   stack slot, and the addius on which two addresses meet.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   got-ref.c finds an addiu that adds a %lo to a GOT page or a %hi
   that an instruction loaded, on some path.  Before the addiu is
   rewritten to build the copy's address, this file makes sure no other
   value of the register reaches it (settle_pending), and takes back the
   references on which two code addresses meet (drop_conflicts).  */

#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "object.h"
#include "insn.h"
#include "mips-ops.h"
#include "regflow.h"
#include "reloc-finders.h"
#include "finder.h"

/* Whether a store over the slot of the reload RELOAD in its function,
   other than those SAME accepts (with ARG), reaches it, or one that
   regflow cannot follow (a partial store), or the function is not
   known.  Uses and clobbers F's regflow; *OK false on allocation
   failure.  */

static bool
slot_sees_other (struct finder *f, const struct insn *reload,
		 bool (*same) (const struct finder *, const struct insn *,
			       const void *),
		 const void *arg, bool *ok)
{
  uint32_t lo, hi;
  const struct insn *first;

  *ok = true;
  if (!function_span (f, reload->addr, &lo, &hi))
    return true;
  /* The span is within one section, whose words are in order.  */
  first = code_insn_at (f->code, lo);
  for (uint32_t a = lo; first != NULL && a < hi; a += 4)
    {
      const struct insn *x = first + (a - lo) / 4;

      if (x->rs != REG_SP
	  || x->imm <= reload->imm - 4 || x->imm >= reload->imm + 4)
	continue;
      if (x->op == OP_SB || x->op == OP_SH || x->op == OP_SWL
	  || x->op == OP_SWR || (x->op == OP_SW && x->imm != reload->imm))
	return true;
      if (x->op != OP_SW || same (f, x, arg))
	continue;
      if (!regflow_follow_slot (f->rf, x))
	{
	  *ok = false;
	  return true;
	}
      for (size_t k = 0; k < f->rf->n_uses; k++)
	if (f->rf->uses[k] == reload)
	  return true;
    }
  return false;
}

/* The constant a spill of struct spill_key holds.  */

struct spill_key
{
  uint32_t value, slot_addr;
};

/* slot_sees_other's test: the store X is a known spill of the constant
   *ARG (a struct spill_key).  */

static bool
spills_value (const struct finder *f, const struct insn *x, const void *arg)
{
  const struct spill_key *key = arg;

  for (size_t i = 0; i < f->n_spills; i++)
    if (f->spills[i].store == x->addr && f->spills[i].value == key->value
	&& f->spills[i].slot_addr == key->slot_addr)
      return true;
  return false;
}

/* Whether the reload RELOAD may see another value than the constant
   VALUE of the GOT slot SLOT_ADDR (0: of a lui): another store over
   its slot in its function (one not known to spill the same constant)
   whose value can reach it, or one that regflow cannot follow (a
   partial store).  gcc
   gives one stack slot to several values whose lives do not overlap,
   and a loop brings the value of its last iteration's store back to
   the reload (Debian's libmp3lame: a data pointer was taken for a
   spilled GOT page plus %lo, and the copy passed a code address in
   its place).  Uses and clobbers F's regflow; *OK false on allocation
   failure.  */

bool
reload_sees_other (struct finder *f, uint32_t value, uint32_t slot_addr,
		   const struct insn *reload, bool *ok)
{
  struct spill_key key = { value, slot_addr };

  return slot_sees_other (f, reload, spills_value, &key, ok);
}

/* slot_sees_other's test: X is the store *ARG.  */

static bool
is_store (const struct finder *f, const struct insn *x, const void *arg)
{
  (void) f;
  return x == arg;
}

bool
reload_sees_other_store (struct finder *f, const struct insn *store,
			 const struct insn *reload, bool *ok)
{
  return slot_sees_other (f, reload, is_store, store, ok);
}

/* Fill F->writers[REG] for the function [LO, HI), whose first word is
   FIRST: which of its instructions that write REG reach which readers
   (regflow_follow_abi).  */

static bool
index_writers (struct finder *f, unsigned reg, uint32_t lo, uint32_t hi,
	       const struct insn *first)
{
  struct writer_index *wi = &f->writers[reg];

  wi->lo = wi->hi = 0;
  wi->n = wi->n_cut = 0;
  for (uint32_t a = lo; a < hi; a += 4)
    {
      const struct insn *x = first + (a - lo) / 4;

      if ((x->writes & REG_BIT (reg)) == 0 || x->kind != INSN_OTHER)
	continue;
      if (!regflow_follow_abi (f->rf, x, reg))
	return false;
      if (f->rf->truncated)
	{
	  if (!array_room (&wi->cut, &wi->alloc_cut, wi->n_cut,
			   sizeof *wi->cut, 16))
	    return false;
	  wi->cut[wi->n_cut++] = a;
	  continue;
	}
      for (size_t k = 0; k < f->rf->n_uses; k++)
	{
	  if (!array_room (&wi->by_use, &wi->alloc, wi->n,
			   sizeof *wi->by_use, 256))
	    return false;
	  wi->by_use[wi->n][0] = f->rf->uses[k]->addr;
	  wi->by_use[wi->n++][1] = a;
	}
    }
  qsort (wi->by_use, wi->n, sizeof *wi->by_use, array_compare_u32_pairs);
  wi->lo = lo;
  wi->hi = hi;
  return true;
}

/* Whether the writer X of REG, which reaches USE, gives it another
   value than DEF's constant C of the GOT slot SLOT_ADDR (0: of a
   lui); see reader_sees_other.  */

static bool
writer_is_other (struct finder *f, const struct insn *x,
		 const struct insn *def, uint32_t c, uint32_t slot_addr,
		 bool *ok)
{
  if (x == def)
    return false;
  /* A load of the same GOT slot or the same lui gives the same
     constant.  */
  if (slot_addr != 0 && x->op == OP_LW && x->rs == REG_GP
      && reloc_table_gp_at (f->table, x->addr) + (uint32_t) x->imm
	 == slot_addr)
    return false;
  if (slot_addr == 0 && x->op == OP_LUI && (uint32_t) x->imm << 16 == c)
    return false;
  if (is_reload (x))
    return reload_sees_other (f, c, slot_addr, x, ok) || !*ok;
  return true;
}

/* Whether USE, which reads REG as DEF set it to the constant C (of the
   GOT slot SLOT_ADDR, 0 for a lui), may also see another value of REG:
   another instruction of its function that writes REG reaches it (not
   the same load of the same constant, nor a reload of a slot that
   only holds it), or a walk was cut short.  Calls end the walks of the
   registers a callee may change (regflow_follow_abi): a value that
   lives on only through a call to a function that does not return is
   none.  The writers of REG in USE's function are indexed by the
   readers they reach once for all the references of the function
   (pandoc's code has functions of thousands of writers, and 400,000
   references).  Uses and clobbers F's regflow; *OK false on
   allocation failure.  */

static bool
reader_sees_other (struct finder *f, const struct insn *def, unsigned reg,
		   const struct insn *use, uint32_t c, uint32_t slot_addr,
		   bool *ok)
{
  uint32_t lo, hi;
  const struct insn *first;
  struct writer_index *wi = &f->writers[reg];
  size_t a, b;

  *ok = true;
  if (!function_span (f, use->addr, &lo, &hi))
    return true;
  /* The span is within one section, whose words are in order.  */
  first = code_insn_at (f->code, lo);
  if (first == NULL)
    return false;
  if ((wi->lo != lo || wi->hi != hi)
      && !index_writers (f, reg, lo, hi, first))
    {
      *ok = false;
      return true;
    }
  for (size_t k = 0; k < wi->n_cut; k++)
    if (writer_is_other (f, first + (wi->cut[k] - lo) / 4, def, c,
			 slot_addr, ok))
      return true;
  a = 0;
  b = wi->n;
  while (a < b)
    {
      size_t mid = a + (b - a) / 2;
      if (wi->by_use[mid][0] < use->addr)
	a = mid + 1;
      else
	b = mid;
    }
  for (; a < wi->n && wi->by_use[a][0] == use->addr; a++)
    if (writer_is_other (f, first + (wi->by_use[a][1] - lo) / 4, def, c,
			 slot_addr, ok))
      return true;
  return false;
}

/* Whether the value that DEF puts in REG is jumped to or called
   through, or put in t9 (where a function that a bal enters finds its
   own address), by a reader that surely sees it, itself or copied
   (DEPTH copies at most).  */

static bool
called_through (struct finder *f, const struct insn *def, unsigned reg,
		int depth, bool *ok)
{
  size_t n;
  bool called = false;
  const struct insn **use;

  *ok = true;
  use = copy_readers (f->rf, regflow_follow_abi (f->rf, def, reg), &n, ok);
  if (use == NULL)
    return false;
  for (size_t i = 0; *ok && !called && i < n; i++)
    {
      const struct insn *u = use[i];
      if ((u->kind == INSN_IJUMP || u->kind == INSN_ICALL) && u->rs == reg)
	called = true;
      else if (copy_source (u) == reg)
	called = u->rd == REG_T9
		 || (depth > 0 && called_through (f, u, u->rd, depth - 1, ok));
    }
  free (use);
  return called && *ok;
}

/* Enter the pending code references (struct pending_ref) whose addiu
   sees no other value of its register, or whose result is called or
   jumped to (the other value is then another way to the same page, or
   the path that brings it is not one: regflow does not know which
   calls never return; and a function entered by bal with its old
   address in t9 would compute a wrong gp).  A loop's own increment of
   the register brings its value back to the increment (Debian's
   coreutils tail: `lw s2,%got(x)(gp)` on one path into a loop, whose
   `addiu s2,s2,88` then looked like the GOT page plus the %lo of code,
   and the copy's changed addiu broke the loop); a reference left alone
   is translated where it is jumped to.  */

bool
settle_pending (struct finder *f)
{
  bool ok = true;

  for (size_t i = 0; ok && i < f->n_pending; i++)
    {
      const struct pending_ref *p = &f->pending[i];
      bool enter = !reader_sees_other (f, p->def, p->reg, p->use, p->c,
				       p->slot_addr, &ok);
      if (ok && !enter)
	enter = called_through (f, p->use, p->use->rt, 1, &ok);
      if (ok && enter)
	ok = enter_code_ref (f, p->use, p->c, p->slot_addr, p->origin);
      else if (ok)
	ok = reloc_table_add_unsure (f->table,
				     p->c + (uint32_t) p->use->imm);
    }
  return ok;
}

/* Drop the code references from entry FIRST of TABLE on whose addiu
   two different code addresses meet: a register that holds two GOT
   pages on two paths (one of which no run takes: regflow does not know
   which calls never return) with one %lo for both (Debian's fd-find).
   Neither can be rewritten; the addiu keeps the original address,
   which the jump through it translates.  */

bool
drop_conflicts (struct reloc_table *table, size_t first)
{
  uint32_t (*v)[2];
  size_t n = 0, k = first;

  v = malloc ((table->n_entries - first + 1) * sizeof *v);
  if (v == NULL)
    return false;
  for (size_t i = first; i < table->n_entries; i++)
    if (table->entries[i].type == RELOC_GOT_REF
	|| table->entries[i].type == RELOC_HI_LO)
      {
	v[n][0] = table->entries[i].aux;
	v[n][1] = table->entries[i].target;
	n++;
      }
  qsort (v, n, sizeof *v, array_compare_u32_pairs);
  /* Keep in V only the addius with two targets.  */
  {
    size_t m = 0;
    for (size_t i = 0; i + 1 < n; i++)
      if (v[i][0] == v[i + 1][0] && v[i][1] != v[i + 1][1]
	  && (m == 0 || v[m - 1][0] != v[i][0]))
	v[m++][0] = v[i][0];
    n = m;
  }
  if (n == 0)
    {
      free (v);
      return true;
    }
  for (size_t i = first; i < table->n_entries; i++)
    {
      const struct reloc_entry *e = &table->entries[i];
      bool drop = false;
      if (e->type == RELOC_GOT_REF || e->type == RELOC_HI_LO)
	{
	  size_t a = 0, b = n;
	  while (a < b)
	    {
	      size_t mid = a + (b - a) / 2;
	      if (v[mid][0] < e->aux)
		a = mid + 1;
	      else
		b = mid;
	    }
	  drop = a < n && v[a][0] == e->aux;
	}
      if (drop)
	table->n_by_type[e->type]--;
      else
	table->entries[k++] = *e;
    }
  table->n_entries = k;
  free (v);
  return true;
}
