/* fuzz-debug.c -- fuzz target: separate debug files, their reader
   (object_add_debug_symbols) and their search (object_find_debug_file).

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The input is read as the debug file of an object of its own byte
   order that has no build-id, so that every input reaches the reader
   of its sections and symbols; the names of the symbols it adds are
   then read and ranked as profreport does.  The input is also opened
   as an object whose debug file is searched for, by its build-id and
   its .gnu_debuglink, with the harness's directory as the sysroot, and
   its line table is read from its own DWARF or from that debug file
   (object_read_lines: compressed sections, DWARF 2 to 5) and looked up
   at every address it holds.  A refusal must come with its reason.  */

#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "debug-lines.h"
#include "fuzz.h"
#include "object.h"

/* Read and rank the names of OBJ's symbols.  */

static volatile size_t name_bytes;

static void
walk (const struct mips_object *obj)
{
  size_t len = 0;

  for (size_t i = 0; i < obj->n_symbols; i++)
    {
      const struct object_symbol *s = &obj->symbols[i];

      if (s->name != NULL)
	len += strlen (s->name);
      object_symbol_rank (s);
    }
  name_bytes = len;
}

/* Read OBJ's line table, from its DWARF or the debug file that SYSROOT
   or its .gnu_debuglink leads to, and look every range up.  */

static void
walk_lines (const struct mips_object *obj, const char *sysroot)
{
  struct dwarf_lines lines;
  char *from = NULL, *err = NULL;
  size_t len = 0;

  if (!object_read_lines (obj, sysroot, &lines, &from, &err))
    {
      if (err == NULL)
	abort ();
      free (err);
      free (from);
      return;
    }
  for (size_t i = 0; i < lines.n_ranges; i++)
    {
      const struct dwarf_line_range *r = &lines.ranges[i];
      if (r->lo >= r->hi || r->file >= lines.n_files
	  || dwarf_lines_find (&lines, r->lo) != r
	  || dwarf_lines_find (&lines, r->hi - 1) != r
	  || (i > 0 && r->lo < lines.ranges[i - 1].hi))
	abort ();
      len += strlen (lines.files[r->file]);
    }
  name_bytes = len;
  free (from);
  dwarf_lines_free (&lines);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *path = fuzz_input_file (data, size);
  const char *slash = strrchr (path, '/');
  struct mips_object obj;
  char *err = NULL, *dir, *found;

  memset (&obj, 0, sizeof obj);
  obj.big_endian = size > 5 && data[5] == 2;	/* EI_DATA: ELFDATA2MSB.  */
  if (object_add_debug_symbols (&obj, path, &err))
    walk (&obj);
  else if (err == NULL)
    abort ();
  free (err);
  err = NULL;
  object_close (&obj);

  if (!object_open (path, &obj, &err))
    {
      if (err == NULL)
	abort ();
      free (err);
      return 0;
    }
  dir = strndup (path, slash != NULL ? (size_t) (slash - path) : 0);
  walk_lines (&obj, dir);
  found = object_find_debug_file (&obj, dir);
  if (found != NULL && object_add_debug_symbols (&obj, found, &err))
    walk (&obj);
  free (err);
  free (found);
  free (dir);
  object_close (&obj);
  return 0;
}
