/* writer-int.h -- what the two files of the profile writer share
   (writer.c: the profile file, its name and how it is written into
   place; records.c: what it holds, the header and the records).

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_RUNTIME_WRITER_INT_H
#define PROFCOPY_RUNTIME_WRITER_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "profile.h"
#include "runtime.h"

/* The output buffer and file, or memory (MEM, CAP bytes, MEM_LEN
   used) for the record of an object that dlclose unloads.  Guarded by
   the busy flag (pcrt_try_busy).  */
struct writer_out
{
  int fd;
  int error;			/* errno of the first failed write, or 0.  */
  size_t len;
  unsigned char *mem;
  size_t cap, mem_len;
  unsigned char buf[8192] __attribute__ ((aligned (8)));
};

/* records.c.  */

/* The output: writer.c opens the file into PCRT_OUT.FD and reads
   PCRT_OUT.ERROR after pcrt_put_profile.  */
PCRT_HIDDEN extern struct writer_out pcrt_out;

/* Write the profile into the open file PCRT_OUT.FD, with the counts of
   snapshot S where it has them.  */
PCRT_HIDDEN void pcrt_put_profile (long pid, unsigned reason, int signo,
				   struct snapshot *s);

/* writer.c: the settings pcrt_writer_init reads.  */

/* Whether the records hold the objects' tables (PROFCOPY_TABLES=profile)
   or leave them in the profiled copies (the default).  */
PCRT_HIDDEN extern bool pcrt_tables_here;

/* Whether every counter is written (PROFCOPY_COUNTS=all), not only the
   runs of those that may not be 0.  */
PCRT_HIDDEN extern bool pcrt_dense_asked;

#endif /* PROFCOPY_RUNTIME_WRITER_INT_H */
