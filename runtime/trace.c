/* trace.c -- record function entries and exits with time stamps, per
   thread.  Part of libprofcopy.so.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   Every thread gets its own event buffer, mapped with a raw mmap2
   system call the first time the thread makes an event (the program's
   heap must look the same with and without tracing).  An event is the
   function's entry address, the call site and a CLOCK_MONOTONIC time
   stamp; it is stored in the buffer already in the file's byte order,
   so that a full buffer goes to the file as one record with one write
   (trace-file.c, which also holds the file's name, its header and the
   records of the process's objects).

   The buffers are written when they fill, at exit, before exec and on
   a fatal signal (a handler that chains to the one that was there
   before, profile.c's or the default).  A child made by fork starts
   with empty buffers: the events before the fork are the parent's
   (trace-file.c says which file the child writes).  When libc is
   profiled (profcopy --whole-program --calls), the syscall hook tells
   of exit, exec and fork (profile.c), and the runtime calls no libc
   function at all; otherwise (a program built with
   -finstrument-functions, or rewritten alone) an exit handler and
   pthread_atfork do, set up at the first event.

   Everything the recording path does is done here and in
   trace-file.c, with raw system calls: no libc function is called,
   errno is never touched and no floating-point register is used, so
   that the probe entries clobber only what trace.h says.  The runtime
   is compiled without -finstrument-functions; no_instrument_function
   marks the hooks all the same, should it ever be built with it.  */

#define _GNU_SOURCE 1

#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "trace-format.h"
#include "runtime.h"
#include "sys.h"
#include "trace.h"
#include "trace-int.h"

#define NO_INSTRUMENT __attribute__ ((no_instrument_function))

/* The buffers of every thread, newest first.  Buffers are never
   unmapped: a thread that ended leaves its events to the exit-time
   write.  */
struct trace_buffer *pcrt_trace_buffers;

/* This thread's buffer.  Initial-exec TLS: libprofcopy.so is loaded at
   start-up, and the access must not call __tls_get_addr.  */
__thread struct trace_buffer *pcrt_my_trace_buffer
  __attribute__ ((tls_model ("initial-exec")));

static void trace_setup (void);

/* The CLOCK_MONOTONIC time in nanoseconds.  The o32 clock_gettime
   system call takes the 32-bit timespec.  */

static uint64_t
now_ns (void)
{
#if defined __mips__ && _MIPS_SIM == _ABIO32
  struct { int32_t sec, nsec; } ts = { 0, 0 };
  RAW_SYSCALL4 (__NR_clock_gettime, CLOCK_MONOTONIC, &ts, 0, 0);
  return (uint64_t) (uint32_t) ts.sec * 1000000000u + (uint32_t) ts.nsec;
#else
  struct timespec ts = { 0, 0 };
  RAW_SYSCALL4 (__NR_clock_gettime, CLOCK_MONOTONIC, &ts, 0, 0);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
#endif
}

uint32_t
pcrt_raw_gettid (void)
{
  return (uint32_t) RAW_SYSCALL4 (__NR_gettid, 0, 0, 0, 0);
}

pid_t
pcrt_raw_getpid (void)
{
  return (pid_t) RAW_SYSCALL4 (__NR_getpid, 0, 0, 0, 0);
}

/* Map a buffer for the calling thread and add it to ALL_BUFFERS.  */

static struct trace_buffer *
new_buffer (void)
{
  struct trace_buffer *b = pcrt_mmap (sizeof *b);

  if (b == NULL)
    return NULL;
  /* Busy and published first: pcrt_trace_read_settings calls libc,
     whose functions may carry probes (profcopy --calls) that come back
     here.  Busy as the runtime's own work (2), whose events are not
     the program's and are dropped, not counted as lost.  */
  b->busy = 2;
  b->n_events = 0;
  b->n_lost = 0;
  pcrt_my_trace_buffer = b;
  pcrt_trace_read_settings ();
  trace_setup ();
  b->tid = pcrt_raw_gettid ();
  b->next = __atomic_load_n (&pcrt_trace_buffers, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n (&pcrt_trace_buffers, &b->next, b, true,
				       __ATOMIC_RELEASE, __ATOMIC_RELAXED))
    ;
  __atomic_store_n (&b->busy, 0, __ATOMIC_RELEASE);
  return b;
}

/* Record an event of KIND for FUNC called from SITE.  */

static inline __attribute__ ((always_inline)) void
record_event (uint32_t func, uint32_t site, unsigned kind)
{
  struct trace_buffer *b = pcrt_my_trace_buffer;
  int expected = 0;
  uint64_t stamp;
  unsigned char *e;

  if (b == NULL && (b = new_buffer ()) == NULL)
    return;
  if (!__atomic_compare_exchange_n (&b->busy, &expected, 1, false,
				    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
    {
      /* Nested in the runtime's own work (writing the buffer calls
	 into libc, which may be traced itself): not the program's.  */
      if (expected == 1)
	__atomic_fetch_add (&b->n_lost, 1, __ATOMIC_RELAXED);
      return;
    }
  stamp = now_ns () << 1 | kind;
  if (b->n_events == TRACE_EVENTS)
    {
      b->busy = 2;
      pcrt_trace_write_buffer (b, false);
    }
  e = b->record + PCTRACE_E_SIZE + b->n_events * PCTRACE_EVENT_SIZE;
  store32 (e + PCTRACE_V_FUNC, func);
  store32 (e + PCTRACE_V_SITE, site);
  store32 (e + PCTRACE_V_STAMP, (uint32_t) stamp);
  store32 (e + PCTRACE_V_STAMP + 4, (uint32_t) (stamp >> 32));
  b->n_events++;
  __atomic_store_n (&b->busy, 0, __ATOMIC_RELEASE);
}

PCRT_EXPORT NO_INSTRUMENT void
__cyg_profile_func_enter (void *func, void *site)
{
  record_event ((uint32_t) (uintptr_t) func, (uint32_t) (uintptr_t) site,
		PCTRACE_ENTER);
}

PCRT_EXPORT NO_INSTRUMENT void
__cyg_profile_func_exit (void *func, void *site)
{
  record_event ((uint32_t) (uintptr_t) func, (uint32_t) (uintptr_t) site,
		PCTRACE_EXIT);
}

NO_INSTRUMENT void
profcopy_trace_enter (uint32_t func, uint32_t site)
{
  /* An object that dlopen has just added gets its probe routines.  */
  pcrt_fill_probe_slots ();
  record_event (func, site, PCTRACE_ENTER);
}

NO_INSTRUMENT void
profcopy_trace_exit (uint32_t func, uint32_t site)
{
  pcrt_fill_probe_slots ();
  record_event (func, site, PCTRACE_EXIT);
}

void pcrt_trace_enter (uint32_t func, uint32_t site)
  __attribute__ ((alias ("profcopy_trace_enter")));
void pcrt_trace_exit (uint32_t func, uint32_t site)
  __attribute__ ((alias ("profcopy_trace_exit")));

/* Write every thread's buffer.  A buffer whose owner is appending an
   event at this moment is skipped (its thread is still running and
   writes it later, or the process ends without it).  */

static void
flush_all (bool in_signal)
{
  for (struct trace_buffer *b = __atomic_load_n (&pcrt_trace_buffers,
						 __ATOMIC_ACQUIRE);
       b != NULL; b = b->next)
    {
      int expected = 0;
      if (__atomic_compare_exchange_n (&b->busy, &expected, 2, false,
				       __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
	{
	  pcrt_trace_write_buffer (b, in_signal);
	  __atomic_store_n (&b->busy, 0, __ATOMIC_RELEASE);
	}
    }
}

void
pcrt_trace_flush (void)
{
  flush_all (false);
}

/* The fatal signals, and the actions that were installed before the
   trace's handler (profile.c's, or the default).  */
static const int fatal_signals[] =
  { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
static struct k_sigaction chained[sizeof fatal_signals
				  / sizeof fatal_signals[0]];

/* The handler of the fatal signals: write the trace, put back the
   action that was there before and send SIGNO again, which runs it
   (SA_NODEFER lets it through at once).  */

static void
trace_fatal (int signo)
{
  flush_all (true);
  for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
    if (fatal_signals[i] == signo)
      sys_sigaction (signo, &chained[i], NULL);
  sys_tgkill (pcrt_raw_getpid (), pcrt_raw_gettid (), signo);
}

void
pcrt_trace_fork (void)
{
  if (__atomic_load_n (&pcrt_trace_buffers, __ATOMIC_ACQUIRE) == NULL)
    return;
  flush_all (false);
  pcrt_trace_atfork_prepare ();
}

static void
trace_exit_hook (void *unused)
{
  (void) unused;
  flush_all (false);
}

/* Install the fatal-signal handlers, and without the syscall hook the
   exit handler and the fork hooks, once, at the first event.  Each
   signal handler chains to the action it replaces; a signal the
   program ignores or handles itself is left alone.  */

static void
trace_setup (void)
{
  static int done;
  struct k_sigaction sa;

  if (__atomic_exchange_n (&done, 1, __ATOMIC_ACQ_REL) != 0)
    return;
  for (size_t i = 0; i < sizeof sa; i++)
    ((unsigned char *) &sa)[i] = 0;
  sa.handler = trace_fatal;
  sa.flags = K_SA_RESETHAND | K_SA_NODEFER;
  for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
    if (sys_sigaction (fatal_signals[i], NULL, &chained[i]) == 0
	&& !(chained[i].flags & K_SA_SIGINFO)
	&& chained[i].handler != SIG_IGN)
      sys_sigaction (fatal_signals[i], &sa, NULL);
  if (!pcrt_exit_hooked ())
    {
      pcrt_atfork (pcrt_trace_atfork_prepare, NULL, pcrt_trace_atfork_child);
      pcrt_cxa_atexit (trace_exit_hook, NULL);
    }
}

/* At exit after the exit handler, for the events of the destructors
   that ran after it.  */

static void __attribute__ ((destructor))
trace_fini (void)
{
  flush_all (false);
}
