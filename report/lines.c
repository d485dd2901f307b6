/* lines.c -- counts per source line: --lines, --gcov and --lcov.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   Each object's line table is read once, when the object is added, and
   its blocks are cut into runs of instructions of one line; the table
   is then dropped.  Each view filters the runs by function (--object,
   --function), sorts them by source and line and merges them.  */

#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "debug-lines.h"
#include "errmsg.h"
#include "lines.h"
#include "saturate.h"

bool report_want_lines;

/* The index in L's sources of PATH, added if new; -1 when out of
   memory.  Sources are few beside lines: a linear search per file of a
   line table is cheap next to reading it.  */

static int64_t
source_index (struct report_lines *l, const char *path)
{
  for (size_t i = 0; i < l->n_sources; i++)
    if (strcmp (l->sources[i], path) == 0)
      return (int64_t) i;
  if (!array_room (&l->sources, &l->cap_sources, l->n_sources,
		   sizeof *l->sources, 64)
      || (l->sources[l->n_sources] = strdup (path)) == NULL)
    return -1;
  return (int64_t) l->n_sources++;
}

bool
lines_add_object (struct report *r, size_t index,
		  const struct mips_object *obj, char **errmsg)
{
  const struct report_object *ro = &r->objects[index];
  const struct prof_object *prof = ro->prof;
  struct report_lines *l = r->lines;
  struct dwarf_lines table;
  uint32_t *source_of = NULL;
  char *from = NULL, *err = NULL;
  size_t first;
  bool ok = false;

  *errmsg = NULL;
  if (l == NULL)
    {
      l = r->lines = calloc (1, sizeof *l);
      if (l == NULL)
	return errmsg_format (errmsg, "out of memory");
    }
  if (!object_read_lines (obj, report_sysroot, &table, &from, &err))
    {
      if (from != NULL)
	errmsg_format (errmsg, "%s: %s", from, err != NULL ? err : "?");
      else
	errmsg_format (errmsg, "%s", err != NULL ? err : "?");
      free (err);
      free (from);
      return false;
    }
  free (from);
  if (table.n_ranges == 0)
    {
      dwarf_lines_free (&table);
      return true;
    }
  l->n_objects++;

  /* The table's files become R's sources.  */
  source_of = malloc ((table.n_files + 1) * sizeof *source_of);
  if (source_of == NULL)
    goto oom;
  for (size_t i = 0; i < table.n_files; i++)
    {
      int64_t s = source_index (l, table.files[i]);
      if (s < 0)
	goto oom;
      source_of[i] = (uint32_t) s;
    }

  /* Each block, cut where the line changes.  */
  for (uint32_t b = 0; b < prof->n_blocks; b++)
    {
      const struct prof_block *blk = &prof->blocks[b];
      uint64_t count = prof->counts[b];
      uint32_t end = blk->start + blk->size;
      if (end < blk->start)
	continue;
      for (uint32_t pc = blk->start; pc < end;)
	{
	  const struct dwarf_line_range *rg = dwarf_lines_find (&table, pc);
	  uint32_t next, words;
	  struct report_line *run;
	  if (rg == NULL)
	    {
	      pc += 4;
	      continue;
	    }
	  next = rg->hi < end ? rg->hi : end;
	  words = (next - pc + 3) / 4;
	  if (!array_room (&l->runs, &l->cap_runs, l->n_runs,
			   sizeof *l->runs, 256))
	    goto oom;
	  run = &l->runs[l->n_runs++];
	  run->source = source_of[rg->file];
	  run->line = rg->line;
	  run->count = count;
	  run->insns = sat_mul (count, words);
	  run->func = ro->block_func[b];
	  run->object = index;
	  run->addr = pc;
	  run->words = words;
	  pc += 4 * words;
	}
    }

  /* Where each call of the object is.  The object was added last: its
     calls and functions are the last ones (scanning all of them for
     every object took objects x calls).  */
  first = r->n_calls;
  while (first > 0 && r->calls[first - 1].object == index)
    first--;
  for (size_t i = first; i < r->n_calls; i++)
    {
      const struct dwarf_line_range *rg;
      if (r->calls[i].object != index)
	continue;
      rg = dwarf_lines_find (&table, r->calls[i].addr);
      if (rg != NULL)
	{
	  r->calls[i].source = source_of[rg->file];
	  r->calls[i].line = rg->line;
	}
    }

  /* Where each function of the object starts.  */
  first = r->n_functions;
  while (first > 0 && r->functions[first - 1].object == index)
    first--;
  for (size_t f = first; f < r->n_functions; f++)
    {
      const struct dwarf_line_range *rg;
      if (r->functions[f].object != index)
	continue;
      rg = dwarf_lines_find (&table, r->functions[f].addr);
      if (rg == NULL)
	continue;
      if (!array_room (&l->funcs, &l->cap_funcs, l->n_funcs,
		       sizeof *l->funcs, 256))
	goto oom;
      l->funcs[l->n_funcs++] = (struct report_line_func)
	{ source_of[rg->file], rg->line, f };
    }
  ok = true;
  goto done;

 oom:
  errmsg_format (errmsg, "out of memory");
 done:
  free (source_of);
  dwarf_lines_free (&table);
  return ok;
}

static int
compare_run (const void *a, const void *b)
{
  const struct report_line *x = a, *y = b;

  if (x->source != y->source)
    return x->source < y->source ? -1 : 1;
  if (x->line != y->line)
    return x->line < y->line ? -1 : 1;
  return x->func < y->func ? -1 : x->func > y->func;
}

/* The lines of R whose functions OPTS wants, one per source and line,
   sorted by them, into a malloc'd array (*N of them); NULL when out of
   memory.  */

static struct report_line *
merged_lines (const struct report *r, const struct report_options *opts,
	      size_t *n)
{
  const struct report_lines *l = r->lines;
  struct report_line *out;
  size_t k = 0;

  *n = 0;
  out = malloc (((l != NULL ? l->n_runs : 0) + 1) * sizeof *out);
  if (out == NULL || l == NULL)
    return out;
  for (size_t i = 0; i < l->n_runs; i++)
    {
      const struct report_function *f = &r->functions[l->runs[i].func];
      if (report_wanted (opts, r->objects[f->object].prof->path, f))
	out[k++] = l->runs[i];
    }
  qsort (out, k, sizeof *out, compare_run);
  *n = 0;
  for (size_t i = 0; i < k; i++)
    {
      struct report_line *last = *n > 0 ? &out[*n - 1] : NULL;
      if (last != NULL && last->source == out[i].source
	  && last->line == out[i].line)
	{
	  if (out[i].count > last->count)
	    last->count = out[i].count;
	  last->insns = sat_add (last->insns, out[i].insns);
	}
      else
	out[(*n)++] = out[i];
    }
  return out;
}

static int
compare_cost (const void *a, const void *b, void *lines)
{
  const struct report_line *v = lines;
  const struct report_line *x = &v[*(const size_t *) a];
  const struct report_line *y = &v[*(const size_t *) b];

  if (x->insns != y->insns)
    return x->insns > y->insns ? -1 : 1;
  if (x->count != y->count)
    return x->count > y->count ? -1 : 1;
  return *(const size_t *) a < *(const size_t *) b ? -1 : 1;
}

void
lines_print (FILE *out, const struct report *r,
	     const struct report_options *opts)
{
  size_t n, *order;
  struct report_line *lines = merged_lines (r, opts, &n);
  const struct report_lines *l = r->lines;

  order = malloc ((n + 1) * sizeof *order);
  if (lines == NULL || order == NULL)
    {
      fputs ("profreport: out of memory\n", stderr);
      free (lines);
      free (order);
      return;
    }
  for (size_t i = 0; i < n; i++)
    order[i] = i;
  qsort_r (order, n, sizeof *order, compare_cost, lines);
  if (opts->format == REPORT_CSV)
    fputs ("source,line,count,instructions,function\n", out);
  else
    {
      fprintf (out, "Source lines: %" PRIu64 " instructions executed in %zu "
	       "object%s, %zu with line tables.\n\n", r->total, r->n_objects,
	       r->n_objects == 1 ? "" : "s", l != NULL ? l->n_objects : 0);
      if (l == NULL || l->n_objects == 0)
	fputs ("No object has a line table: build with -g, or unpack the "
	       "objects' debug files\n(Debian's -dbg and -dbgsym packages) "
	       "into the sysroot and give --sysroot.\n\n", out);
      fputs ("     %      instructions           count  line\n", out);
    }
  for (size_t i = 0; i < n; i++)
    {
      const struct report_line *ln = &lines[order[i]];
      const char *src = l->sources[ln->source];
      const char *fn = r->functions[ln->func].name;
      if (opts->format == REPORT_CSV)
	{
	  csv_field (out, src);
	  fprintf (out, ",%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",", ln->line,
		   ln->count, ln->insns);
	  csv_field (out, fn);
	  putc ('\n', out);
	}
      else if (ln->count != 0 || opts->zeros)
	fprintf (out, "%6.2f  %16" PRIu64 "  %14" PRIu64 "  %s:%" PRIu32
		 " (%s)\n", r->total != 0 ? 100.0 * (double) ln->insns
		 / (double) r->total : 0.0, ln->insns, ln->count, src,
		 ln->line, fn);
    }
  free (order);
  free (lines);
}

/* The name of the .gcov file of SOURCE: its base name, or when another
   source of the N_SOURCES in SOURCES has the same one, its whole path
   with '/' as '#' (gcov --preserve-paths).  malloc'd.  */

static char *
gcov_name (const char *source, char *const *sources, size_t n_sources,
	   const bool *written)
{
  const char *base = base_name (source);
  char *name;

  for (size_t i = 0; i < n_sources; i++)
    if (written[i] && sources[i] != source
	&& strcmp (base_name (sources[i]), base) == 0)
      {
	if (asprintf (&name, "%s.gcov", source) < 0)
	  return NULL;
	for (char *p = name; *p != '\0'; p++)
	  if (*p == '/')
	    *p = '#';
	return name;
      }
  return asprintf (&name, "%s.gcov", base) < 0 ? NULL : name;
}

/* COUNT as gcov shows a line of code's count into BUF: ##### for one
   that never ran.  */

static void
gcov_count (char buf[24], uint64_t count)
{
  if (count == 0)
    strcpy (buf, "#####");
  else
    snprintf (buf, 24, "%" PRIu64, count);
}

/* Write the .gcov lines of source S: LINES[0..N) are its lines with
   code, by line.  */

static void
write_gcov_source (FILE *out, const char *source,
		   const struct report_line *lines, size_t n)
{
  FILE *in = fopen (source, "r");
  char *text = NULL;
  size_t cap = 0, k = 0;
  uint32_t line = 0;
  ssize_t len;

  fprintf (out, "%9s:%5u:Source:%s\n", "-", 0u, source);
  fprintf (out, "%9s:%5u:Runs:%u\n", "-", 0u, 1u);
  if (in == NULL)
    fprintf (stderr, "profreport: %s: cannot read the source (%s); its "
	     ".gcov file has its lines of code alone\n", source,
	     strerror (errno));
  while (in != NULL && (len = getline (&text, &cap, in)) >= 0)
    {
      char count[24];
      line++;
      while (k < n && lines[k].line < line)
	k++;
      if (k < n && lines[k].line == line)
	gcov_count (count, lines[k].count);
      else
	strcpy (count, "-");
      if (len > 0 && text[len - 1] == '\n')
	text[--len] = '\0';
      fprintf (out, "%9s:%5" PRIu32 ":%s\n", count, line, text);
    }
  /* Lines past the end of the source (or all, when it is missing).  */
  for (; k < n; k++)
    if (lines[k].line > line)
      {
	char count[24];
	gcov_count (count, lines[k].count);
	fprintf (out, "%9s:%5" PRIu32 ":/*EOF*/\n", count, lines[k].line);
      }
  free (text);
  if (in != NULL)
    fclose (in);
}

bool
lines_write_gcov (const char *dir, const struct report *r,
		  const struct report_options *opts, char **errmsg)
{
  size_t n;
  struct report_line *lines = merged_lines (r, opts, &n);
  const struct report_lines *l = r->lines;
  bool *written = NULL, ok = false;
  struct stat st;

  *errmsg = NULL;
  if (lines == NULL)
    return errmsg_format (errmsg, "out of memory");
  if (mkdir (dir, 0777) != 0 && !(errno == EEXIST && stat (dir, &st) == 0
				  && S_ISDIR (st.st_mode)))
    {
      errmsg_format (errmsg, "cannot make the directory: %s",
		     strerror (errno));
      goto done;
    }
  written = calloc ((l != NULL ? l->n_sources : 0) + 1, sizeof *written);
  if (written == NULL)
    {
      errmsg_format (errmsg, "out of memory");
      goto done;
    }
  for (size_t i = 0; i < n; i++)
    written[lines[i].source] = true;
  for (size_t i = 0; i < n;)
    {
      size_t j = i;
      uint32_t s = lines[i].source;
      char *name, *path;
      FILE *out;
      while (j < n && lines[j].source == s)
	j++;
      name = gcov_name (l->sources[s], l->sources, l->n_sources, written);
      if (name == NULL || asprintf (&path, "%s/%s", dir, name) < 0)
	{
	  free (name);
	  errmsg_format (errmsg, "out of memory");
	  goto done;
	}
      free (name);
      out = fopen (path, "w");
      if (out == NULL)
	{
	  errmsg_format (errmsg, "%s: cannot create: %s", path,
			 strerror (errno));
	  free (path);
	  goto done;
	}
      write_gcov_source (out, l->sources[s], lines + i, j - i);
      if (fclose (out) != 0)
	{
	  errmsg_format (errmsg, "%s: write error: %s", path,
			 strerror (errno));
	  free (path);
	  goto done;
	}
      free (path);
      i = j;
    }
  ok = true;

 done:
  free (written);
  free (lines);
  return ok;
}

static int
compare_line_func (const void *a, const void *b)
{
  const struct report_line_func *x = a, *y = b;

  if (x->source != y->source)
    return x->source < y->source ? -1 : 1;
  if (x->line != y->line)
    return x->line < y->line ? -1 : 1;
  return x->func < y->func ? -1 : x->func > y->func;
}

/* Print function name NAME as lcov reads it: one line, no comma (lcov
   takes what follows the first comma of FN: and FNDA: as the name).  */

static void
lcov_name (FILE *out, const char *name)
{
  for (const char *p = name; *p != '\0'; p++)
    putc (*p == ',' ? ';' : *p == '\n' ? ' ' : *p, out);
}

bool
lines_write_lcov (const char *file, const struct report *r,
		  const struct report_options *opts, char **errmsg)
{
  size_t n, n_funcs = 0, f = 0;
  struct report_line *lines = merged_lines (r, opts, &n);
  const struct report_lines *l = r->lines;
  struct report_line_func *funcs = NULL;
  FILE *out = NULL;
  bool ok = false;

  *errmsg = NULL;
  if (lines == NULL)
    return errmsg_format (errmsg, "out of memory");
  funcs = malloc (((l != NULL ? l->n_funcs : 0) + 1) * sizeof *funcs);
  if (funcs == NULL)
    {
      errmsg_format (errmsg, "out of memory");
      goto done;
    }
  for (size_t i = 0; l != NULL && i < l->n_funcs; i++)
    {
      const struct report_function *fn = &r->functions[l->funcs[i].func];
      if (report_wanted (opts, r->objects[fn->object].prof->path, fn))
	funcs[n_funcs++] = l->funcs[i];
    }
  qsort (funcs, n_funcs, sizeof *funcs, compare_line_func);
  out = fopen (file, "w");
  if (out == NULL)
    {
      errmsg_format (errmsg, "cannot create: %s", strerror (errno));
      goto done;
    }
  fputs ("TN:\n", out);
  for (size_t i = 0; i < n;)
    {
      uint32_t s = lines[i].source;
      size_t hit = 0, j, fn_found = 0, fn_hit = 0;
      fprintf (out, "SF:%s\n", l->sources[s]);
      while (f < n_funcs && funcs[f].source < s)
	f++;
      for (size_t g = f; g < n_funcs && funcs[g].source == s; g++)
	{
	  fprintf (out, "FN:%" PRIu32 ",", funcs[g].line);
	  lcov_name (out, r->functions[funcs[g].func].name);
	  putc ('\n', out);
	}
      for (; f < n_funcs && funcs[f].source == s; f++)
	{
	  const struct report_function *fn = &r->functions[funcs[f].func];
	  fprintf (out, "FNDA:%" PRIu64 ",", fn->calls);
	  lcov_name (out, fn->name);
	  putc ('\n', out);
	  fn_found++;
	  fn_hit += fn->calls != 0;
	}
      fprintf (out, "FNF:%zu\nFNH:%zu\n", fn_found, fn_hit);
      for (j = i; j < n && lines[j].source == s; j++)
	{
	  fprintf (out, "DA:%" PRIu32 ",%" PRIu64 "\n", lines[j].line,
		   lines[j].count);
	  hit += lines[j].count != 0;
	}
      fprintf (out, "LF:%zu\nLH:%zu\nend_of_record\n", j - i, hit);
      i = j;
    }
  if (fclose (out) != 0)
    {
      out = NULL;
      errmsg_format (errmsg, "write error: %s", strerror (errno));
      goto done;
    }
  out = NULL;
  ok = true;

 done:
  if (out != NULL)
    fclose (out);
  if (!ok)
    unlink (file);
  free (funcs);
  free (lines);
  return ok;
}

void
lines_free (struct report *r)
{
  struct report_lines *l = r->lines;

  if (l == NULL)
    return;
  for (size_t i = 0; i < l->n_sources; i++)
    free (l->sources[i]);
  free (l->sources);
  free (l->runs);
  free (l->funcs);
  free (l);
  r->lines = NULL;
}
