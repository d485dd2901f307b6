/* trace-report.c -- rebuild the call stacks of a trace, and print the
   flat profile and the call graph with times.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   trace-report.h says how the stack is rebuilt and how time is
   counted.  A run-time address is mapped to its object through the
   trace's object records and named from that object's symbols: a FUNC
   symbol of .symtab at the entry, else one from the GNU ld map given
   for the program, else one of .dynsym, else func_0xADDR.  An object
   that is a profcopy-profiled copy (profcopy --calls) is named from its
   original, which its profcopy segment names (or, when that file is
   not there or has changed, from the copy's own symbols taken back
   through its map), and the call sites in its new text are taken back
   to original addresses, so that a binary-level trace is read as one
   of the original program.  */

#include <config.h>

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errmsg.h"
#include "copy-map.h"
#include "crc32.h"
#include "object.h"
#include "report.h"
#include "trace-report.h"

/* A named entry address.  */
struct named_addr
{
  uint32_t addr;
  uint32_t size;		/* 0 if unknown.  */
  int rank;			/* Lower wins at the same address.  */
  const char *name;
};

/* An object whose symbols were read (or could not be).  */
struct symbol_file
{
  char *path;			/* As the trace names it.  */
  bool is_program;
  struct mips_object obj;
  bool open;
  struct copy_map copy;		/* When OBJ is a profiled copy.  */
  bool is_copy;
  struct mips_object orig;	/* Its original, when found unchanged.  */
  bool orig_open;
  struct named_addr *names;	/* Sorted by address, then rank.  */
  size_t n_names;
};

/* The lookup tables behind trace_report.internal.  */
struct internal
{
  struct symbol_file *files;
  size_t n_files;
  struct named_addr *map_names;	/* From --map, names owned here.  */
  size_t n_map_names;
  bool map_read;
  /* Open addressing: function key -> index + 1.  */
  size_t *func_slots, func_cap;
  uint64_t *func_keys;
  size_t *edge_slots, edge_cap;
};

static int
compare_named (const void *a, const void *b)
{
  const struct named_addr *x = a, *y = b;

  if (x->addr != y->addr)
    return x->addr < y->addr ? -1 : 1;
  return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Read the GNU ld map FILE: every line `  0xADDR  NAME' (a symbol
   assignment) gives a name.  */

static bool
read_map (struct internal *in, const char *file, char **errmsg)
{
  FILE *f = fopen (file, "r");
  char line[4096];
  size_t cap = 0;

  if (f == NULL)
    return errmsg_format (errmsg, "%s: cannot open: %s", file,
			  strerror (errno));
  while (fgets (line, sizeof line, f) != NULL)
    {
      unsigned long long addr;
      char name[1024], rest[2];
      struct named_addr *n;

      if (line[0] != ' '
	  || sscanf (line, " 0x%llx %1023s %1s", &addr, name, rest) != 2
	  || addr > UINT32_MAX || strchr (name, '=') != NULL
	  || strchr (name, '(') != NULL || strchr (name, '/') != NULL)
	continue;
      if (in->n_map_names == cap)
	{
	  cap = cap ? 2 * cap : 256;
	  n = realloc (in->map_names, cap * sizeof *n);
	  if (n == NULL)
	    {
	      fclose (f);
	      return errmsg_format (errmsg, "out of memory");
	    }
	  in->map_names = n;
	}
      n = &in->map_names[in->n_map_names];
      n->addr = (uint32_t) addr;
      n->size = 0;
      n->rank = 5000 + (int) strspn (name, "_") * 10;
      n->name = strdup (name);
      if (n->name == NULL)
	{
	  fclose (f);
	  return errmsg_format (errmsg, "out of memory");
	}
      in->n_map_names++;
    }
  if (ferror (f))
    {
      fclose (f);
      return errmsg_format (errmsg, "%s: read error", file);
    }
  fclose (f);
  if (in->n_map_names == 0)
    return errmsg_format (errmsg, "%s: no symbol in this linker map", file);
  qsort (in->map_names, in->n_map_names, sizeof *in->map_names,
	 compare_named);
  return true;
}

/* Open the original of the profiled copy CM (under SYSROOT first) into
   *ORIG.  False, after a note on standard error, when it is not there
   or is not the file that was profiled.  */

static bool
open_original (const struct copy_map *cm, const char *sysroot,
	       struct mips_object *orig)
{
  char *candidate = NULL;
  const char *path = cm->original;
  char *err = NULL;

  if (sysroot != NULL && path[0] == '/'
      && asprintf (&candidate, "%s%s", sysroot, path) >= 0
      && access (candidate, R_OK) == 0)
    path = candidate;
  if (!object_read (path, orig, &err))
    {
      fprintf (stderr, "profreport: %s: %s; names come from the profiled"
	       " copy\n", path, err != NULL ? err : "cannot open");
      free (err);
      free (candidate);
      return false;
    }
  if (orig->size != cm->file_size
      || crc32_ieee (orig->image, orig->size) != cm->checksum)
    {
      fprintf (stderr, "profreport: %s: changed since it was profiled;"
	       " names come from the profiled copy\n", path);
      object_close (orig);
      free (candidate);
      return false;
    }
  free (candidate);
  return true;
}

/* Add to SF the names of the functions of OBJ.  With COPY (OBJ is a
   profiled copy whose original could not be read), a symbol in the new
   text is taken back to its original address.  */

static bool
add_names (struct symbol_file *sf, const struct mips_object *obj,
	   const struct copy_map *copy)
{
  sf->names = malloc ((obj->n_symbols + 1) * sizeof *sf->names);
  if (sf->names == NULL)
    return false;
  for (size_t i = 0; i < obj->n_symbols; i++)
    {
      const struct object_symbol *s = &obj->symbols[i];
      uint32_t addr = s->value;
      if ((s->type != STT_FUNC && s->type != STT_GNU_IFUNC)
	  || s->shndx == SHN_UNDEF || s->name == NULL
	  || s->name[0] == '\0')
	continue;
      if (copy != NULL)
	copy_map_original (copy, s->value, &addr);
      sf->names[sf->n_names].addr = addr;
      sf->names[sf->n_names].size = s->size;
      sf->names[sf->n_names].rank = object_symbol_rank (s);
      sf->names[sf->n_names].name = s->name;
      sf->n_names++;
    }
  qsort (sf->names, sf->n_names, sizeof *sf->names, compare_named);
  return true;
}

/* Return the symbol file for PATH, opened (under SYSROOT first) on
   first use.  A file that cannot be opened is noted once on standard
   error; its functions are named by address.  */

static struct symbol_file *
get_file (struct internal *in, const char *path, bool is_program,
	  const char *sysroot)
{
  struct symbol_file *sf;
  char *err = NULL;
  char *candidate = NULL;

  for (size_t i = 0; i < in->n_files; i++)
    if (strcmp (in->files[i].path, path) == 0)
      {
	in->files[i].is_program |= is_program;
	return &in->files[i];
      }
  sf = realloc (in->files, (in->n_files + 1) * sizeof *sf);
  if (sf == NULL)
    return NULL;
  in->files = sf;
  sf = &in->files[in->n_files];
  memset (sf, 0, sizeof *sf);
  sf->path = strdup (path);
  if (sf->path == NULL)
    return NULL;
  in->n_files++;
  sf->is_program = is_program;
  if (path[0] == '\0')
    return sf;
  if (sysroot != NULL && path[0] == '/'
      && asprintf (&candidate, "%s%s", sysroot, path) >= 0
      && access (candidate, R_OK) == 0)
    sf->open = object_read (candidate, &sf->obj, &err);
  else
    sf->open = object_read (path, &sf->obj, &err);
  if (!sf->open)
    {
      fprintf (stderr, "profreport: %s: %s; its functions are named by"
	       " address\n", candidate != NULL && access (candidate, R_OK) == 0
	       ? candidate : path, err != NULL ? err : "cannot open");
      free (err);
    }
  else
    {
      sf->is_copy = copy_map_read (&sf->obj, &sf->copy);
      if (sf->is_copy)
	sf->orig_open = open_original (&sf->copy, sysroot, &sf->orig);
      /* Not a copy's own symbols: they are at its new addresses.  */
      if (sf->orig_open)
	report_add_debug_symbols (&sf->orig);
      else if (!sf->is_copy)
	report_add_debug_symbols (&sf->obj);
      if (!add_names (sf, sf->orig_open ? &sf->orig : &sf->obj,
		      sf->is_copy && !sf->orig_open ? &sf->copy : NULL))
	{
	  free (candidate);
	  return NULL;
	}
    }
  free (candidate);
  return sf;
}

/* The best name at ADDR among NAMES (N, sorted), or NULL; its rank in
   *RANK.  */

static const struct named_addr *
name_at (const struct named_addr *names, size_t n, uint32_t addr)
{
  size_t lo = 0, hi = n;

  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (names[mid].addr < addr)
	lo = mid + 1;
      else
	hi = mid;
    }
  if (lo < n && names[lo].addr == addr)
    return &names[lo];
  return NULL;
}

/* Make the name of the function at link-time ADDR of SF; set *SIZE to
   its size, 0 if unknown.  */

static char *
function_name (const struct internal *in, const struct symbol_file *sf,
	       uint32_t addr, uint32_t *size)
{
  const struct named_addr *best, *m;
  char *name;

  best = name_at (sf->names, sf->n_names, addr);
  if (sf->is_program
      && (m = name_at (in->map_names, in->n_map_names, addr)) != NULL
      && (best == NULL || m->rank < best->rank))
    best = m;
  *size = best != NULL ? best->size : 0;
  if (best != NULL)
    return report_symbol_name (best->name);
  if (asprintf (&name, "func_0x%" PRIx32, addr) < 0)
    return NULL;
  return name;
}

static size_t
hash64 (uint64_t k)
{
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  return (size_t) k;
}

/* Grow the function table of R and IN to hold one more.  */

static bool
grow_functions (struct trace_report *r, struct internal *in)
{
  if (r->n_functions % 256 == 0)
    {
      struct trace_function *f
	= realloc (r->functions, (r->n_functions + 256) * sizeof *f);
      uint64_t *k = realloc (in->func_keys, (r->n_functions + 256) * sizeof *k);
      if (f == NULL || k == NULL)
	{
	  if (f != NULL)
	    r->functions = f;
	  if (k != NULL)
	    in->func_keys = k;
	  return false;
	}
      r->functions = f;
      in->func_keys = k;
    }
  if ((r->n_functions + 1) * 2 > in->func_cap)
    {
      size_t cap = in->func_cap ? in->func_cap * 2 : 1024;
      size_t *slots = calloc (cap, sizeof *slots);
      if (slots == NULL)
	return false;
      for (size_t i = 0; i < r->n_functions; i++)
	{
	  size_t h = hash64 (in->func_keys[i]) & (cap - 1);
	  while (slots[h] != 0)
	    h = (h + 1) & (cap - 1);
	  slots[h] = i + 1;
	}
      free (in->func_slots);
      in->func_slots = slots;
      in->func_cap = cap;
    }
  return true;
}

/* The symbol file of the object of trace T that holds run-time address
   ADDR, and that object in *TO (NULL if none does); NULL when out of
   memory.  */

static struct symbol_file *
file_at (struct internal *in, const struct trace *t,
	 const struct trace_report_options *o, uint32_t addr,
	 const struct trace_object **to)
{
  bool is_program;

  *to = trace_object_at (t, addr);
  is_program = (*to == NULL
		|| (t->n_objects > 0
		    && strcmp ((*to)->path,
			       t->objects[t->n_objects - 1].path) == 0));
  return get_file (in, *to != NULL ? (*to)->path : "", is_program,
		   o->sysroot);
}

/* Run-time call site SITE of trace T as an address of the original
   code: a site in the new text of a profiled copy (the return address
   of a call made there) becomes the run-time address of the original
   word it is a copy of; any other site is kept.  */

static uint32_t
original_site (struct internal *in, const struct trace *t,
	       const struct trace_report_options *o, uint32_t site)
{
  const struct trace_object *to;
  struct symbol_file *sf;
  uint32_t orig;

  if (site == 0)
    return 0;
  sf = file_at (in, t, o, site, &to);
  if (sf == NULL || to == NULL || !sf->is_copy
      || !copy_map_original (&sf->copy, site - to->bias, &orig))
    return site;
  return orig + to->bias;
}

/* Return the index of the function at run-time address ADDR of trace
   T, made if new; (size_t) -1 when out of memory.  */

static size_t
lookup_function (struct trace_report *r, struct internal *in,
		 const struct trace *t, const struct trace_report_options *o,
		 uint32_t addr)
{
  const struct trace_object *to;
  struct symbol_file *sf = file_at (in, t, o, addr, &to);
  uint32_t link;
  uint64_t key;
  size_t h;
  struct trace_function *f;

  if (sf == NULL)
    return (size_t) -1;
  link = to != NULL ? addr - to->bias : addr;
  key = (uint64_t) (sf - in->files) << 32 | link;
  if (in->func_cap != 0)
    for (h = hash64 (key) & (in->func_cap - 1); in->func_slots[h] != 0;
	 h = (h + 1) & (in->func_cap - 1))
      if (in->func_keys[in->func_slots[h] - 1] == key)
	return in->func_slots[h] - 1;
  if (!grow_functions (r, in))
    return (size_t) -1;
  f = &r->functions[r->n_functions];
  memset (f, 0, sizeof *f);
  f->name = function_name (in, sf, link, &f->size);
  if (f->name == NULL)
    return (size_t) -1;
  f->object = sf->path;
  f->addr = link;
  in->func_keys[r->n_functions] = key;
  h = hash64 (key) & (in->func_cap - 1);
  while (in->func_slots[h] != 0)
    h = (h + 1) & (in->func_cap - 1);
  in->func_slots[h] = r->n_functions + 1;
  return r->n_functions++;
}

/* Return the index of the edge CALLER -> CALLEE, made if new.  */

static size_t
lookup_edge (struct trace_report *r, struct internal *in, size_t caller,
	     size_t callee)
{
  uint64_t key = (uint64_t) (uint32_t) caller << 32 | (uint32_t) callee;
  size_t h;
  struct trace_edge *e;

  if (in->edge_cap != 0)
    for (h = hash64 (key) & (in->edge_cap - 1); in->edge_slots[h] != 0;
	 h = (h + 1) & (in->edge_cap - 1))
      {
	e = &r->edges[in->edge_slots[h] - 1];
	if (e->caller == caller && e->callee == callee)
	  return in->edge_slots[h] - 1;
      }
  if (r->n_edges % 256 == 0)
    {
      e = realloc (r->edges, (r->n_edges + 256) * sizeof *e);
      if (e == NULL)
	return (size_t) -1;
      r->edges = e;
    }
  if ((r->n_edges + 1) * 2 > in->edge_cap)
    {
      size_t cap = in->edge_cap ? in->edge_cap * 2 : 1024;
      size_t *slots = calloc (cap, sizeof *slots);
      if (slots == NULL)
	return (size_t) -1;
      for (size_t i = 0; i < r->n_edges; i++)
	{
	  uint64_t k = ((uint64_t) (uint32_t) r->edges[i].caller << 32
			| (uint32_t) r->edges[i].callee);
	  h = hash64 (k) & (cap - 1);
	  while (slots[h] != 0)
	    h = (h + 1) & (cap - 1);
	  slots[h] = i + 1;
	}
      free (in->edge_slots);
      in->edge_slots = slots;
      in->edge_cap = cap;
    }
  e = &r->edges[r->n_edges];
  e->caller = caller;
  e->callee = callee;
  e->count = 0;
  e->time = 0;
  h = hash64 (key) & (in->edge_cap - 1);
  while (in->edge_slots[h] != 0)
    h = (h + 1) & (in->edge_cap - 1);
  in->edge_slots[h] = r->n_edges + 1;
  return r->n_edges++;
}

/* One frame of a rebuilt stack.  */
struct frame
{
  size_t func, edge;
  uint32_t entry;		/* Run-time entry address.  */
  uint32_t site;		/* Its call site, or 0.  */
  uint64_t start, child;
};

/* -1 if the function of frame FR has no known size, else whether
   run-time address SITE lies inside it.  */

static int
frame_holds (const struct trace_report *r, const struct frame *fr,
	     uint32_t site)
{
  uint32_t size = r->functions[fr->func].size;

  if (size == 0)
    return -1;
  return site >= fr->entry && site - fr->entry < size;
}

/* Pop the top frame of STACK (*DEPTH frames) at time NOW.  */

static void
pop_frame (struct trace_report *r, struct frame *stack, size_t *depth,
	   uint64_t now, FILE *chrome, const struct trace_stream *s,
	   uint64_t origin)
{
  struct frame *fr = &stack[--*depth];
  struct trace_function *f = &r->functions[fr->func];
  uint64_t dur = now > fr->start ? now - fr->start : 0;

  f->self += dur > fr->child ? dur - fr->child : 0;
  r->total += dur > fr->child ? dur - fr->child : 0;
  if (--f->active == 0)
    f->inclusive += dur;
  r->edges[fr->edge].time += dur;
  if (*depth > 0)
    stack[*depth - 1].child += dur;
  if (chrome != NULL)
    trace_chrome_frame (chrome, f->name, s->pid, s->tid,
			fr->start - origin, dur);
}

bool
trace_report_add (struct trace_report *r, const struct trace *t,
		  const struct trace_report_options *opts, FILE *chrome,
		  char **errmsg)
{
  struct internal *in = r->internal;
  struct frame *stack = NULL;
  size_t cap = 0;
  uint64_t origin = UINT64_MAX;

  if (in == NULL)
    {
      in = calloc (1, sizeof *in);
      if (in == NULL)
	return errmsg_format (errmsg, "out of memory");
      r->internal = in;
    }
  if (opts->map != NULL && !in->map_read)
    {
      if (!read_map (in, opts->map, errmsg))
	return false;
      in->map_read = true;
    }

  for (size_t i = 0; i < t->n_streams; i++)
    if (t->streams[i].n_events > 0 && t->streams[i].events[0].time < origin)
      origin = t->streams[i].events[0].time;

  for (size_t i = 0; i < t->n_streams; i++)
    {
      const struct trace_stream *s = &t->streams[i];
      size_t depth = 0;
      uint64_t last = 0;

      r->n_threads++;
      r->lost += s->lost;
      for (size_t k = 0; k < s->n_events; k++)
	{
	  const struct trace_event *e = &s->events[k];
	  size_t f = lookup_function (r, in, t, opts, e->func);
	  uint64_t now = e->time < last ? last : e->time;
	  uint32_t site;

	  if (f == (size_t) -1)
	    goto oom;
	  site = e->exit ? e->site : original_site (in, t, opts, e->site);
	  last = now;
	  r->n_events++;
	  if (!e->exit && site != 0 && depth > 0
	      && stack[depth - 1].site != site
	      && frame_holds (r, &stack[depth - 1], site) == 0)
	    {
	      /* Called from below the top of the stack: the frames over
		 the caller were left without their exits.  The site of a
		 function that gcc inlined (and instrumented, as plain
		 -finstrument-functions does) is the one of the function
		 it was inlined into: a site equal to the top frame's is
		 taken for that, not for a stale frame.  */
	      size_t at = depth - 1;
	      int holds = 0;
	      while (at > 0
		     && (holds = frame_holds (r, &stack[at - 1], site)) == 0)
		at--;
	      if (at > 0 && holds == 1)
		{
		  r->unwound += depth - at;
		  while (depth > at)
		    pop_frame (r, stack, &depth, now, chrome, s, origin);
		}
	    }
	  if (!e->exit)
	    {
	      size_t caller = depth > 0 ? stack[depth - 1].func : TRACE_ROOT;
	      size_t edge = lookup_edge (r, in, caller, f);
	      if (edge == (size_t) -1)
		goto oom;
	      if (depth == cap)
		{
		  struct frame *ns;
		  cap = cap ? 2 * cap : 256;
		  ns = realloc (stack, cap * sizeof *stack);
		  if (ns == NULL)
		    goto oom;
		  stack = ns;
		}
	      r->edges[edge].count++;
	      r->functions[f].calls++;
	      r->functions[f].active++;
	      stack[depth].func = f;
	      stack[depth].entry = e->func;
	      stack[depth].site = site;
	      stack[depth].edge = edge;
	      stack[depth].start = now;
	      stack[depth].child = 0;
	      depth++;
	    }
	  else
	    {
	      size_t at = depth;
	      while (at > 0 && stack[at - 1].func != f)
		at--;
	      if (at == 0)
		{
		  r->orphan_exits++;
		  continue;
		}
	      /* The frames over the function's topmost one were left
		 without their exits.  */
	      r->unwound += depth - at;
	      while (depth >= at)
		pop_frame (r, stack, &depth, now, chrome, s, origin);
	    }
	}
      while (depth > 0)
	{
	  r->open_at_end++;
	  pop_frame (r, stack, &depth, last, chrome, s, origin);
	}
    }
  free (stack);
  return true;

 oom:
  free (stack);
  return errmsg_format (errmsg, "out of memory");
}

void
trace_report_free (struct trace_report *r)
{
  struct internal *in = r->internal;

  for (size_t i = 0; i < r->n_functions; i++)
    free (r->functions[i].name);
  free (r->functions);
  free (r->edges);
  if (in != NULL)
    {
      for (size_t i = 0; i < in->n_files; i++)
	{
	  free (in->files[i].path);
	  free (in->files[i].names);
	  if (in->files[i].open)
	    object_close (&in->files[i].obj);
	  if (in->files[i].orig_open)
	    object_close (&in->files[i].orig);
	  copy_map_free (&in->files[i].copy);
	}
      for (size_t i = 0; i < in->n_map_names; i++)
	free ((char *) in->map_names[i].name);
      free (in->map_names);
      free (in->files);
      free (in->func_slots);
      free (in->func_keys);
      free (in->edge_slots);
      free (in);
    }
  memset (r, 0, sizeof *r);
}
