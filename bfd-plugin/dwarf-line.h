/* dwarf-line.h -- the DWARF line table (.debug_line) of an object, as
   address ranges with their source file and line.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The line-number programs of DWARF versions 2 to 5 are run (DWARF 5,
   section 6.2) and every row that covers addresses becomes one range:
   from its address to the next row's of the same sequence.  The file of
   a range is its full path, made as the line header says (directory,
   then name; DWARF 5's directory 0 is the compilation directory, which
   versions 2 to 4 leave to .debug_info: dwarf-units.h finds it there,
   and where it cannot, their names relative to it stay relative).  Sequences at address 0 or at the linker's
   tombstones (code that was discarded) are left out.  */

#ifndef PROFCOPY_DWARF_LINE_H
#define PROFCOPY_DWARF_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dwarf-read.h"

/* Addresses [LO, HI) come from line LINE of file FILE.  */
struct dwarf_line_range
{
  uint32_t lo, hi;
  uint32_t line;
  uint32_t file;		/* Index in dwarf_lines.files.  */
};

struct dwarf_lines
{
  struct dwarf_line_range *ranges; /* Sorted by LO; they do not overlap.  */
  size_t n_ranges;
  char **files;			/* Full paths, each once.  */
  size_t n_files;
};

/* Read the line table of S (.debug_line, with the string sections it
   refers to, and .debug_info and .debug_abbrev for the compilation
   directories) into *LINES.  On failure return false, set *ERRMSG to a
   malloc'd reason and leave *LINES empty.  */
bool dwarf_lines_read (const struct dwarf_sections *s,
		       struct dwarf_lines *lines, char **errmsg);

/* The range of LINES that holds ADDR, or NULL.  */
const struct dwarf_line_range *dwarf_lines_find (const struct dwarf_lines *lines,
						 uint32_t addr);

/* Free everything LINES owns.  */
void dwarf_lines_free (struct dwarf_lines *lines);

#endif /* PROFCOPY_DWARF_LINE_H */
