/* trace-int.h -- what the two files of the call trace share (trace.c:
   the threads' buffers, the recording of events and when the buffers
   are written; trace-file.c: the trace file and the writing of a
   buffer into it).

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_RUNTIME_TRACE_INT_H
#define PROFCOPY_RUNTIME_TRACE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "runtime.h"
#include "trace-format.h"

/* Events a buffer holds before it is written.  */
#define TRACE_EVENTS 4096

/* One thread's events, laid out as the event record that holds them.  */
struct trace_buffer
{
  struct trace_buffer *next;	/* All buffers of the process.  */
  uint32_t tid;
  /* 0 when free, 1 while the owner appends an event, 2 while the buffer
     is written.  An event that finds it nonzero (a signal handler that
     interrupted the owner, or a writer at exit) is lost.  */
  int busy;
  uint32_t n_events;
  uint32_t n_lost;
  unsigned char record[PCTRACE_E_SIZE + TRACE_EVENTS * PCTRACE_EVENT_SIZE];
};

/* Store V little-endian at P.  */

static inline void
store32 (unsigned char *p, uint32_t v)
{
  p[0] = v;
  p[1] = v >> 8;
  p[2] = v >> 16;
  p[3] = v >> 24;
}

/* trace.c.  */

/* The buffers of every thread, newest first.  */
PCRT_HIDDEN extern struct trace_buffer *pcrt_trace_buffers;

/* This thread's buffer (initial-exec TLS: no __tls_get_addr).  */
PCRT_HIDDEN extern __thread struct trace_buffer *pcrt_my_trace_buffer
  __attribute__ ((tls_model ("initial-exec")));

/* The calling thread's and process's ids, by raw system calls.  */
PCRT_HIDDEN uint32_t pcrt_raw_gettid (void);
PCRT_HIDDEN pid_t pcrt_raw_getpid (void);

/* trace-file.c.  */

/* Read the settings from the environment, once.  */
PCRT_HIDDEN void pcrt_trace_read_settings (void);

/* Write the events of buffer B, which the caller owns (BUSY is 2), and
   empty it.  IN_SIGNAL: called from the fatal-signal handler, which
   must not wait for the lock for ever.  */
PCRT_HIDDEN void pcrt_trace_write_buffer (struct trace_buffer *b,
					  bool in_signal);

/* The fork hooks: before a fork, create the file the child will share;
   in the child, drop the parent's events and take the child's own
   file if its name has the pid.  */
PCRT_HIDDEN void pcrt_trace_atfork_prepare (void);
PCRT_HIDDEN void pcrt_trace_atfork_child (void);

#endif /* PROFCOPY_RUNTIME_TRACE_INT_H */
