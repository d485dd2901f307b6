/* trace-output.c -- write the call graph of a trace as Graphviz DOT, in
   the callgrind format, and as Chrome trace events.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The callgrind file has one event, the time in nanoseconds: a
   function's cost lines give its self time, and each call line
   (cfn=, calls=) is followed by the time the callee spent on behalf of
   the caller, as Callgrind gives the inclusive cost of calls, so that
   callgrind_annotate and KCachegrind show the same self and inclusive
   times as profreport.  The Chrome file is the JSON object form of the
   trace event format, one complete event ("ph": "X") per frame, in
   microseconds from the first event of the trace.  */

#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "trace-report.h"

/* Close OUT, which was written with success OK so far.  */

static bool
finish (FILE *out, bool ok, char **errmsg)
{
  if ((ferror (out) | fclose (out)) != 0 && ok)
    return errmsg_format (errmsg, "write error: %s", strerror (errno));
  if (!ok)
    return errmsg_format (errmsg, "out of memory");
  return true;
}

/* A function is drawn when its inclusive share of the traced time is
   at least NODE_THRES percent, or when it is an end of an edge whose
   share of all calls is at least EDGE_THRES percent; every edge between
   two functions drawn is drawn.  Nodes are coloured by their inclusive
   share (report_dot_colour); the title names the program (the object
   of main) and the time traced.  */

bool
trace_write_dot (const char *file, const struct trace_report *r,
		 double node_thres, double edge_thres, char **errmsg)
{
  bool *keep = calloc (r->n_functions + 1, sizeof *keep);
  uint64_t calls = 0, max_count = 1, max_incl = 0;
  FILE *out;

  if (keep == NULL)
    return errmsg_format (errmsg, "out of memory");
  out = fopen (file, "w");
  if (out == NULL)
    {
      free (keep);
      return errmsg_format (errmsg, "cannot create: %s", strerror (errno));
    }
  for (size_t i = 0; i < r->n_edges; i++)
    calls += r->edges[i].count;
  for (size_t f = 0; f < r->n_functions; f++)
    if (r->total != 0 && r->functions[f].calls != 0
	&& 100.0 * (double) r->functions[f].inclusive / (double) r->total
	   >= node_thres)
      keep[f] = true;
  for (size_t i = 0; i < r->n_edges; i++)
    {
      const struct trace_edge *e = &r->edges[i];
      if (e->caller != TRACE_ROOT && calls != 0
	  && 100.0 * (double) e->count / (double) calls >= edge_thres)
	keep[e->caller] = keep[e->callee] = true;
    }
  for (size_t i = 0; i < r->n_edges; i++)
    if (r->edges[i].caller != TRACE_ROOT && keep[r->edges[i].caller]
	&& keep[r->edges[i].callee] && r->edges[i].count > max_count)
      max_count = r->edges[i].count;
  for (size_t f = 0; f < r->n_functions; f++)
    if (keep[f] && r->functions[f].inclusive > max_incl)
      max_incl = r->functions[f].inclusive;

  {
    const char *program = "trace";
    char *title = NULL;
    for (size_t f = 0; f < r->n_functions; f++)
      if (strcmp (r->functions[f].name, "main") == 0
	  && r->functions[f].object[0] != '\0')
	program = base_name (r->functions[f].object);
    if (asprintf (&title, "%s: %.3f ms traced, %" PRIu64 " calls in %" PRIu64
		  " thread%s (functions from %.2g%% of the time, calls from"
		  " %.2g%% of the calls)", program, (double) r->total / 1e6,
		  calls, r->n_threads, r->n_threads == 1 ? "" : "s",
		  node_thres, edge_thres) < 0)
      {
	free (keep);
	fclose (out);
	return errmsg_format (errmsg, "out of memory");
      }
    report_dot_begin (out, "trace", title, "share of the time (inclusive)",
		      r->total != 0 ? 100.0 * (double) max_incl
				      / (double) r->total : 0);
    free (title);
  }
  for (size_t f = 0; f < r->n_functions; f++)
    {
      const struct trace_function *fn = &r->functions[f];
      double heat;
      if (!keep[f])
	continue;
      heat = max_incl != 0 ? sqrt ((double) fn->inclusive / (double) max_incl)
	     : 0.0;
      fprintf (out, "  f%zu [label=\"", f);
      quoted_string (out, fn->name);
      fputs ("\\n", out);
      quoted_string (out, base_name (fn->object));
      fprintf (out, "\\n%.2f%% (%.2f%% self)\\n%" PRIu64 " call%s\", ",
	       r->total ? 100.0 * (double) fn->inclusive / (double) r->total
	       : 0.0,
	       r->total ? 100.0 * (double) fn->self / (double) r->total : 0.0,
	       fn->calls, fn->calls == 1 ? "" : "s");
      report_dot_colour (out, heat);
      fputs ("];\n", out);
    }
  for (size_t i = 0; i < r->n_edges; i++)
    {
      const struct trace_edge *e = &r->edges[i];
      if (e->caller == TRACE_ROOT || !keep[e->caller] || !keep[e->callee])
	continue;
      report_dot_edge (out, e->caller, e->callee, e->count, max_count);
    }
  fputs ("}\n", out);
  free (keep);
  return finish (out, true, errmsg);
}

/* Print the callgrind name of function F: `(N) NAME' the first time,
   `(N)' after that (name compression).  */

static void
callgrind_name (FILE *out, const struct trace_report *r, size_t f,
		bool *named)
{
  if (named[f])
    fprintf (out, "(%zu)\n", f + 1);
  else
    {
      fprintf (out, "(%zu) %s\n", f + 1, r->functions[f].name);
      named[f] = true;
    }
}

bool
trace_write_callgrind (const char *file, const struct trace_report *r,
		       const char *command, char **errmsg)
{
  bool *named = calloc (r->n_functions + 1, sizeof *named);
  FILE *out;

  if (named == NULL)
    return errmsg_format (errmsg, "out of memory");
  out = fopen (file, "w");
  if (out == NULL)
    {
      free (named);
      return errmsg_format (errmsg, "cannot create: %s", strerror (errno));
    }
  fprintf (out, "# callgrind format\nversion: 1\ncreator: profreport\n"
	   "cmd: %s\npositions: line\nevents: ns\n"
	   "summary: %" PRIu64 "\n\n", command, r->total);
  for (size_t f = 0; f < r->n_functions; f++)
    {
      const struct trace_function *fn = &r->functions[f];
      /* No source positions: the file is unknown.  */
      fprintf (out, "ob=%s\nfl=???\nfn=",
	       fn->object[0] ? fn->object : "???");
      callgrind_name (out, r, f, named);
      fprintf (out, "0 %" PRIu64 "\n", fn->self);
      for (size_t i = 0; i < r->n_edges; i++)
	{
	  const struct trace_edge *e = &r->edges[i];
	  const struct trace_function *callee;
	  if (e->caller != f)
	    continue;
	  callee = &r->functions[e->callee];
	  fprintf (out, "cob=%s\ncfi=???\ncfn=",
		   callee->object[0] ? callee->object : "???");
	  callgrind_name (out, r, e->callee, named);
	  fprintf (out, "calls=%" PRIu64 " 0\n0 %" PRIu64 "\n", e->count,
		   e->time);
	}
      putc ('\n', out);
    }
  fprintf (out, "totals: %" PRIu64 "\n", r->total);
  free (named);
  return finish (out, true, errmsg);
}

/* Whether a frame was written yet, for the commas between events.  */
static bool chrome_first;

void
trace_chrome_begin (FILE *f)
{
  fputs ("{\"displayTimeUnit\": \"ns\", \"traceEvents\": [", f);
  chrome_first = true;
}

void
trace_chrome_frame (FILE *f, const char *name, uint32_t pid, uint32_t tid,
		    uint64_t start, uint64_t duration)
{
  fputs (chrome_first ? "\n" : ",\n", f);
  chrome_first = false;
  fputs ("{\"name\": \"", f);
  quoted_string (f, name);
  fprintf (f, "\", \"cat\": \"function\", \"ph\": \"X\", \"ts\": %" PRIu64
	   ".%03u, \"dur\": %" PRIu64 ".%03u, \"pid\": %" PRIu32
	   ", \"tid\": %" PRIu32 "}", start / 1000, (unsigned) (start % 1000),
	   duration / 1000, (unsigned) (duration % 1000), pid, tid);
}

void
trace_chrome_end (FILE *f)
{
  fputs ("\n]}\n", f);
}
