/* dump.h -- the --dump-relocs and --dump-blocks listings.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_DUMP_H
#define PROFCOPY_DUMP_H

#include <stdio.h>

#include "analysis.h"

/* Print the relocation information table of A to OUT, one entry a line
   (format in doc/relocs.md).  */
void dump_relocs (FILE *out, const struct analysis *a);

/* Print the functions and basic blocks of A to OUT.  */
void dump_blocks (FILE *out, const struct analysis *a);

#endif /* PROFCOPY_DUMP_H */
