/* facts.c -- what the analysis proves of an object's words that every
   later stage reads (struct facts): which words control enters other
   than by falling in, which lie inside ll/sc sequences, which
   functions return, and where gp holds the new gp or a frame slot
   keeps it.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "stages.h"

/* Mark in E's facts.entered every word that control can reach other than by
   falling into it: branch targets and code addresses of the table.  */

static void
mark_entered (struct emitter *e)
{
  const struct code *code = &e->a->code;
  const struct reloc_table *t = &e->a->relocs;

  for (size_t s = 0; s < code->n_sections; s++)
    for (size_t i = 0; i < code->sections[s].n_insns; i++)
      {
	const struct insn *insn = &code->sections[s].insns[i];
	long w;
	if (insn->kind != INSN_BRANCH && insn->kind != INSN_JUMP
	    && insn->kind != INSN_CALL)
	  continue;
	w = emit_word_index (e, insn->target);
	if (w >= 0)
	  e->facts.entered[w] = 1;
      }
  for (size_t k = 0; k < t->n_entries; k++)
    {
      long w = emit_word_index (e, t->entries[k].target);
      if (w >= 0)
	e->facts.entered[w] = 1;
    }
  for (size_t k = 0; k < e->a->n_landing_pads; k++)
    {
      long w = emit_word_index (e, e->a->landing_pads[k]);
      if (w >= 0)
	e->facts.entered[w] = 1;
    }
}

/* How far, in words, an ll/sc sequence reaches either way of its ll.  */
#define LLSC_REACH 32

/* The successors of word K of section SEC within [LO, HI] in an ll/sc
   sequence (mark_llsc): into SUCC, their number returned.  An sc ends
   the way (the point after it is outside), so does another ll, a call,
   an indirect jump or anything that does not fall through.  */

static unsigned
llsc_successors (const struct insn_section *sec, size_t k, size_t lo,
		 size_t hi, size_t succ[2])
{
  const struct insn *insn = &sec->insns[k];
  const struct insn *ctl = NULL;
  unsigned n = 0;

  if (insn->op == OP_SC || insn->kind == INSN_INVALID
      || (insn->flags & INSN_F_TRAP))
    return 0;
  if (insn->flags & INSN_F_SLOT)
    ctl = k > 0 ? &sec->insns[k - 1] : NULL;
  else if (insn->flags & INSN_F_DELAY)
    {
      if (k + 1 <= hi)
	succ[n++] = k + 1;
      return n;
    }
  if (ctl == NULL || ctl->kind == INSN_BRANCH)
    {
      if (k + 1 <= hi && sec->insns[k + 1].op != OP_LL)
	succ[n++] = k + 1;
    }
  if (ctl != NULL && (ctl->kind == INSN_BRANCH || ctl->kind == INSN_JUMP)
      && ctl->target >= sec->start && ctl->target < sec->end)
    {
      size_t t = (ctl->target - sec->start) / 4;
      if (t >= lo && t <= hi && sec->insns[t].op != OP_LL)
	succ[n++] = t;
    }
  return n;
}

/* Mark the words between each ll and its sc: the points before them,
   on a way from the ll to the sc, are inside the sequence, and an ll
   there (ours) would move the reservation, so that the program's sc
   would never succeed.  The ways are followed through branches, so
   that an sc placed before its ll is found as well as one after it
   (musl: b 2f; 1: sc; bnez out; 2: ll; beqz 1b), and a way that
   leaves without reaching the sc (a compare that fails) is not
   inside.  */

static void
mark_llsc (struct emitter *e)
{
  const struct code *code = &e->a->code;

  for (size_t s = 0; s < code->n_sections; s++)
    {
      const struct insn_section *sec = &code->sections[s];
      for (size_t i = 0; i < sec->n_insns; i++)
	{
	  size_t lo = i >= LLSC_REACH ? i - LLSC_REACH : 0;
	  size_t hi = i + LLSC_REACH < sec->n_insns ? i + LLSC_REACH
		      : sec->n_insns - 1;
	  unsigned char seen[2 * LLSC_REACH + 1] = { 0 };
	  unsigned char to_sc[2 * LLSC_REACH + 1] = { 0 };
	  size_t stack[2 * LLSC_REACH + 1], n_stack = 0, succ[2];
	  bool changed = true;

	  if (sec->insns[i].op != OP_LL || i + 1 > hi)
	    continue;
	  /* The words a way from the ll reaches.  */
	  seen[i + 1 - lo] = 1;
	  stack[n_stack++] = i + 1;
	  while (n_stack > 0)
	    {
	      size_t k = stack[--n_stack];
	      unsigned n = llsc_successors (sec, k, lo, hi, succ);
	      for (unsigned j = 0; j < n; j++)
		if (!seen[succ[j] - lo])
		  {
		    seen[succ[j] - lo] = 1;
		    stack[n_stack++] = succ[j];
		  }
	    }
	  /* Those of them from which a way reaches an sc.  */
	  while (changed)
	    {
	      changed = false;
	      for (size_t k = lo; k <= hi; k++)
		{
		  unsigned n;
		  if (!seen[k - lo] || to_sc[k - lo])
		    continue;
		  if (sec->insns[k].op == OP_SC)
		    to_sc[k - lo] = 1;
		  n = llsc_successors (sec, k, lo, hi, succ);
		  for (unsigned j = 0; j < n && !to_sc[k - lo]; j++)
		    to_sc[k - lo] = to_sc[succ[j] - lo];
		  changed |= to_sc[k - lo];
		}
	    }
	  for (size_t k = lo; k <= hi; k++)
	    if (to_sc[k - lo])
	      e->facts.in_llsc[sec->base + k] = 1;
	}
    }
}

/* Fill E's facts (struct facts) but t9_valid's contents, which
   t9_dataflow fills once the new GOT is planned; INTO: the call
   sites' (struct call_sites).  False with *ERRMSG set on failure.  */

bool
prove_facts (struct emitter *e, const uint32_t *into, char **errmsg)
{
  struct facts *f = &e->facts;
  size_t total = e->n_words;

  f->entered = calloc (total + 1, 1);
  f->in_llsc = calloc (total + 1, 1);
  f->gp_valid = calloc (total + 1, 1);
  f->t9_valid = calloc (total + 1, 1);
  f->gp_saved = malloc ((total + 1) * sizeof *f->gp_saved);
  f->returns = malloc (e->a->cfg.n_funcs + 1);
  if (f->entered == NULL || f->in_llsc == NULL || f->gp_valid == NULL
      || f->t9_valid == NULL || f->gp_saved == NULL || f->returns == NULL)
    goto nomem;
  mark_entered (e);
  mark_llsc (e);
  if (!find_returning (e, f->returns))
    goto nomem;
  /* gp is not valid after a reload from a slot its function saves an
     invalid gp in, which depends on where gp is valid: again until no
     reload is left to distrust (once for nearly every object).  */
  for (int again = 1; again != 0;)
    {
      if (!gp_dataflow (e, into, errmsg))
	return false;
      if (!gp_saved_dataflow (e))
	goto nomem;
      again = gp_check_reloads (e);
      if (again < 0)
	goto nomem;
    }
  return true;

 nomem:
  *errmsg = strdup ("out of memory");
  return false;
}
