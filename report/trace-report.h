/* trace-report.h -- turn call traces into per-function times and the
   caller x callee matrix, and print them.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   Each thread's events rebuild its call stack.  An entry pushes a frame
   and counts a call of the function and of the edge from the function
   on top of the stack (or from <spontaneous> when the stack is empty).
   An exit pops the topmost frame of its function; the frames above it
   (left by longjmp, an exception or a function that exited without its
   exit event) are popped first, at the same time, and counted as
   unwound, so the stack never drifts.  When an entry's call site (the
   binary form records it) lies outside the function on top of the
   stack but inside one below it, the frames above that one are stale
   in the same way and are popped before the new frame is pushed, so
   that the call is charged to the right caller; a call site inside no
   frame's function (a callback from code that is not traced, such as
   qsort in libc) leaves the stack as it is, and so does a call site
   equal to the top frame's (gcc gives an inlined function's events
   the call site of the function it was inlined into).  An exit whose function is not on
   the stack (a thread or fork child that started inside it) is counted
   and ignored; frames still open when a thread's events end close at
   its last time stamp.  A frame's time is its exit time less its entry
   time; its self time is that less the time of the frames it called.
   A function's inclusive time counts only its outermost activations,
   so that recursion is not counted twice; an edge's time is the
   inclusive time of the callee's frames called from that caller.  */

#ifndef PROFCOPY_TRACE_REPORT_H
#define PROFCOPY_TRACE_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report.h"
#include "trace-read.h"

/* The caller of a thread's outermost frames.  */
#define TRACE_ROOT ((size_t) -1)
#define TRACE_ROOT_NAME "<spontaneous>"

struct trace_function
{
  char *name;
  const char *object;		/* Path of its object, "" if unknown.  */
  uint32_t addr;		/* Link-time entry address.  */
  uint32_t size;		/* Bytes, from its symbol; 0 if unknown.  */
  uint64_t calls;		/* Entry events.  */
  uint64_t self, inclusive;	/* Nanoseconds.  */
  unsigned long active;		/* Frames on the current stack.  */
};

struct trace_edge
{
  size_t caller;		/* Index in functions, or TRACE_ROOT.  */
  size_t callee;
  uint64_t count;
  uint64_t time;		/* Inclusive time of the callee's frames.  */
};

struct trace_report
{
  struct trace_function *functions;
  size_t n_functions;
  struct trace_edge *edges;
  size_t n_edges;
  uint64_t total;		/* Sum of the self times.  */
  uint64_t n_events, n_threads;
  uint64_t unwound;		/* Frames popped by a deeper exit.  */
  uint64_t orphan_exits;	/* Exits of functions not on the stack.  */
  uint64_t open_at_end;		/* Frames closed at a thread's end.  */
  uint64_t lost;		/* Events the runtime could not record.  */
  void *internal;		/* Lookup tables, symbol cache.  */
};

struct trace_report_options
{
  const char *sysroot;		/* Where the target's objects are, or NULL.  */
  const char *map;		/* A GNU ld map of the program, or NULL.  */
};

/* Add the events of trace T to R (zeroed before the first call).
   Functions are named from the symbols of the objects T names (under
   OPTS->sysroot first), from OPTS->map for the program, or
   func_0xADDR.  If CHROME is not NULL, write every frame to it as a
   Chrome trace event (see trace_chrome_begin).  On failure return false
   with a malloc'd reason in *ERRMSG.  */
bool trace_report_add (struct trace_report *r, const struct trace *t,
		       const struct trace_report_options *opts, FILE *chrome,
		       char **errmsg);

/* Print R: the flat profile, or with OPTS->calls the call graph; text
   or CSV.  */
void trace_report_print (FILE *out, const struct trace_report *r,
			 const struct report_options *opts);

/* Write R as a Graphviz digraph to FILE (see calls_write_dot for the
   thresholds), or in the callgrind format.  On failure return false
   with a malloc'd reason in *ERRMSG.  */
bool trace_write_dot (const char *file, const struct trace_report *r,
		      double node_thres, double edge_thres, char **errmsg);
bool trace_write_callgrind (const char *file, const struct trace_report *r,
			    const char *command, char **errmsg);

/* The Chrome trace event file: begin it, write the frames (done by
   trace_report_add), end it.  */
void trace_chrome_begin (FILE *f);
void trace_chrome_frame (FILE *f, const char *name, uint32_t pid,
			 uint32_t tid, uint64_t start, uint64_t duration);
void trace_chrome_end (FILE *f);

/* Free everything R owns.  */
void trace_report_free (struct trace_report *r);

#endif /* PROFCOPY_TRACE_REPORT_H */
