/* annotate.h -- annotated disassembly of a block profile (--annotate).

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_ANNOTATE_H
#define PROFCOPY_ANNOTATE_H

#include <stdbool.h>
#include <stdio.h>

#include "report.h"

/* Print to OUT, for every function of R whose name OPTS->annotate (a
   shell pattern) matches and that OPTS wants (--object), each of its
   instructions in address order: its count (the count of its block; -
   when 0), its address and its disassembly, under the source line it
   comes from where the object has a line table.  False with a malloc'd
   reason in *ERRMSG when libopcodes cannot be loaded, an original
   cannot be read, or no function matches.  */
bool annotate_print (FILE *out, const struct report *r,
		     const struct report_options *opts, char **errmsg);

#endif /* PROFCOPY_ANNOTATE_H */
