/* trace-read.h -- read the call traces that libprofcopy.so writes.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   Both forms of doc/trace-format.md are read: the binary form
   (include/trace-format.h) and the text form, whose event lines are the
   seed's `E 0xADDR TIME' and `X 0xADDR TIME'.  The events of each
   thread (process id and thread id) are gathered into one stream, in
   the order the thread made them.  */

#ifndef PROFCOPY_TRACE_READ_H
#define PROFCOPY_TRACE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One event.  */
struct trace_event
{
  uint32_t func;		/* Run-time entry address.  */
  uint32_t site;		/* Return address into the caller, or 0.  */
  uint64_t time;		/* Nanoseconds, CLOCK_MONOTONIC.  */
  bool exit;			/* An exit rather than an entry.  */
};

/* The events of one thread.  */
struct trace_stream
{
  uint32_t pid, tid;
  struct trace_event *events;
  size_t n_events, cap;
  uint64_t lost;		/* Events the runtime could not record.  */
};

/* Where one object of the traced process was loaded.  */
struct trace_object
{
  uint32_t bias, low, high;	/* Run-time range [LOW, HIGH).  */
  char *path;			/* As the process named it.  */
};

struct trace
{
  char *file;			/* The trace file's name.  */
  bool text;			/* Read from the text form.  */
  struct trace_object *objects;	/* Later records first.  */
  size_t n_objects;
  struct trace_stream *streams;
  size_t n_streams;
};

/* True if FILE starts like a trace (either form) rather than a
   profile.  */
bool trace_file_p (const char *file);

/* Read the trace FILE into *T.  On failure return false and set *ERRMSG
   to a malloc'd reason (without the file name); *T then owns
   nothing.  */
bool trace_read (const char *file, struct trace *t, char **errmsg);

/* The object of T whose run-time range holds ADDR, or NULL.  */
const struct trace_object *trace_object_at (const struct trace *t,
					    uint32_t addr);

/* Free everything T owns.  */
void trace_free (struct trace *t);

#endif /* PROFCOPY_TRACE_READ_H */
