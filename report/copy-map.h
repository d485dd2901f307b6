/* copy-map.h -- recognise a profcopy-profiled copy and map addresses
   of its new text back to its original.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   A profiled copy keeps the original text where it was and adds a
   PT_LOAD segment that starts with the header of include/segment.h.
   The header names the original file and points at the map table: word
   I of the map is the new link-time address of the original word
   TEXT_START + 4 * I, and the table increases with I over the words
   that have a copy (a word between code sections maps to itself).  A
   call trace of a copy (profcopy --calls) gives function entries as
   original addresses already, but return addresses (call sites) in
   the new text; copy_map_original turns those back into original
   addresses so that a site can be placed in its original function.  */

#ifndef PROFCOPY_COPY_MAP_H
#define PROFCOPY_COPY_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "object.h"

struct copy_map
{
  char *original;		/* The header's path of the original.  */
  uint32_t checksum;		/* CRC-32 and size of the original.  */
  uint32_t file_size;
  uint32_t text_start;		/* Original address of map word 0.  */
  /* The map's words that have a copy: the new address of each, in
     increasing order, and the original word it copies.  */
  uint32_t *new_addr, *orig_addr;
  size_t n_words;
  uint32_t new_low, new_high;	/* The new text, [NEW_LOW, NEW_HIGH).  */
};

/* If OBJ is a profiled copy with a readable header and map, fill *CM
   and return true; otherwise return false with *CM owning nothing.  A
   header that is there but damaged is reported on standard error,
   naming OBJ.  */
bool copy_map_read (const struct mips_object *obj, struct copy_map *cm);

/* If link-time address ADDR lies in the new text of CM, set *ORIG to the
   original address of the word whose copy holds it (the largest map
   entry not above ADDR) and return true.  */
bool copy_map_original (const struct copy_map *cm, uint32_t addr,
			uint32_t *orig);

/* Free what CM owns.  */
void copy_map_free (struct copy_map *cm);

#endif /* PROFCOPY_COPY_MAP_H */
