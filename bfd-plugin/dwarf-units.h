/* dwarf-units.h -- the compilation directories of the units of
   .debug_info, by the line table each unit names.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   A line table of DWARF versions 2 to 4 names its files relative to
   the compilation directory (directory 0), which only the unit's
   DW_AT_comp_dir in .debug_info gives; GCC pairs such tables with
   version 5 units too (Debian's glibc: line tables of version 3, units
   of version 5).  Only the first entry (the unit's DIE) of each unit is
   read.  */

#ifndef PROFCOPY_DWARF_UNITS_H
#define PROFCOPY_DWARF_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dwarf-read.h"

/* The unit whose line table is at LINE_OFFSET of .debug_line was
   compiled in DIR (a string of the sections, not copied).  */
struct dwarf_comp_dir
{
  uint64_t line_offset;
  const char *dir;
};

/* The compilation directories of the units of S (.debug_info,
   .debug_abbrev and the string sections), sorted by
   line_offset, into a malloc'd array (*N of them).  Units that are
   malformed, or whose directory is in another file (dwz's
   DW_FORM_GNU_strp_alt), have none: the reading stops at the first
   malformed one, since what follows cannot be found.  NULL with *N 0
   when there is none or when out of memory.  */
struct dwarf_comp_dir *dwarf_comp_dirs (const struct dwarf_sections *s,
					size_t *n);

/* The directory of the unit whose line table is at LINE_OFFSET in DIRS
   (N of them, as dwarf_comp_dirs gives them), or NULL.  */
const char *dwarf_comp_dir_of (const struct dwarf_comp_dir *dirs, size_t n,
			       uint64_t line_offset);

#endif /* PROFCOPY_DWARF_UNITS_H */
