/* callgrind.c -- a block profile in the callgrind format (--callgrind),
   for callgrind_annotate and KCachegrind.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   One event, Ir (instructions executed), at source lines (positions:
   line) where the objects have line tables (lines.h), else at line 0.
   Each function that ran gives its own instructions line by line (the
   lines of inlined code in their own files, fi=); each call of a known
   callee gives its count and its inclusive cost, which a block profile
   does not have: it is estimated as gprof does (inclusive.h).  Names
   are compressed: `(N) name' the first time, `(N)' after.  */

#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "callgrind.h"
#include "errmsg.h"
#include "inclusive.h"
#include "lines.h"
#include "saturate.h"

/* A run of one function's instructions at one source line, or its
   calls to one callee from one line.  */
struct cost
{
  size_t func;
  size_t callee;		/* Calls only.  */
  uint32_t source, line;	/* Source NO_SOURCE: none.  */
  uint64_t count;		/* Calls only.  */
  uint64_t insns;		/* Runs only.  */
};

#define NO_SOURCE UINT32_MAX

/* The name tables of the file: objects, files and functions, each
   entry written in full the first time.  */
struct names
{
  bool *object, *file, *func;
};

static int
compare_cost (const void *a, const void *b)
{
  const struct cost *x = a, *y = b;

  if (x->func != y->func)
    return x->func < y->func ? -1 : 1;
  /* A function's own instructions before its calls.  */
  if ((x->callee == REPORT_NO_FUNC) != (y->callee == REPORT_NO_FUNC))
    return x->callee == REPORT_NO_FUNC ? -1 : 1;
  if (x->callee != y->callee)
    return x->callee < y->callee ? -1 : 1;
  if (x->source != y->source)
    return x->source < y->source ? -1 : 1;
  return x->line < y->line ? -1 : x->line > y->line;
}

/* Sort COSTS (N) and merge the ones of one function, callee, source and
   line; return their new number.  */

static size_t
merge (struct cost *costs, size_t n)
{
  size_t out = 0;

  qsort (costs, n, sizeof *costs, compare_cost);
  for (size_t i = 0; i < n; i++)
    if (out > 0 && compare_cost (&costs[out - 1], &costs[i]) == 0)
      {
	costs[out - 1].count = sat_add (costs[out - 1].count, costs[i].count);
	costs[out - 1].insns = sat_add (costs[out - 1].insns, costs[i].insns);
      }
    else
      costs[out++] = costs[i];
  return out;
}

/* Print NAME as entry ID of the table SEEN: in full the first time.  */

static void
put_name (FILE *out, const char *key, bool *seen, size_t id, const char *name)
{
  if (seen[id])
    fprintf (out, "%s=(%zu)\n", key, id + 1);
  else
    {
      fprintf (out, "%s=(%zu) %s\n", key, id + 1, name);
      seen[id] = true;
    }
}

/* Print file SOURCE (NO_SOURCE: ???) of R's lines as KEY.  */

static void
put_file (FILE *out, const char *key, const struct report *r,
	  struct names *nm, uint32_t source)
{
  if (source == NO_SOURCE)
    fprintf (out, "%s=???\n", key);
  else
    put_name (out, key, nm->file, source, r->lines->sources[source]);
}

/* The source file and line of each function's entry, from R's lines:
   FILE_OF[F] and LINE_OF[F] (NO_SOURCE and 0 when unknown).  */

static void
entry_lines (const struct report *r, uint32_t *file_of, uint32_t *line_of)
{
  for (size_t f = 0; f < r->n_functions; f++)
    {
      file_of[f] = NO_SOURCE;
      line_of[f] = 0;
    }
  if (r->lines == NULL)
    return;
  for (size_t i = 0; i < r->lines->n_funcs; i++)
    {
      const struct report_line_func *lf = &r->lines->funcs[i];
      file_of[lf->func] = lf->source;
      line_of[lf->func] = lf->line;
    }
}

/* The costs of R: its functions' runs at source lines (or one at line 0
   for a function without lines) and its known calls that ran, merged,
   sorted by function, its own instructions first; *N of them.  NULL when out of
   memory.  */

static struct cost *
collect (const struct report *r, size_t *n)
{
  size_t n_runs = r->lines != NULL ? r->lines->n_runs : 0;
  struct cost *c = malloc ((n_runs + r->n_functions + r->n_calls + 1)
			   * sizeof *c);
  uint64_t *lined = calloc (r->n_functions + 1, sizeof *lined);
  size_t k = 0;

  *n = 0;
  if (c == NULL || lined == NULL)
    {
      free (c);
      free (lined);
      return NULL;
    }
  for (size_t i = 0; i < n_runs; i++)
    {
      const struct report_line *ln = &r->lines->runs[i];
      if (ln->insns == 0)
	continue;
      c[k++] = (struct cost) { ln->func, REPORT_NO_FUNC, ln->source,
			       ln->line, 0, ln->insns };
      lined[ln->func] = sat_add (lined[ln->func], ln->insns);
    }
  /* What no line table covers (a function without lines, or the part
     of one that its lines miss) stands at line 0.  */
  for (size_t f = 0; f < r->n_functions; f++)
    if (lined[f] < r->functions[f].insns)
      c[k++] = (struct cost) { f, REPORT_NO_FUNC, NO_SOURCE, 0, 0,
			       r->functions[f].insns - lined[f] };
  for (size_t i = 0; i < r->n_calls; i++)
    {
      const struct report_call *call = &r->calls[i];
      uint64_t times = r->objects[call->object].prof->counts[call->block];
      if (times == 0 || call->callee == REPORT_NO_FUNC)
	continue;
      c[k++] = (struct cost) { call->caller, call->callee,
			       call->line != 0 ? call->source : NO_SOURCE,
			       call->line, times, 0 };
    }
  free (lined);
  *n = merge (c, k);
  return c;
}

bool
report_write_callgrind (const char *file, const struct report *r,
			const char *command, char **errmsg)
{
  const struct report_inclusive *inc = r->inclusive;
  struct names nm = { NULL, NULL, NULL };
  uint32_t *file_of = NULL, *line_of = NULL;
  struct cost *costs = NULL;
  size_t n_costs = 0;
  FILE *out = NULL;
  bool ok = false;

  *errmsg = NULL;
  nm.object = calloc (r->n_objects + 1, sizeof *nm.object);
  nm.file = calloc ((r->lines != NULL ? r->lines->n_sources : 0) + 1,
		    sizeof *nm.file);
  nm.func = calloc (r->n_functions + 1, sizeof *nm.func);
  file_of = malloc ((r->n_functions + 1) * sizeof *file_of);
  line_of = malloc ((r->n_functions + 1) * sizeof *line_of);
  costs = collect (r, &n_costs);
  if (nm.object == NULL || nm.file == NULL || nm.func == NULL
      || file_of == NULL || line_of == NULL || costs == NULL
      || inc == NULL)
    {
      errmsg_format (errmsg, "out of memory");
      goto done;
    }
  entry_lines (r, file_of, line_of);
  out = fopen (file, "w");
  if (out == NULL)
    {
      errmsg_format (errmsg, "cannot create: %s", strerror (errno));
      goto done;
    }

  fprintf (out, "# callgrind format\n"
	   "# Written by profreport from a block profile: the instructions\n"
	   "# are exact; the inclusive costs of calls are estimates, each\n"
	   "# callee's cost shared among its callers by their calls.\n"
	   "version: 1\ncreator: profreport (profcopy " PACKAGE_VERSION ")\n"
	   "cmd: %s\npositions: line\nevents: Ir\nsummary: %" PRIu64 "\n",
	   command, r->total);
  for (size_t i = 0; i < n_costs;)
    {
      size_t f = costs[i].func;
      const struct report_function *fn = &r->functions[f];
      uint32_t file_now = file_of[f];
      if (file_now == NO_SOURCE && costs[i].callee == REPORT_NO_FUNC)
	file_now = costs[i].source;
      putc ('\n', out);
      put_name (out, "ob", nm.object, fn->object,
		r->objects[fn->object].prof->path);
      put_file (out, "fl", r, &nm, file_now);
      put_name (out, "fn", nm.func, f, fn->name);
      for (; i < n_costs && costs[i].func == f; i++)
	{
	  const struct cost *c = &costs[i];
	  if (c->source != file_now && c->source != NO_SOURCE)
	    {
	      put_file (out, "fi", r, &nm, c->source);
	      file_now = c->source;
	    }
	  if (c->callee == REPORT_NO_FUNC)
	    {
	      fprintf (out, "%" PRIu32 " %" PRIu64 "\n", c->line, c->insns);
	      continue;
	    }
	  put_name (out, "cob", nm.object, r->functions[c->callee].object,
		    r->objects[r->functions[c->callee].object].prof->path);
	  put_file (out, "cfi", r, &nm, file_of[c->callee]);
	  put_name (out, "cfn", nm.func, c->callee,
		    r->functions[c->callee].name);
	  fprintf (out, "calls=%" PRIu64 " %" PRIu32 "\n%" PRIu32 " %" PRIu64
		   "\n", c->count, line_of[c->callee], c->line,
		   report_inclusive_call (inc, f, c->callee, c->count));
	}
    }
  fprintf (out, "\ntotals: %" PRIu64 "\n", r->total);
  ok = true;

 done:
  if (out != NULL && (ferror (out) | fclose (out)) != 0 && ok)
    {
      errmsg_format (errmsg, "write error: %s", strerror (errno));
      ok = false;
    }
  if (!ok && out != NULL)
    unlink (file);
  free (nm.object);
  free (nm.file);
  free (nm.func);
  free (file_of);
  free (line_of);
  free (costs);
  return ok;
}
