/* report.c -- attribute the blocks of a profile to functions and print
   the flat profile and the block list.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   A block belongs to the function whose symbol is the closest at or
   below its start: FUNC symbols of .symtab, else of .dynsym (a stripped
   libc has only the latter).  A symbol with a size covers only that
   many bytes; blocks past its end and before the next symbol (a static
   function of a stripped object) form a function of their own, named
   func_0xADDR after its first block.  */

#include <config.h>

#include <elf.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_DEMANGLE
# include <libiberty/demangle.h>
#endif

#include "errmsg.h"
#include "calls.h"
#include "crc32.h"
#include "inclusive.h"
#include "lines.h"
#include "object.h"
#include "report.h"
#include "saturate.h"

/* A candidate function symbol.  */
struct func_sym
{
  uint32_t addr, size;
  const char *name;		/* In the object's image.  */
  int rank;			/* Lower is preferred at the same address.  */
};

bool report_demangle = true;
const char *report_sysroot;

void
report_add_debug_symbols (struct mips_object *obj)
{
  char *path, *err = NULL;

  for (size_t i = 0; i < obj->n_symbols; i++)
    if (!obj->symbols[i].dynamic)
      return;
  path = object_find_debug_file (obj, report_sysroot);
  if (path == NULL)
    return;
  if (!object_add_debug_symbols (obj, path, &err))
    fprintf (stderr, "profreport: %s: %s; its functions are named without"
	     " it\n", path, err != NULL ? err : "cannot read");
  free (err);
  free (path);
}

char *
report_symbol_name (const char *sym)
{
  const char *at = strstr (sym, "@@");

  /* NAME@@VERSION, the default version, is shown as NAME.  */
  if (at != NULL && at > sym)
    {
      char *name = strndup (sym, (size_t) (at - sym));
      char *shown;
      if (name == NULL)
	return NULL;
      shown = report_symbol_name (name);
      free (name);
      return shown;
    }
#ifdef HAVE_DEMANGLE
  /* Only what the Itanium C++ ABI mangles (_Z...): cplus_demangle would
     also take some C names for other schemes' mangling.  */
  if (report_demangle && sym[0] == '_' && sym[1] == 'Z')
    {
      char *d = cplus_demangle (sym, DMGL_PARAMS | DMGL_ANSI);
      if (d != NULL)
	return d;
    }
#endif
  return strdup (sym);
}

static int
compare_func_sym (const void *a, const void *b)
{
  const struct func_sym *x = a, *y = b;
  int c;

  if (x->addr != y->addr)
    return x->addr < y->addr ? -1 : 1;
  if (x->rank != y->rank)
    return x->rank < y->rank ? -1 : 1;
  c = strcmp (x->name, y->name);
  return c;
}

/* Collect the function symbols of OBJ into a malloc'd array sorted by
   address, one per address.  Set *N to their number.  */

static struct func_sym *
collect_symbols (const struct mips_object *obj, size_t *n)
{
  struct func_sym *syms = malloc ((obj->n_symbols + 1) * sizeof *syms);
  size_t count = 0, out = 0;

  *n = 0;
  if (syms == NULL)
    return NULL;
  for (size_t i = 0; i < obj->n_symbols; i++)
    {
      const struct object_symbol *s = &obj->symbols[i];
      /* MIPS16 and microMIPS entries have the low bit set.  */
      uint32_t addr = s->value & ~(uint32_t) 1;
      if ((s->type != STT_FUNC && s->type != STT_GNU_IFUNC)
	  || s->shndx == SHN_UNDEF || s->shndx >= SHN_LORESERVE
	  || s->name == NULL || s->name[0] == '\0'
	  || !object_is_code (obj, addr))
	continue;
      syms[count].addr = addr;
      syms[count].size = s->size;
      syms[count].name = s->name;
      syms[count].rank = object_symbol_rank (s);
      count++;
    }
  qsort (syms, count, sizeof *syms, compare_func_sym);
  for (size_t i = 0; i < count; i++)
    if (out == 0 || syms[out - 1].addr != syms[i].addr)
      syms[out++] = syms[i];
  *n = out;
  return syms;
}

/* Whether the blocks of PROF, in the address order ORDER, are
   disjoint and lie within a span no larger than the object's file: so
   are those of every profile profcopy writes (its code lies in the
   first loadable segment), and it bounds the work of a report per
   instruction (--callgrind) by the object's size.  */

static bool
blocks_fit (const struct prof_object *prof, const uint32_t *order)
{
  uint64_t first = 0, end = 0;

  for (uint32_t i = 0; i < prof->n_blocks; i++)
    {
      const struct prof_block *blk = &prof->blocks[order[i]];
      if (i == 0)
	first = blk->start;
      else if (blk->start < end)
	return false;
      end = (uint64_t) blk->start + blk->size;
    }
  return end - first <= prof->file_size;
}

/* Order of block indices by the start of the blocks BLOCKS (struct
   prof_block), then by index; for qsort_r.  */

static int
compare_block (const void *a, const void *b, void *blocks)
{
  const struct prof_block *bl = blocks;
  uint32_t i = *(const uint32_t *) a, j = *(const uint32_t *) b;

  if (bl[i].start != bl[j].start)
    return bl[i].start < bl[j].start ? -1 : 1;
  return i < j ? -1 : i > j;
}

/* Append a function NAME (copied) at ADDR of object OBJECT to R.
   Return its index, or (size_t) -1 when out of memory.  */

static size_t
add_function (struct report *r, const char *name, uint32_t addr,
	      size_t object)
{
  struct report_function *f;

  if (r->n_functions % 64 == 0)
    {
      f = realloc (r->functions, (r->n_functions + 64) * sizeof *f);
      if (f == NULL)
	return (size_t) -1;
      r->functions = f;
    }
  f = &r->functions[r->n_functions];
  memset (f, 0, sizeof *f);
  if (name != NULL)
    f->name = report_symbol_name (name);
  else if (asprintf (&f->name, "func_0x%" PRIx32, addr) < 0)
    f->name = NULL;
  if (f->name == NULL)
    return (size_t) -1;
  f->addr = addr;
  f->object = object;
  return r->n_functions++;
}

/* Whether block BLK of OBJ is alignment padding: nops alone.  */

static bool
padding (const struct mips_object *obj, const struct prof_block *blk)
{
  for (uint32_t off = 0; off < blk->size; off += 4)
    {
      uint32_t word;
      if (!object_read_word (obj, blk->start + off, &word) || word != 0)
	return false;
    }
  return blk->size > 0;
}

/* The entry of the function that no symbol names and whose first block
   is the I-th of RO in address order, its run ending before LIMIT: the
   first block that is not alignment padding (else the I-th).  */

static uint32_t
orphan_entry (const struct report_object *ro, const struct mips_object *obj,
	      uint32_t i, uint64_t limit)
{
  const struct prof_object *prof = ro->prof;

  for (uint32_t j = i; j < prof->n_blocks; j++)
    {
      const struct prof_block *blk = &prof->blocks[ro->order[j]];
      if (blk->start >= limit)
	break;
      if (!padding (obj, blk))
	return blk->start;
    }
  return prof->blocks[ro->order[i]].start;
}

/* Attribute the blocks of RO (object number INDEX of R, read from OBJ)
   to functions, using the symbols SYMS (N_SYMS, sorted by address);
   blocks that no symbol covers start a function of their own at each
   of the N_ENTRIES addresses ENTRIES (sorted) that calls enter.  */

static bool
attribute_blocks (struct report *r, struct report_object *ro, size_t index,
		  const struct mips_object *obj, const struct func_sym *syms,
		  size_t n_syms, const uint32_t *entries, size_t n_entries)
{
  const struct prof_object *prof = ro->prof;
  size_t *sym_func = malloc ((n_syms + 1) * sizeof *sym_func);
  size_t cur_orphan = (size_t) -1, e = 0;
  long orphan_key = -2;
  long k = -1;			/* The last symbol at or below the block.  */

  if (sym_func == NULL)
    return false;
  for (size_t i = 0; i < n_syms; i++)
    sym_func[i] = (size_t) -1;

  for (uint32_t i = 0; i < prof->n_blocks; i++)
    {
      uint32_t b = ro->order[i];
      const struct prof_block *blk = &prof->blocks[b];
      size_t f;

      /* The blocks come in address order: K only moves forward.  */
      while ((size_t) (k + 1) < n_syms && syms[k + 1].addr <= blk->start)
	k++;

      if (k >= 0 && (syms[k].size == 0
		     || blk->start - syms[k].addr < syms[k].size))
	{
	  if (sym_func[k] == (size_t) -1)
	    sym_func[k] = add_function (r, syms[k].name, syms[k].addr, index);
	  f = sym_func[k];
	  orphan_key = -2;
	}
      else
	{
	  /* Consecutive blocks after the same symbol's end are one
	     function, which starts after the padding that aligns it, up
	     to the next entry that a call enters.  */
	  while (e < n_entries && entries[e] < blk->start)
	    e++;
	  if (orphan_key == k && blk->start != r->functions[cur_orphan].addr
	      && e < n_entries && entries[e] == blk->start)
	    cur_orphan = add_function (r, NULL, blk->start, index);
	  else if (orphan_key != k)
	    {
	      uint64_t limit = (size_t) (k + 1) < n_syms ? syms[k + 1].addr
			       : (uint64_t) 1 << 32;
	      cur_orphan = add_function (r, NULL,
					 orphan_entry (ro, obj, i, limit),
					 index);
	      orphan_key = k;
	    }
	  f = cur_orphan;
	  /* The padding before it ends the symbol's function.  */
	  if (blk->start < r->functions[f].addr && k >= 0
	      && sym_func[k] != (size_t) -1)
	    f = sym_func[k];
	}
      if (f == (size_t) -1)
	{
	  free (sym_func);
	  return false;
	}
      ro->block_func[b] = f;
      r->functions[f].insns = sat_add (r->functions[f].insns,
				       sat_mul (prof->counts[b],
						blk->size / 4));
      if (blk->start == r->functions[f].addr)
	r->functions[f].calls = sat_add (r->functions[f].calls,
					 prof->counts[b]);
      r->total = sat_add (r->total, sat_mul (prof->counts[b], blk->size / 4));
    }
  free (sym_func);
  return true;
}

/* Add to ENTRIES (*N of them, sorted, each once; malloc'd) the starts
   of OBJ's .eh_frame FDEs: compilers give every function one, those
   that no call enters too (called through pointers, or by tail jumps
   only).  Return the new array, or NULL when out of memory (ENTRIES is
   then freed).  */

static uint32_t *
add_fde_entries (uint32_t *entries, size_t *n, const struct mips_object *obj)
{
  uint32_t *all = malloc ((*n + obj->n_fdes + 1) * sizeof *all);
  size_t i = 0, j = 0, k = 0;

  if (all == NULL)
    {
      free (entries);
      return NULL;
    }
  /* Both are sorted: merge them.  */
  while (i < *n || j < obj->n_fdes)
    {
      uint32_t a;
      if (j == obj->n_fdes
	  || (i < *n && entries[i] <= obj->fdes[j].pc_begin))
	a = entries[i++];
      else
	a = obj->fdes[j++].pc_begin;
      if (k == 0 || all[k - 1] != a)
	all[k++] = a;
    }
  free (entries);
  *n = k;
  return all;
}

bool
report_add_object (struct report *r, const struct prof_object *prof,
		   char **errmsg)
{
  struct mips_object obj;
  struct report_object *ro;
  struct func_sym *syms = NULL;
  uint32_t *entries = NULL;
  size_t n_syms, n_entries;
  char *err = NULL;
  bool ok = false;

  *errmsg = NULL;
  if (!object_read (prof->path, &obj, &err))
    {
      errmsg_format (errmsg, "%s", err != NULL ? err : "cannot read");
      free (err);
      return false;
    }
  if (obj.size != prof->file_size
      || crc32_ieee (obj.image, obj.size) != prof->checksum)
    {
      errmsg_format (errmsg, "changed since it was profiled (checksum "
		     "mismatch)");
      goto cleanup;
    }
  if (prof->build_id_len != 0 && obj.build_id != NULL
      && (obj.build_id_len != prof->build_id_len
	  || memcmp (obj.build_id, prof->build_id, prof->build_id_len) != 0))
    {
      errmsg_format (errmsg, "changed since it was profiled (build-id "
		     "mismatch)");
      goto cleanup;
    }
  report_add_debug_symbols (&obj);

  ro = realloc (r->objects, (r->n_objects + 1) * sizeof *ro);
  if (ro == NULL)
    goto oom;
  r->objects = ro;
  ro = &r->objects[r->n_objects];
  memset (ro, 0, sizeof *ro);
  ro->prof = prof;
  ro->order = malloc ((prof->n_blocks + 1) * sizeof *ro->order);
  ro->block_func = malloc ((prof->n_blocks + 1) * sizeof *ro->block_func);
  if (ro->order == NULL || ro->block_func == NULL)
    {
      free (ro->order);
      free (ro->block_func);
      goto oom;
    }
  r->n_objects++;
  for (uint32_t i = 0; i < prof->n_blocks; i++)
    ro->order[i] = i;
  /* profcopy writes the blocks in address order: sort only if not.  */
  for (uint32_t i = 1; i < prof->n_blocks; i++)
    if (prof->blocks[i - 1].start > prof->blocks[i].start)
      {
	qsort_r (ro->order, prof->n_blocks, sizeof *ro->order, compare_block,
		 (void *) prof->blocks);
	break;
      }
  if (!blocks_fit (prof, ro->order))
    {
      errmsg_format (errmsg, "its blocks in the profile overlap or do not "
		     "fit in the object");
      goto cleanup;
    }

  syms = collect_symbols (&obj, &n_syms);
  entries = calls_entries (prof, &obj, &n_entries);
  if (entries != NULL)
    entries = add_fde_entries (entries, &n_entries, &obj);
  if (syms == NULL || entries == NULL
      || !attribute_blocks (r, ro, r->n_objects - 1, &obj, syms, n_syms,
			    entries, n_entries))
    goto oom;
  if (!calls_find (r, r->n_objects - 1, &obj, &err))
    {
      errmsg_format (errmsg, "cannot find its calls: %s",
		     err != NULL ? err : "out of memory");
      free (err);
      goto cleanup;
    }
  /* An object whose lines cannot be read is still reported.  */
  if (report_want_lines && !lines_add_object (r, r->n_objects - 1, &obj, &err))
    {
      fprintf (stderr, "profreport: %s: no source lines: %s\n", prof->path,
	       err != NULL ? err : "out of memory");
      free (err);
      err = NULL;
    }
  ok = true;
  goto cleanup;

 oom:
  errmsg_format (errmsg, "out of memory");
 cleanup:
  free (syms);
  free (entries);
  object_close (&obj);
  return ok;
}

/* Order of function indices of the functions FUNCTIONS (struct
   report_function) by instructions, heaviest first; for qsort_r.  */

static int
compare_function (const void *a, const void *b, void *functions)
{
  const struct report_function *f = functions;
  const struct report_function *x = &f[*(const size_t *) a];
  const struct report_function *y = &f[*(const size_t *) b];

  if (x->insns != y->insns)
    return x->insns > y->insns ? -1 : 1;
  if (x->calls != y->calls)
    return x->calls > y->calls ? -1 : 1;
  if (x->object != y->object)
    return x->object < y->object ? -1 : 1;
  if (x->addr != y->addr)
    return x->addr < y->addr ? -1 : 1;
  return 0;
}

bool
report_wanted (const struct report_options *opts, const char *path,
	       const struct report_function *f)
{
  return (opts->object == NULL || fnmatch (opts->object, path, 0) == 0
	  || fnmatch (opts->object, base_name (path), 0) == 0)
	 && (opts->function == NULL || fnmatch (opts->function, f->name, 0) == 0);
}

/* Print the flat profile of R.  The text form lists the functions that
   ran; the CSV form lists every function that has a block.  */

static void
print_flat (FILE *out, const struct report *r,
	    const struct report_options *opts)
{
  enum report_format format = opts->format;
  size_t *order = malloc ((r->n_functions + 1) * sizeof *order);

  if (order == NULL)
    {
      fputs ("profreport: out of memory\n", stderr);
      return;
    }
  for (size_t i = 0; i < r->n_functions; i++)
    order[i] = i;
  qsort_r (order, r->n_functions, sizeof *order, compare_function,
	   r->functions);

  if (format == REPORT_CSV)
    fputs ("object,function,calls,instructions\n", out);
  else
    fprintf (out, "Flat profile: %" PRIu64 " instructions executed in %zu "
	     "object%s.\n\n"
	     "     %%      instructions           calls  function\n",
	     r->total, r->n_objects, r->n_objects == 1 ? "" : "s");
  for (size_t i = 0; i < r->n_functions; i++)
    {
      const struct report_function *f = &r->functions[order[i]];
      const char *path = r->objects[f->object].prof->path;
      if (!report_wanted (opts, path, f))
	continue;
      if (format == REPORT_CSV)
	{
	  csv_field (out, path);
	  putc (',', out);
	  csv_field (out, f->name);
	  fprintf (out, ",%" PRIu64 ",%" PRIu64 "\n", f->calls, f->insns);
	}
      else if (f->insns != 0 || f->calls != 0)
	fprintf (out, "%6.2f  %16" PRIu64 "  %14" PRIu64 "  %s (%s)\n",
		 r->total != 0 ? 100.0 * (double) f->insns / (double) r->total
		 : 0.0, f->insns, f->calls, f->name, base_name (path));
    }
  free (order);
}

/* Print every block of R.  */

static void
print_blocks (FILE *out, const struct report *r,
	      const struct report_options *opts)
{
  enum report_format format = opts->format;
  bool first = true;

  if (format == REPORT_CSV)
    fputs ("object,function,address,size,count\n", out);
  for (size_t o = 0; o < r->n_objects; o++)
    {
      const struct report_object *ro = &r->objects[o];
      const struct prof_object *prof = ro->prof;
      bool titled = false;
      for (uint32_t i = 0; i < prof->n_blocks; i++)
	{
	  uint32_t b = ro->order[i];
	  const struct prof_block *blk = &prof->blocks[b];
	  const struct report_function *f = &r->functions[ro->block_func[b]];
	  if ((prof->counts[b] == 0 && !opts->zeros)
	      || !report_wanted (opts, prof->path, f))
	    continue;
	  if (format == REPORT_TEXT && !titled)
	    {
	      fprintf (out, "%sBlocks of %s:\n\n"
		       "     address      size             count  function\n",
		       first ? "" : "\n", prof->path);
	      titled = true;
	      first = false;
	    }
	  if (format == REPORT_CSV)
	    {
	      csv_field (out, prof->path);
	      putc (',', out);
	      csv_field (out, f->name);
	      fprintf (out, ",0x%08" PRIx32 ",%" PRIu32 ",%" PRIu64 "\n",
		       blk->start, blk->size, prof->counts[b]);
	    }
	  else
	    {
	      fprintf (out, "  0x%08" PRIx32 "  %8" PRIu32 "  %16" PRIu64
		       "  %s", blk->start, blk->size, prof->counts[b],
		       f->name);
	      if (blk->start > f->addr)
		fprintf (out, "+0x%" PRIx32, blk->start - f->addr);
	      else if (blk->start < f->addr)
		fprintf (out, "-0x%" PRIx32, f->addr - blk->start);
	      putc ('\n', out);
	    }
	}
    }
}

void
report_print (FILE *out, const struct report *r,
	      const struct report_options *opts)
{
  if (opts->blocks)
    print_blocks (out, r, opts);
  else if (opts->lines)
    lines_print (out, r, opts);
  else if (opts->calls)
    calls_print (out, r, opts->format);
  else
    print_flat (out, r, opts);
}

void
report_free (struct report *r)
{
  for (size_t i = 0; i < r->n_objects; i++)
    {
      free (r->objects[i].order);
      free (r->objects[i].block_func);
      for (size_t j = 0; j < r->objects[i].n_dynsyms; j++)
	free (r->objects[i].dynsyms[j].name);
      free (r->objects[i].dynsyms);
    }
  for (size_t i = 0; i < r->n_calls; i++)
    free (r->calls[i].symbol);
  free (r->calls);
  for (size_t i = 0; i < r->n_functions; i++)
    free (r->functions[i].name);
  free (r->objects);
  free (r->functions);
  lines_free (r);
  if (r->inclusive != NULL)
    report_inclusive_free (r->inclusive);
  free (r->inclusive);
  memset (r, 0, sizeof *r);
}
