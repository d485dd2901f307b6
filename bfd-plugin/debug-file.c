/* debug-file.c -- an object's separate debug file: where it is (its
   build ID's file under .build-id, or its .gnu_debuglink's name with
   the right CRC-32, in the debug directories of the sysroot and of the
   object's own tree: object_find_debug_file), its ELF header and
   sections read with object.c's readers and checked against the object
   (object_open_debug), and its .symtab added to the object's symbols
   (object_add_debug_symbols).

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#include <config.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <elf.h>
#include "crc32.h"
#include "file-image.h"
#include "object-int.h"

/* Whether PATH names a regular file that can be read.  */

static bool
readable_file (const char *path)
{
  struct stat st;

  return stat (path, &st) == 0 && S_ISREG (st.st_mode)
	 && access (path, R_OK) == 0;
}

/* The .gnu_debuglink of OBJ: its file name (NUL-terminated within the
   section) and CRC-32; false if it has none.  */

static bool
debuglink (const struct mips_object *obj, const char **name, uint32_t *crc)
{
  const struct object_section *s = object_section_named (obj,
							 ".gnu_debuglink");
  size_t len;

  if (s == NULL || s->type != SHT_PROGBITS || s->size < 8
      || s->offset > obj->size || obj->size - s->offset < s->size)
    return false;
  *name = (const char *) obj->image + s->offset;
  len = strnlen (*name, s->size);
  if (len == 0 || (len + 4) / 4 * 4 + 4 > s->size || strchr (*name, '/'))
    return false;
  *crc = object_get32 (obj, obj->image + s->offset + (len + 4) / 4 * 4);
  return true;
}

/* Whether the file PATH has the CRC-32 CRC.  */

static bool
file_crc_is (const char *path, uint32_t crc)
{
  struct file_image fi;
  bool same;

  if (file_image_read (path, &fi) != 0)
    return false;
  same = crc32_ieee (fi.data, fi.size) == crc;
  file_image_free (&fi);
  return same;
}

/* The last occurrence of NEEDLE in S, or NULL.  */

static const char *
last_match (const char *s, const char *needle)
{
  const char *last = NULL;

  for (const char *p = strstr (s, needle); p != NULL;
       p = strstr (p + 1, needle))
    last = p;
  return last;
}

char *
object_find_debug_file (const struct mips_object *obj, const char *sysroot)
{
  char *dirs[3] = { NULL, NULL, NULL }, *found = NULL, *dir = NULL;
  const char *slash = strrchr (obj->path, '/'), *name, *cut;
  size_t n_dirs = 0;
  uint32_t crc;

  if (sysroot != NULL && asprintf (&dirs[n_dirs], "%s/usr/lib/debug",
				   sysroot) >= 0)
    n_dirs++;
  cut = last_match (obj->path, "/usr/lib/");
  if (cut == NULL)
    cut = last_match (obj->path, "/lib/");
  if (cut != NULL && asprintf (&dirs[n_dirs], "%.*s/usr/lib/debug",
			       (int) (cut - obj->path), obj->path) >= 0)
    n_dirs++;
  if ((dirs[n_dirs] = strdup ("/usr/lib/debug")) != NULL)
    n_dirs++;

  if (obj->build_id != NULL && obj->build_id_len >= 2)
    for (size_t d = 0; d < n_dirs && found == NULL; d++)
      {
	size_t len = strlen (dirs[d]) + 2 * obj->build_id_len + 32;
	char *p = malloc (len), *q;
	if (p == NULL)
	  break;
	q = p + sprintf (p, "%s/.build-id/%02x/", dirs[d], obj->build_id[0]);
	for (uint32_t k = 1; k < obj->build_id_len; k++)
	  q += sprintf (q, "%02x", obj->build_id[k]);
	strcpy (q, ".debug");
	if (readable_file (p))
	  found = p;
	else
	  free (p);
      }

  if (found == NULL && debuglink (obj, &name, &crc)
      && asprintf (&dir, "%.*s", slash != NULL ? (int) (slash - obj->path)
		   : 1, slash != NULL ? obj->path : ".") >= 0)
    {
      char *c[2 + 3] = { NULL };
      size_t n = 0;
      const char *rel = dir;
      if (cut != NULL && strncmp (dir, obj->path, (size_t) (cut - obj->path))
			 == 0)
	rel = dir + (cut - obj->path);
      if (asprintf (&c[n], "%s/%s", dir, name) >= 0)
	n++;
      if (asprintf (&c[n], "%s/.debug/%s", dir, name) >= 0)
	n++;
      for (size_t d = 0; d < n_dirs; d++)
	if (asprintf (&c[n], "%s%s/%s", dirs[d], rel, name) >= 0)
	  n++;
      for (size_t k = 0; k < n; k++)
	{
	  if (found == NULL && strcmp (c[k], obj->path) != 0
	      && readable_file (c[k]) && file_crc_is (c[k], crc))
	    found = c[k];
	  else
	    free (c[k]);
	}
    }
  free (dir);
  for (size_t d = 0; d < n_dirs; d++)
    free (dirs[d]);
  return found;
}

bool
object_open_debug (const struct mips_object *obj, const char *path,
		   struct mips_object *dbg, char **errmsg)
{
  memset (dbg, 0, sizeof *dbg);
  if (errmsg != NULL)
    *errmsg = NULL;
  /* Its program headers are the object's and may point past its end:
     only the ELF header and the sections are read.  */
  if (!object_read_file (path, dbg, errmsg)
      || !object_check_header (dbg, errmsg)
      || !object_read_sections (dbg, errmsg))
    goto fail;
  if (dbg->big_endian != obj->big_endian)
    {
      object_error (errmsg, "of the other byte order");
      goto fail;
    }
  object_read_build_id (dbg);
  if (obj->build_id != NULL
      && (dbg->build_id == NULL || dbg->build_id_len != obj->build_id_len
	  || memcmp (dbg->build_id, obj->build_id, obj->build_id_len) != 0))
    {
      object_error (errmsg, "its build-id is not the object's");
      goto fail;
    }
  return true;

 fail:
  object_close (dbg);
  return false;
}

bool
object_add_debug_symbols (struct mips_object *obj, const char *path,
			  char **errmsg)
{
  struct mips_object dbg;
  struct object_symbol *grown;
  size_t n = 0;
  bool ok = false;

  if (errmsg != NULL)
    *errmsg = NULL;
  if (obj->debug_image != NULL)
    return object_error (errmsg, "has a debug file already");
  if (!object_open_debug (obj, path, &dbg, errmsg))
    return false;
  if (!object_read_symbols (&dbg, errmsg))
    goto done;
  for (size_t i = 0; i < dbg.n_symbols; i++)
    n += !dbg.symbols[i].dynamic;
  grown = realloc (obj->symbols, (obj->n_symbols + n + 1) * sizeof *grown);
  if (grown == NULL)
    {
      object_error (errmsg, "out of memory");
      goto done;
    }
  obj->symbols = grown;
  for (size_t i = 0; i < dbg.n_symbols; i++)
    if (!dbg.symbols[i].dynamic)
      {
	grown[obj->n_symbols] = dbg.symbols[i];
	/* Not a field of OBJ's image.  */
	grown[obj->n_symbols].value_offset = 0;
	obj->n_symbols++;
      }
  obj->debug_image = dbg.image;
  obj->debug_size = dbg.size;
  obj->debug_mapped = dbg.mapped;
  dbg.image = NULL;
  ok = true;

 done:
  object_close (&dbg);
  return ok;
}
