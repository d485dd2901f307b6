/* window.c -- the window of counters right after the new GOT, which
   gp reaches without a base register: which counters of blocks and
   branch edges get a place in it, the hottest first (assign_window),
   and the coldest given their ordinary counters back when the GOT grows
   until the window leaves gp's reach (emit_window_fit).

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "stages.h"

/* GOT entries the layout may still add (for long branches) after the
   window is sized; emit_window_fit mends the rare excess.  */
#define WINDOW_GOT_MARGIN 1024

/* Order of blocks by derive weight (the array WEIGHT), heaviest first,
   then by index; for qsort_r.  */

static int
compare_by_weight (const void *pa, const void *pb, void *weight)
{
  const uint32_t *w = weight;
  uint32_t a = *(const uint32_t *) pa, b = *(const uint32_t *) pb;

  if (w[a] != w[b])
    return w[a] > w[b] ? -1 : 1;
  return a < b ? -1 : a > b;
}

/* Number the window's blocks (those with a window_slot, any value) in
   ascending order into window_slot and window_blocks.  */

static void
number_window (struct emitter *e)
{
  e->plan.n_window = 0;
  for (size_t i = 0; i < e->a->cfg.n_blocks + e->plan.derive.n_edges; i++)
    if (e->plan.window_slot[i] >= 0)
      {
	e->plan.window_slot[i] = (int32_t) e->plan.n_window;
	e->plan.window_blocks[e->plan.n_window++] = (uint32_t) i;
      }
}

uint32_t
emit_window_entry (const struct emitter *e)
{
  return e->folded ? 4 : 8;
}

/* Give the hottest counters (of blocks and of branch edges, by derive's
   weights) places in the window after the new GOT, as many as gp
   reaches, and plan them so.  An edge's increment through gp (with no
   register saved) becomes one off gp with the same first register.
   False when out of memory.  */

bool
assign_window (struct emitter *e)
{
  const struct cfg *cfg = &e->a->cfg;
  uint32_t n_got = e->plan.got.n_old + e->plan.got.n_new + WINDOW_GOT_MARGIN;
  int64_t room = 0x7ff0 + 0x7ff8 - 4 * (int64_t) ((n_got + 1) & ~1u);
  size_t cap = room > 0 ? (size_t) (room / emit_window_entry (e)) : 0;
  uint32_t *cand;
  size_t n_cand = 0, n_win = 0;

  if (e->fixed_address || e->plan.got.in_place || e->plan.derive.weight == NULL
      || cap == 0)
    return true;
  cand = malloc ((cfg->n_blocks + e->plan.derive.n_edges + 1) * sizeof *cand);
  if (cand == NULL)
    return false;
  for (size_t i = 0; i < cfg->n_blocks; i++)
    {
      const struct count_plan *p = &e->plan.blocks[i];
      if (e->plan.derive.measured[i] && !p->edge && !p->iv
	  && (p->s.kind == COUNT_GP || p->s.kind == COUNT_SAVED_GP))
	cand[n_cand++] = (uint32_t) i;
    }
  /* Then the edges, all by weight: a hot edge's load saved is worth
     more than a cold block's (the edges once came after every block:
     sqlite3 0.3%, cpubench 0.3% more instructions).  */
  for (size_t k = 0; k < e->plan.derive.n_edges; k++)
    {
      const struct snippet *s = edge_snippet (e, k);
      if ((s->kind == COUNT_GP || s->kind == COUNT_SAVED_GP) && s->n_spill == 0)
	cand[n_cand++] = (uint32_t) (cfg->n_blocks + k);
    }
  qsort_r (cand, n_cand, sizeof *cand, compare_by_weight,
	   e->plan.derive.weight);
  for (size_t k = 0; k < n_cand && n_win < cap; k++)
    if (cand[k] >= cfg->n_blocks)
      {
	/* regs[0] is a dead register; regs[1], kept, is the other one
	   should the counter leave the window (emit_window_fit).  Through
	   the saved gp, both stay: regs[0] for gp, regs[1] for the
	   count.  */
	struct snippet *s = edge_snippet (e, cand[k] - cfg->n_blocks);
	s->kind = s->kind == COUNT_GP ? COUNT_WINDOW : COUNT_SAVED_WINDOW;
	e->plan.window_slot[cand[k]] = 0;
	n_win++;
      }
    else if (e->plan.blocks[cand[k]].s.kind == COUNT_SAVED_GP)
      {
	/* The same place and registers, the counter off the gp that
	   the frame gives instead of its chunk: one load less.  */
	e->plan.blocks[cand[k]].s.kind = COUNT_SAVED_WINDOW;
	e->plan.window_slot[cand[k]] = 0;
	n_win++;
      }
    else if (plan_window (e, &cfg->blocks[cand[k]], &e->plan.blocks[cand[k]]))
      {
	e->plan.window_slot[cand[k]] = 0;
	n_win++;
      }
  free (cand);
  e->plan.window_blocks = malloc ((n_win + 1) * sizeof *e->plan.window_blocks);
  if (e->plan.window_blocks == NULL)
    return false;
  number_window (e);
  return true;
}

bool
emit_window_fit (struct emitter *e, char **errmsg)
{
  const struct cfg *cfg = &e->a->cfg;
  struct new_got *g = &e->plan.got;

  for (;;)
    {
      uint32_t got_bytes = (4 * (g->n_old + g->n_new) + 7) & ~7u;
      uint32_t cap = got_bytes < 0x7ff0 + 0x7ff8
		     ? (0x7ff0 + 0x7ff8 - got_bytes) / emit_window_entry (e) : 0;
      uint32_t *order;
      size_t drop;

      if (e->plan.n_window <= cap)
	return true;
      /* Give the coldest window blocks their ordinary counters back.  */
      order = malloc ((e->plan.n_window + 1) * sizeof *order);
      if (order == NULL)
	{
	  *errmsg = strdup ("out of memory");
	  return false;
	}
      memcpy (order, e->plan.window_blocks, e->plan.n_window * sizeof *order);
      qsort_r (order, e->plan.n_window, sizeof *order, compare_by_weight,
	       e->plan.derive.weight);
      drop = e->plan.n_window - cap + cap / 16;
      for (size_t k = e->plan.n_window - drop; k < e->plan.n_window; k++)
	{
	  struct count_plan *p;
	  e->plan.window_slot[order[k]] = -1;
	  if (order[k] >= cfg->n_blocks)
	    {
	      struct snippet *s = edge_snippet (e, order[k] - cfg->n_blocks);
	      s->kind = s->kind == COUNT_WINDOW ? COUNT_GP : COUNT_SAVED_GP;
	      continue;
	    }
	  p = &e->plan.blocks[order[k]];
	  if (!plan_block (e, &cfg->blocks[order[k]], p, errmsg))
	    {
	      free (order);
	      return false;
	    }
	}
      free (order);
      number_window (e);
      count_plans (e);
      free (g->new_values);
      g->new_values = NULL;
      if (!emit_layout (e, e->layout.text_addr, errmsg))
	return false;
    }
}
