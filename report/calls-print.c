/* calls-print.c -- print the call graph: text, CSV and Graphviz DOT.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The call sites of the report are merged into edges: one per caller
   and callee function (or callee symbol, when no profiled object
   defines it); an indirect call site is an edge of its own.  Edges
   that never ran are left out.  */

#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "inclusive.h"
#include "segment.h"
#include "saturate.h"

/* One edge of the call graph.  */
struct edge
{
  size_t caller;
  size_t callee;		/* REPORT_NO_FUNC if SYMBOL or indirect.  */
  const char *symbol;		/* An undefined callee, or NULL.  */
  size_t object;		/* For an indirect site: its object...  */
  uint32_t site;		/* ... and address.  */
  uint64_t count;
};

#define INDIRECT "<indirect>"

static bool
is_indirect (const struct edge *e)
{
  return e->callee == REPORT_NO_FUNC && e->symbol == NULL;
}

static int
compare_edge (const void *a, const void *b)
{
  const struct edge *x = a, *y = b;
  int c;

  if (x->caller != y->caller)
    return x->caller < y->caller ? -1 : 1;
  if (x->callee != y->callee)
    return x->callee < y->callee ? -1 : 1;
  if ((x->symbol == NULL) != (y->symbol == NULL))
    return x->symbol == NULL ? -1 : 1;
  if (x->symbol != NULL && (c = strcmp (x->symbol, y->symbol)) != 0)
    return c;
  if (is_indirect (x))
    {
      if (x->object != y->object)
	return x->object < y->object ? -1 : 1;
      if (x->site != y->site)
	return x->site < y->site ? -1 : 1;
    }
  return 0;
}

/* Return the malloc'd edges of R that ran, sorted by caller, and set *N
   to their number and *TOTAL to the sum of their counts; the indirect
   call sites of a function are one edge unless PER_SITE.  NULL when out
   of memory.  */

static struct edge *
collect_edges (const struct report *r, bool per_site, size_t *n,
	       uint64_t *total)
{
  struct edge *edges = malloc ((r->n_calls + 1) * sizeof *edges);
  size_t count = 0, out = 0;

  *n = 0;
  *total = 0;
  if (edges == NULL)
    return NULL;
  for (size_t i = 0; i < r->n_calls; i++)
    {
      const struct report_call *c = &r->calls[i];
      uint64_t times = r->objects[c->object].prof->counts[c->block];
      if (times == 0)
	continue;
      edges[count].caller = c->caller;
      edges[count].callee = c->callee;
      edges[count].symbol = c->callee == REPORT_NO_FUNC ? c->symbol : NULL;
      edges[count].object = per_site ? c->object : 0;
      edges[count].site = per_site ? c->addr : 0;
      edges[count].count = times;
      *total = sat_add (*total, times);
      count++;
    }
  qsort (edges, count, sizeof *edges, compare_edge);
  for (size_t i = 0; i < count; i++)
    if (out > 0 && compare_edge (&edges[out - 1], &edges[i]) == 0)
      edges[out - 1].count = sat_add (edges[out - 1].count, edges[i].count);
    else
      edges[out++] = edges[i];
  *n = out;
  return edges;
}

/* The name of E's callee.  */

static const char *
callee_name (const struct report *r, const struct edge *e)
{
  if (e->callee != REPORT_NO_FUNC)
    return r->functions[e->callee].name;
  return e->symbol != NULL ? e->symbol : INDIRECT;
}

/* The base name of the object of function F of R.  */

static const char *
object_name (const struct report *r, size_t f)
{
  return base_name (r->objects[r->functions[f].object].prof->path);
}

/* Print the callee of E to OUT for the text report.  */

static void
print_callee (FILE *out, const struct report *r, const struct edge *e)
{
  if (e->callee != REPORT_NO_FUNC)
    fprintf (out, "%s (%s)\n", r->functions[e->callee].name,
	     object_name (r, e->callee));
  else if (e->symbol != NULL)
    fprintf (out, "%s (not profiled)\n", e->symbol);
  else
    fprintf (out, INDIRECT " at 0x%08" PRIx32 "\n", e->site);
}

/* Order of function indices of the functions FUNCTIONS (struct
   report_function) by instructions, hottest first; for qsort_r.  */

/* N as a percentage of TOTAL.  */

static double
share_of (uint64_t n, uint64_t total)
{
  return total != 0 ? 100.0 * (double) n / (double) total : 0.0;
}

static int
compare_heat (const void *a, const void *b, void *functions)
{
  const struct report_function *f = functions;
  size_t i = *(const size_t *) a, j = *(const size_t *) b;
  const struct report_function *x = &f[i];
  const struct report_function *y = &f[j];

  if (x->insns != y->insns)
    return x->insns > y->insns ? -1 : 1;
  return i < j ? -1 : i > j;
}

/* Print the text call graph of R from its EDGES (N, total TOTAL): per
   function that calls or is called, hottest first, its share of the
   instructions, with its callees too (estimated: inclusive.h), its
   callers and its callees with counts.  */

static void
print_text (FILE *out, const struct report *r, const struct edge *edges,
	    size_t n, uint64_t total)
{
  size_t *order = malloc ((r->n_functions + 1) * sizeof *order);
  bool *seen = calloc (r->n_functions + 1, sizeof *seen);
  size_t n_order = 0;
  const struct report_inclusive *inc = r->inclusive;

  if (order == NULL || seen == NULL || inc == NULL)
    {
      fputs ("profreport: out of memory\n", stderr);
      goto cleanup;
    }
  for (size_t i = 0; i < n; i++)
    {
      seen[edges[i].caller] = true;
      if (edges[i].callee != REPORT_NO_FUNC)
	seen[edges[i].callee] = true;
    }
  for (size_t f = 0; f < r->n_functions; f++)
    if (seen[f])
      order[n_order++] = f;
  qsort_r (order, n_order, sizeof *order, compare_heat, r->functions);

  fprintf (out, "Call graph: %" PRIu64 " calls, %zu edges, %zu functions.\n",
	   total, n, n_order);
  for (size_t k = 0; k < n_order; k++)
    {
      size_t f = order[k];
      const struct report_function *fn = &r->functions[f];
      bool header = false;

      fprintf (out, "\n%s (%s)  %.2f%% of the instructions, %.2f%% with "
	       "its callees (estimated), %" PRIu64 " %s\n", fn->name,
	       object_name (r, f), share_of (fn->insns, r->total),
	       share_of (inc->cost[f], r->total), fn->calls,
	       fn->calls == 1 ? "entry" : "entries");
      for (size_t i = 0; i < n; i++)
	if (edges[i].callee == f)
	  {
	    if (!header)
	      fputs ("  called by:\n", out);
	    header = true;
	    fprintf (out, "    %16" PRIu64 "  %s (%s)\n", edges[i].count,
		     r->functions[edges[i].caller].name,
		     object_name (r, edges[i].caller));
	  }
      header = false;
      for (size_t i = 0; i < n; i++)
	if (edges[i].caller == f)
	  {
	    if (!header)
	      fputs ("  calls:\n", out);
	    header = true;
	    fprintf (out, "    %16" PRIu64 "  ", edges[i].count);
	    print_callee (out, r, &edges[i]);
	  }
    }

 cleanup:
  free (order);
  free (seen);
}

void
calls_print (FILE *out, const struct report *r, enum report_format format)
{
  size_t n;
  uint64_t total;
  struct edge *edges = collect_edges (r, format == REPORT_TEXT, &n, &total);

  if (edges == NULL)
    {
      fputs ("profreport: out of memory\n", stderr);
      return;
    }
  if (format == REPORT_CSV)
    {
      fputs ("caller,callee,count,caller_object,callee_object\n", out);
      for (size_t i = 0; i < n; i++)
	{
	  const struct edge *e = &edges[i];
	  csv_field (out, r->functions[e->caller].name);
	  putc (',', out);
	  csv_field (out, callee_name (r, e));
	  fprintf (out, ",%" PRIu64 ",", e->count);
	  csv_field (out, r->objects[r->functions[e->caller].object].prof->path);
	  putc (',', out);
	  if (e->callee != REPORT_NO_FUNC)
	    csv_field (out,
		       r->objects[r->functions[e->callee].object].prof->path);
	  putc ('\n', out);
	}
    }
  else
    print_text (out, r, edges, n, total);
  free (edges);
}

/* Keep, for every function KEEP has whose callers are all left out,
   the caller of its heaviest call among EDGES (N), and so on up: every
   function drawn but the roots then hangs from the graph.  */

static void
keep_callers (const struct report *r, const struct edge *edges, size_t n,
	      bool *keep)
{
  bool changed = true;

  for (size_t round = 0; changed && round < r->n_functions; round++)
    {
      changed = false;
      for (size_t f = 0; f < r->n_functions; f++)
	{
	  size_t best = n;
	  bool fed = false;
	  if (!keep[f])
	    continue;
	  for (size_t i = 0; i < n && !fed; i++)
	    if (edges[i].callee == f && edges[i].caller != f)
	      {
		fed = keep[edges[i].caller];
		if (best == n || edges[i].count > edges[best].count)
		  best = i;
	      }
	  if (!fed && best < n)
	    {
	      keep[edges[best].caller] = true;
	      changed = true;
	    }
	}
    }
}

/* The name of R's program: the base name of its main object, else of
   its first one.  */

static const char *
program_of (const struct report *r)
{
  for (size_t o = 0; o < r->n_objects; o++)
    if (r->objects[o].prof->flags & PC_SEGMENT_F_MAIN)
      return base_name (r->objects[o].prof->path);
  return r->n_objects > 0 ? base_name (r->objects[0].prof->path) : "?";
}

/* Write the DOT graph of R's EDGES (N, total TOTAL) to OUT.  A function
   is drawn when its share of the instructions is at least NODE_THRES
   percent, or when it is an end of an edge whose share of the calls is
   at least EDGE_THRES percent, or the heaviest caller of one drawn
   (keep_callers); every edge between two functions drawn is drawn.  */

static bool
write_dot (FILE *out, const struct report *r, const struct edge *edges,
	   size_t n, uint64_t total, double node_thres, double edge_thres)
{
  bool *keep = calloc (r->n_functions + 1, sizeof *keep);
  double max_share = 0;
  uint64_t max_count = 1;
  const struct report_inclusive *inc = r->inclusive;

  if (keep == NULL)
    return false;
  if (inc == NULL)
    {
      free (keep);
      return false;
    }
  for (size_t f = 0; f < r->n_functions; f++)
    if (r->total != 0
	&& 100.0 * (double) r->functions[f].insns / (double) r->total
	   >= node_thres
	&& r->functions[f].insns != 0)
      keep[f] = true;
  for (size_t i = 0; i < n; i++)
    if (edges[i].callee != REPORT_NO_FUNC
	&& 100.0 * (double) edges[i].count / (double) total >= edge_thres)
      {
	keep[edges[i].caller] = keep[edges[i].callee] = true;
	if (edges[i].count > max_count)
	  max_count = edges[i].count;
      }
  keep_callers (r, edges, n, keep);
  for (size_t f = 0; f < r->n_functions; f++)
    if (keep[f] && (double) r->functions[f].insns > max_share)
      max_share = (double) r->functions[f].insns;

  {
    char *title = NULL;
    if (asprintf (&title, "%s: %" PRIu64 " instructions, %" PRIu64 " calls"
		  " (functions from %.2g%% of the instructions, calls from"
		  " %.2g%% of the calls; with callees: estimated)",
		  program_of (r), r->total, total, node_thres, edge_thres) < 0)
      {
	free (keep);
	return false;
      }
    report_dot_begin (out, "profile", title,
		      "share of the instructions (self)",
		      r->total != 0 ? 100.0 * max_share / (double) r->total : 0);
    free (title);
  }
  for (size_t f = 0; f < r->n_functions; f++)
    {
      const struct report_function *fn = &r->functions[f];
      double share, heat;
      if (!keep[f])
	continue;
      share = r->total != 0 ? 100.0 * (double) fn->insns / (double) r->total
	      : 0.0;
      /* The square root spreads the many small shares apart.  */
      heat = max_share > 0 ? sqrt ((double) fn->insns / max_share) : 0.0;
      fprintf (out, "  f%zu [label=\"", f);
      quoted_string (out, fn->name);
      fputs ("\\n", out);
      quoted_string (out, object_name (r, f));
      fprintf (out, "\\n%.2f%%, with callees %.2f%%\\n%" PRIu64 " %s\", ",
	       share, share_of (inc->cost[f], r->total), fn->calls,
	       fn->calls == 1 ? "entry" : "entries");
      report_dot_colour (out, heat);
      fputs ("];\n", out);
    }
  for (size_t i = 0; i < n; i++)
    {
      const struct edge *e = &edges[i];
      if (e->callee == REPORT_NO_FUNC || !keep[e->caller] || !keep[e->callee])
	continue;
      report_dot_edge (out, e->caller, e->callee, e->count, max_count);
    }
  fputs ("}\n", out);
  free (keep);
  return true;
}

bool
calls_write_dot (const char *file, const struct report *r,
		 double node_thres, double edge_thres, char **errmsg)
{
  size_t n;
  uint64_t total;
  struct edge *edges = collect_edges (r, false, &n, &total);
  FILE *out;
  bool ok;

  *errmsg = NULL;
  if (edges == NULL)
    {
      *errmsg = strdup ("out of memory");
      return false;
    }
  out = fopen (file, "w");
  if (out == NULL)
    {
      if (asprintf (errmsg, "cannot create: %s", strerror (errno)) < 0)
	*errmsg = NULL;
      free (edges);
      return false;
    }
  ok = write_dot (out, r, edges, n, total, node_thres, edge_thres);
  if (!ok)
    *errmsg = strdup ("out of memory");
  if ((ferror (out) | fclose (out)) != 0 && ok)
    {
      if (asprintf (errmsg, "write error: %s", strerror (errno)) < 0)
	*errmsg = NULL;
      ok = false;
    }
  free (edges);
  return ok;
}
