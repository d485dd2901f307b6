/* callgrind.h -- a block profile in the callgrind format.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_CALLGRIND_H
#define PROFCOPY_CALLGRIND_H

#include <stdbool.h>

#include "report.h"

/* Write R to FILE in the callgrind format, for callgrind_annotate and
   KCachegrind: each function's instructions at its source lines (R's
   lines, when read), and its calls with their counts and estimated
   inclusive costs (inclusive.h).  COMMAND is the cmd: line.  On failure
   return false with a malloc'd reason in *ERRMSG and leave no FILE.  */
bool report_write_callgrind (const char *file, const struct report *r,
			     const char *command, char **errmsg);

#endif /* PROFCOPY_CALLGRIND_H */
