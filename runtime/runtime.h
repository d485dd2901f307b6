/* runtime.h -- internal interface of libprofcopy.so.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   profile.c finds the profiled objects of the process and writes the
   profile; exec.c interposes the exec functions and calls into
   profile.c before the process image is replaced.  Nothing here
   allocates memory.  */

#ifndef PROFCOPY_RUNTIME_H
#define PROFCOPY_RUNTIME_H

#include <stddef.h>

#define PCRT_HIDDEN __attribute__ ((visibility ("hidden")))
#define PCRT_EXPORT __attribute__ ((visibility ("default")))

/* Write the profile of this process now, for REASON (PCPROF_REASON_*);
   SIGNO is the fatal signal for PCPROF_REASON_SIGNAL, else 0.  errno is
   preserved.  */
PCRT_HIDDEN void pcrt_write_profile (unsigned reason, int signo);

/* Hand the probe routines to every loaded object rewritten with
   --calls that does not have them yet, when the dynamic linker's list
   of objects changed since the last call (always the first time).  No
   libc call, no lock.  */
PCRT_HIDDEN void pcrt_fill_probe_slots (void);

/* LEN bytes of fresh private memory from the mmap2 system call itself
   (no libc, no heap), or NULL.  */
PCRT_HIDDEN void *pcrt_mmap (size_t len);

#endif /* PROFCOPY_RUNTIME_H */
