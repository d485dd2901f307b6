/* liveness-narrow.c -- liveness over the whole object, with what
   analysis knows of the functions' callers (cfg_liveness_narrow) and
   of its switch tables and tail calls (cfg_mark_jumps).  liveness.c
   says how the sets are computed.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "cfg-int.h"
#include "liveness-int.h"

/* Whether INSN (may be NULL) is a break or a trap whose condition
   always holds (teq, tge or tgeu of a register with itself).  */

static bool
always_traps (const struct insn *insn)
{
  unsigned funct = insn != NULL ? insn->word & 0x3f : 0;

  return insn != NULL && insn->op == 0
	 && (funct == 0x0d
	     || ((funct == 0x30 || funct == 0x31 || funct == 0x34)
		 && insn->rs == insn->rt));
}

/* Whether the code of function F of CFG over CODE is all of one
   function, as its compiler saw it: every block but padding is reached
   from the entry, through branches, falls and the N switch table EDGES
   (from, to; sorted by from, TABLE_FROM indexing them by block) inside
   F, and no block falls into another function but after a call or a
   trap (a call that does not return, __builtin_trap).  A stripped
   object's function may have absorbed the function after it, which no
   symbol, prologue, call or pointer announced; that one writes what
   the first does not.  The blocks reached are marked in SEEN (per
   block of CFG, zeroed); STACK is a scratch array of a block each.  */

static bool
whole_function (const struct code *code, const struct cfg *cfg,
		const struct function *f, const struct cfg_edge *edges,
		const size_t *table_from, unsigned char *seen, uint32_t *stack)
{
  size_t sp = 0;
  uint32_t n_seen = 0, n_real = 0;
  bool whole = true;
  long entry = cfg_block_starting (cfg, f->entry);

  if (entry < 0 || f->n_blocks == 0)
    return false;
  seen[entry] = 1;
  stack[sp++] = (uint32_t) entry;
  while (sp > 0)
    {
      uint32_t i = stack[--sp];
      const struct block *b = &cfg->blocks[i];
      const struct insn *slot;
      const struct insn *ctl = cfg_block_control (code, b, &slot);
      const struct insn *last = code_insn_at (code, b->end - 4);

      n_seen++;
      for (uint32_t k = 0; k < b->n_succ; k++)
	{
	  uint32_t j = b->succ[k];
	  if (cfg->blocks[j].func != b->func)
	    {
	      /* A branch or jump to another function is a tail call;
		 a fall after a call or a trap never runs.  */
	      if (!(ctl != NULL && ctl->target == cfg->blocks[j].start
		    && (ctl->kind == INSN_JUMP || ctl->kind == INSN_BRANCH))
		  && !(b->flags & BLOCK_F_CALL) && !always_traps (last))
		whole = false;
	      continue;
	    }
	  if (!seen[j])
	    {
	      seen[j] = 1;
	      stack[sp++] = j;
	    }
	}
      for (size_t k = table_from[i]; k < table_from[i + 1]; k++)
	{
	  uint32_t j = edges[k].to;
	  if (cfg->blocks[j].func == b->func && !seen[j])
	    {
	      seen[j] = 1;
	      stack[sp++] = j;
	    }
	}
    }
  for (uint32_t k = 0; k < f->n_blocks; k++)
    if (!(cfg->blocks[f->first_block + k].flags & BLOCK_F_PADDING))
      n_real++;
    else if (seen[f->first_block + k])
      n_seen--;
  return whole && n_seen == n_real;
}

/* What a caller that follows the calling convention may read after a
   call returns.  */
#define LIVE_AFTER_CALL							\
  (LIVE_CALLEE_SAVED | CALL_RESULTS | R (REG_GP) | R (REG_SP))

/* The registers live after the returns of a narrowed function that
   the N_IN entrants IN of CFG over CODE enter.  */

static uint64_t
entered_live (const struct code *code, const struct cfg *cfg,
	      const struct cfg_entrant *in, size_t n_in)
{
  uint64_t live = LIVE_AFTER_CALL;

  for (size_t k = 0; k < n_in; k++)
    {
      const struct block *b = &cfg->blocks[in[k].block];
      const struct insn *slot;
      const struct insn *ctl = cfg_block_control (code, b, &slot);

      if (ctl != NULL && (ctl->kind == INSN_CALL || ctl->kind == INSN_ICALL))
	live |= b->n_succ > 0 ? b->live_out : LIVE_ALL;
      else
	live |= cfg->funcs[b->func].ret_live;
    }
  return live;
}

/* Order of cfg_entrant by function, then by block (so by the function
   that holds it: a function's blocks are consecutive).  */

static int
entrant_cmp (const void *x, const void *y)
{
  const struct cfg_entrant *a = x, *b = y;

  if (a->func != b->func)
    return a->func < b->func ? -1 : 1;
  return a->block < b->block ? -1 : a->block > b->block;
}

/* Order of cfg_edge by origin, then target.  */

static int
edge_cmp (const void *x, const void *y)
{
  const struct cfg_edge *a = x, *b = y;

  if (a->from != b->from)
    return a->from < b->from ? -1 : 1;
  return a->to < b->to ? -1 : a->to > b->to;
}

/* Sort the N switch-table edges E by origin and fill TABLE_FROM (per
   block of CFG, and one past) with where each block's edges start.  */

static void
index_tables (const struct cfg *cfg, struct cfg_edge *e, size_t n,
	      size_t *table_from)
{
  size_t k = 0;

  qsort (e, n, sizeof *e, edge_cmp);
  for (size_t i = 0; i <= cfg->n_blocks; i++)
    {
      while (k < n && e[k].from < i)
	k++;
      table_from[i] = k;
    }
}

bool
cfg_mark_jumps (struct cfg *cfg, const struct cfg_edge *tables,
		size_t n_tables, const struct cfg_edge *tails, size_t n_tails)
{
  /* Per block: 1, it has table edges; 2, one leaves its function.  */
  unsigned char *edges = calloc (cfg->n_blocks + 1, 1);

  if (edges == NULL)
    return false;
  for (size_t k = 0; k < n_tables; k++)
    edges[tables[k].from]
      |= 1 | (cfg->blocks[tables[k].to].func
	      != cfg->blocks[tables[k].from].func ? 2 : 0);
  for (size_t i = 0; i < cfg->n_blocks; i++)
    {
      cfg->blocks[i].flags &= ~(unsigned) (BLOCK_F_TABLE | BLOCK_F_TAIL_CALL);
      if (edges[i] == 1 && (cfg->blocks[i].flags & BLOCK_F_INDIRECT))
	cfg->blocks[i].flags |= BLOCK_F_TABLE;
    }
  for (size_t k = 0; k < n_tails; k++)
    if ((cfg->blocks[tails[k].from].flags
	 & (BLOCK_F_INDIRECT | BLOCK_F_TABLE)) == BLOCK_F_INDIRECT)
      cfg->blocks[tails[k].from].flags |= BLOCK_F_TAIL_CALL;
  free (edges);
  return true;
}

/* Dependencies between functions in compressed rows: the functions
   that function F's changes concern are to[first[F] ... first[F+1]-1].  */
struct deps
{
  uint32_t *first, *to;
};

/* Append the pair (A, B) to *PAIRS (*N of them, room for *MAX).  False
   when out of memory.  */

static bool
pair_add (uint32_t (**pairs)[2], size_t *n, size_t *max, uint32_t a,
	  uint32_t b)
{
  if (*n == *max)
    {
      uint32_t (*p)[2] = realloc (*pairs, 2 * *max * sizeof *p);
      if (p == NULL)
	return false;
      *pairs = p;
      *max *= 2;
    }
  (*pairs)[*n][0] = a;
  (*pairs)[(*n)++][1] = b;
  return true;
}

/* Fill D from the N pairs (from, to) PAIRS of N_FUNCS functions.  */

static bool
deps_build (struct deps *d, const uint32_t (*pairs)[2], size_t n,
	    size_t n_funcs)
{
  d->first = calloc (n_funcs + 2, sizeof *d->first);
  d->to = malloc ((n + 1) * sizeof *d->to);
  if (d->first == NULL || d->to == NULL)
    return false;
  for (size_t k = 0; k < n; k++)
    d->first[pairs[k][0] + 2]++;
  for (size_t f = 0; f < n_funcs; f++)
    d->first[f + 2] += d->first[f + 1];
  for (size_t k = 0; k < n; k++)
    d->to[d->first[pairs[k][0] + 1]++] = pairs[k][1];
  return true;
}

/* Widen the ret_live of the narrowed function H of CFG over CODE with
   what its N_IN entrants IN bring but for DEAD[H], and its returns'
   transfers in T with it.  Return whether it grew.  The sets only
   grow, so when the sets of the function that holds some entrants
   changed, those entrants are all that need be looked at again.  */

static bool
widen_ret (const struct code *code, struct cfg *cfg, size_t h,
	   const struct cfg_entrant *in, size_t n_in, const uint64_t *dead,
	   struct transfer *t)
{
  struct function *fn = &cfg->funcs[h];
  uint64_t live = entered_live (code, cfg, in, n_in) & ~dead[h];

  if ((live | fn->ret_live) == fn->ret_live)
    return false;
  fn->ret_live |= live;
  for (uint32_t j = 0; j < fn->n_blocks; j++)
    {
      uint32_t i = fn->first_block + j;
      if (cfg->blocks[i].flags & BLOCK_F_RETURN)
	live_block_transfer (code, cfg, &cfg->blocks[i], cfg->blocks[i].start,
			     &t[i]);
    }
  return true;
}

/* The number of entrants from BY_FUNC[K] on (up to END) that enter the
   same function from the same function of CFG as it.  */

static size_t
entrant_run (const struct cfg *cfg, const struct cfg_entrant *by_func,
	     size_t k, size_t end)
{
  size_t n = 1;
  uint32_t g = cfg->blocks[by_func[k].block].func;

  while (k + n < end && cfg->blocks[by_func[k + n].block].func == g)
    n++;
  return n;
}

/* Solve every function of CFG over CODE to the least solution: the
   functions NARROW marks take their ret_live from their entrants
   (BY_FUNC, FROM as in cfg_liveness_narrow), and a function is solved
   again when a function it jumps into, or whose entrants it holds,
   changed.  T holds the transfers.  False when out of memory.  */

static bool
solve_all (const struct code *code, struct cfg *cfg,
	   const unsigned char *narrow, const struct cfg_entrant *by_func,
	   const size_t *from, const uint64_t *dead, struct transfer *t,
	   const struct cfg_edge *edges, const size_t *table_from)
{
  size_t nf = cfg->n_funcs, n_pairs = 0, max_pairs = 1024, sp = 0;
  uint32_t (*pairs)[2] = malloc (max_pairs * sizeof *pairs);
  uint32_t *stack = malloc ((nf + 1) * sizeof *stack);
  unsigned char *queued = malloc (nf + 1);
  unsigned char *grew = calloc (nf + 1, 1);
  struct deps users = { NULL, NULL }, callers = { NULL, NULL };
  bool ok = false;

  if (pairs == NULL || stack == NULL || queued == NULL || grew == NULL)
    goto done;
  /* USERS: a function jumps or falls into another's blocks.  */
  for (size_t i = 0; i < cfg->n_blocks; i++)
    {
      for (uint32_t k = 0; k < cfg->blocks[i].n_succ; k++)
	{
	  uint32_t g = cfg->blocks[i].func;
	  uint32_t f = cfg->blocks[cfg->blocks[i].succ[k]].func;
	  if (f == g)
	    continue;
	  if (!pair_add (&pairs, &n_pairs, &max_pairs, f, g))
	    goto done;
	}
      if (t[i].out_kind == OUT_TAIL
	  && cfg->blocks[t[i].tail].func != cfg->blocks[i].func
	  && !pair_add (&pairs, &n_pairs, &max_pairs,
			cfg->blocks[t[i].tail].func, cfg->blocks[i].func))
	goto done;
    }
  if (!deps_build (&users, (const uint32_t (*)[2]) pairs, n_pairs, nf))
    goto done;
  /* CALLERS: a function holds entrants of a narrowed one, the first of
     a run of them in BY_FUNC (entrant_run).  */
  n_pairs = 0;
  for (size_t h = 0; h < nf; h++)
    for (size_t k = from[h]; k < from[h + 1];
	 k += entrant_run (cfg, by_func, k, from[h + 1]))
      {
	if (!pair_add (&pairs, &n_pairs, &max_pairs,
		       cfg->blocks[by_func[k].block].func, (uint32_t) k))
	  goto done;
      }
  if (!deps_build (&callers, (const uint32_t (*)[2]) pairs, n_pairs, nf))
    goto done;

  /* What the entrants bring before anything is solved: the returns of
     the functions that jump in.  */
  for (size_t h = 0; h < nf; h++)
    if (narrow[h])
      widen_ret (code, cfg, h, by_func + from[h], from[h + 1] - from[h],
		 dead, t);
  for (size_t f = nf; f-- > 0;)
    {
      stack[sp++] = (uint32_t) f;
      queued[f] = 1;
    }
  while (sp > 0)
    {
      uint32_t f = stack[--sp];

      queued[f] = 0;
      /* A wider ret_live concerns the functions F jumps into even when
	 none of F's own sets changes (F may have no return).  */
      if (!live_solve_function (cfg, &cfg->funcs[f], t, edges, table_from)
	  && !grew[f])
	continue;
      grew[f] = 0;
      for (uint32_t k = users.first[f]; k < users.first[f + 1]; k++)
	if (!queued[users.to[k]])
	  {
	    queued[users.to[k]] = 1;
	    stack[sp++] = users.to[k];
	  }
      for (uint32_t k = callers.first[f]; k < callers.first[f + 1]; k++)
	{
	  uint32_t r = callers.to[k], h = by_func[r].func;

	  if (!narrow[h]
	      || !widen_ret (code, cfg, h, by_func + r,
			     entrant_run (cfg, by_func, r, from[h + 1]),
			     dead, t))
	    continue;
	  grew[h] = 1;
	  if (!queued[h])
	    {
	      queued[h] = 1;
	      stack[sp++] = h;
	    }
	}
    }
  ok = true;

 done:
  free (pairs);
  free (stack);
  free (queued);
  free (grew);
  free (users.first);
  free (users.to);
  free (callers.first);
  free (callers.to);
  return ok;
}

bool
cfg_liveness_narrow (const struct code *code, struct cfg *cfg,
		     const unsigned char *narrow,
		     const struct cfg_entrant *in, size_t n_in,
		     const struct cfg_edge *tables, size_t n_tables,
		     const struct cfg_edge *tails, size_t n_tails)
{
  struct transfer *t = calloc (cfg->n_blocks + 1, sizeof *t);
  size_t *from = calloc (cfg->n_funcs + 1, sizeof *from);
  struct cfg_entrant *by_func = malloc ((n_in + 1) * sizeof *by_func);
  struct cfg_edge *edges = malloc ((n_tables + 1) * sizeof *edges);
  size_t *table_from = malloc ((cfg->n_blocks + 2) * sizeof *table_from);
  uint64_t *own = malloc ((cfg->n_funcs + 1) * sizeof *own);
  unsigned char *seen = calloc (cfg->n_blocks + 1, 1);
  unsigned char *whole = malloc (cfg->n_funcs + 1);
  int32_t *icall_func = malloc ((cfg->n_blocks + 1) * sizeof *icall_func);
  uint64_t *bw = NULL;
  uint32_t *stack = malloc ((cfg->n_blocks + 1) * sizeof *stack);
  bool ok = false;

  if (t == NULL || from == NULL || by_func == NULL || edges == NULL
      || table_from == NULL || own == NULL || seen == NULL || stack == NULL
      || whole == NULL || icall_func == NULL
      || (bw = live_block_writes (code, cfg)) == NULL
      || !live_set_may_write (code, cfg, bw))
    goto done;
  /* TABLES and IN may be NULL when empty.  */
  if (n_tables > 0)
    memcpy (edges, tables, n_tables * sizeof *tables);
  index_tables (cfg, edges, n_tables, table_from);
  for (size_t f = 0; f < cfg->n_funcs; f++)
    whole[f] = whole_function (code, cfg, &cfg->funcs[f], edges, table_from,
			       seen, stack);
  /* The calls through a register whose callee is known.  */
  for (size_t i = 0; i < cfg->n_blocks; i++)
    icall_func[i] = -1;
  for (size_t k = 0; k < n_in; k++)
    if (in[k].block < cfg->n_blocks && in[k].func < cfg->n_funcs)
      icall_func[in[k].block] = (int32_t) in[k].func;
  if (!live_set_writes (code, cfg, bw, seen, icall_func, own))
    goto done;
  if (n_in > 0)
    memcpy (by_func, in, n_in * sizeof *in);
  qsort (by_func, n_in, sizeof *by_func, entrant_cmp);
  for (size_t k = 0, f = 0; f <= cfg->n_funcs; f++)
    {
      while (k < n_in && by_func[k].func < f)
	k++;
      from[f] = k;
    }

  /* Whoever calls a function, following the calling convention or
     knowing what it writes (GCC's -fipa-ra), keeps no value across the
     call in a register that it writes: OWN becomes the registers dead
     after its returns.  What it writes comes from the blocks its entry
     reaches (callees' likewise); its returns are all its own only when
     those are all its blocks (whole_function).  */
  for (size_t f = 0; f < cfg->n_funcs; f++)
    {
      own[f] = whole[f] ? own[f] & LIVE_CLOBBERED : 0;
      cfg->funcs[f].ret_live
	= (narrow[f] ? LIVE_AFTER_CALL : LIVE_ALL) & ~own[f];
    }
  for (size_t i = 0; i < cfg->n_blocks; i++)
    {
      live_block_transfer (code, cfg, &cfg->blocks[i], cfg->blocks[i].start,
			   &t[i]);
      cfg->blocks[i].live_in = cfg->blocks[i].live_out = 0;
    }
  for (size_t k = 0; k < n_tails; k++)
    if (t[tails[k].from].out_kind == OUT_TAIL)
      t[tails[k].from].tail = tails[k].to;
  /* Edges into other functions and the entrants' sets make the
     solution global: a worklist of functions, each solved again when
     something it reads changed (the sets only grow, so this ends at
     the least solution).  */
  if (!solve_all (code, cfg, narrow, by_func, from, own, t, edges,
		  table_from))
    goto done;
  ok = true;

 done:
  free (t);
  free (from);
  free (by_func);
  free (edges);
  free (table_from);
  free (own);
  free (seen);
  free (stack);
  free (whole);
  free (icall_func);
  free (bw);
  return ok;
}
