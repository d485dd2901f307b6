/* callgrind.c -- a block profile in the callgrind format (--callgrind),
   for callgrind_annotate and KCachegrind.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   One event, Ir (instructions executed), at each instruction and its
   source line (positions: instr line), the line 0 where the objects
   have no line table (lines.h).  Each function that ran gives its own
   instructions in address order (those of inlined code in their own
   files, fi=), so that callgrind_annotate sums them by line and
   KCachegrind shows them beside the disassembly; each call of a known
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

/* One instruction of a function, or one of its calls of one callee
   (the call instruction's).  */
struct cost
{
  size_t func;
  size_t callee;		/* Calls only.  */
  uint32_t addr;		/* Of the instruction.  */
  uint32_t source, line;	/* Source NO_SOURCE: none.  */
  uint64_t count;		/* Calls only.  */
  uint64_t insns;		/* Instructions only: its count.  */
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
  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Sort COSTS (N) and merge the ones of one function, callee and
   instruction (merged profiles of one object); return their new
   number.  */

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

/* Order of line runs by object, then address; for qsort.  */

static int
compare_run (const void *a, const void *b)
{
  const struct report_line *x = *(const struct report_line *const *) a;
  const struct report_line *y = *(const struct report_line *const *) b;

  if (x->object != y->object)
    return x->object < y->object ? -1 : 1;
  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The line run of RUNS (N, sorted by compare_run) that holds the
   instruction at ADDR of object OBJECT, or NULL.  */

static const struct report_line *
run_at (const struct report_line *const *runs, size_t n, size_t object,
	uint32_t addr)
{
  size_t lo = 0, hi = n;

  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      const struct report_line *m = runs[mid];
      if (m->object < object || (m->object == object && m->addr <= addr))
	lo = mid + 1;
      else
	hi = mid;
    }
  if (lo == 0)
    return NULL;
  if (runs[lo - 1]->object != object
      || addr - runs[lo - 1]->addr >= 4 * (uint64_t) runs[lo - 1]->words)
    return NULL;
  return runs[lo - 1];
}

/* The costs of R: every instruction of its blocks that ran, at its
   source line (NO_SOURCE and line 0 where no line table covers it),
   and its known calls that ran, merged, sorted by function, its own
   instructions first; *N of them.  NULL when out of memory.  */

static struct cost *
collect (const struct report *r, size_t *n)
{
  size_t n_runs = r->lines != NULL ? r->lines->n_runs : 0;
  const struct report_line **runs = malloc ((n_runs + 1) * sizeof *runs);
  size_t n_insns = 0, k = 0;
  struct cost *c;

  *n = 0;
  for (size_t o = 0; o < r->n_objects; o++)
    {
      const struct prof_object *p = r->objects[o].prof;
      for (uint32_t b = 0; b < p->n_blocks; b++)
	if (p->counts[b] != 0)
	  n_insns += p->blocks[b].size / 4;
    }
  c = malloc ((n_insns + r->n_calls + 1) * sizeof *c);
  if (c == NULL || runs == NULL)
    {
      free (c);
      free (runs);
      return NULL;
    }
  for (size_t i = 0; i < n_runs; i++)
    runs[i] = &r->lines->runs[i];
  qsort (runs, n_runs, sizeof *runs, compare_run);
  for (size_t o = 0; o < r->n_objects; o++)
    {
      const struct report_object *ro = &r->objects[o];
      const struct prof_object *p = ro->prof;
      for (uint32_t b = 0; b < p->n_blocks; b++)
	{
	  uint32_t start = p->blocks[b].start, words = p->blocks[b].size / 4;
	  if (p->counts[b] == 0)
	    continue;
	  for (uint32_t w = 0; w < words; w++)
	    {
	      uint32_t addr = start + 4 * w;
	      const struct report_line *ln = run_at (runs, n_runs, o, addr);
	      c[k++] = (struct cost) { ro->block_func[b], REPORT_NO_FUNC, addr,
				       ln != NULL ? ln->source : NO_SOURCE,
				       ln != NULL ? ln->line : 0, 0,
				       p->counts[b] };
	    }
	}
    }
  for (size_t i = 0; i < r->n_calls; i++)
    {
      const struct report_call *call = &r->calls[i];
      uint64_t times = r->objects[call->object].prof->counts[call->block];
      if (times == 0 || call->callee == REPORT_NO_FUNC)
	continue;
      c[k++] = (struct cost) { call->caller, call->callee, call->addr,
			       call->line != 0 ? call->source : NO_SOURCE,
			       call->line, times, 0 };
    }
  free (runs);
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
	   "cmd: %s\npositions: instr line\nevents: Ir\nsummary: %" PRIu64 "\n",
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
	      fprintf (out, "0x%" PRIx32 " %" PRIu32 " %" PRIu64 "\n", c->addr,
		       c->line, c->insns);
	      continue;
	    }
	  put_name (out, "cob", nm.object, r->functions[c->callee].object,
		    r->objects[r->functions[c->callee].object].prof->path);
	  put_file (out, "cfi", r, &nm, file_of[c->callee]);
	  put_name (out, "cfn", nm.func, c->callee,
		    r->functions[c->callee].name);
	  fprintf (out, "calls=%" PRIu64 " 0x%" PRIx32 " %" PRIu32 "\n0x%"
		   PRIx32 " %" PRIu32 " %" PRIu64 "\n", c->count,
		   r->functions[c->callee].addr, line_of[c->callee], c->addr,
		   c->line, report_inclusive_call (inc, f, c->callee, c->count));
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
