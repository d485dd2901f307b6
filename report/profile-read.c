/* profile-read.c -- read and merge profcopy profiles.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   A profile is read whole and checked field by field against its size
   before anything is merged, so that a truncated or corrupt file gives
   an error and leaves the set as it was.  */

#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "profile-read.h"

/* Set *ERRMSG to the formatted message and return false.  */

static bool
read_error (char **errmsg, const char *format, ...)
{
  va_list ap;

  va_start (ap, format);
  if (vasprintf (errmsg, format, ap) < 0)
    *errmsg = NULL;
  va_end (ap);
  return false;
}

static uint32_t
get32 (const unsigned char *p)
{
  return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16
	 | (uint32_t) p[3] << 24;
}

static uint64_t
get64 (const unsigned char *p)
{
  return (uint64_t) get32 (p) | (uint64_t) get32 (p + 4) << 32;
}

/* Read all of FILE into a malloc'd buffer *DATA of *SIZE bytes.  */

static bool
slurp (const char *file, unsigned char **data, size_t *size, char **errmsg)
{
  FILE *f = fopen (file, "rb");
  struct stat st;
  unsigned char *buf = NULL;

  if (f == NULL)
    return read_error (errmsg, "cannot open: %s", strerror (errno));
  if (fstat (fileno (f), &st) != 0 || !S_ISREG (st.st_mode))
    {
      fclose (f);
      return read_error (errmsg, "not a regular file");
    }
  buf = malloc (st.st_size > 0 ? (size_t) st.st_size : 1);
  if (buf == NULL)
    {
      fclose (f);
      return read_error (errmsg, "out of memory");
    }
  if (st.st_size > 0 && fread (buf, 1, st.st_size, f) != (size_t) st.st_size)
    {
      bool shrank = !ferror (f);
      int err = errno;
      free (buf);
      fclose (f);
      return read_error (errmsg, "cannot read: %s",
			 shrank ? "file shrank" : strerror (err));
    }
  fclose (f);
  *data = buf;
  *size = st.st_size;
  return true;
}

/* Free the contents of OBJ.  */

static void
free_object (struct prof_object *obj)
{
  free (obj->path);
  free (obj->blocks);
  free (obj->counts);
}

/* Decode the object record at DATA + OFF (SIZE bytes in all) into *OBJ;
   set *NEXT to the offset after it.  INDEX is its number, for
   messages.  */

static bool
parse_record (const unsigned char *data, size_t size, size_t off,
	      unsigned index, struct prof_object *obj, size_t *next,
	      char **errmsg)
{
  const unsigned char *r = data + off;
  uint64_t record_size, need, path_pad, bid_pad;
  uint32_t path_len, bid_len, n;
  const unsigned char *p;

  memset (obj, 0, sizeof *obj);
  if (size - off < PCPROF_RECORD_SIZE)
    return read_error (errmsg, "truncated (object %u)", index);
  record_size = get32 (r + PCPROF_R_RECORD_SIZE);
  n = get32 (r + PCPROF_R_N_BLOCKS);
  path_len = get32 (r + PCPROF_R_PATH_LEN);
  bid_len = get32 (r + PCPROF_R_BUILD_ID_LEN);
  if (path_len == 0 || path_len > PCPROF_MAX_PATH_LEN
      || bid_len > PCPROF_MAX_BUILD_ID_LEN)
    return read_error (errmsg, "object %u: bad path or build-id length",
		       index);
  path_pad = PCPROF_PAD8 ((uint64_t) path_len + 1);
  bid_pad = PCPROF_PAD8 ((uint64_t) bid_len);
  need = PCPROF_RECORD_SIZE + path_pad + bid_pad
	 + (uint64_t) n * (PCPROF_BLOCK_SIZE + PCPROF_COUNT_SIZE);
  if (record_size < need || record_size % 8 != 0)
    return read_error (errmsg, "object %u: bad record size %llu", index,
		       (unsigned long long) record_size);
  if (record_size > size - off)
    return read_error (errmsg, "truncated (object %u)", index);

  p = r + PCPROF_RECORD_SIZE;
  if (memchr (p, '\0', path_len) != NULL || p[path_len] != '\0')
    return read_error (errmsg, "object %u: bad path", index);
  obj->flags = get32 (r + PCPROF_R_FLAGS);
  obj->checksum = get32 (r + PCPROF_R_CHECKSUM);
  obj->file_size = get32 (r + PCPROF_R_FILE_SIZE);
  obj->n_blocks = n;
  obj->build_id_len = bid_len;
  memcpy (obj->build_id, p + path_pad, bid_len);
  obj->path = strdup ((const char *) p);
  obj->blocks = calloc (n > 0 ? n : 1, sizeof *obj->blocks);
  obj->counts = calloc (n > 0 ? n : 1, sizeof *obj->counts);
  if (obj->path == NULL || obj->blocks == NULL || obj->counts == NULL)
    {
      free_object (obj);
      return read_error (errmsg, "out of memory");
    }
  p += path_pad + bid_pad;
  for (uint32_t b = 0; b < n; b++)
    {
      obj->blocks[b].start = get32 (p + b * PCPROF_BLOCK_SIZE);
      obj->blocks[b].size = get32 (p + b * PCPROF_BLOCK_SIZE + 4);
    }
  p += (size_t) n * PCPROF_BLOCK_SIZE;
  for (uint32_t b = 0; b < n; b++)
    obj->counts[b] = get64 (p + b * PCPROF_COUNT_SIZE);
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
  unsigned char *data = NULL;
  size_t size = 0, off;
  struct prof_object *objs = NULL;
  uint32_t n_objs = 0, version, header_size, i;
  struct prof_object *grown;
  size_t n_new = 0;
  bool ok = false;

  *errmsg = NULL;
  if (!slurp (file, &data, &size, errmsg))
    return false;
  if (size < PCPROF_HEADER_SIZE
      || memcmp (data, PCPROF_MAGIC, PCPROF_MAGIC_LEN) != 0)
    {
      read_error (errmsg, "not a profcopy profile");
      goto cleanup;
    }
  version = get32 (data + PCPROF_H_VERSION);
  if (version != PCPROF_VERSION)
    {
      read_error (errmsg, "unsupported profile version %u (this profreport"
		  " reads version %u)", version, PCPROF_VERSION);
      goto cleanup;
    }
  header_size = get32 (data + PCPROF_H_HEADER_SIZE);
  if (get32 (data + PCPROF_H_BOM) != PCPROF_BOM
      || header_size < PCPROF_HEADER_SIZE || header_size > size
      || header_size % 8 != 0)
    {
      read_error (errmsg, "corrupt profile header");
      goto cleanup;
    }
  n_objs = get32 (data + PCPROF_H_N_OBJECTS);
  if (n_objs > (size - header_size) / PCPROF_RECORD_SIZE)
    {
      read_error (errmsg, "truncated (%u objects announced)", n_objs);
      goto cleanup;
    }
  objs = calloc (n_objs > 0 ? n_objs : 1, sizeof *objs);
  if (objs == NULL)
    {
      read_error (errmsg, "out of memory");
      goto cleanup;
    }
  off = header_size;
  for (i = 0; i < n_objs; i++)
    {
      if (!parse_record (data, size, off, i, &objs[i], &off, errmsg))
	goto cleanup;
      for (uint32_t j = 0; j < i; j++)
	if (same_object (&objs[j], &objs[i]))
	  {
	    read_error (errmsg, "%s: recorded twice", objs[i].path);
	    goto cleanup;
	  }
    }
  if (off != size)
    {
      read_error (errmsg, "%zu bytes of garbage after the last object",
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
	  read_error (errmsg, "%s: block table differs from the one in %s",
		      objs[i].path, old->profile);
	  goto cleanup;
	}
    }
  grown = realloc (set->objects, (set->n_objects + n_new + 1)
		   * sizeof *set->objects);
  if (grown == NULL)
    {
      read_error (errmsg, "out of memory");
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
  free (data);
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
}
