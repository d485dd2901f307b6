/* fuzz-trace.c -- fuzz target: profreport's call trace reader,
   trace_read, and the report built from what it read.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The input is a trace in either form, read by name.  The report
   rebuilds every thread's stack and is printed, flat and as a call
   graph, in text and CSV, and written as DOT and callgrind files, all
   to /dev/null.  The trace's object paths are emptied first: the
   report would otherwise read whatever files of this machine they
   name, and its functions are then named by address.  */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "trace-read.h"
#include "trace-report.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static FILE *null;
  struct trace t;
  struct trace_report r = { 0 };
  struct trace_report_options ropts = { NULL, NULL };
  struct report_options opts = { 0 };
  const char *file;
  char *err = NULL;

  if (null == NULL && (null = fopen ("/dev/null", "w")) == NULL)
    abort ();
  file = fuzz_input_file (data, size);
  trace_file_p (file);
  if (!trace_read (file, &t, &err))
    {
      /* Every refusal says why.  */
      if (err == NULL)
	abort ();
      free (err);
      return 0;
    }
  for (size_t i = 0; i < t.n_objects; i++)
    t.objects[i].path[0] = '\0';
  if (!trace_report_add (&r, &t, &ropts, null, &err))
    {
      free (err);
      trace_report_free (&r);
      trace_free (&t);
      return 0;
    }
  opts.node_thres = 0.5;
  opts.edge_thres = 0.1;
  for (int calls = 0; calls < 2; calls++)
    for (int csv = 0; csv < 2; csv++)
      {
	opts.calls = calls;
	opts.format = csv ? REPORT_CSV : REPORT_TEXT;
	trace_report_print (null, &r, &opts);
      }
  if (!trace_write_dot ("/dev/null", &r, opts.node_thres, opts.edge_thres,
			&err))
    {
      free (err);
      err = NULL;
    }
  if (!trace_write_callgrind ("/dev/null", &r, "input", &err))
    free (err);
  trace_report_free (&r);
  trace_free (&t);
  return 0;
}
