/* inclusive.c -- inclusive costs of a block profile, estimated from its
   exact call counts as gprof does.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The units are the strongly connected components of the call graph,
   found with Tarjan's algorithm (iterative: call chains may be longer
   than the stack allows recursion).  Tarjan's completes a component
   after every component it calls, so each unit's cost is known when
   its callers need it.  */

#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "inclusive.h"
#include "saturate.h"

/* One caller -> callee edge of known callee, with its calls.  */
struct edge
{
  size_t caller, callee;
  uint64_t count;
};

#define NONE ((size_t) -1)

static int
compare_edge (const void *a, const void *b)
{
  const struct edge *x = a, *y = b;

  if (x->caller != y->caller)
    return x->caller < y->caller ? -1 : 1;
  return x->callee < y->callee ? -1 : x->callee > y->callee;
}

/* The edges of R that ran and whose callee is known, merged per caller
   and callee and sorted by caller; *N of them.  The calls of function F
   through a pointer whose callee is unknown are added to UNKNOWN[F].
   NULL when out of memory.  */

static struct edge *
collect (const struct report *r, size_t *n, uint64_t *unknown)
{
  struct edge *e = malloc ((r->n_calls + 1) * sizeof *e);
  size_t k = 0, out = 0;

  *n = 0;
  if (e == NULL)
    return NULL;
  for (size_t i = 0; i < r->n_calls; i++)
    {
      const struct report_call *c = &r->calls[i];
      uint64_t times = r->objects[c->object].prof->counts[c->block];
      if (times != 0 && c->callee != REPORT_NO_FUNC)
	e[k++] = (struct edge) { c->caller, c->callee, times };
      else if (c->symbol == NULL)
	unknown[c->caller] = sat_add (unknown[c->caller], times);
    }
  qsort (e, k, sizeof *e, compare_edge);
  for (size_t i = 0; i < k; i++)
    if (out > 0 && compare_edge (&e[out - 1], &e[i]) == 0)
      e[out - 1].count = sat_add (e[out - 1].count, e[i].count);
    else
      e[out++] = e[i];
  *n = out;
  return e;
}

uint64_t
report_inclusive_call (const struct report_inclusive *inc, size_t caller,
		       size_t callee, uint64_t count)
{
  size_t u = inc->unit[callee];
  uint64_t calls = inc->unit_calls[u];

  if (u == inc->unit[caller])
    return 0;
  if (count > calls)
    count = calls;
  return (uint64_t) ((unsigned __int128) inc->unit_cost[u] * count / calls);
}

/* Close the unit whose members are MEMBERS[0..N) (function indices):
   its number is INC->n_units.  EDGES from START (by caller) are R's;
   IN_CALLS and UNKNOWN the known calls into each function and the calls
   of unknown callee out of it.  */

static void
close_unit (const struct report *r, struct report_inclusive *inc,
	    const size_t *members, size_t n, const struct edge *edges,
	    const size_t *start, const uint64_t *in_calls,
	    const uint64_t *unknown)
{
  size_t u = inc->n_units++;
  uint64_t entries = 0, incoming = 0, inside = 0, cost = 0, calls;

  for (size_t i = 0; i < n; i++)
    inc->unit[members[i]] = u;
  for (size_t i = 0; i < n; i++)
    {
      size_t m = members[i];
      entries = sat_add (entries, r->functions[m].calls);
      incoming = sat_add (incoming, in_calls[m]);
      /* A call of unknown callee may be one inside the unit (PIC code
	 often recurses through `jalr t9' whose t9 another block set).  */
      inside = sat_add (inside, unknown[m]);
      for (size_t k = start[m]; k < start[m + 1]; k++)
	if (inc->unit[edges[k].callee] == u)
	  {
	    inside = sat_add (inside, edges[k].count);
	    incoming -= edges[k].count <= incoming ? edges[k].count : incoming;
	  }
    }
  /* The calls into the unit from outside: its entries less the calls
     that may be inside it, and at least the known calls from outside
     (a call may enter a function past its entry block).  */
  calls = entries > inside ? entries - inside : 0;
  if (incoming > calls)
    calls = incoming;
  inc->unit_calls[u] = calls != 0 ? calls : 1;
  for (size_t i = 0; i < n; i++)
    {
      size_t m = members[i];
      uint64_t own = r->functions[m].insns;
      for (size_t k = start[m]; k < start[m + 1]; k++)
	own = sat_add (own, report_inclusive_call (inc, m, edges[k].callee,
						   edges[k].count));
      inc->cost[m] = own;
      cost = sat_add (cost, own);
    }
  inc->unit_cost[u] = cost;
}

bool
report_inclusive_estimate (const struct report *r,
			   struct report_inclusive *inc)
{
  size_t nf = r->n_functions, n_edges = 0, n_stack = 0, n_frames = 0;
  size_t next_index = 0;
  struct edge *edges;
  size_t *start = calloc (nf + 2, sizeof *start);
  size_t *index = malloc ((nf + 1) * sizeof *index);
  size_t *low = malloc ((nf + 1) * sizeof *low);
  size_t *stack = malloc ((nf + 1) * sizeof *stack);
  bool *on_stack = calloc (nf + 1, sizeof *on_stack);
  uint64_t *in_calls = calloc (nf + 1, sizeof *in_calls);
  uint64_t *unknown = calloc (nf + 1, sizeof *unknown);
  /* The depth-first search: a function and its next edge.  */
  struct frame { size_t f, next; } *frames = malloc ((nf + 1) * sizeof *frames);
  bool ok = false;

  memset (inc, 0, sizeof *inc);
  edges = unknown != NULL ? collect (r, &n_edges, unknown) : NULL;
  inc->unit = malloc ((nf + 1) * sizeof *inc->unit);
  inc->unit_cost = malloc ((nf + 1) * sizeof *inc->unit_cost);
  inc->unit_calls = malloc ((nf + 1) * sizeof *inc->unit_calls);
  inc->cost = malloc ((nf + 1) * sizeof *inc->cost);
  if (edges == NULL || start == NULL || index == NULL || low == NULL
      || stack == NULL || on_stack == NULL || in_calls == NULL
      || unknown == NULL || frames == NULL || inc->unit == NULL || inc->unit_cost == NULL
      || inc->unit_calls == NULL || inc->cost == NULL)
    goto done;

  for (size_t k = 0; k < n_edges; k++)
    {
      start[edges[k].caller + 1]++;
      in_calls[edges[k].callee] = sat_add (in_calls[edges[k].callee],
					   edges[k].count);
    }
  for (size_t f = 0; f < nf; f++)
    start[f + 1] += start[f];
  for (size_t f = 0; f < nf; f++)
    {
      index[f] = NONE;
      inc->unit[f] = NONE;
    }

  for (size_t root = 0; root < nf; root++)
    {
      if (index[root] != NONE)
	continue;
      frames[n_frames++] = (struct frame) { root, start[root] };
      index[root] = low[root] = next_index++;
      stack[n_stack++] = root;
      on_stack[root] = true;
      while (n_frames > 0)
	{
	  struct frame *fr = &frames[n_frames - 1];
	  size_t f = fr->f;
	  if (fr->next < start[f + 1])
	    {
	      size_t g = edges[fr->next++].callee;
	      if (index[g] == NONE)
		{
		  frames[n_frames++] = (struct frame) { g, start[g] };
		  index[g] = low[g] = next_index++;
		  stack[n_stack++] = g;
		  on_stack[g] = true;
		}
	      else if (on_stack[g] && index[g] < low[f])
		low[f] = index[g];
	      continue;
	    }
	  n_frames--;
	  if (n_frames > 0 && low[f] < low[frames[n_frames - 1].f])
	    low[frames[n_frames - 1].f] = low[f];
	  if (low[f] == index[f])
	    {
	      size_t first = n_stack;
	      do
		on_stack[stack[--first]] = false;
	      while (stack[first] != f);
	      close_unit (r, inc, stack + first, n_stack - first, edges, start,
			  in_calls, unknown);
	      n_stack = first;
	    }
	}
    }
  ok = true;

 done:
  free (edges);
  free (start);
  free (index);
  free (low);
  free (stack);
  free (on_stack);
  free (in_calls);
  free (unknown);
  free (frames);
  if (!ok)
    report_inclusive_free (inc);
  return ok;
}

void
report_inclusive_free (struct report_inclusive *inc)
{
  free (inc->unit);
  free (inc->unit_cost);
  free (inc->unit_calls);
  free (inc->cost);
  memset (inc, 0, sizeof *inc);
}

bool
report_prepare_inclusive (struct report *r)
{
  if (r->inclusive != NULL)
    return true;
  r->inclusive = calloc (1, sizeof *r->inclusive);
  if (r->inclusive == NULL)
    return false;
  if (!report_inclusive_estimate (r, r->inclusive))
    {
      free (r->inclusive);
      r->inclusive = NULL;
      return false;
    }
  return true;
}
