/* profile-read.c -- read and merge profcopy profiles.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   A profile is read whole and checked field by field against its size
   before anything is merged, so that a truncated or corrupt file gives
   an error and leaves the set as it was.  */

#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "byte-order.h"
#include "copy-tables.h"
#include "errmsg.h"
#include "file-image.h"
#include "profile-read.h"

/* The 64-bit count at P: the program's uint64_t, as it had it.  */

static uint64_t
get64 (bool be, const unsigned char *p)
{
  uint64_t first = get32 (be, p), second = get32 (be, p + 4);

  return be ? first << 32 | second : second << 32 | first;
}

/* Free the contents of OBJ; it can be freed again.  */

static void
free_object (struct prof_object *obj)
{
  free (obj->path);
  free (obj->blocks);
  free (obj->counts);
  obj->path = NULL;
  obj->blocks = NULL;
  obj->counts = NULL;
}

/* Add the flow C of edge K (its vertices at EDGES, as segment.h says)
   to ACC: out of the vertex it leaves, into the one it enters.  */

/* The count at P: a 64-bit value (versions 1 and 2), or with PAIRS
   (version 3) its low word, then its high word, as the counters are in
   the program's memory.  */

static uint64_t
get_count (bool be, bool pairs, const unsigned char *p)
{
  if (pairs)
    return (uint64_t) get32 (be, p + 4) << 32 | get32 (be, p);
  return get64 (be, p);
}

static void
add_edge (bool be, const unsigned char *edges, uint32_t k, uint64_t c,
	  uint64_t *acc)
{
  acc[get32 (be, edges + 8 * k)] += c;
  acc[get32 (be, edges + 8 * k + 4)] -= c;
}

/* Set OBJ's N block counts from the counters of a version 2 or 3
   record (with PAIRS, version 3's, get_count):
   COUNTERS, N + N_EDGES counts of blocks and of the derivation's
   counted edges, then N_WINDOW window counts, whose blocks or edges
   are the words at WB; the counts of the blocks without a counter are
   derived as the derivation table DERIVE of DERIVE_SIZE bytes says
   (include/segment.h; profcopy/plan/derive.c shows why it is exact).  Every
   index is checked before it is used.  */

static bool
derive_counts (bool be, bool pairs, struct prof_object *obj,
	       const unsigned char *derive,
	       uint32_t derive_size, uint32_t n_edges,
	       const unsigned char *wb, uint32_t n_window,
	       const unsigned char *counters, unsigned index, char **errmsg)
{
  uint32_t n = obj->n_blocks, n_vertices = 0, n_links = 0;
  const unsigned char *rule = NULL, *links = NULL, *edges = NULL;
  const unsigned char *win = counters + 8 * ((size_t) n + n_edges);
  uint64_t *acc;

  if (derive_size != 0)
    {
      if (derive_size < 12)
	goto bad_table;
      n_vertices = get32 (be, derive);
      n_links = get32 (be, derive + 4);
      rule = derive + 12;
      links = rule + 4 * (size_t) n;
      edges = links + 8 * (size_t) n_links;
      if (n_vertices != 2 * (uint64_t) n + 1 || n_links > n_vertices
	  || get32 (be, derive + 8) != n_edges
	  || derive_size != 12 + 4 * (uint64_t) n + 8 * (uint64_t) n_links
			    + 8 * (uint64_t) n_edges)
	goto bad_table;
      for (size_t k = 0; k < 2 * ((size_t) n_links + n_edges); k++)
	if (get32 (be, links + 4 * k) >= n_vertices)
	  goto bad_table;
      for (uint32_t b = 0; b < n; b++)
	if (get32 (be, rule + 4 * b) > 2 * (uint64_t) n_vertices)
	  goto bad_table;
    }
  else if (n_edges != 0)
    return errmsg_format (errmsg, "object %u: counted edges without a"
			  " derivation table", index);
  for (uint32_t j = 0; j < n_window; j++)
    if (get32 (be, wb + 4 * j) >= (uint64_t) n + n_edges)
      return errmsg_format (errmsg, "object %u: bad window", index);

  for (uint32_t b = 0; b < n; b++)
    obj->counts[b] = get_count (be, pairs, counters + 8 * b);
  for (uint32_t j = 0; j < n_window; j++)
    {
      uint32_t b = get32 (be, wb + 4 * j);
      if (b < n)
	obj->counts[b] += get_count (be, pairs, win + 8 * j);
    }
  if (derive_size == 0)
    return true;

  acc = calloc (n_vertices, sizeof *acc);
  if (acc == NULL)
    return errmsg_format (errmsg, "out of memory");
  for (uint32_t b = 0; b < n; b++)
    if (get32 (be, rule + 4 * b) == 0)
      {
	acc[2 * b] += obj->counts[b];
	acc[2 * b + 1] -= obj->counts[b];
      }
  for (uint32_t k = 0; k < n_edges; k++)
    add_edge (be, edges, k, get_count (be, pairs, counters + 8 * ((size_t) n + k)), acc);
  for (uint32_t j = 0; j < n_window; j++)
    {
      uint32_t e = get32 (be, wb + 4 * j);
      if (e >= n)
	add_edge (be, edges, e - n, get_count (be, pairs, win + 8 * j), acc);
    }
  for (uint32_t k = 0; k < n_links; k++)
    acc[get32 (be, links + 8 * k + 4)] += acc[get32 (be, links + 8 * k)];
  for (uint32_t b = 0; b < n; b++)
    {
      uint32_t r = get32 (be, rule + 4 * b);
      if (r != 0)
	obj->counts[b] = r & 1 ? acc[(r - 1) / 2] : -acc[(r - 1) / 2];
    }
  free (acc);
  return true;

 bad_table:
  return errmsg_format (errmsg, "object %u: bad derivation table", index);
}

/* A profiled copy read for its tables: FOUND is where.  */
struct profile_copy
{
  char *found;
  struct file_image image;
  struct copy_tables tables;
};

/* The copy of SET at PATH: read already, or now.  NULL, with *ERR an
   errno value or a FILE_IMAGE_ code, or 0 and *WHY a malloc'd reason,
   if it cannot be read or is not a profiled copy.  */

static const struct profile_copy *
read_copy (struct profile_set *set, const char *path, int *err, char **why)
{
  struct profile_copy c, *grown;

  *err = 0;
  *why = NULL;
  for (size_t i = 0; i < set->n_copies; i++)
    if (strcmp (set->copies[i].found, path) == 0)
      return &set->copies[i];
  memset (&c, 0, sizeof c);
  *err = file_image_read (path, &c.image);
  if (*err != 0)
    return NULL;
  if (!copy_tables_find (c.image.data, c.image.size, &c.tables, why))
    {
      file_image_free (&c.image);
      return NULL;
    }
  c.found = strdup (path);
  grown = c.found == NULL ? NULL
	  : realloc (set->copies, (set->n_copies + 1) * sizeof *grown);
  if (grown == NULL)
    {
      free (c.found);
      file_image_free (&c.image);
      *err = ENOMEM;
      return NULL;
    }
  set->copies = grown;
  set->copies[set->n_copies] = c;
  return &set->copies[set->n_copies++];
}

/* True if the tables T of a copy are those of OBJ's record, whose
   other figures are DERIVE_SIZE, N_WINDOW and TABLES_CRC.  */

static bool
copy_matches (const struct copy_tables *t, bool be,
	      const struct prof_object *obj, uint32_t derive_size,
	      uint32_t n_window, uint32_t tables_crc)
{
  return (t->big_endian == be && t->checksum == obj->checksum
	  && t->file_size == obj->file_size && t->n_blocks == obj->n_blocks
	  && t->derive_size == derive_size && t->n_window == n_window
	  && t->tables_crc == tables_crc);
}

/* Find the tables of record INDEX, of byte order BE, that OBJ begins
   to decode and whose copy the process loaded from COPY_PATH: in SET's
   copy directories, then at COPY_PATH.  */

static const struct copy_tables *
find_copy_tables (struct profile_set *set, const char *copy_path, bool be,
		  const struct prof_object *obj, uint32_t derive_size,
		  uint32_t n_window, uint32_t tables_crc, unsigned index,
		  char **errmsg)
{
  const char *slash = strrchr (copy_path, '/');
  const char *base = slash != NULL ? slash + 1 : copy_path;
  char *other = NULL, *bad = NULL, *why = NULL;
  int err = 0;

  for (size_t i = 0; i <= set->n_copy_dirs; i++)
    {
      char *name = NULL;
      const char *path = copy_path;
      const struct profile_copy *c;
      int e;
      char *w;
      if (i < set->n_copy_dirs)
	{
	  if (asprintf (&name, "%s/%s", set->copy_dirs[i], base) < 0)
	    {
	      errmsg_format (errmsg, "out of memory");
	      goto out;
	    }
	  path = name;
	}
      c = read_copy (set, path, &e, &w);
      if (c != NULL && copy_matches (&c->tables, be, obj, derive_size,
				     n_window, tables_crc))
	{
	  free (name);
	  free (other);
	  free (bad);
	  free (why);
	  return &c->tables;
	}
      /* Keep the first copy that is another's, and the first reason
	 that says more than "not found".  */
      if (c != NULL && other == NULL)
	other = strdup (path);
      else if (c == NULL && bad == NULL
	       && (w != NULL || (e != ENOENT && e != ENOTDIR)))
	{
	  bad = strdup (path);
	  err = e;
	  why = w;
	  w = NULL;
	}
      free (w);
      free (name);
    }
  if (other != NULL)
    errmsg_format (errmsg, "object %u (%s): %s is not the profiled copy"
		   " that wrote this profile (rewritten since?); name the"
		   " directory of that copy with --copy-dir=DIR",
		   index, obj->path, other);
  else if (bad != NULL)
    errmsg_format (errmsg, "object %u (%s): its tables are in its profiled"
		   " copy, and %s cannot be read as one: %s", index,
		   obj->path, bad, why != NULL ? why : file_image_error (err));
  else
    errmsg_format (errmsg, "object %u (%s): its tables are in its profiled"
		   " copy %s, which is not there; name the directory the"
		   " copies are in with --copy-dir=DIR", index, obj->path,
		   copy_path);
 out:
  free (other);
  free (bad);
  free (why);
  return NULL;
}

/* The N_COUNTS counters of a record whose counters are in runs (version
   5, PCPROF_COUNTS_RUNS), at P up to END: a malloc'd array of them, as a
   record without runs has them, 0 outside the runs; or NULL, with
   *ERRMSG, when the runs are not in order, overlap, go past N_COUNTS or
   past END (INDEX is the record's number, for messages).  */

static unsigned char *
expand_runs (bool be, const unsigned char *p, const unsigned char *end,
	     uint64_t n_counts, unsigned index, char **errmsg)
{
  uint64_t n_runs, from = 0, total = 0;
  const unsigned char *pairs = p + PCPROF_RUNS_HEADER_SIZE, *values;
  unsigned char *counts;

  if ((size_t) (end - p) < PCPROF_RUNS_HEADER_SIZE
      || get32 (be, p + 4) != 0)
    goto bad;
  n_runs = get32 (be, p);
  if (n_runs > (uint64_t) (end - pairs) / PCPROF_RUN_SIZE)
    goto bad;
  for (uint64_t k = 0; k < n_runs; k++)
    {
      uint64_t first = get32 (be, pairs + PCPROF_RUN_SIZE * k);
      uint64_t n = get32 (be, pairs + PCPROF_RUN_SIZE * k + 4);
      if (n == 0 || first < from || first + n > n_counts)
	goto bad;
      from = first + n;
      total += n;
    }
  values = pairs + PCPROF_RUN_SIZE * n_runs;
  if (total > (uint64_t) (end - values) / PCPROF_COUNT_SIZE)
    goto bad;
  counts = calloc (n_counts > 0 ? n_counts : 1, PCPROF_COUNT_SIZE);
  if (counts == NULL)
    {
      errmsg_format (errmsg, "out of memory");
      return NULL;
    }
  for (uint64_t k = 0; k < n_runs; k++)
    {
      uint64_t first = get32 (be, pairs + PCPROF_RUN_SIZE * k);
      uint64_t n = get32 (be, pairs + PCPROF_RUN_SIZE * k + 4);
      memcpy (counts + PCPROF_COUNT_SIZE * first, values,
	      PCPROF_COUNT_SIZE * n);
      values += PCPROF_COUNT_SIZE * n;
    }
  return counts;
 bad:
  errmsg_format (errmsg, "object %u: bad runs of counters", index);
  return NULL;
}

/* Decode the object record at DATA + OFF (SIZE bytes in all) of a file
   of version VERSION and byte order BE into *OBJ, with SET's copies
   for the tables a record leaves out; set *NEXT to the offset after
   it.  INDEX is its number, for messages.  */

static bool
parse_record (struct profile_set *set, const unsigned char *data,
	      size_t size, size_t off, uint32_t version, bool be,
	      unsigned index, struct prof_object *obj, size_t *next,
	      char **errmsg)
{
  const unsigned char *r = data + off;
  uint64_t record_size, need, path_pad, bid_pad, copy_pad = 0;
  uint64_t derive_pad = 0, wb_pad = 0, n_counts;
  uint32_t path_len, bid_len, n, derive_size = 0, n_edges = 0, n_window = 0;
  uint32_t copy_len = 0, tables_crc = 0, where = PCPROF_TABLES_HERE;
  bool runs = false;
  unsigned char *expanded = NULL;
  uint32_t header_size = (version == PCPROF_VERSION_1 ? PCPROF_RECORD_SIZE_1
			  : version < PCPROF_VERSION_4 ? PCPROF_RECORD_SIZE_3
			  : PCPROF_RECORD_SIZE);
  const unsigned char *p, *blocks, *derive, *wb;

  memset (obj, 0, sizeof *obj);
  if (size - off < header_size)
    return errmsg_format (errmsg, "truncated (object %u)", index);
  record_size = get32 (be, r + PCPROF_R_RECORD_SIZE);
  n = get32 (be, r + PCPROF_R_N_BLOCKS);
  path_len = get32 (be, r + PCPROF_R_PATH_LEN);
  bid_len = get32 (be, r + PCPROF_R_BUILD_ID_LEN);
  if (version != PCPROF_VERSION_1)
    {
      derive_size = get32 (be, r + PCPROF_R_DERIVE_SIZE);
      n_edges = get32 (be, r + PCPROF_R_N_EDGES);
      n_window = get32 (be, r + PCPROF_R_N_WINDOW);
      derive_pad = PCPROF_PAD8 ((uint64_t) derive_size);
      wb_pad = PCPROF_PAD8 (4 * (uint64_t) n_window);
    }
  if (version >= PCPROF_VERSION_4)
    {
      tables_crc = get32 (be, r + PCPROF_R_TABLES_CRC);
      copy_len = get32 (be, r + PCPROF_R_COPY_PATH_LEN);
      where = get32 (be, r + PCPROF_R_TABLES);
      if (version >= PCPROF_VERSION_5)
	{
	  runs = (where & PCPROF_COUNTS_RUNS) != 0;
	  where &= ~(uint32_t) PCPROF_COUNTS_RUNS;
	}
      if (copy_len == 0 || copy_len > PCPROF_MAX_PATH_LEN
	  || (where != PCPROF_TABLES_HERE && where != PCPROF_TABLES_IN_COPY))
	return errmsg_format (errmsg, "object %u: bad copy path length or"
			      " tables field", index);
      copy_pad = PCPROF_PAD8 ((uint64_t) copy_len + 1);
    }
  if (path_len == 0 || path_len > PCPROF_MAX_PATH_LEN
      || bid_len > PCPROF_MAX_BUILD_ID_LEN)
    return errmsg_format (errmsg, "object %u: bad path or build-id length",
			  index);
  path_pad = PCPROF_PAD8 ((uint64_t) path_len + 1);
  bid_pad = PCPROF_PAD8 ((uint64_t) bid_len);
  n_counts = (uint64_t) n + n_edges + n_window;
  need = header_size + path_pad + bid_pad + copy_pad
	 + (runs ? PCPROF_RUNS_HEADER_SIZE : n_counts * PCPROF_COUNT_SIZE);
  if (where == PCPROF_TABLES_HERE)
    need += (uint64_t) n * PCPROF_BLOCK_SIZE + derive_pad + wb_pad;
  if (record_size < need || record_size % 8 != 0)
    return errmsg_format (errmsg, "object %u: bad record size %llu", index,
			  (unsigned long long) record_size);
  if (record_size > size - off)
    return errmsg_format (errmsg, "truncated (object %u)", index);

  p = r + header_size;
  if (memchr (p, '\0', path_len) != NULL || p[path_len] != '\0')
    return errmsg_format (errmsg, "object %u: bad path", index);
  if (copy_len != 0
      && (memchr (p + path_pad + bid_pad, '\0', copy_len) != NULL
	  || p[path_pad + bid_pad + copy_len] != '\0'))
    return errmsg_format (errmsg, "object %u: bad copy path", index);
  obj->flags = get32 (be, r + PCPROF_R_FLAGS);
  obj->checksum = get32 (be, r + PCPROF_R_CHECKSUM);
  obj->file_size = get32 (be, r + PCPROF_R_FILE_SIZE);
  obj->n_blocks = n;
  obj->build_id_len = bid_len;
  memcpy (obj->build_id, p + path_pad, bid_len);
  obj->path = strdup ((const char *) p);
  if (obj->path == NULL)
    return errmsg_format (errmsg, "out of memory");
  p += path_pad + bid_pad;
  if (where == PCPROF_TABLES_HERE)
    {
      blocks = p + copy_pad;
      derive = blocks + (size_t) n * PCPROF_BLOCK_SIZE;
      wb = derive + derive_pad;
      p = wb + wb_pad;
    }
  else
    {
      const struct copy_tables *t
	= find_copy_tables (set, (const char *) p, be, obj, derive_size,
			    n_window, tables_crc, index, errmsg);
      if (t == NULL)
	{
	  free_object (obj);
	  return false;
	}
      blocks = t->blocks;
      derive = t->derive;
      wb = t->window_blocks;
      p += copy_pad;
    }
  obj->blocks = calloc (n > 0 ? n : 1, sizeof *obj->blocks);
  obj->counts = calloc (n > 0 ? n : 1, sizeof *obj->counts);
  if (obj->blocks == NULL || obj->counts == NULL)
    {
      free_object (obj);
      return errmsg_format (errmsg, "out of memory");
    }
  for (uint32_t b = 0; b < n; b++)
    {
      obj->blocks[b].start = get32 (be, blocks + b * PCPROF_BLOCK_SIZE);
      obj->blocks[b].size = get32 (be, blocks + b * PCPROF_BLOCK_SIZE + 4);
    }
  if (runs)
    {
      /* Each counted edge has a pair in the derivation table, which is
	 there: that bounds the array.  */
      if ((uint64_t) n_edges * 8 > derive_size)
	{
	  free_object (obj);
	  return errmsg_format (errmsg, "object %u: bad derivation table",
				index);
	}
      expanded = expand_runs (be, p, r + record_size, n_counts, index,
			      errmsg);
      if (expanded == NULL)
	{
	  free_object (obj);
	  return false;
	}
      p = expanded;
    }
  if (!derive_counts (be, version >= PCPROF_VERSION_3, obj, derive,
		      derive_size, n_edges, wb, n_window, p, index, errmsg))
    {
      free (expanded);
      free_object (obj);
      return false;
    }
  free (expanded);
  *next = off + record_size;
  return true;
}

/* Return true if A and B record the same original object.  */

static bool
same_object (const struct prof_object *a, const struct prof_object *b)
{
  return (a->checksum == b->checksum && a->file_size == b->file_size
	  && strcmp (a->path, b->path) == 0);
}

/* Return the object of SET that is OBJ's original, or NULL.  */

static struct prof_object *
find_object (struct profile_set *set, const struct prof_object *obj)
{
  for (size_t i = 0; i < set->n_objects; i++)
    if (same_object (&set->objects[i], obj))
      return &set->objects[i];
  return NULL;
}

/* Return true if OBJ's blocks are those of OLD.  */

static bool
same_blocks (const struct prof_object *old, const struct prof_object *obj)
{
  return (old->n_blocks == obj->n_blocks
	  && memcmp (old->blocks, obj->blocks,
		     (size_t) obj->n_blocks * sizeof *obj->blocks) == 0);
}

bool
profile_read (struct profile_set *set, const char *file, char **errmsg)
{
  struct file_image image;
  const unsigned char *data;
  size_t size, off;
  int err;
  struct prof_object *objs = NULL;
  uint32_t n_objs = 0, version, header_size, i;
  bool be;
  struct prof_object *grown;
  size_t n_new = 0;
  bool ok = false;

  *errmsg = NULL;
  err = file_image_read (file, &image);
  if (err != 0)
    return errmsg_format (errmsg, "cannot read: %s", file_image_error (err));
  data = image.data;
  size = image.size;
  if (size < PCPROF_HEADER_SIZE
      || memcmp (data, PCPROF_MAGIC, PCPROF_MAGIC_LEN) != 0)
    {
      errmsg_format (errmsg, "not a profcopy profile");
      goto cleanup;
    }
  /* The byte order mark tells the order of every other field.  */
  be = get32 (true, data + PCPROF_H_BOM) == PCPROF_BOM;
  if (!be && get32 (false, data + PCPROF_H_BOM) != PCPROF_BOM)
    {
      errmsg_format (errmsg, "corrupt profile header");
      goto cleanup;
    }
  version = get32 (be, data + PCPROF_H_VERSION);
  if (version != PCPROF_VERSION && version != PCPROF_VERSION_4
      && version != PCPROF_VERSION_3 && version != PCPROF_VERSION_2
      && !(version == PCPROF_VERSION_1 && !be))
    {
      errmsg_format (errmsg, "unsupported profile version %u (this profreport"
		     " reads versions %u to %u)", version, PCPROF_VERSION_1,
		     PCPROF_VERSION);
      goto cleanup;
    }
  header_size = get32 (be, data + PCPROF_H_HEADER_SIZE);
  if (header_size < PCPROF_HEADER_SIZE || header_size > size
      || header_size % 8 != 0)
    {
      errmsg_format (errmsg, "corrupt profile header");
      goto cleanup;
    }
  n_objs = get32 (be, data + PCPROF_H_N_OBJECTS);
  if (n_objs > (size - header_size) / PCPROF_RECORD_SIZE_1)
    {
      errmsg_format (errmsg, "truncated (%u objects announced)", n_objs);
      goto cleanup;
    }
  objs = calloc (n_objs > 0 ? n_objs : 1, sizeof *objs);
  if (objs == NULL)
    {
      errmsg_format (errmsg, "out of memory");
      goto cleanup;
    }
  off = header_size;
  for (i = 0; i < n_objs; i++)
    {
      if (!parse_record (set, data, size, off, version, be, i, &objs[i],
			 &off, errmsg))
	goto cleanup;
      for (uint32_t j = 0; j < i; j++)
	if (same_object (&objs[j], &objs[i]))
	  {
	    errmsg_format (errmsg, "%s: recorded twice", objs[i].path);
	    goto cleanup;
	  }
    }
  if (off != size)
    {
      errmsg_format (errmsg, "%zu bytes of garbage after the last object",
		     size - off);
      goto cleanup;
    }

  /* Check every match before changing SET.  */
  for (i = 0; i < n_objs; i++)
    {
      struct prof_object *old = find_object (set, &objs[i]);
      if (old == NULL)
	n_new++;
      else if (!same_blocks (old, &objs[i]))
	{
	  errmsg_format (errmsg, "%s: block table differs from the one in %s",
			 objs[i].path, old->profile);
	  goto cleanup;
	}
    }
  grown = realloc (set->objects, (set->n_objects + n_new + 1)
		   * sizeof *set->objects);
  if (grown == NULL)
    {
      errmsg_format (errmsg, "out of memory");
      goto cleanup;
    }
  set->objects = grown;
  for (i = 0; i < n_objs; i++)
    {
      struct prof_object *old = find_object (set, &objs[i]);
      if (old == NULL)
	{
	  objs[i].profile = file;
	  set->objects[set->n_objects++] = objs[i];
	  memset (&objs[i], 0, sizeof objs[i]);
	}
      else
	for (uint32_t b = 0; b < old->n_blocks; b++)
	  if (__builtin_add_overflow (old->counts[b], objs[i].counts[b],
				      &old->counts[b]))
	    old->counts[b] = UINT64_MAX;
    }
  ok = true;

 cleanup:
  if (objs != NULL)
    for (uint32_t j = 0; j < n_objs; j++)
      free_object (&objs[j]);
  free (objs);
  file_image_free (&image);
  return ok;
}

void
profile_set_free (struct profile_set *set)
{
  for (size_t i = 0; i < set->n_objects; i++)
    free_object (&set->objects[i]);
  free (set->objects);
  set->objects = NULL;
  set->n_objects = 0;
  for (size_t i = 0; i < set->n_copies; i++)
    {
      free (set->copies[i].found);
      file_image_free (&set->copies[i].image);
    }
  free (set->copies);
  set->copies = NULL;
  set->n_copies = 0;
}
