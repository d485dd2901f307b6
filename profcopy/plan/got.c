/* got.c -- the new GOT and the forms of the GOT references.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#include <config.h>

#include <elf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "stages.h"
#include "got-int.h"

/* The slot of TARGET in G's index of target_of: the one that holds
   its entry, or the empty one where it would go.  */

static uint32_t *
index_slot (const struct new_got *g, uint32_t target)
{
  uint32_t mask = g->n_index - 1;
  uint32_t i = (uint32_t) ((target * 0x9e3779b97f4a7c15ull) >> 40) & mask;

  while (g->index[i] != 0 && g->target_of[g->index[i] - 1] != target)
    i = (i + 1) & mask;
  return &g->index[i];
}

/* The k of target_of[k] == TARGET, or (uint32_t) -1.  */

static uint32_t
find_target (const struct new_got *g, uint32_t target)
{
  uint32_t *slot;

  if (g->n_index == 0)
    return (uint32_t) -1;
  slot = index_slot (g, target);
  return *slot != 0 ? *slot - 1 : (uint32_t) -1;
}

/* Make room in G's index for one more target, rebuilding it at twice
   the size when half full.  */

static bool
grow_index (struct new_got *g)
{
  uint32_t n;

  if (2 * (g->n_targets + 1) <= g->n_index)
    return true;
  n = g->n_index ? 2 * g->n_index : 1024;
  free (g->index);
  g->index = calloc (n, sizeof *g->index);
  if (g->index == NULL)
    {
      g->n_index = 0;
      return false;
    }
  g->n_index = n;
  for (uint32_t k = 0; k < g->n_targets; k++)
    *index_slot (g, g->target_of[k]) = k + 1;
  return true;
}

/* The new GOT entry that holds the new address of the original code
   address TARGET, added if needed; (uint32_t) -1 when out of memory.  */

uint32_t
got_target_entry (struct new_got *g, uint32_t target)
{
  uint32_t k = find_target (g, target);

  if (k != (uint32_t) -1)
    return g->n_fixed + k;
  if (g->n_targets == g->alloc_targets)
    {
      uint32_t n = g->alloc_targets ? 2 * g->alloc_targets : 256;
      uint32_t *v = realloc (g->target_of, n * sizeof *v);
      if (v == NULL)
	return (uint32_t) -1;
      g->target_of = v;
      g->alloc_targets = n;
    }
  if (!grow_index (g))
    return (uint32_t) -1;
  g->target_of[g->n_targets++] = target;
  *index_slot (g, target) = g->n_targets;
  g->n_new = g->n_fixed + g->n_targets;
  return g->n_new - 1;
}

/* Whether the new GOT can take an entry for TARGET and still fit gp's
   reach: it has one already, or one more fits.  */

bool
got_has_room (const struct new_got *g, uint32_t target)
{
  return find_target (g, target) != (uint32_t) -1
	 || (uint64_t) 4 * (g->n_old + g->n_new + 1) <= GOT_REACH;
}

/* The counter chunks and the got-ref addius, with new GOT entries for
   their targets.  */

bool
plan_got (struct emitter *e, char **errmsg)
{
  const struct analysis *a = e->a;
  const struct mips_object *obj = &a->obj;
  struct new_got *g = &e->plan.got;
  uint32_t bad;

  g->n_old_local = obj->dyn.local_gotno;
  g->n_old = obj->got_primary / 4;
  g->in_place = object_multi_got (obj);
  /* The counters of the blocks, then those of the branch edges.  */
  g->n_chunks = (uint32_t) (((a->cfg.n_blocks + 2 * e->plan.n_edge_candidates)
			     * 8 + 0xffff) / 0x10000);
  if (g->n_chunks == 0)
    g->n_chunks = 1;
  g->n_fixed = g->n_chunks + 3;
  g->n_new = g->n_fixed;
  g->moved_pages = malloc ((a->relocs.n_entries + 1)
			   * sizeof *g->moved_pages);
  if (g->moved_pages == NULL)
    {
      *errmsg = strdup ("out of memory");
      return false;
    }
  g->n_moved_pages = 0;
  for (size_t i = 0; i < a->relocs.n_entries; i++)
    {
      const struct reloc_entry *r = &a->relocs.entries[i];
      if (r->type == RELOC_GOT && r->index < g->n_old_local
	  && (r->target & 0xffff) == 0 && !g->in_place)
	g->moved_pages[g->n_moved_pages++] = r->target;
    }
  qsort (g->moved_pages, g->n_moved_pages, sizeof *g->moved_pages,
	 array_compare_u32);
  for (size_t i = 0; i < a->relocs.n_entries; i++)
    {
      const struct reloc_entry *r = &a->relocs.entries[i];
      uint32_t k;
      long w;
      if (r->type == RELOC_HI_LO)
	{
	  /* The new address of a call's t9 is built in place
	     (GOTREF_ABS).  Any other address that a pair builds stays as
	     it is: a function's address must be one value wherever the
	     program builds it (cc1 compares a callback with the address
	     of a function, built once where the pair was followed and
	     once after a reload that the walk did not reach), and a call
	     through an old address reaches the copy all the same:
	     translated at run time in this object, and from any other
	     through the old entry (forward_entries).  */
	  const struct insn *use = code_insn_at (&a->code, r->aux);
	  w = emit_word_index (e, r->aux);
	  if (w < 0 || use == NULL || use->rt != REG_T9)
	    continue;
	  if (e->plan.gotref_slot[w] != 0
	      && (e->plan.gotref_slot[w] != r->target
		  || e->plan.gotref_form[w] != GOTREF_ABS))
	    {
	      bad = r->aux;
	      goto two;
	    }
	  e->plan.gotref_slot[w] = r->target;
	  e->plan.gotref_form[w] = GOTREF_ABS;
	  continue;
	}
      if (r->type != RELOC_GOT_REF)
	continue;
      k = got_target_entry (g, r->target);
      if (k == (uint32_t) -1)
	{
	  *errmsg = strdup ("out of memory");
	  return false;
	}
      w = emit_word_index (e, r->aux);
      if (w < 0)
	continue;
      if (e->plan.gotref_slot[w] != 0
	  && (e->plan.gotref_slot[w] != k + 1
	      || e->plan.gotref_form[w] == GOTREF_ABS))
	{
	  bad = r->aux;
	  goto two;
	}
      e->plan.gotref_slot[w] = k + 1;
    }
  return true;

 two:
  if (asprintf (errmsg, "0x%08x: one addiu computes two code addresses",
		bad) < 0)
    *errmsg = NULL;
  return false;
}

/* The original code address that the got-ref addiu at word W
   computes.  */

uint32_t
gotref_target (const struct emitter *e, long w)
{
  const struct new_got *g = &e->plan.got;

  if (GOTREF_KIND (e->plan.gotref_form[w]) == GOTREF_ABS)
    return e->plan.gotref_slot[w];
  return g->target_of[e->plan.gotref_slot[w] - 1 - g->n_fixed];
}

/* Check that the new GOT still fits gp's reach and allocate its new
   values.  */

bool
finish_got (struct emitter *e, char **errmsg)
{
  struct new_got *g = &e->plan.got;

  if (!g->in_place && (uint64_t) 4 * (g->n_old + g->n_new) > GOT_REACH)
    {
      *errmsg = strdup ("the GOT would outgrow gp's 64 KiB reach");
      return false;
    }
  g->new_values = calloc (g->n_new + 1, sizeof *g->new_values);
  if (g->new_values == NULL)
    {
      *errmsg = strdup ("out of memory");
      return false;
    }
  return true;
}

/* The instruction that last writes REG before INSN runs, searching back
   through straight code, into the previous block when that one falls
   through (with the delay slot of a conditional branch, which runs on
   both paths) and nothing else jumps in between; NULL if not found.  */

const struct insn *
last_writer (const struct emitter *e, const struct insn *insn, unsigned reg)
{
  uint32_t a = insn->addr;

  for (int n = 0; n < 64 && a >= 4; n++)
    {
      const struct insn *p;
      long w = emit_word_index (e, a);

      if (w < 0 || e->facts.entered[w])
	return NULL;
      a -= 4;
      p = code_insn_at (&e->a->code, a);
      if (p == NULL || p->kind == INSN_INVALID
	  || (p->kind != INSN_OTHER
	      && (p->kind != INSN_BRANCH || (p->flags & INSN_F_LIKELY))))
	return NULL;
      if (p->writes & R (reg))
	return p;
    }
  return NULL;
}

/* The GOT slot index that INSN, a `lw x,off(gp)', loads, or -1.  */

long
got_load_slot (const struct emitter *e, const struct insn *insn)
{
  return got_slot (&e->a->obj, &e->a->relocs, insn);
}

/* Whether INSN loads a GOT entry, of the primary GOT or a secondary
   one, and if so its link-time value in *VALUE (object_got_slot); not a
   local entry that holds a 64 KiB page of the code where the GOTs stay
   in place (struct new_got), which keeps its old value there even when
   a function starts at the page (the lazy-binding stubs' load of the
   reserved word GOT[0], which holds 0, is a GOT load: its jump must
   not be translated, whose scratch registers could take t7, which
   carries the caller's ra to ld.so's resolver).  */

bool
got_load_value (const struct emitter *e, const struct insn *insn,
		uint32_t *value)
{
  uint32_t slot, primary;

  if (!got_load_address (&e->a->relocs, insn, &slot))
    return false;
  switch (object_got_slot (&e->a->obj, slot, value, &primary))
    {
    case GOT_SLOT_LOCAL:
      return !e->plan.got.in_place || (*value & 0xffff) != 0
	     || !object_is_code (&e->a->obj, *value);
    case GOT_SLOT_GLOBAL:
      return true;
    default:
      return false;
    }
}

/* True if t9 holds the original code address TARGET when the branch
   INSN runs: its last write loads TARGET from the GOT or is a GOT
   reference to TARGET, or, where another way enters on the way back to
   that write, t9 holds TARGET on every way into INSN's block
   (e->t9_const).  */

bool
t9_holds (const struct emitter *e, const struct insn *insn, uint32_t target)
{
  const struct insn *p = last_writer (e, insn, REG_T9);
  const struct block *b;

  if (target == 0)
    return false;
  if (p != NULL)
    return t9_const_step (e, 0, p) == target;
  b = cfg_block_at (&e->a->cfg, insn->addr);
  return e->layout.t9_const != NULL && b != NULL
	 && t9_holds_at (e, e->layout.t9_const, b, insn, target);
}

void
preds_free (struct preds *p)
{
  free (p->first);
  free (p->from);
  free (p->outside);
}

/* Fill P for E's CFG.  False when out of memory.  */

bool
preds_build (const struct emitter *e, struct preds *p)
{
  const struct cfg *cfg = &e->a->cfg;
  size_t n = cfg->n_blocks, n_edges = 0;
  long k;

  p->first = calloc (n + 2, sizeof *p->first);
  p->outside = calloc (n + 1, 1);
  for (size_t i = 0; i < n; i++)
    n_edges += cfg->blocks[i].n_succ;
  p->from = malloc ((n_edges + 1) * sizeof *p->from);
  if (p->first == NULL || p->outside == NULL || p->from == NULL)
    return false;
  for (size_t i = 0; i < n; i++)
    for (uint32_t s = 0; s < cfg->blocks[i].n_succ; s++)
      p->first[cfg->blocks[i].succ[s] + 1]++;
  for (size_t i = 0; i < n; i++)
    p->first[i + 1] += p->first[i];
  for (size_t i = 0; i < n; i++)
    for (uint32_t s = 0; s < cfg->blocks[i].n_succ; s++)
      p->from[p->first[cfg->blocks[i].succ[s]]++] = (uint32_t) i;
  for (size_t i = n; i > 0; i--)
    p->first[i] = p->first[i - 1];
  p->first[0] = 0;
  for (size_t f = 0; f < cfg->n_funcs; f++)
    if ((k = cfg_block_starting (cfg, cfg->funcs[f].entry)) >= 0)
      p->outside[k] = 1;
  for (size_t i = 0; i < e->a->relocs.n_entries; i++)
    if ((k = cfg_block_starting (cfg, e->a->relocs.entries[i].target)) >= 0)
      p->outside[k] = 1;
  for (size_t i = 0; i < e->a->n_landing_pads; i++)
    if ((k = cfg_block_starting (cfg, e->a->landing_pads[i])) >= 0)
      p->outside[k] = 1;
  return true;
}

/* Whether TEST holds on every way to address AT of block BI: each
   block's own words are asked first, then every block that leads into
   it, none of them a call's (its successor is the return point, where
   the callee has run), an invalid block, a block entered at a delay
   slot, or a branch-likely's (whose slot runs on one way only).  A
   block that something other than its predecessors may enter (P's
   OUTSIDE), or that has none, fails.  */

bool
preds_all_paths (const struct emitter *e, const struct preds *p,
		 size_t bi, uint32_t at, const struct path_test *test,
		 int *budget)
{
  const struct cfg *cfg = &e->a->cfg;
  const struct code *code = &e->a->code;

  if (--*budget < 0)
    return false;
  switch (test->block (e, bi, at, test->arg))
    {
    case PATH_FAILS:
      return false;
    case PATH_HOLDS:
      return true;
    case PATH_GOES_ON:
      break;
    }
  if (p->outside[bi] || p->first[bi] == p->first[bi + 1])
    return false;
  for (uint32_t k = p->first[bi]; k < p->first[bi + 1]; k++)
    {
      const struct block *from = &cfg->blocks[p->from[k]];
      const struct insn *slot;
      const struct insn *ctl = cfg_block_control (code, from, &slot);
      if ((from->flags & BLOCK_F_CALL) && test->no_way != NULL
	  && test->no_way (e, from, test->arg))
	continue;
      if ((from->flags & (BLOCK_F_CALL | BLOCK_F_INVALID | BLOCK_F_SLOT_ENTRY))
	  || (ctl != NULL && (ctl->flags & INSN_F_LIKELY))
	  || (ctl != NULL && slot == NULL)
	  || !preds_all_paths (e, p, p->from[k], from->end, test, budget))
	return false;
    }
  return true;
}

/* A register that holds gp at the word AT of block B though it is not
   gp: one that an earlier instruction of B reads as gp (LLVM's code,
   struct reloc_table's gp_bases) and that nothing writes from there to
   AT; else 0.  */

unsigned
gp_holder_before (const struct emitter *e, const struct block *b,
		  uint32_t at)
{
  uint64_t written = 0;

  /* A multi-GOT object's registers never hold the new gp (struct
     new_got).  */
  if (e->plan.got.in_place)
    return 0;
  while (at > b->start)
    {
      const struct insn *insn = code_insn_at (&e->a->code, at -= 4);
      unsigned r;
      if (insn == NULL)
	return 0;
      r = reloc_table_gp_base (&e->a->relocs, insn->addr);
      if (r != 0 && !((written | insn->writes) & R (r)))
	return r;
      written |= insn->writes;
    }
  return 0;
}

/* The dynamic symbols for gp_trusted_block's calls_noreturn_import.  */
struct dyn_symbols
{
  const struct object_symbol *const *dyn;
  size_t n_dyn;
};

/* gp_trusted_on_all_paths's question to block BI before AT: gp is
   valid there (gp_valid), or the program reads gp as a base (a GOT
   load, say) after its last write of gp.  */

static enum path_verdict
gp_trusted_block (const struct emitter *e, size_t bi, uint32_t at,
		  void *arg)
{
  const struct block *b = &e->a->cfg.blocks[bi];

  (void) arg;
  for (uint32_t x = at; x > b->start; x -= 4)
    {
      const struct insn *q;
      if (x < b->end && e->facts.gp_valid[emit_word_index (e, x)])
	return PATH_HOLDS;
      q = code_insn_at (&e->a->code, x - 4);
      if (q == NULL || q->kind == INSN_INVALID || (q->writes & R (REG_GP)))
	return PATH_FAILS;
      if (has_base (q) && q->rs == REG_GP)
	return PATH_HOLDS;
    }
  return e->facts.gp_valid[emit_word_index (e, b->start)] ? PATH_HOLDS
						     : PATH_GOES_ON;
}

/* Nothing comes back from a call that never returns (__stack_chk_fail,
   say).  */

static bool
gp_trusted_no_way (const struct emitter *e, const struct block *from,
		   void *arg)
{
  const struct dyn_symbols *d = arg;

  return calls_noreturn (e, e->facts.returns, from)
	 || calls_noreturn_import (e, from, d->dyn, d->n_dyn);
}

/* Whether, on every way control reaches address AT of block BI (P its
   CFG's predecessors), gp is valid (gp_valid) or the program itself
   has read gp as a base (a GOT load, say) since its last write of gp
   and the last call: the compiler trusts gp there, so it holds the
   object's gp where gp_dataflow cannot tell (after a reload through a
   frame pointer, `lw gp,16(s8)').  At most *BUDGET blocks are looked
   at.  */

static bool
gp_trusted_on_all_paths (const struct emitter *e, const struct preds *p,
			 const struct object_symbol *const *dyn, size_t n_dyn,
			 size_t bi, uint32_t at, int *budget)
{
  struct dyn_symbols d = { dyn, n_dyn };
  struct path_test test = { gp_trusted_block, gp_trusted_no_way, &d };

  /* A multi-GOT object's gp is never the new one (struct new_got).  */
  if (e->plan.got.in_place)
    return false;
  return preds_all_paths (e, p, bi, at, &test, budget);
}

/* Decide how each got-ref addiu is rewritten (e->gotref_form): as a
   load of its new GOT entry from gp where gp is valid; elsewhere from
   the page register itself plus the distance from the page to the new
   address, or from the GOT through the gp saved in the frame.  gp need
   not be valid at the addiu: GCC loads a page once, before a loop say,
   and adds %lo to it after calls, which leave gp clobbered (a callee
   that tail-calls another object returns with that object's gp) until
   the next `lw gp,K(sp)'.  An addiu in a delay slot is written before
   its branch.  Needs the live sets.  */

/* True if the addiu INSN (word W) in the delay slot of CTL may be
   written before CTL: CTL is a branch, jump or call that neither reads
   INSN's y nor writes its x or y, and nothing enters the slot.  It then
   runs first (after the run-time translation of an indirect jump's
   register, which is not y).  */

static bool
slot_runs_first (const struct emitter *e, const struct insn *ctl,
		 const struct insn *insn, long w)
{
  return !(ctl == NULL || e->facts.entered[w] || e->facts.in_llsc[w - 1]
	   || (ctl->flags & INSN_F_LIKELY)
	   || (ctl->kind != INSN_BRANCH && ctl->kind != INSN_JUMP
	       && ctl->kind != INSN_CALL && ctl->kind != INSN_IJUMP
	       && ctl->kind != INSN_ICALL)
	   || (ctl->reads & R (insn->rt))
	   || (ctl->writes & (R (insn->rt) | R (insn->rs))));
}

bool
plan_gotref_forms (struct emitter *e, char **errmsg)
{
  const struct code *code = &e->a->code;
  const struct cfg *cfg = &e->a->cfg;
  struct preds pr = { NULL, NULL, NULL };
  const struct object_symbol **dyn = NULL;
  size_t n_dyn = 0;
  bool have_preds = false, ok = false;

  e->stats.n_gotref_nogp = e->stats.n_gotref_unsafe = 0;
  for (size_t s = 0; s < code->n_sections; s++)
    for (size_t i = 0; i < code->sections[s].n_insns; i++)
      {
	const struct insn *insn = &code->sections[s].insns[i];
	const struct insn *ctl = NULL;
	long w = emit_word_index (e, insn->addr);
	const struct block *b;
	uint32_t at = insn->addr;
	uint64_t dead;
	unsigned form;
	int budget = 16;

	if (w < 0 || e->plan.gotref_slot[w] == 0)
	  continue;
	if (e->plan.gotref_form[w] == GOTREF_ABS)
	  {
	    /* A pair's addiu needs neither gp nor a scratch register, but
	       becomes two words: a delay slot's is written before its
	       branch.  Where that cannot be, the old address stays,
	       translated where the object jumps through it.  */
	    ctl = (insn->flags & INSN_F_SLOT)
		  ? code_insn_at (code, insn->addr - 4) : NULL;
	    if (e->facts.in_llsc[w] || insn->rt == REG_ZERO
		|| ((insn->flags & INSN_F_SLOT)
		    && !slot_runs_first (e, ctl, insn, w)))
	      {
		e->plan.gotref_slot[w] = 0;
		e->plan.gotref_form[w] = 0;
		e->stats.n_gotref_unsafe++;
	      }
	    else if (insn->flags & INSN_F_SLOT)
	      e->plan.gotref_form[w] = GOTREF_ABS | GOTREF_F_BEFORE;
	    continue;
	  }
	e->plan.gotref_form[w] = GOTREF_GP;
	if (e->fixed_address || e->facts.gp_valid[w])
	  continue;
	if (!have_preds)
	  {
	    have_preds = true;
	    dyn = object_dynsyms_by_index (&e->a->obj, &n_dyn);
	    if (!preds_build (e, &pr) || dyn == NULL)
	      {
		*errmsg = strdup ("out of memory");
		goto out;
	      }
	  }
	b = cfg_block_at (cfg, insn->addr);
	if (b == NULL)
	  {
	    /* Where the GOTs stay in place, the old address.  */
	    if (e->plan.got.in_place)
	      e->plan.gotref_slot[w] = e->plan.gotref_form[w] = 0;
	    continue;
	  }
	if (gp_trusted_on_all_paths (e, &pr, dyn, n_dyn,
				     (size_t) (b - cfg->blocks), insn->addr,
				     &budget))
	  continue;
	e->stats.n_gotref_nogp++;
	form = 0;
	if (insn->flags & INSN_F_SLOT)
	  {
	    ctl = code_insn_at (code, insn->addr - 4);
	    if (!slot_runs_first (e, ctl, insn, w))
	      goto unsafe;
	    at = ctl->addr;
	    form = GOTREF_F_BEFORE;
	  }
	if (e->facts.in_llsc[w])
	  goto unsafe;
	if (insn->rt != insn->rs)
	  {
	    e->plan.gotref_form[w] = (uint16_t) (form | GOTREF_ADD);
	    continue;
	  }
	if (e->facts.gp_saved[w] >= 0 && insn->rt != REG_SP)
	  {
	    e->plan.gotref_form[w] = (uint16_t) (form | GOTREF_SAVED);
	    continue;
	  }
	dead = free_scratch (e, cfg_live_at (code, cfg, b, at), at)
	       & ~(R (insn->rt) | R (insn->rs));
	if (ctl != NULL)
	  dead &= ~(ctl->reads | ctl->writes);
	if (dead_reg (dead) != 0)
	  {
	    e->plan.gotref_form[w] = (uint16_t) (form | GOTREF_TMP
					   | GOTREF_WITH_REG (dead_reg (dead)));
	    continue;
	  }
	/* From the function's entry, where t9 still holds it.  */
	if (insn->rt != REG_T9 && e->facts.t9_valid[emit_word_index (e, at)])
	  {
	    e->plan.gotref_form[w] = (uint16_t) (form | GOTREF_T9);
	    continue;
	  }
	/* From a bal, where nothing reads ra (before a call, say).  */
	if (insn->rt != REG_RA
	    && !(cfg_live_at (code, cfg, b, at) & R (REG_RA))
	    && (ctl == NULL || !(ctl->reads & R (REG_RA))))
	  {
	    e->plan.gotref_form[w] = (uint16_t) (form | GOTREF_PC);
	    continue;
	  }
      unsafe:
	/* A register that an earlier GOT load of the block read as gp
	   (LLVM's code keeps its gp in s0, say, while $28 holds what its
	   caller left there, another object's gp perhaps) and that
	   nothing writes on the way holds the same gp: load from it, in
	   place.  It must be live here, or an increment could take it as
	   scratch between that load and this one.  */
	if (!e->facts.in_llsc[w])
	  {
	    unsigned r = gp_holder_before (e, b, insn->addr);
	    const struct insn *before = (insn->flags & INSN_F_SLOT)
					? code_insn_at (code, insn->addr - 4)
					: NULL;
	    if (r != 0
		&& (cfg_live_at (code, cfg, b, insn->addr) & R (r))
		&& (before == NULL || !(before->writes & R (r))))
	      {
		e->plan.gotref_form[w] = (uint16_t) (GOTREF_GP
						| GOTREF_WITH_REG (r));
		continue;
	      }
	  }
	/* From a bal, with ra kept below a lowered sp meanwhile: a
	   static constructor's tail call of __cxa_atexit has the
	   destructor's addiu in the delay slot of its `jr t9', where every
	   register is live and ra is the return address.  */
	if (!e->facts.in_llsc[w] && insn->rt != REG_RA && insn->rt != REG_SP
	    && (!(insn->flags & INSN_F_SLOT) || (form & GOTREF_F_BEFORE)))
	  {
	    e->plan.gotref_form[w] = (uint16_t) (form | GOTREF_PC_SAVED);
	    continue;
	  }
	/* Left as it was: right only if gp is valid after all.  Never so
	   in a multi-GOT object (struct new_got, in_place), where the
	   addiu stays as it is and makes the old address, which a call
	   through it translates.  */
	e->stats.n_gotref_unsafe++;
	if (e->plan.got.in_place)
	  {
	    e->plan.gotref_slot[w] = 0;
	    e->plan.gotref_form[w] = 0;
	  }
      }
  ok = true;
 out:
  if (have_preds)
    preds_free (&pr);
  free (dyn);
  return ok;
}

