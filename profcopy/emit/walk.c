/* walk.c -- the one walk over the new text, block by block, that both
   lays it out and writes it: laying out, the put_ functions run on a
   cursor that only counts, and the walk notes where each block, each
   instruction's copy, each pad, stub and probe lands (struct layout);
   emitting, the same calls write the words there.  Sizes and addresses
   come from the code that writes the words, so the two cannot
   disagree.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stages.h"

/* The state of a walk: LAY is the emitter whose layout the walk fills,
   or NULL when it writes; LAST_STUB is the probe stub laid out last (0:
   none yet).  */
struct walk
{
  struct emitter *e;
  struct emitter *lay;
  uint32_t last_stub;
};

/* Laying out: decide whether the probe site at word W (at C's pc) gets
   a copy of the stub before it, and which stub it calls; REUSE: a site
   already placed at this word chose the stub.  */

static void
choose_probe_stub (struct walk *wk, const struct cursor *c, long w,
		   bool reuse)
{
  struct layout *l = &wk->lay->layout;

  if (reuse)
    return;
  l->probe_new_stub[w] = wk->last_stub == 0
			 || c->pc - wk->last_stub > PROBE_STUB_REACH;
  if (l->probe_new_stub[w])
    wk->last_stub = c->pc + 8;
  l->probe_stub[w] = wk->last_stub;
}

/* The probe site of KIND at word W, in the function that starts at
   FUNC; REUSE as for choose_probe_stub.  */

static void
walk_probe_site (struct walk *wk, struct cursor *c, long w, unsigned kind,
		 uint32_t func, bool reuse)
{
  struct emitter *e = wk->e;
  bool new_stub;

  if (wk->lay != NULL)
    choose_probe_stub (wk, c, w, reuse);
  new_stub = !reuse && e->layout.probe_new_stub[w];
  put_probe_site (c, w, kind, func, new_stub);
  if (wk->lay == NULL)
    {
      e->stats.n_probes++;
      e->stats.n_probe_stubs += new_stub;
    }
}

/* Whether a put_ function's failure stops the walk: when writing.
   Laying out, what it said is dropped; emission meets it again.  */

static bool
walk_fails (struct walk *wk, char **errmsg)
{
  if (wk->lay == NULL)
    return true;
  free (*errmsg);
  *errmsg = NULL;
  return false;
}

/* Laying out: the increment before the instruction at AT did not say
   where it put that instruction (or its branch out), as its plan says
   it would.  */

static bool
no_place (char **errmsg, uint32_t at)
{
  if (asprintf (errmsg, "internal error: the increment at 0x%08x has no "
		"place for the instruction it takes", at) < 0)
    *errmsg = NULL;
  return false;
}

/* The increment of block B (index I, planned in P) that leaves by the
   branch at word W, AT, to its target: after the branch's delay slot
   instruction (single-thread increments), or with it in the slot of
   its branch-likely.  */

static bool
walk_jump (struct walk *wk, struct cursor *c, size_t i,
	   const struct block *b, const struct count_plan *p, uint32_t at,
	   long w, char **errmsg)
{
  const struct emitter *e = wk->e;
  const struct insn *insn = code_insn_at (&e->a->code, at);
  const struct insn *slot = code_insn_at (&e->a->code, at + 4);
  uint32_t start = c->pc;

  if (e->single && !put_insn_body (c, slot, errmsg) && walk_fails (wk, errmsg))
    return false;
  c->fill_pc = c->out_pc = 0;
  put_snippet (c, i, i, &p->s, e->single ? NULL : slot,
	       skip_target (c, insn->target));
  if (c->failed && wk->lay == NULL)
    return reach_error (errmsg, insn, "an increment", "its target");
  if (wk->lay != NULL)
    {
      struct layout *l = &wk->lay->layout;
      if (c->out_pc == 0 || (!e->single && c->fill_pc == 0))
	return no_place (errmsg, at);
      /* The branch out is the branch's copy; its slot is the slot
	 instruction's, or that instruction comes first.  */
      l->insn_new[w] = c->out_pc;
      l->insn_new[w + 1] = e->single ? start : c->fill_pc;
      if (at != b->start)
	l->map[w] = start;
      l->map[w + 1] = e->single ? start : c->fill_pc;
    }
  return true;
}

/* The words of block I.  */

static bool
walk_block (struct walk *wk, struct cursor *c, size_t i, char **errmsg)
{
  struct emitter *e = wk->e;
  struct layout *l = wk->lay != NULL ? &wk->lay->layout : NULL;
  const struct analysis *a = e->a;
  const struct block *b = &a->cfg.blocks[i];
  const struct count_plan *p = &e->plan.blocks[i];
  long ws = emit_word_index (e, b->start);
  bool over;

  if (e->plan.t9_tramp != NULL && e->plan.t9_tramp[ws] != 0)
    {
      if (l != NULL)
	l->tramp[ws] = c->pc;
      put_t9_tramp (c, e->layout.map[ws], e->plan.t9_tramp[ws]);
      if (wk->lay == NULL)
	e->stats.n_t9_tramps++;
    }
  if (e->layout.needs_pad[ws])
    {
      if (l != NULL)
	l->pad[ws] = c->pc + 8;
      put_pad (c);
    }
  if (l != NULL)
    l->map[ws] = c->pc;
  else if (c->pc != e->layout.map[ws])
    {
      if (asprintf (errmsg, "internal error: layout and emission "
		    "disagree at 0x%08x", b->start) < 0)
	*errmsg = NULL;
      return false;
    }
  if (e->plan.probe[ws] & PROBE_ENTRY)
    {
      walk_probe_site (wk, c, ws, PROBE_ENTRY, b->start, false);
      if (l != NULL)
	l->past_probe[ws] = c->pc;
    }
  if (p->iv && p->iv_stack)
    {
      put (c, itype (OP_ADDIU, REG_SP, REG_SP, (uint32_t) -8));
      put (c, itype (OP_SW, REG_SP, p->iv_reg, 0));
    }
  else if (p->iv)
    put (c, enc_addu (p->iv_save, p->iv_reg, 0));
  for (uint32_t at = b->start; at < b->end; at += 4)
    {
      const struct insn *insn = code_insn_at (&a->code, at);
      long w = emit_word_index (e, at);
      if (at == p->at && !p->edge && !p->derived && !p->iv && p->s.jump)
	{
	  if (!walk_jump (wk, c, i, b, p, at, w, errmsg))
	    return false;
	  break;
	}
      if (at == p->at && !p->edge && !p->derived && !p->iv)
	{
	  uint32_t start = c->pc;
	  bool fill = p->s.hoist || p->s.skip;
	  c->fill_pc = 0;
	  put_snippet (c, i, i, &p->s, fill ? insn : NULL, 0);
	  if (fill)
	    {
	      /* The instruction is the slot of the increment's last
		 branch (hoist), or of its branch-likely out (skip),
		 where code that came to it would run the increment
		 with it.  */
	      if (l != NULL)
		{
		  if (c->fill_pc == 0)
		    return no_place (errmsg, at);
		  l->insn_new[w] = c->fill_pc;
		  if (at != b->start)
		    l->map[w] = p->s.hoist ? c->fill_pc : start;
		}
	      continue;
	    }
	}
      if (e->plan.probe[w] & PROBE_EXIT)
	walk_probe_site (wk, c, w, PROBE_EXIT, a->cfg.funcs[b->func].entry,
			 (e->plan.probe[w] & PROBE_ENTRY) != 0);
      if (insn != NULL && e->plan.xlate[w].kind != 0xff)
	put_xlate (c, insn, &e->plan.xlate[w]);
      if (e->plan.hooks[w] & HOOK_SYSCALL)
	put_syscall_hook (c);
      if (e->plan.hooks[w] & HOOK_JUMP_NOTE)
	put_jump_note (c, at);
      if (l != NULL && at != b->start)
	l->map[w] = c->pc;
      if (gotref_before (e, w))
	put_gotref (c, code_insn_at (&a->code, at + 4), w + 1);
      if (l != NULL)
	l->insn_new[w] = c->pc;
      if (insn == NULL)
	{
	  *errmsg = strdup ("internal error: a block word has no record");
	  return false;
	}
      if (!put_copy (c, insn, errmsg) && walk_fails (wk, errmsg))
	return false;
    }
  if (p->edge && !put_edge_counts (c, i, b, p, wk->lay, errmsg)
      && walk_fails (wk, errmsg))
    return false;
  if (p->iv)
    {
      /* The branch back goes past the copy.  */
      if (l != NULL)
	{
	  const struct insn *slot;
	  const struct insn *ctl = cfg_block_control (&a->code, b, &slot);
	  l->retarget[emit_word_index (e, ctl->addr)] = l->insn_new[ws];
	}
      put_loop_exit (c, i, p);
    }
  if (!p->edge && !p->derived && p->at == b->end)
    put_snippet (c, i, i, &p->s, NULL, 0);
  if ((p->count_taken || p->count_fall)
      && !put_branch_edge_counts (c, b, p, wk->lay, errmsg)
      && walk_fails (wk, errmsg))
    return false;
  if (island_due (e, b, p, i + 1 == a->cfg.n_blocks, c->pc, &c->isl, &over))
    put_island (c, over);
  if (c->failed && l == NULL)
    {
      if (asprintf (errmsg, "0x%08x: the carry paths of the counters "
		    "cannot be placed within reach", b->start) < 0)
	*errmsg = NULL;
      return false;
    }
  c->failed = false;		/* Laying out: emission will say why.  */
  return true;
}

/* Walk E's new text from its start with C: laying it out when C only
   counts (cursor_sizing), filling E's layout, else writing it.  False
   with *ERRMSG when writing fails, or, laying out, when the plan does
   not hold together (a block word without a record, an increment that
   does not place the instruction it takes).  */

bool
walk_text (struct emitter *e, struct cursor *c, char **errmsg)
{
  struct walk wk = { e, c->sizing ? e : NULL, 0 };

  c->pc = e->layout.text_addr;
  c->text_addr = e->layout.text_addr;
  c->isl.off = e->folded;
  for (size_t i = 0; i < e->a->cfg.n_blocks; i++)
    if (!walk_block (&wk, c, i, errmsg))
      return false;
  if (wk.lay != NULL)
    e->layout.text_size = c->pc - e->layout.text_addr;
  else if (c->pc != e->layout.text_addr + e->layout.text_size)
    {
      *errmsg = strdup ("internal error: layout and emission disagree");
      return false;
    }
  return true;
}
