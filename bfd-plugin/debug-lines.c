/* debug-lines.c -- the line table of an object, from its own DWARF or
   from its separate debug file.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   Debian's debug files (objcopy --compress-debug-sections, as dh_strip
   does) keep their DWARF compressed with zlib (SHF_COMPRESSED, ELF
   gABI "Section Compression"); such a section is inflated here, to no
   more than its header says and no more than zlib can make of its
   bytes.  This file is apart from object.c so that only the programs
   that read lines link zlib.  */

#include <config.h>

#include <elf.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_ZLIB
# include <zlib.h>
#endif

#include "debug-lines.h"
#include "object-int.h"

#ifndef SHF_COMPRESSED
# define SHF_COMPRESSED (1u << 11)
#endif
#ifndef ELFCOMPRESS_ZLIB
# define ELFCOMPRESS_ZLIB 1
#endif

/* zlib's deflate makes at most 1032 bytes of one; a header that
   promises more is lying.  */
#define MAX_INFLATE_RATIO 1032

/* The bytes of section NAME of OBJ into *DATA and *SIZE: in the image,
   or inflated into *OWNED (to be freed) when compressed.  True with
   *DATA NULL when there is no such section.  */

static bool
section_bytes (const struct mips_object *obj, const char *name,
	       const unsigned char **data, size_t *size,
	       unsigned char **owned, char **errmsg)
{
  const struct object_section *sec = object_section_named (obj, name);

  *data = NULL;
  *size = 0;
  *owned = NULL;
  if (sec == NULL || sec->type == SHT_NOBITS || sec->size == 0)
    return true;
  if (sec->offset > obj->size || sec->size > obj->size - sec->offset)
    return object_error (errmsg, "%s runs past the end of the file", name);
  if (!(sec->flags & SHF_COMPRESSED))
    {
      *data = obj->image + sec->offset;
      *size = sec->size;
      return true;
    }
#ifdef HAVE_ZLIB
  {
    const unsigned char *p = obj->image + sec->offset;
    uint32_t type, full;
    uLongf out_len;
    if (sec->size < 12)
      return object_error (errmsg, "%s: truncated compression header", name);
    type = object_get32 (obj, p);
    full = object_get32 (obj, p + 4);
    if (type != ELFCOMPRESS_ZLIB)
      return object_error (errmsg, "%s: compressed with an unknown method "
			   "(%u)", name, (unsigned) type);
    if (full == 0 || full / MAX_INFLATE_RATIO > sec->size)
      return object_error (errmsg, "%s: says it inflates to %u bytes from %u",
			   name, (unsigned) full, (unsigned) sec->size);
    *owned = malloc (full);
    if (*owned == NULL)
      return object_error (errmsg, "out of memory");
    out_len = full;
    if (uncompress (*owned, &out_len, p + 12, sec->size - 12) != Z_OK
	|| out_len != full)
      {
	free (*owned);
	*owned = NULL;
	return object_error (errmsg, "%s: cannot inflate it (zlib)", name);
      }
    *data = *owned;
    *size = full;
    return true;
  }
#else
  return object_error (errmsg, "%s is compressed, and profcopy was built "
		       "without zlib", name);
#endif
}

/* The sections the line table of OBJ is read from.  */
static const char *const line_sections[] = {
  ".debug_line", ".debug_line_str", ".debug_str", ".debug_info",
  ".debug_abbrev", ".debug_str_offsets"
};
#define N_LINE_SECTIONS (sizeof line_sections / sizeof line_sections[0])

/* Read the line table of the sections of OBJ into *LINES.  */

static bool
lines_of (const struct mips_object *obj, struct dwarf_lines *lines,
	  char **errmsg)
{
  const unsigned char *data[N_LINE_SECTIONS];
  size_t size[N_LINE_SECTIONS];
  unsigned char *owned[N_LINE_SECTIONS] = { NULL };
  struct dwarf_sections s;
  bool ok = true;

  for (size_t i = 0; ok && i < N_LINE_SECTIONS; i++)
    ok = section_bytes (obj, line_sections[i], &data[i], &size[i], &owned[i],
			errmsg);
  if (ok)
    {
      s = (struct dwarf_sections) {
	.line = data[0], .line_size = size[0],
	.line_str = data[1], .line_str_size = size[1],
	.str = data[2], .str_size = size[2],
	.info = data[3], .info_size = size[3],
	.abbrev = data[4], .abbrev_size = size[4],
	.str_offsets = data[5], .str_offsets_size = size[5],
	.big_endian = obj->big_endian };
      ok = dwarf_lines_read (&s, lines, errmsg);
    }
  for (size_t i = 0; i < N_LINE_SECTIONS; i++)
    free (owned[i]);
  return ok;
}

bool
object_read_lines (const struct mips_object *obj, const char *sysroot,
		   struct dwarf_lines *lines, char **from, char **errmsg)
{
  const struct object_section *own = object_section_named (obj,
							    ".debug_line");
  struct mips_object dbg;
  char *path;
  bool ok;

  memset (lines, 0, sizeof *lines);
  *from = NULL;
  *errmsg = NULL;
  if (own != NULL && own->type != SHT_NOBITS && own->size != 0)
    return lines_of (obj, lines, errmsg);
  path = object_find_debug_file (obj, sysroot);
  if (path == NULL)
    return true;
  *from = path;
  if (!object_open_debug (obj, path, &dbg, errmsg))
    return false;
  ok = lines_of (&dbg, lines, errmsg);
  object_close (&dbg);
  return ok;
}
