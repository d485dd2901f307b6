/* trace.h -- the call trace of libprofcopy.so.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   trace.c records function entries and exits, from two sources: the
   hooks that `gcc -finstrument-functions' calls
   (__cyg_profile_func_enter and __cyg_profile_func_exit), and the probe
   entries below, which code that profcopy inserts into a rewritten
   object calls through a stub.  The format of the file is in
   trace-format.h and doc/trace-format.md.  */

#ifndef PROFCOPY_TRACE_H
#define PROFCOPY_TRACE_H

#include <stdint.h>

#include "runtime.h"

/* The probe entries for rewritten code: record the entry into (or the
   exit from) the function whose run-time entry address is FUNC, called
   from the call site SITE (the return address into the caller, or 0).

   Calling convention: an ordinary o32 PIC call (address in $t9, return
   address in $ra, 16 bytes of argument save area at the caller's $sp,
   $sp 8-byte aligned).  The probe may write $at, $v0-$v1, $a0-$a3,
   $t0-$t9, $gp, $ra, HI and LO, and nothing else: it uses no
   floating-point register (trace.c and trace-file.c have no
   floating-point code; time stamps, memory and file output are raw
   system calls; they call no libc function) and never touches errno.
   A stub that saves and restores exactly those registers around the
   call leaves the instrumented function's state unchanged.  The probe is
   async-signal-safe and thread-safe.  */
PCRT_EXPORT void profcopy_trace_enter (uint32_t func, uint32_t site);
PCRT_EXPORT void profcopy_trace_exit (uint32_t func, uint32_t site);

/* The same two under hidden names, for the runtime's own use: taking an
   exported function's address costs a global GOT entry, which the
   dynamic linker looks up in every process.  */
PCRT_HIDDEN void pcrt_trace_enter (uint32_t func, uint32_t site);
PCRT_HIDDEN void pcrt_trace_exit (uint32_t func, uint32_t site);

/* Write out the buffered events of every thread: before exec and at
   exit.  */
PCRT_HIDDEN void pcrt_trace_flush (void);

/* Before a fork seen by the syscall hook: write out the events, so that
   the child starts with none of the parent's.  */
PCRT_HIDDEN void pcrt_trace_fork (void);

#endif /* PROFCOPY_TRACE_H */
