/* lines.h -- counts per source line, from the block profile and the
   objects' DWARF line tables: --lines, --gcov and --lcov.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   Every instruction of a block ran as often as the block.  A source
   line's count is the largest count of the instructions the line table
   gives to it (so a loop's condition counts its iterations, and a line
   whose code ran at all is never 0); its cost is the sum of the counts
   of its instructions, the instructions it executed.  A line has code
   when some instruction of a profiled block is its; the others are
   shown as lines without code, as gcov does.  */

#ifndef PROFCOPY_LINES_H
#define PROFCOPY_LINES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report.h"

struct mips_object;

/* One source line with code: as collected, a run of instructions of
   one function; once merged, all its instructions that the options
   want.  */
struct report_line
{
  uint32_t source;		/* Index in report_lines.sources.  */
  uint32_t line;
  uint64_t count;		/* Largest count of its instructions.  */
  uint64_t insns;		/* Sum of the counts of its instructions.  */
  size_t func;			/* Index in report.functions (of the
				   first, once merged).  */
  /* As collected: the run is the WORDS instructions at ADDR of object
     OBJECT (an index in report.objects), all of one block.  */
  size_t object;
  uint32_t addr, words;
};

/* A function whose entry has a line: where lcov puts it.  */
struct report_line_func
{
  uint32_t source, line;
  size_t func;			/* Index in report.functions.  */
};

struct report_lines
{
  char **sources;		/* Paths, as the line tables name them.  */
  size_t n_sources, cap_sources;
  struct report_line *runs;	/* As collected.  */
  size_t n_runs, cap_runs;
  struct report_line_func *funcs;
  size_t n_funcs, cap_funcs;
  size_t n_objects;		/* Objects whose lines were found.  */
};

/* Whether report_add_object reads line tables (--lines, --gcov,
   --lcov).  */
extern bool report_want_lines;

/* Add the lines of the blocks of object number INDEX of R, the object
   added last (its functions and calls are the last ones), read from
   OBJ or its separate debug file (REPORT_SYSROOT first).  Nothing when
   OBJ has no line table; false with *ERRMSG when it cannot be read
   (or is out of memory), *ERRMSG naming the debug file it came from
   if not OBJ.  */
bool lines_add_object (struct report *r, size_t index,
		       const struct mips_object *obj, char **errmsg);

/* Print the lines of R whose functions OPTS wants (--object,
   --function), the costliest first (--lines).  */
void lines_print (FILE *out, const struct report *r,
		  const struct report_options *opts);

/* Write one FILE.gcov per source file of R into directory DIR, in
   gcov's text form, the source read from the path the line table
   names.  False with *ERRMSG if DIR or a file cannot be written;
   sources that cannot be read are said on stderr and written with
   their lines of code alone.  */
bool lines_write_gcov (const char *dir, const struct report *r,
		       const struct report_options *opts, char **errmsg);

/* Write R's lines and functions as an lcov tracefile FILE (the input
   of lcov's genhtml).  */
bool lines_write_lcov (const char *file, const struct report *r,
		       const struct report_options *opts, char **errmsg);

/* Free what R's lines own.  */
void lines_free (struct report *r);

#endif /* PROFCOPY_LINES_H */
