/* t9state.c -- the register dataflow of t9: where t9 holds the new
   address of its function's entry, and the code addresses it holds.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "stages.h"
#include "regstate.h"

/* t9 after INSN, given whether it held the function's entry before.  */

static bool
t9_step (const struct emitter *e, bool valid, const struct insn *insn)
{
  (void) e;
  return valid && !(insn->writes & R (REG_T9));
}

/* The t9 state of block B: see state_block.  */

static bool
t9_block (struct emitter *e, const struct block *b, bool in, bool record)
{
  return state_block (e, b, in, t9_step, record ? e->facts.t9_valid : NULL);
}

/* The value t9 holds after INSN, which held VALUE before: an original
   code address that a GOT load or a got-ref put there, else 0.  */

uint32_t
t9_const_step (const struct emitter *e, uint32_t value,
	       const struct insn *insn)
{
  long w;
  uint32_t v;

  if (!(insn->writes & R (REG_T9)))
    return value;
  w = emit_word_index (e, insn->addr);
  if (e->plan.gotref_slot[w] != 0
      && (GOTREF_KIND (e->plan.gotref_form[w]) == GOTREF_ABS
	  || e->plan.gotref_slot[w] - 1 >= e->plan.got.n_fixed))
    return gotref_target (e, w);
  if (insn->rt == REG_T9 && got_load_value (e, insn, &v))
    return v;
  return 0;
}

/* Fill T9[i] with the original code address that t9 holds on entry to
   block i whatever the way in, or 0: a forward dataflow within
   functions (1 marks "not reached yet").  */

void
t9_constants (const struct emitter *e, uint32_t *t9)
{
  const struct analysis *a = e->a;
  const struct cfg *cfg = &a->cfg;
  size_t n = cfg->n_blocks;
  unsigned char *entry = calloc (n + 1, 1);
  unsigned char *clean;
  uint32_t *after = NULL;
  unsigned char *keeps = NULL;
  bool changed = true;

  if (entry == NULL)
    {
      memset (t9, 0, n * sizeof *t9);
      return;
    }
  mark_entries (e->a, entry);
  /* A function that neither writes t9 nor calls nor leaves by a branch
     keeps the t9 of its caller.  */
  clean = malloc (cfg->n_funcs + 1);
  if (clean == NULL)
    {
      free (entry);
      memset (t9, 0, n * sizeof *t9);
      return;
    }
  memset (clean, 1, cfg->n_funcs + 1);
  for (size_t i = 0; i < n; i++)
    {
      const struct block *b = &cfg->blocks[i];
      if (b->flags & (BLOCK_F_CALL | BLOCK_F_INDIRECT | BLOCK_F_INVALID
		      | BLOCK_F_FALLTHRU_EXIT))
	clean[b->func] = 0;
      for (uint32_t k = 0; k < b->n_succ; k++)
	if (cfg->blocks[b->succ[k]].func != b->func)
	  clean[b->func] = 0;
      for (uint32_t x = b->start; x < b->end; x += 4)
	{
	  const struct insn *insn = code_insn_at (&a->code, x);
	  if (insn == NULL || (insn->writes & R (REG_T9)))
	    clean[b->func] = 0;
	}
    }
  /* A block's transfer: t9 at its end is KEEPS ? its value at the
     start : AFTER.  */
  after = malloc ((n + 1) * sizeof *after);
  keeps = malloc (n + 1);
  if (after == NULL || keeps == NULL)
    {
      free (after);
      free (keeps);
      free (entry);
      free (clean);
      memset (t9, 0, n * sizeof *t9);
      return;
    }
  for (size_t i = 0; i < n; i++)
    {
      const struct block *b = &cfg->blocks[i];
      const struct insn *slot;
      const struct insn *last = cfg_block_control (&a->code, b, &slot);
      uint32_t v = 1;
      for (uint32_t x = b->start; x < b->end; x += 4)
	{
	  const struct insn *insn = code_insn_at (&a->code, x);
	  if (insn != NULL)
	    v = t9_const_step (e, v, insn);
	}
      keeps[i] = v == 1;
      after[i] = v == 1 ? 0 : v;
      if (b->flags & BLOCK_F_CALL)
	{
	  const struct function *f = NULL;
	  if (last != NULL && last->kind == INSN_CALL)
	    f = cfg_function_at (cfg, last->target);
	  if (f == NULL || f->entry != last->target
	      || !clean[f - cfg->funcs])
	    {
	      keeps[i] = 0;
	      after[i] = 0;
	    }
	}
    }
  for (size_t i = 0; i < n; i++)
    t9[i] = entry[i] ? 0 : 1;
  while (changed)
    {
      changed = false;
      for (size_t i = 0; i < n; i++)
	{
	  const struct block *b = &cfg->blocks[i];
	  uint32_t v = t9[i];
	  if (v == 1)
	    continue;
	  v = keeps[i] ? v : after[i];
	  for (uint32_t k = 0; k < b->n_succ; k++)
	    {
	      uint32_t t = b->succ[k];
	      uint32_t nv = cfg->blocks[t].func != b->func ? 0 : v;
	      uint32_t old = t9[t];
	      if (old == 1)
		t9[t] = nv;
	      else if (old != nv)
		t9[t] = 0;
	      changed |= t9[t] != old;
	    }
	}
      for (size_t k = 0; k < a->relocs.n_entries; k++)
	{
	  const struct reloc_entry *r = &a->relocs.entries[k];
	  const struct block *to = cfg_block_at (cfg, r->target);
	  if (r->type != RELOC_JUMP_TABLE || to == NULL
	      || to->start != r->target || t9[to - cfg->blocks] == 0)
	    continue;
	  t9[to - cfg->blocks] = 0;
	  changed = true;
	}
    }
  for (size_t i = 0; i < n; i++)
    if (t9[i] == 1)
      t9[i] = 0;
  free (entry);
  free (clean);
  free (after);
  free (keeps);
}

/* True if t9 holds the original code address TARGET at INSN, the
   control instruction ending block B (delay slot included), given the
   block constants T9.  */

bool
t9_holds_at (const struct emitter *e, const uint32_t *t9,
	     const struct block *b, const struct insn *insn, uint32_t target)
{
  uint32_t v = t9[b - e->a->cfg.blocks];

  for (uint32_t x = b->start; x < b->end && x <= insn->addr + 4; x += 4)
    {
      const struct insn *i = code_insn_at (&e->a->code, x);
      if (i != NULL)
	v = t9_const_step (e, v, i);
    }
  return v == target;
}

static void
mark_t9_entries (const struct emitter *e, unsigned char *entry_ok)
{
  const struct analysis *a = e->a;
  const struct cfg *cfg = &a->cfg;
  const struct code *code = &a->code;
  uint32_t *t9 = malloc ((cfg->n_blocks + 1) * sizeof *t9);

  if (t9 == NULL)
    return;
  t9_constants (e, t9);

  /* Code that calls through another register breaks the convention.  */
  for (size_t s = 0; s < code->n_sections; s++)
    for (size_t k = 0; k < code->sections[s].n_insns; k++)
      if (code->sections[s].insns[k].kind == INSN_ICALL
	  && code->sections[s].insns[k].rs != REG_T9)
	{
	  free (t9);
	  return;
	}

  /* A function known only from a code address in data may be a label
     of a computed goto, which a jump through another register enters
     (Ruby's threaded interpreter: its counters took t9 for the label's
     address); a callback that no symbol, FDE, prologue or call names
     costs a pc-relative count instead.  */
  for (size_t f = 0; f < cfg->n_funcs; f++)
    if (cfg->funcs[f].n_blocks > 0
	&& !(cfg->funcs[f].from & (FUNC_FROM_SECTION | FUNC_FROM_ENTRY))
	&& cfg->funcs[f].from != FUNC_FROM_RELOC)
      entry_ok[cfg->funcs[f].first_block] = 1;
  for (size_t i = 0; i < a->n_landing_pads; i++)
    {
      const struct block *b = cfg_block_at (cfg, a->landing_pads[i]);
      if (b != NULL)
	entry_ok[b - cfg->blocks] = 0;
    }
  for (size_t s = 0; s < code->n_sections; s++)
    for (size_t k = 0; k < code->sections[s].n_insns; k++)
      {
	const struct insn *insn = &code->sections[s].insns[k];
	const struct block *from, *to;
	if (insn->kind != INSN_CALL && insn->kind != INSN_BRANCH
	    && insn->kind != INSN_JUMP)
	  continue;
	to = cfg_block_at (cfg, insn->target);
	from = cfg_block_at (cfg, insn->addr);
	if (to == NULL || from == NULL || to->start != insn->target
	    || !entry_ok[to - cfg->blocks]
	    || (from->func == to->func && insn->kind != INSN_CALL))
	  continue;
	if (!t9_holds_at (e, t9, from, insn, insn->target))
	  entry_ok[to - cfg->blocks] = 0;
      }
  free (t9);
  for (size_t i = 1; i < cfg->n_blocks; i++)
    if (falls_into (code, &cfg->blocks[i - 1], &cfg->blocks[i]))
      entry_ok[i] = 0;
}

/* Compute t9_valid for every word of a position-independent object: a
   forward dataflow like gp_dataflow's, from the function entries where
   mark_t9_entries finds t9 set.  */

bool
t9_dataflow (struct emitter *e, char **errmsg)
{
  const struct analysis *a = e->a;
  const struct cfg *cfg = &a->cfg;
  size_t n = cfg->n_blocks;
  unsigned char *entry = calloc (n + 1, 1);
  unsigned char *entry_ok = calloc (n + 1, 1);
  unsigned char *in = malloc (n + 1);
  unsigned char *t9_out = malloc (n + 1);
  bool changed = true, ok = false;

  if (entry == NULL || entry_ok == NULL || in == NULL || t9_out == NULL)
    {
      *errmsg = strdup ("out of memory");
      goto done;
    }
  if (e->fixed_address)
    memset (in, 0, n + 1);
  else
    {
      mark_entries (e->a, entry);
      mark_outside_blocks (e->a, entry);
      mark_t9_entries (e, entry_ok);
      memset (in, 1, n + 1);
    }
  for (size_t i = 0; i < n; i++)
    {
      if (entry[i] && !entry_ok[i])
	in[i] = 0;
      t9_out[i] = t9_block (e, &cfg->blocks[i], true, false);
    }
  while (changed)
    {
      changed = false;
      for (size_t i = 0; i < n; i++)
	{
	  const struct block *b = &cfg->blocks[i];
	  bool o = in[i] && t9_out[i];
	  if (b->flags & BLOCK_F_PADDING)
	    continue;
	  for (uint32_t s = 0; s < b->n_succ; s++)
	    {
	      uint32_t t = b->succ[s];
	      bool v = o && cfg->blocks[t].func == b->func
		       && !(b->flags & BLOCK_F_CALL);
	      if (in[t] && !v)
		{
		  in[t] = 0;
		  changed = true;
		}
	    }
	}
      changed |= jump_table_meet (e, in, t9_step, true, NULL);
    }
  for (size_t i = 0; i < n; i++)
    t9_block (e, &cfg->blocks[i], in[i], true);
  ok = true;

 done:
  free (entry);
  free (entry_ok);
  free (in);
  free (t9_out);
  return ok;
}
