/* trace-print.c -- print a trace report: the flat profile of calls and
   times, or the call graph (trace_report_print).

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#include <config.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"
#include "trace-report.h"

/* Orders of the function indices of the trace report R, for qsort_r:
   by self time, or by inclusive time, then by calls and name.  */

static int
compare_self (const void *a, const void *b, void *r)
{
  const struct trace_report *tr = r;
  const struct trace_function *x = &tr->functions[*(const size_t *) a];
  const struct trace_function *y = &tr->functions[*(const size_t *) b];

  if (x->self != y->self)
    return x->self > y->self ? -1 : 1;
  if (x->calls != y->calls)
    return x->calls > y->calls ? -1 : 1;
  return strcmp (x->name, y->name);
}

static int
compare_inclusive (const void *a, const void *b, void *r)
{
  const struct trace_report *tr = r;
  const struct trace_function *x = &tr->functions[*(const size_t *) a];
  const struct trace_function *y = &tr->functions[*(const size_t *) b];

  if (x->inclusive != y->inclusive)
    return x->inclusive > y->inclusive ? -1 : 1;
  return compare_self (a, b, r);
}

static const char *
caller_name (const struct trace_report *r, size_t f)
{
  return f == TRACE_ROOT ? TRACE_ROOT_NAME : r->functions[f].name;
}

static double
ms (uint64_t ns)
{
  return (double) ns / 1e6;
}

static double
percent (uint64_t part, uint64_t whole)
{
  return whole != 0 ? 100.0 * (double) part / (double) whole : 0.0;
}

static void
print_unbalanced (FILE *out, const struct trace_report *r)
{
  if (r->unwound == 0 && r->orphan_exits == 0 && r->open_at_end == 0
      && r->lost == 0)
    {
      fputs ("Every entry has its exit.\n", out);
      return;
    }
  fputs ("Unbalanced trace:\n", out);
  if (r->unwound != 0)
    fprintf (out, "  %" PRIu64 " frame%s left without an exit event"
	     " (longjmp, exception), closed when an outer frame exited\n",
	     r->unwound, r->unwound == 1 ? "" : "s");
  if (r->orphan_exits != 0)
    fprintf (out, "  %" PRIu64 " exit event%s of functions not on the"
	     " stack, ignored\n", r->orphan_exits,
	     r->orphan_exits == 1 ? "" : "s");
  if (r->open_at_end != 0)
    fprintf (out, "  %" PRIu64 " frame%s still open when the thread's"
	     " events ended (exit, abort), closed at its last event\n",
	     r->open_at_end, r->open_at_end == 1 ? "" : "s");
  if (r->lost != 0)
    fprintf (out, "  %" PRIu64 " event%s lost by the runtime\n",
	     r->lost, r->lost == 1 ? "" : "s");
}

static void
print_flat (FILE *out, const struct trace_report *r, const size_t *order,
	    enum report_format format)
{
  if (format == REPORT_CSV)
    fputs ("object,function,calls,self_ns,inclusive_ns\n", out);
  else
    {
      fprintf (out, "Flat profile: %" PRIu64 " events in %" PRIu64
	       " thread%s, %.3f ms in traced functions.\n",
	       r->n_events, r->n_threads, r->n_threads == 1 ? "" : "s",
	       ms (r->total));
      print_unbalanced (out, r);
      fputs ("\n  %self       self ms  inclusive ms         calls  function\n",
	     out);
    }
  for (size_t i = 0; i < r->n_functions; i++)
    {
      const struct trace_function *f = &r->functions[order[i]];
      if (format == REPORT_CSV)
	{
	  csv_field (out, f->object);
	  putc (',', out);
	  csv_field (out, f->name);
	  fprintf (out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
		   f->calls, f->self, f->inclusive);
	}
      else
	fprintf (out, "%7.2f  %12.3f  %12.3f  %12" PRIu64 "  %s\n",
		 percent (f->self, r->total), ms (f->self),
		 ms (f->inclusive), f->calls, f->name);
    }
}

/* Order of the edge indices of the trace report R by caller and
   callee name; for qsort_r.  */

static int
compare_edge_csv (const void *a, const void *b, void *r)
{
  const struct trace_report *tr = r;
  const struct trace_edge *x = &tr->edges[*(const size_t *) a];
  const struct trace_edge *y = &tr->edges[*(const size_t *) b];
  int c = strcmp (caller_name (tr, x->caller), caller_name (tr, y->caller));

  if (c != 0)
    return c;
  return strcmp (tr->functions[x->callee].name,
		 tr->functions[y->callee].name);
}

/* The call graph: for every function, by inclusive time, the callers
   (with the calls and the time spent on behalf of each), the function,
   and its callees.  */

static void
print_graph (FILE *out, const struct trace_report *r, const size_t *order,
	     enum report_format format)
{
  size_t *rank = NULL;

  if (format == REPORT_CSV)
    {
      size_t *eorder = malloc ((r->n_edges + 1) * sizeof *eorder);
      fputs ("caller,callee,count\n", out);
      if (eorder == NULL)
	return;
      for (size_t i = 0; i < r->n_edges; i++)
	eorder[i] = i;
      qsort_r (eorder, r->n_edges, sizeof *eorder, compare_edge_csv,
	       (void *) r);
      for (size_t i = 0; i < r->n_edges; i++)
	{
	  const struct trace_edge *e = &r->edges[eorder[i]];
	  csv_field (out, caller_name (r, e->caller));
	  putc (',', out);
	  csv_field (out, r->functions[e->callee].name);
	  fprintf (out, ",%" PRIu64 "\n", e->count);
	}
      free (eorder);
      return;
    }

  rank = malloc ((r->n_functions + 1) * sizeof *rank);
  if (rank == NULL)
    return;
  for (size_t i = 0; i < r->n_functions; i++)
    rank[order[i]] = i + 1;
  fprintf (out, "Call graph: %" PRIu64 " events in %" PRIu64 " thread%s,"
	   " %.3f ms in traced functions.\n",
	   r->n_events, r->n_threads, r->n_threads == 1 ? "" : "s",
	   ms (r->total));
  print_unbalanced (out, r);
  fputs ("\nEach entry: the callers (calls from that caller, and the time"
	 " the function\nspent on their behalf), the function itself, then"
	 " its callees (calls, and\nthe time each spent on behalf of the"
	 " function).  Times in milliseconds.\n\n"
	 "index   %incl       self  inclusive        calls  name\n", out);
  for (size_t i = 0; i < r->n_functions; i++)
    {
      size_t fi = order[i];
      const struct trace_function *f = &r->functions[fi];
      char index[32];

      for (size_t k = 0; k < r->n_edges; k++)
	{
	  const struct trace_edge *e = &r->edges[k];
	  if (e->callee != fi)
	    continue;
	  if (e->caller == TRACE_ROOT)
	    fprintf (out, "%16s  %9s  %9.3f  %11" PRIu64 "      %s\n", "", "",
		     ms (e->time), e->count, TRACE_ROOT_NAME);
	  else
	    fprintf (out, "%16s  %9s  %9.3f  %11" PRIu64 "      %s [%zu]\n",
		     "", "", ms (e->time), e->count,
		     r->functions[e->caller].name, rank[e->caller]);
	}
      snprintf (index, sizeof index, "[%zu]", i + 1);
      fprintf (out, "%-6s %6.2f  %9.3f  %9.3f  %11" PRIu64 "  %s %s\n",
	       index, percent (f->inclusive, r->total), ms (f->self),
	       ms (f->inclusive), f->calls, f->name, index);
      for (size_t k = 0; k < r->n_edges; k++)
	{
	  const struct trace_edge *e = &r->edges[k];
	  if (e->caller != fi)
	    continue;
	  fprintf (out, "%16s  %9s  %9.3f  %11" PRIu64 "      %s [%zu]\n",
		   "", "", ms (e->time), e->count,
		   r->functions[e->callee].name, rank[e->callee]);
	}
      fputs ("-----------------------------------------------\n", out);
    }
  free (rank);
}

void
trace_report_print (FILE *out, const struct trace_report *r,
		    const struct report_options *opts)
{
  size_t *order = malloc ((r->n_functions + 1) * sizeof *order);

  if (order == NULL)
    return;
  for (size_t i = 0; i < r->n_functions; i++)
    order[i] = i;
  qsort_r (order, r->n_functions, sizeof *order,
	   opts->calls ? compare_inclusive : compare_self, (void *) r);
  if (opts->calls)
    print_graph (out, r, order, opts->format);
  else
    print_flat (out, r, order, opts->format);
  free (order);
}
