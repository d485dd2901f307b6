/* gp-bases.c -- the loads and stores based on a register that holds
   gp from LLVM's prologue (struct reloc_table, gp_bases).

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   LLVM computes gp into any register X (`addu X,R,t9'), copies it,
   spills it and reloads it, and uses $28 as an ordinary register in
   such functions.  Every load and store whose base holds that value is
   a gp-relative access: the copy must give the global GOT entries
   among them their new offsets.  The walks follow X and its copies
   within X's function, through spills to slots that hold nothing else,
   and, where a function is longer than a walk, take X as gp throughout
   when nothing but the epilogue writes it.  */

#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "insn.h"
#include "mips-ops.h"
#include "regflow.h"
#include "reloc-finders.h"
#include "finder.h"

/* The state of find_gp_bases: the walker, the table it fills and the
   function entries known to it (sorted), which bound a frame.  */
struct gp_walk
{
  struct regflow *rf;
  struct reloc_table *table;
  const struct code *code;
  uint32_t *funcs;
  size_t n_funcs;
  uint32_t prologue;		/* The addu of the prologue being followed.  */
  uint64_t *whole;		/* (function start, register) pairs that
				   gp_register_of_function did.  */
  size_t n_whole, alloc_whole;
};

/* The bounds [*LO, *HI) of the function around ADDR among W's entries,
   clipped to ADDR's code section (the next entry may lie in another,
   gigabytes on in a malformed object); false when ADDR is before the
   first or after the last, or in no code section.  */

static bool
frame_span (const struct gp_walk *w, uint32_t addr, uint32_t *lo,
	    uint32_t *hi)
{
  size_t a = entries_upto (w->funcs, w->n_funcs, addr);
  const struct insn_section *sec = code_section_at (w->code, addr);

  if (a == 0 || a == w->n_funcs || sec == NULL)
    return false;
  *lo = w->funcs[a - 1] > sec->start ? w->funcs[a - 1] : sec->start;
  *hi = w->funcs[a] < sec->end ? w->funcs[a] : sec->end;
  return true;
}

/* The reloads of STORE's stack slot that another value than STORE's
   can reach: those of every other store over the slot in its function,
   as a malloc'd list (*N of them; NULL with *N zero when there are
   none).  *ALL: a partial or overlapping store, or a store outside the
   known functions, so that every reload may see another value.
   [*SPAN_LO, *SPAN_HI): the function.  A store in SAME (N_SAME of
   them) over the same slot stores STORE's value too and is not
   another.  False when out
   of memory.  Clobbers W's walker.  */

static bool
slot_others (struct gp_walk *w, const struct insn *store,
	     const struct insn *const *same, size_t n_same,
	     const struct insn ***list, size_t *n, bool *all,
	     uint32_t *span_lo, uint32_t *span_hi)
{
  uint32_t lo = 0, hi = 0;
  size_t room = 0;

  *list = NULL;
  *n = 0;
  *all = !frame_span (w, store->addr, &lo, &hi);
  *span_lo = lo;
  *span_hi = hi;
  for (uint32_t x = lo; !*all && x < hi; x += 4)
    {
      const struct insn *i = code_insn_at (w->code, x);
      if (i == NULL || i == store || i->rs != REG_SP
	  || (i->op != OP_SW && i->op != OP_SH && i->op != OP_SB
	      && i->op != OP_SWL && i->op != OP_SWR)
	  || i->imm <= store->imm - 4 || i->imm >= store->imm + 4)
	continue;
      bool is_same = false;
      for (size_t k = 0; k < n_same && !is_same; k++)
	is_same = same[k] == i && i->imm == store->imm;
      if (is_same)
	continue;
      if (i->op != OP_SW || i->imm != store->imm
	  || !regflow_follow_slot (w->rf, i))
	{
	  *all = true;
	  break;
	}
      for (size_t k = 0; k < w->rf->n_uses; k++)
	{
	  if (!array_room ((void **) list, &room, *n, sizeof **list, 16))
	    {
	      free (*list);
	      *list = NULL;
	      return false;
	    }
	  (*list)[(*n)++] = w->rf->uses[k];
	}
    }
  return true;
}

/* Whether U reads REG as the base of a load, store or addiu, or adds it
   to another register.  */

static bool
reads_as_base (const struct insn *u, unsigned reg)
{
  return ((u->op == OP_ADDIU || (u->op >= 0x20 && u->op <= 0x3f))
	  && u->rs == reg)
	 || (is_addu (u) && u->rs != u->rt && (u->rs == reg || u->rt == reg));
}

static bool
add_gp_base (struct gp_walk *w, const struct insn *u, unsigned reg)
{
  if (!array_room (&w->table->gp_bases, &w->table->alloc_gp_bases,
		   w->table->n_gp_bases, sizeof *w->table->gp_bases, 256))
    return false;
  w->table->gp_bases[w->table->n_gp_bases++] = (uint64_t) u->addr << 8 | reg;
  return true;
}

/* When the walk of REG from DEF, LLVM's prologue addu, stopped at its
   step limit (a function longer than it: one of 160 KiB in Debian's
   fd-find), and nothing else in the function writes REG but reloads of
   the caller's value that the prologue saved (the epilogue), every
   reader of REG as a base in the function reads gp: record them.  */

static bool
gp_register_of_function (struct gp_walk *w, const struct insn *def,
			 unsigned reg)
{
  uint32_t lo, hi;

  if (reg == REG_GP || !frame_span (w, def->addr, &lo, &hi))
    return true;
  for (size_t k = 0; k < w->n_whole; k++)
    if (w->whole[k] == ((uint64_t) lo << 8 | reg))
      return true;
  if (!array_room (&w->whole, &w->alloc_whole, w->n_whole,
		   sizeof *w->whole, 16))
    return false;
  w->whole[w->n_whole++] = (uint64_t) lo << 8 | reg;
  for (uint32_t x = lo; x < hi; x += 4)
    {
      const struct insn *i = code_insn_at (w->code, x);
      bool restore = false;
      if (i == NULL || i->addr == w->prologue
	  || !(i->writes & REG_BIT (reg)))
	continue;
      if (i->op == OP_LW && i->rs == REG_SP)
	for (uint32_t y = lo; y < w->prologue && !restore; y += 4)
	  {
	    const struct insn *save = code_insn_at (w->code, y);
	    restore = save != NULL && save->op == OP_SW && save->rs == REG_SP
		      && save->rt == reg && save->imm == i->imm;
	  }
      if (!restore)
	return true;
    }
  for (uint32_t x = lo; x < hi; x += 4)
    {
      const struct insn *u = code_insn_at (w->code, x);
      if (u != NULL && u != def && reads_as_base (u, reg)
	  && !add_gp_base (w, u, reg))
	return false;
    }
  return true;
}

/* The stores among USE (the N readers of REG as DEF, the prologue's
   addu, sets it to gp) that put REG into a stack slot and can see no
   other value of REG: no other instruction of the function [LO, HI)
   that writes REG reaches them.  Each spills gp, and another of them
   over the same slot is not another value (LLVM stores the register
   that holds gp to one slot on each of two paths that meet at its
   reload: fd-find's 0x20db14 and 0x20db74, whose reload at 0x20dc44
   feeds a call through the old GOT's entry of memmove).  A malloc'd
   list, *N_SPILLS of them (NULL when none); *OK false when out of
   memory.  Clobbers W's walker.  */

static const struct insn **
gp_spills (struct gp_walk *w, const struct insn *def, unsigned reg,
	   const struct insn *const *use, size_t n, uint32_t lo, uint32_t hi,
	   size_t *n_spills, bool *ok)
{
  const struct insn **spills = NULL;
  size_t room = 0;

  *n_spills = 0;
  for (size_t i = 0; *ok && i < n; i++)
    {
      const struct insn *x = use[i];
      bool other = false;
      if (x->op != OP_SW || x->rs != REG_SP || x->rt != reg
	  || x->addr < lo || x->addr >= hi)
	continue;
      for (uint32_t a = lo; !other && a < hi; a += 4)
	{
	  const struct insn *y = code_insn_at (w->code, a);
	  if (y == NULL || y == def || !(y->writes & REG_BIT (reg)))
	    continue;
	  if (!regflow_follow (w->rf, y, reg))
	    {
	      *ok = false;
	      break;
	    }
	  other = w->rf->truncated;
	  for (size_t k = 0; k < w->rf->n_uses && !other; k++)
	    other = w->rf->uses[k] == x;
	}
      if (other || !*ok)
	continue;
      if (!array_room ((void **) &spills, &room, *n_spills, sizeof *spills,
		       4))
	{
	  *ok = false;
	  break;
	}
      spills[(*n_spills)++] = x;
    }
  if (!*ok)
    {
      free (spills);
      *n_spills = 0;
      return NULL;
    }
  return spills;
}

/* Record in W's table the loads and stores based on REG, which DEF sets
   to gp, and the addus that add it to another register (a gp-relative
   switch table's element), and follow its copies (DEPTH at most) but
   those into gp, and its reloads from a stack slot that holds nothing
   else (LLVM spills the register that holds gp and reuses it: Debian's
   ripgrep, whose calls through the reloaded register read the old
   GOT's offsets of global entries); of gp itself (LLVM's prologue into
   gp), only the copies and the reloads into other registers.  */

static bool
follow_gp_copy (struct gp_walk *w, const struct insn *def, unsigned reg,
		int depth)
{
  size_t n;
  bool ok = true;
  bool walked = regflow_follow (w->rf, def, reg);
  bool cut = walked && w->rf->truncated;
  const struct insn **use = copy_readers (w->rf, walked, &n, &ok);
  uint32_t f_lo = 0, f_hi = 0;
  bool have_span = frame_span (w, def->addr, &f_lo, &f_hi);
  const struct insn **spills = NULL;
  size_t n_spills = 0;

  if (cut && !gp_register_of_function (w, def, reg))
    ok = false;
  if (use == NULL)
    return ok;
  if (ok && have_span && def->addr == w->prologue)
    spills = gp_spills (w, def, reg, use, n, f_lo, f_hi, &n_spills, &ok);
  for (size_t i = 0; ok && i < n; i++)
    {
      const struct insn *u = use[i];
      unsigned to = copy_source (u) == reg ? u->rd : 0;
      /* gp does not live on in a register into another function: a
	 walk that falls out of DEF's (past the break after a call that
	 does not return) meets the other functions' values there.  In
	 fd-find, the walk of s7, which holds gp through a function of
	 42 KiB, ran on through the functions after it, to their
	 prologues' saves of s7 and to a vtable pointer in s7 (`lw
	 t9,0(s7)' at 0xbee50): taken for gp, the translation of the call
	 through it read the translation table off the vtable.  */
      if (have_span && (u->addr < f_lo || u->addr >= f_hi))
	continue;
      if (u->op == OP_SW && u->rs == REG_SP && u->rt == reg)
	{
	  size_t m;
	  const struct insn **back;
	  const struct insn **others = NULL;
	  size_t n_others = 0;
	  bool all = false;
	  uint32_t lo = 0, hi = 0;
	  if (depth <= 0)
	    continue;
	  back = copy_readers (w->rf, regflow_follow_slot (w->rf, u), &m,
			       &ok);
	  if (back != NULL && ok)
	    ok = slot_others (w, u, spills, n_spills, &others, &n_others,
			      &all, &lo, &hi);
	  for (size_t k = 0; ok && !all && k < m; k++)
	    {
	      bool seen = false;
	      if (back[k]->op != OP_LW || back[k]->rs != REG_SP
		  || back[k]->addr < lo || back[k]->addr >= hi
		  || back[k]->imm != u->imm || back[k]->rt == REG_ZERO
		  || back[k]->rt == REG_GP || back[k]->rt == REG_SP)
		continue;
	      for (size_t j = 0; j < n_others && !seen; j++)
		seen = others[j] == back[k];
	      if (!seen)
		ok = follow_gp_copy (w, back[k], back[k]->rt, depth - 1);
	    }
	  free (others);
	  free (back);
	}
      else if (reg == REG_GP)
	{
	  /* gp's own readers are known as such; its copies are not.  */
	  if (to != 0 && to != REG_GP && depth > 0)
	    ok = follow_gp_copy (w, u, to, depth - 1);
	}
      else if (reads_as_base (u, reg))
	ok = add_gp_base (w, u, reg);
      else if (to != 0 && to != REG_GP && depth > 0)
	ok = follow_gp_copy (w, u, to, depth - 1);
    }
  free (spills);
  free (use);
  return ok;
}

static int
compare_u64 (const void *pa, const void *pb)
{
  uint64_t a = *(const uint64_t *) pa, b = *(const uint64_t *) pb;

  return a < b ? -1 : a > b;
}

/* The loads and stores whose base holds gp from LLVM's prologue into
   another register than gp (struct reloc_table, gp_bases).  */

bool
find_gp_bases (const struct code *code, struct reloc_table *table,
	       struct regflow *rf)
{
  struct gp_walk w = { rf, table, code, NULL, 0, 0, NULL, 0, 0 };
  bool ok = true;
  size_t k = 0;

  w.funcs = function_entries (table, &w.n_funcs);
  if (w.funcs == NULL)
    return false;
  for (size_t i = 0; ok && i < table->n_entries; i++)
    {
      const struct reloc_entry *e = &table->entries[i];
      const struct insn *addu;
      if (e->type != RELOC_PROLOGUE || e->aux2 == 0)
	continue;
      addu = code_insn_at (code, e->aux2);
      w.prologue = e->aux2;
      if (addu != NULL && addu->rd != REG_ZERO)
	/* fd-find moves gp through a spill and three copies before it
	   calls through it.  */
	ok = follow_gp_copy (&w, addu, addu->rd, 4);
    }
  free (w.funcs);
  free (w.whole);
  if (!ok || table->n_gp_bases == 0)
    return ok;
  qsort (table->gp_bases, table->n_gp_bases, sizeof *table->gp_bases,
	 compare_u64);
  for (size_t i = 0; i < table->n_gp_bases; i++)
    if (k == 0 || table->gp_bases[i] != table->gp_bases[k - 1])
      table->gp_bases[k++] = table->gp_bases[i];
  table->n_gp_bases = k;
  return true;
}
