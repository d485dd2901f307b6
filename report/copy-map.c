/* copy-map.c -- recognise a profcopy-profiled copy and map addresses
   of its new text back to its original.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   Every field is read through the object's byte order and checked
   against the file, so that a damaged copy gives a message and no
   map rather than a crash.  */

#include <config.h>

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copy-map.h"
#include "segment.h"

#define FIELD(f) offsetof (struct pc_segment_header, f)

static bool
damaged (const struct mips_object *obj, const char *what)
{
  fprintf (stderr, "profreport: %s: profcopy segment: %s; its call sites"
	   " are not translated\n", obj->path, what);
  return false;
}

bool
copy_map_read (const struct mips_object *obj, struct copy_map *cm)
{
  const struct object_segment *seg = NULL;
  const unsigned char *h = object_profcopy_header (obj, &seg);
  const struct object_section *text;
  const unsigned char *p;
  uint32_t header_size, path, map, text_end;
  size_t len, room, n;

  memset (cm, 0, sizeof *cm);
  if (h == NULL)
    return false;
  header_size = object_get32 (obj, h + FIELD (header_size));
  if (header_size < FIELD (path) + 4 || header_size > seg->filesz)
    return damaged (obj, "bad header size");
  map = object_get32 (obj, h + FIELD (map));
  cm->text_start = object_get32 (obj, h + FIELD (text_start));
  text_end = object_get32 (obj, h + FIELD (text_end));
  cm->checksum = object_get32 (obj, h + FIELD (checksum));
  cm->file_size = object_get32 (obj, h + FIELD (file_size));
  path = object_get32 (obj, h + FIELD (path));
  if (text_end < cm->text_start || (text_end - cm->text_start) % 4 != 0)
    return damaged (obj, "bad text range");
  cm->n_words = (text_end - cm->text_start) / 4;

  /* The path: NUL-terminated inside the segment's file-backed part.  */
  p = object_vaddr_ptr (obj, path, 1);
  if (p == NULL || path < seg->vaddr || path - seg->vaddr >= seg->filesz)
    return damaged (obj, "path outside the segment");
  room = seg->filesz - (path - seg->vaddr);
  len = strnlen ((const char *) p, room);
  if (len == room || len == 0)
    return damaged (obj, "path not terminated");
  cm->original = strndup ((const char *) p, len);
  if (cm->original == NULL)
    return false;

  /* The new text: its section when the copy has section headers, else
     what lies between the start of the code segment and the map (the
     rewriter lays out the program header table, the text and the map
     in that order there).  */
  text = object_section_named (obj, ".profcopy.text");
  if (text != NULL)
    {
      cm->new_low = text->addr;
      cm->new_high = text->addr + text->size;
    }
  else
    {
      cm->new_low = map;
      for (size_t i = 0; i < obj->n_segments; i++)
	{
	  const struct object_segment *s = &obj->segments[i];
	  if (s->type == PT_LOAD && (s->flags & PF_X) && map >= s->vaddr
	      && map - s->vaddr < s->memsz)
	    cm->new_low = s->vaddr;
	}
      cm->new_high = map;
    }

  /* The map, in host order, without the words that have no copy (the
     padding between code sections maps to itself); what is left must
     increase.  */
  p = cm->n_words ? object_vaddr_ptr (obj, map, 4 * cm->n_words) : NULL;
  if (cm->n_words == 0 || p == NULL)
    {
      copy_map_free (cm);
      return damaged (obj, "map outside the file");
    }
  cm->new_addr = malloc (cm->n_words * sizeof *cm->new_addr);
  cm->orig_addr = malloc (cm->n_words * sizeof *cm->orig_addr);
  if (cm->new_addr == NULL || cm->orig_addr == NULL)
    {
      copy_map_free (cm);
      return false;
    }
  n = 0;
  for (size_t i = 0; i < cm->n_words; i++)
    {
      uint32_t a = object_get32 (obj, p + 4 * i);
      if (a < cm->new_low || a >= cm->new_high)
	continue;
      if (n > 0 && a < cm->new_addr[n - 1])
	{
	  copy_map_free (cm);
	  return damaged (obj, "map does not increase");
	}
      cm->new_addr[n] = a;
      cm->orig_addr[n] = cm->text_start + 4 * (uint32_t) i;
      n++;
    }
  cm->n_words = n;
  return true;
}

bool
copy_map_original (const struct copy_map *cm, uint32_t addr, uint32_t *orig)
{
  size_t lo = 0, hi = cm->n_words;

  if (cm->n_words == 0 || addr < cm->new_low || addr >= cm->new_high
      || addr < cm->new_addr[0])
    return false;
  /* The first entry above ADDR; the one before it holds ADDR.  */
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (cm->new_addr[mid] <= addr)
	lo = mid + 1;
      else
	hi = mid;
    }
  *orig = cm->orig_addr[lo - 1];
  return true;
}

void
copy_map_free (struct copy_map *cm)
{
  free (cm->original);
  free (cm->new_addr);
  free (cm->orig_addr);
  memset (cm, 0, sizeof *cm);
}
