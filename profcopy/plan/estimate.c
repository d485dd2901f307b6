/* estimate.c -- how often each block is likely to run, without a
   profile (from-profile.c: with one).

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   A counter costs least in the blocks that run least, and derive.c
   puts the counters there when it knows which blocks those are.  Here
   that is estimated from the code alone, the way a compiler estimates
   its own profile (Wu and Larus, "Static branch frequency and program
   profile analysis", 1994, with branch rules in the spirit of Ball and
   Larus, "Branch prediction for free", 1993):

   - Functions that jumps join (GCC's cold parts, tails that several
     functions share, switch cases in the code of another function)
     form one region.  Calls, and jumps to the entry of a function,
     go from region to region.

   - In a region, every function entry starts one run, and runs flow
     along the edges.  A branch sends TO_COLD of its flow to a block
     that surely runs seldom, else TO_SWITCH to a block that ends in a
     jump through a switch table when the other way does not (a
     switch's range check), else BACK_TAKEN along a loop's back edge,
     else LEAVE_LOOP out of its innermost loop, else TO_CALL to a block
     that ends in a call when the other way does not (Ball and Larus's
     call heuristic), else half each way; a jump through a switch table
     sends the same share to each target.
     The back edges are those of a depth-first search; a loop is the
     natural loop of the back edges into one header.  Gauss-Seidel
     sweeps in reverse post-order solve the flow equations, until no
     block changes by more than CONVERGED or for MAX_SWEEPS sweeps.
     The blocks of an interpreter's loop, one that dispatches through a
     switch table of INTERP_CASES targets or more, then weigh
     INTERP_RUNS times their flow.

   - A region runs once from outside, plus, for every call site, as
     often as the site runs times as often as the caller's region runs:
     taken over the call graph in reverse post-order of a depth-first
     search, whose back edges (recursion) add nothing.

   A block's estimate is its frequency in its region times the region's
   frequency.  Only the order matters to the caller.  */

#include <config.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "estimate.h"
#include "union-find.h"

#define NONE UINT32_MAX

/* The shares, chosen by the counts of bench/run-all.sh's workloads:
   0.78 and 0.3 place fewer increments than 0.88 and 0.2 did on all three
   programs (lua5.4, sqlite3 and cpubench: 0.2-0.5%, 0.5% and 0.25% fewer
   instructions); the neighbours from 0.75 to 0.8 and from 0.25 to 0.35
   do about as well, 0.82 and up costs cpubench 1%.  */
#define BACK_TAKEN 0.78f
#define LEAVE_LOOP 0.3f
#define TO_COLD 0.02f
/* The call heuristic (Ball and Larus, 1993, "Branch prediction for
   free"): their 0.22; with it the bench programs run 0.4% (sqlite3) to
   0.9% (cpubench) fewer instructions profiled; 0.12 and 0.3 do about as
   well.  Their return, opcode, loop-header and store heuristics each
   cost one of the three programs more than they saved the others.  So
   does taking GCC's layout for a prediction (the fall-through likelier
   than the taken way, or the other way round, for branches no rule
   here decides): with the fall-through's share at 0.3, 0.4, 0.6, 0.7
   or 0.8, cpubench, lua5.4, sqlite3 and perl ran 0.1% to 2.8% more
   instructions each, sed 1.2% to 4.3%, and only xz and bash gained
   (0.8% at best).  */
#define TO_CALL 0.22f
/* A branch of which one way ends in a jump through a switch table and
   the other not is most often a switch's range check, whose cases are
   what runs: without this rule the interpreter loop of sqlite3 took
   its out-of-range way for the loop's back edge and put a counter in
   the dispatch, which every opcode runs (sqlite3 1.7% fewer
   instructions, lua5.4 and cpubench the same; 0.97 does as well).  */
#define TO_SWITCH 0.9f
/* A loop that dispatches through a switch table of so many targets is
   an interpreter's (sqlite3's VDBE, lua5.4's VM): it runs far more
   often than the sweeps let a loop's flow grow, and so do the functions
   it calls.  Its blocks weigh INTERP_RUNS times their flow: with 64 and
   100, sqlite3 ran 0.45% fewer instructions profiled, lua5.4 0.1%,
   cpubench (whose switch is smaller) the same; 16 or 32 cases cost
   cpubench 0.2%, 20 or 1000 runs did no better.  */
#define INTERP_CASES 64
#define INTERP_RUNS 100.0f
#define CONVERGED 0.002f
#define MAX_SWEEPS 8
#define FREQ_MAX 1e18f

/* Blocks the loop bodies may visit, in all, per block of the object:
   past it, further loops go unmarked (their back edges still count).  */
#define LOOP_WALK_BUDGET 32

enum edge_kind
{
  EDGE_FLOW,			/* Always taken from its block.  */
  EDGE_BRANCH,			/* One of two ways; pairs are adjacent.  */
  EDGE_CALL			/* Into a function's entry; between regions.  */
};

struct edge
{
  uint32_t from, to;		/* Block indices.  */
  float share;			/* Of the flow out of FROM.  */
  enum edge_kind kind;
};

struct estimator
{
  const struct analysis *a;
  const unsigned char *cold;
  size_t n;			/* Blocks.  */
  struct edge *edges;
  size_t n_edges;
  uint32_t *region;		/* Per function: its region's first function.  */
  uint32_t *target;		/* Per edge: its TO (for search).  */
  /* The edges inside regions, by block: out of v, OUT[OUT_FIRST[v]...],
     into v, IN[IN_FIRST[v]...] (edge indices).  */
  uint32_t *out_first, *out, *in_first, *in;
  uint8_t *back;		/* Per edge: a back edge of the search.  */
  uint32_t *order;		/* Blocks in post-order.  */
  uint32_t *inner;		/* Per block: header of its innermost loop
				   (a header's is itself), or NONE.  */
  uint32_t *outer;		/* Per header: header of the smallest loop
				   around its own, or NONE.  */
  uint32_t *loop_size;		/* Per header, while finding the loops.  */
  uint32_t *n_cases;		/* Per block: targets of its switch table.  */
  float *freq;
};

/* Add an edge to E (room was made for it).  */

static void
add_edge (struct estimator *e, size_t from, size_t to, float share,
	  enum edge_kind kind)
{
  struct edge *ed = &e->edges[e->n_edges++];

  ed->from = (uint32_t) from;
  ed->to = (uint32_t) to;
  ed->share = share;
  ed->kind = kind;
}

/* The entry block of function F, or -1.  */

static long
entry_block (const struct cfg *cfg, uint32_t f)
{
  return cfg_block_starting (cfg, cfg->funcs[f].entry);
}

/* Make the edges of E: the blocks' successors, calls and jumps into
   known functions (ENTERS), and the jumps through switch tables.  False
   when out of memory.  */

static bool
make_edges (struct estimator *e, const uint32_t *enters)
{
  const struct analysis *a = e->a;
  const struct cfg *cfg = &a->cfg;
  struct cfg_edge *tables = NULL;
  size_t n_tables = 0;
  uint32_t *n_cases = e->n_cases = calloc (e->n + 1, sizeof *n_cases);

  if (n_cases == NULL || !analysis_table_edges (a, &tables, &n_tables)
      || (e->edges = malloc ((2 * e->n + n_tables + 1)
			     * sizeof *e->edges)) == NULL)
    {
      free (tables);
      return false;
    }
  for (size_t k = 0; k < n_tables; k++)
    n_cases[tables[k].from]++;
  for (size_t i = 0; i < e->n; i++)
    {
      const struct block *b = &cfg->blocks[i];
      const struct insn *slot;
      const struct insn *ctl = cfg_block_control (&a->code, b, &slot);
      long callee = enters != NULL && enters[i] != 0
		    ? entry_block (cfg, enters[i] - 1) : -1;

      if (b->flags & BLOCK_F_CALL)
	{
	  if (callee >= 0)
	    add_edge (e, i, (size_t) callee, 1, EDGE_CALL);
	  if (b->n_succ > 0)
	    add_edge (e, i, b->succ[0], 1, EDGE_FLOW);
	}
      else if (b->flags & BLOCK_F_INDIRECT)
	{
	  if (callee >= 0 && n_cases[i] == 0)
	    add_edge (e, i, (size_t) callee, 1, EDGE_CALL);
	}
      else if (b->flags & BLOCK_F_RETURN)
	;
      else if (b->n_succ == 2)
	{
	  add_edge (e, i, b->succ[0], 0.5f, EDGE_BRANCH);
	  add_edge (e, i, b->succ[1], 0.5f, EDGE_BRANCH);
	}
      else if (b->n_succ == 1)
	{
	  /* A jump to another function's entry is a tail call.  */
	  const struct block *to = &cfg->blocks[b->succ[0]];
	  bool tail = ctl != NULL && ctl->kind == INSN_JUMP
		      && to->func != b->func
		      && cfg->funcs[to->func].entry == to->start;
	  add_edge (e, i, b->succ[0], 1, tail ? EDGE_CALL : EDGE_FLOW);
	}
    }
  for (size_t k = 0; k < n_tables; k++)
    add_edge (e, tables[k].from, tables[k].to,
	      1.0f / (float) n_cases[tables[k].from], EDGE_FLOW);
  free (tables);
  return true;
}

/* Join the functions of E that edges other than calls join into
   regions.  False when out of memory.  */

static bool
make_regions (struct estimator *e)
{
  const struct cfg *cfg = &e->a->cfg;

  e->region = malloc ((cfg->n_funcs + 1) * sizeof *e->region);
  if (e->region == NULL)
    return false;
  for (size_t f = 0; f < cfg->n_funcs; f++)
    e->region[f] = (uint32_t) f;
  for (size_t k = 0; k < e->n_edges; k++)
    if (e->edges[k].kind != EDGE_CALL)
      {
	uint32_t x = uf_find (e->region, cfg->blocks[e->edges[k].from].func);
	uint32_t y = uf_find (e->region, cfg->blocks[e->edges[k].to].func);
	if (x != y)
	  e->region[x] = y;
      }
  for (size_t f = 0; f < cfg->n_funcs; f++)
    e->region[f] = uf_find (e->region, (uint32_t) f);
  return true;
}

/* Whether edge K of E stays in its region.  */

static bool
local_edge (const struct estimator *e, size_t k)
{
  return e->edges[k].kind != EDGE_CALL;
}

/* List the local edges of E out of and into every block.  False when
   out of memory.  */

static bool
make_lists (struct estimator *e)
{
  size_t n = e->n;
  uint32_t *next = malloc ((n + 1) * sizeof *next);

  e->out_first = calloc (n + 2, sizeof *e->out_first);
  e->in_first = calloc (n + 2, sizeof *e->in_first);
  e->out = malloc ((e->n_edges + 1) * sizeof *e->out);
  e->in = malloc ((e->n_edges + 1) * sizeof *e->in);
  e->target = malloc ((e->n_edges + 1) * sizeof *e->target);
  if (next == NULL || e->out_first == NULL || e->in_first == NULL
      || e->out == NULL || e->in == NULL || e->target == NULL)
    {
      free (next);
      return false;
    }
  for (size_t k = 0; k < e->n_edges; k++)
    {
      e->target[k] = e->edges[k].to;
      if (local_edge (e, k))
	{
	  e->out_first[e->edges[k].from + 1]++;
	  e->in_first[e->edges[k].to + 1]++;
	}
    }
  for (size_t i = 0; i < n; i++)
    {
      e->out_first[i + 1] += e->out_first[i];
      e->in_first[i + 1] += e->in_first[i];
    }
  memcpy (next, e->out_first, n * sizeof *next);
  for (size_t k = 0; k < e->n_edges; k++)
    if (local_edge (e, k))
      e->out[next[e->edges[k].from]++] = (uint32_t) k;
  memcpy (next, e->in_first, n * sizeof *next);
  for (size_t k = 0; k < e->n_edges; k++)
    if (local_edge (e, k))
      e->in[next[e->edges[k].to]++] = (uint32_t) k;
  free (next);
  return true;
}

/* Search depth first the graph of N vertices whose edges out of vertex
   v are OUT[FIRST[v]] to OUT[FIRST[v + 1] - 1] (edge indices, to
   TARGET[k]), from the N_ROOTS vertices ROOTS, then from every vertex
   not yet reached.  Set BACK[k] for the edges to a vertex on the path,
   list every vertex in post-order in ORDER.  False when out of
   memory.  */

static bool
search (size_t n, const uint32_t *first, const uint32_t *out,
	const uint32_t *target, const uint32_t *roots, size_t n_roots,
	uint8_t *back, uint32_t *order)
{
  unsigned char *state = calloc (n + 1, 1);	/* 1 on the path, 2 done.  */
  uint32_t *stack = malloc ((n + 1) * sizeof *stack);
  uint32_t *next = malloc ((n + 1) * sizeof *next);
  size_t n_order = 0;

  if (state == NULL || stack == NULL || next == NULL)
    {
      free (state);
      free (stack);
      free (next);
      return false;
    }
  for (size_t r = 0; r < n_roots + n; r++)
    {
      uint32_t root = r < n_roots ? roots[r] : (uint32_t) (r - n_roots);
      size_t sp = 0;

      if (state[root] != 0)
	continue;
      state[root] = 1;
      next[root] = first[root];
      stack[sp++] = root;
      while (sp > 0)
	{
	  uint32_t v = stack[sp - 1];
	  if (next[v] < first[v + 1])
	    {
	      uint32_t k = out[next[v]++], w = target[k];
	      if (state[w] == 1)
		back[k] = 1;
	      else if (state[w] == 0)
		{
		  state[w] = 1;
		  next[w] = first[w];
		  stack[sp++] = w;
		}
	    }
	  else
	    {
	      state[v] = 2;
	      order[n_order++] = v;
	      sp--;
	    }
	}
    }
  free (state);
  free (stack);
  free (next);
  return true;
}

/* Record in E that block V lies in the loop of header H.  */

static void
note_in_loop (struct estimator *e, uint32_t v, uint32_t h)
{
  const uint32_t *size = e->loop_size;

  if (e->inner[v] == v)		/* A header: H may be around its loop.  */
    {
      if (size[h] > size[v]
	  && (e->outer[v] == NONE || size[e->outer[v]] > size[h]))
	e->outer[v] = h;
    }
  else if (e->inner[v] == NONE || size[e->inner[v]] > size[h])
    e->inner[v] = h;
}

/* Walk the natural loop of header H of E backwards from the tails of its
   back edges, with NOTE recording each block but H in it (note_in_loop).
   MARK (per block) and STAMP keep the walk to one visit per block;
   *BUDGET counts the visits down.  Return the loop's size, or 0 when
   the budget ran out.  */

static size_t
walk_loop (struct estimator *e, uint32_t h, bool note, uint32_t *mark,
	   uint32_t stamp, uint32_t *stack, size_t *budget)
{
  size_t size = 1, sp = 0;

  mark[h] = stamp;
  for (uint32_t q = e->in_first[h]; q < e->in_first[h + 1]; q++)
    {
      uint32_t k = e->in[q], t = e->edges[k].from;
      if (e->back[k] && mark[t] != stamp)
	{
	  mark[t] = stamp;
	  stack[sp++] = t;
	}
    }
  while (sp > 0)
    {
      uint32_t v = stack[--sp];
      if (*budget == 0)
	return 0;
      --*budget;
      size++;
      if (note)
	note_in_loop (e, v, h);
      for (uint32_t q = e->in_first[v]; q < e->in_first[v + 1]; q++)
	{
	  uint32_t u = e->edges[e->in[q]].from;
	  if (mark[u] != stamp)
	    {
	      mark[u] = stamp;
	      stack[sp++] = u;
	    }
	}
    }
  return size;
}

/* Find the loops of E: INNER and OUTER.  False when out of memory.  */

static bool
find_loops (struct estimator *e)
{
  size_t n = e->n;
  uint32_t *mark = calloc (n + 1, sizeof *mark);
  uint32_t *stack = malloc ((n + 1) * sizeof *stack);
  uint32_t stamp = 0;
  size_t budget = LOOP_WALK_BUDGET * n + 1024, again = budget;

  e->inner = malloc ((n + 1) * sizeof *e->inner);
  e->outer = malloc ((n + 1) * sizeof *e->outer);
  e->loop_size = calloc (n + 1, sizeof *e->loop_size);
  if (mark == NULL || stack == NULL || e->inner == NULL || e->outer == NULL
      || e->loop_size == NULL)
    {
      free (mark);
      free (stack);
      return false;
    }
  for (size_t i = 0; i < n; i++)
    e->inner[i] = e->outer[i] = NONE;
  for (size_t k = 0; k < e->n_edges; k++)
    if (e->back[k])
      e->inner[e->edges[k].to] = e->edges[k].to;
  /* Sizes first, so that each block can then keep the smallest loop.  */
  for (uint32_t h = 0; h < n; h++)
    if (e->inner[h] == h)
      e->loop_size[h] = (uint32_t) walk_loop (e, h, false, mark, ++stamp,
					      stack, &budget);
  for (uint32_t h = 0; h < n; h++)
    if (e->inner[h] == h && e->loop_size[h] != 0)
      walk_loop (e, h, true, mark, ++stamp, stack, &again);
  free (mark);
  free (stack);
  return true;
}

/* Whether block S of E lies in the loop of header H.  */

static bool
in_loop (const struct estimator *e, uint32_t s, uint32_t h)
{
  for (uint32_t x = e->inner[s]; x != NONE; x = e->outer[x])
    if (x == h)
      return true;
  return false;
}

/* True if block B of E ends in a call.  */

static bool
ends_in_call (const struct estimator *e, uint32_t b)
{
  return (e->a->cfg.blocks[b].flags & BLOCK_F_CALL) != 0;
}

/* True if block B of E ends in a jump through a switch table.  */

static bool
ends_in_switch (const struct estimator *e, uint32_t b)
{
  return (e->a->cfg.blocks[b].flags & BLOCK_F_TABLE) != 0;
}

/* Share the flow of every branch of E between its two ways.  */

static void
set_shares (struct estimator *e)
{
  for (size_t k = 0; k + 1 < e->n_edges; k++)
    {
      struct edge *x = &e->edges[k], *y = &e->edges[k + 1];
      uint32_t h;
      float p = 0.5f;		/* Of X.  */

      if (x->kind != EDGE_BRANCH || y->kind != EDGE_BRANCH
	  || x->from != y->from)
	continue;
      h = e->inner[x->from];
      if (e->cold[x->to] != e->cold[y->to])
	p = e->cold[x->to] ? TO_COLD : 1 - TO_COLD;
      else if (ends_in_switch (e, x->to) != ends_in_switch (e, y->to))
	p = ends_in_switch (e, x->to) ? TO_SWITCH : 1 - TO_SWITCH;
      else if (e->back[k] != e->back[k + 1])
	p = e->back[k] ? BACK_TAKEN : 1 - BACK_TAKEN;
      else if (h != NONE && in_loop (e, x->to, h) != in_loop (e, y->to, h))
	p = in_loop (e, x->to, h) ? 1 - LEAVE_LOOP : LEAVE_LOOP;
      else if (ends_in_call (e, x->to) != ends_in_call (e, y->to))
	p = ends_in_call (e, x->to) ? TO_CALL : 1 - TO_CALL;
      x->share = p;
      y->share = 1 - p;
      k++;
    }
}

/* Solve the flow of every region of E into FREQ (zeros).  False when
   out of memory.  */

static bool
solve_regions (struct estimator *e)
{
  const struct cfg *cfg = &e->a->cfg;
  size_t n = e->n;
  unsigned char *entry = calloc (n + 1, 1);

  if (entry == NULL)
    return false;
  for (size_t f = 0; f < cfg->n_funcs; f++)
    {
      long k = entry_block (cfg, (uint32_t) f);
      if (k >= 0)
	entry[k] = 1;
    }
  for (int sweep = 0; sweep < MAX_SWEEPS; sweep++)
    {
      float change = 0;
      for (size_t k = n; k-- > 0;)
	{
	  uint32_t i = e->order[k];
	  float v = entry[i], d;
	  for (uint32_t q = e->in_first[i]; q < e->in_first[i + 1]; q++)
	    {
	      const struct edge *ed = &e->edges[e->in[q]];
	      v += e->freq[ed->from] * ed->share;
	    }
	  if (v > FREQ_MAX)
	    v = FREQ_MAX;
	  d = v > e->freq[i] ? v - e->freq[i] : e->freq[i] - v;
	  if (d > change * v)
	    change = d / v;
	  e->freq[i] = v;
	}
      if (change < CONVERGED)
	break;
    }
  free (entry);
  return true;
}

/* Multiply the frequencies of the blocks of every interpreter loop of E
   (a loop that dispatches through a switch table of INTERP_CASES
   targets or more) by INTERP_RUNS.  False when out of memory.  */

static bool
scale_interpreters (struct estimator *e)
{
  unsigned char *mark = calloc (e->n + 1, 1);

  if (mark == NULL)
    return false;
  for (size_t i = 0; i < e->n; i++)
    if (e->n_cases[i] >= INTERP_CASES && e->inner[i] != NONE)
      mark[e->inner[i]] = 1;
  for (size_t i = 0; i < e->n; i++)
    for (uint32_t x = e->inner[i]; x != NONE; x = e->outer[x])
      if (mark[x])
	{
	  e->freq[i] = e->freq[i] * INTERP_RUNS > FREQ_MAX
		       ? FREQ_MAX : e->freq[i] * INTERP_RUNS;
	  break;
	}
  free (mark);
  return true;
}

/* Multiply the frequencies of E by how often each region runs.  False
   when out of memory.  */

static bool
scale_regions (struct estimator *e)
{
  const struct cfg *cfg = &e->a->cfg;
  size_t nf = cfg->n_funcs;
  uint32_t *first = calloc (nf + 2, sizeof *first);
  uint32_t *out = malloc ((e->n_edges + 1) * sizeof *out);
  uint32_t *target = malloc ((e->n_edges + 1) * sizeof *target);
  uint32_t *order = malloc ((nf + 1) * sizeof *order);
  uint8_t *back = calloc (e->n_edges + 1, 1);
  float *runs = malloc ((nf + 1) * sizeof *runs);
  bool ok = first != NULL && out != NULL && target != NULL && order != NULL
	    && back != NULL && runs != NULL;

  /* The call graph of regions: edge k runs from the caller's region to
     TARGET[k], as often as its site.  */
  for (size_t k = 0; ok && k < e->n_edges; k++)
    {
      const struct edge *ed = &e->edges[k];
      target[k] = NONE;
      if (ed->kind == EDGE_CALL)
	{
	  uint32_t from = e->region[cfg->blocks[ed->from].func];
	  uint32_t to = e->region[cfg->blocks[ed->to].func];
	  if (from != to)
	    {
	      target[k] = to;
	      first[from + 1]++;
	    }
	}
    }
  if (ok)
    {
      uint32_t *next = malloc ((nf + 1) * sizeof *next);
      ok = next != NULL;
      for (size_t f = 0; ok && f < nf; f++)
	first[f + 1] += first[f];
      if (ok)
	memcpy (next, first, nf * sizeof *next);
      for (size_t k = 0; ok && k < e->n_edges; k++)
	if (target[k] != NONE)
	  out[next[e->region[cfg->blocks[e->edges[k].from].func]]++]
	    = (uint32_t) k;
      free (next);
    }
  ok = ok && search (nf, first, out, target, NULL, 0, back, order);
  if (ok)
    {
      for (size_t f = 0; f < nf; f++)
	runs[f] = 1;
      for (size_t q = nf; q-- > 0;)
	{
	  uint32_t f = order[q];
	  if (runs[f] > FREQ_MAX)
	    runs[f] = FREQ_MAX;
	  for (uint32_t r = first[f]; r < first[f + 1]; r++)
	    {
	      uint32_t k = out[r];
	      if (!back[k])
		runs[target[k]] += e->freq[e->edges[k].from] * runs[f];
	    }
	}
      for (size_t i = 0; i < e->n; i++)
	{
	  float r = runs[e->region[cfg->blocks[i].func]];
	  e->freq[i] *= r > FREQ_MAX ? FREQ_MAX : r;
	}
    }
  free (first);
  free (out);
  free (target);
  free (order);
  free (back);
  free (runs);
  return ok;
}

float *
estimate_frequencies (const struct analysis *a, const unsigned char *cold,
		      const uint32_t *enters, float *taken)
{
  const struct cfg *cfg = &a->cfg;
  struct estimator e;
  uint32_t *roots = malloc ((cfg->n_funcs + 1) * sizeof *roots);
  size_t n_roots = 0;
  bool ok;

  memset (&e, 0, sizeof e);
  e.a = a;
  e.cold = cold;
  e.n = cfg->n_blocks;
  e.freq = calloc (e.n + 1, sizeof *e.freq);
  e.order = malloc ((e.n + 1) * sizeof *e.order);
  ok = roots != NULL && e.freq != NULL && e.order != NULL
       && make_edges (&e, enters) && make_regions (&e) && make_lists (&e);
  if (ok)
    {
      e.back = calloc (e.n_edges + 1, 1);
      for (size_t f = 0; f < cfg->n_funcs; f++)
	{
	  long k = entry_block (cfg, (uint32_t) f);
	  if (k >= 0)
	    roots[n_roots++] = (uint32_t) k;
	}
      ok = e.back != NULL
	   && search (e.n, e.out_first, e.out, e.target, roots, n_roots,
		      e.back, e.order)
	   && find_loops (&e);
    }
  if (ok)
    {
      set_shares (&e);
      ok = solve_regions (&e) && scale_interpreters (&e)
	   && scale_regions (&e);
      if (taken != NULL)
	{
	  memset (taken, 0, e.n * sizeof *taken);
	  for (size_t k = 0; k < e.n_edges; k++)
	    if (e.edges[k].kind == EDGE_BRANCH
		&& e.edges[k].to == cfg->blocks[e.edges[k].from].succ[0])
	      taken[e.edges[k].from] = e.edges[k].share;
	}
    }
  free (roots);
  free (e.edges);
  free (e.region);
  free (e.target);
  free (e.out_first);
  free (e.out);
  free (e.in_first);
  free (e.in);
  free (e.back);
  free (e.order);
  free (e.inner);
  free (e.outer);
  free (e.loop_size);
  free (e.n_cases);
  if (!ok)
    {
      free (e.freq);
      return NULL;
    }
  return e.freq;
}
