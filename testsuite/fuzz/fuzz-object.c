/* fuzz-object.c -- fuzz target: the ELF reader (object_read_image).

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The input is an object file.  When the reader takes it, every
   accessor of object.h is asked about what it read (each symbol, GOT
   entry, dynamic relocation and section), and profreport's reader of
   the segment that a profiled copy carries (copy-map.c) reads it too.
   Whatever the ELF reader says, the finder of a copy's tables
   (copy-tables.c) reads the input as well: what it finds must lie in
   the input.  A refusal must come with its reason.  */

#include <config.h>

#include <stdlib.h>

#include "copy-map.h"
#include "copy-tables.h"
#include "fuzz.h"
#include "object.h"

/* Ask the accessors of OBJ about everything it holds.  */

static void
walk (const struct mips_object *obj)
{
  const struct object_symbol **by_index;
  struct copy_map cm;
  uint32_t word;
  size_t n;

  for (size_t i = 0; i < obj->n_symbols; i++)
    {
      const struct object_symbol *s = &obj->symbols[i];

      object_section_at (obj, s->value);
      object_is_code (obj, s->value);
      object_vaddr_ptr (obj, s->value, s->size);
    }
  for (uint32_t i = 0; object_got_entry (obj, i, &word); i++)
    continue;
  for (size_t i = 0; i < obj->n_dynrelocs; i++)
    object_read_word (obj, obj->dynrelocs[i].offset, &word);
  for (size_t i = 0; i < obj->n_sections; i++)
    if (object_section_named (obj, obj->sections[i].name) == NULL)
      abort ();
  for (size_t i = 0; i < obj->n_fdes; i++)
    object_section_at (obj, obj->fdes[i].pc_begin);
  by_index = object_dynsyms_by_index (obj, &n);
  free (by_index);

  if (copy_map_read (obj, &cm))
    {
      uint32_t orig;

      for (uint32_t a = cm.new_low; a < cm.new_high && a - cm.new_low < 4096;
	   a += 4)
	copy_map_original (&cm, a, &orig);
      copy_map_free (&cm);
    }
}

/* Fail unless the LEN bytes at P lie in the SIZE bytes at DATA.  */

static void
check_inside (const uint8_t *data, size_t size, const unsigned char *p,
	      size_t len)
{
  if (len > 0 && (p == NULL || p < data || p > data + size
		  || (size_t) (data + size - p) < len))
    abort ();
}

/* Look for a profiled copy's tables in the SIZE bytes at DATA.  */

static void
find_tables (const uint8_t *data, size_t size)
{
  struct copy_tables t;
  char *err = NULL;

  if (!copy_tables_find (data, size, &t, &err))
    {
      if (err == NULL)
	abort ();
      free (err);
      return;
    }
  check_inside (data, size, t.blocks, 8 * (size_t) t.n_blocks);
  check_inside (data, size, t.derive, t.derive_size);
  check_inside (data, size, t.window_blocks, 4 * (size_t) t.n_window);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct mips_object obj;
  char *err = NULL;

  find_tables (data, size);
  if (!object_read_image ("input", data, size, &obj, &err))
    {
      /* Every refusal says why.  */
      if (err == NULL)
	abort ();
      free (err);
      return 0;
    }
  walk (&obj);
  object_close (&obj);
  return 0;
}
