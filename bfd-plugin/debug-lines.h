/* debug-lines.h -- the line table of an object, from its own DWARF or
   from its separate debug file.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_DEBUG_LINES_H
#define PROFCOPY_DEBUG_LINES_H

#include "dwarf-line.h"
#include "object.h"

/* Read the line table of OBJ into *LINES: from OBJ's .debug_line, else
   from its separate debug file (object_find_debug_file, SYSROOT first).
   *FROM is then the debug file's path (malloc'd), else NULL.  True with
   *LINES empty when there is no line table; false with *ERRMSG (and
   *FROM naming the file that failed, if not OBJ) when there is one that
   cannot be read.  */
bool object_read_lines (const struct mips_object *obj, const char *sysroot,
			struct dwarf_lines *lines, char **from,
			char **errmsg);

#endif /* PROFCOPY_DEBUG_LINES_H */
