/* report.h -- attribute the blocks of a profile to functions and print
   the reports.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_REPORT_H
#define PROFCOPY_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "profile-read.h"

enum report_format
{
  REPORT_TEXT,
  REPORT_CSV
};

struct report_options
{
  bool blocks;			/* Per-block rather than flat.  */
  enum report_format format;
};

/* One function of an original object: a symbol, or a run of blocks no
   symbol covers (named func_0xADDR).  */
struct report_function
{
  char *name;
  uint32_t addr;		/* Entry address.  */
  size_t object;		/* Index in report.objects.  */
  uint64_t calls;		/* Count of the block at ADDR.  */
  uint64_t insns;		/* Sum of count x words over its blocks.  */
};

/* One object whose original was found and matches.  */
struct report_object
{
  const struct prof_object *prof;
  uint32_t *order;		/* Block indices sorted by address.  */
  size_t *block_func;		/* Block index -> index in functions.  */
};

struct report
{
  struct report_object *objects;
  size_t n_objects;
  struct report_function *functions;
  size_t n_functions;
  uint64_t total;		/* Instructions executed, all objects.  */
};

/* Open the original of OBJ, check that it is the file that was
   profiled, and attribute OBJ's blocks to its functions in R.  On
   failure return false and set *ERRMSG to a malloc'd reason (without
   the object's name).  OBJ must outlive R.  */
bool report_add_object (struct report *r, const struct prof_object *obj,
			char **errmsg);

/* Print R to OUT as OPTS says.  */
void report_print (FILE *out, const struct report *r,
		   const struct report_options *opts);

/* Free everything R owns.  */
void report_free (struct report *r);

#endif /* PROFCOPY_REPORT_H */
