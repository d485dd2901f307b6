/* profreport.c -- print the profiles that profcopy'd programs write.
   This file holds the command line and the top-level flow: main ->
   parse options -> read and merge the profiles -> open the original
   objects -> print.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "annotate.h"
#include "callgrind.h"
#include "calls.h"
#include "errmsg.h"
#include "inclusive.h"
#include "lines.h"
#include "profile-read.h"
#include "report.h"
#include "trace-read.h"
#include "trace-report.h"
#include "version.h"

static const char *program_name = "profreport";

/* Codes of the long options without a short form.  */
enum option_code
{
  OPTION_ANNOTATE = 256,
  OPTION_BLOCKS,
  OPTION_CALLGRIND,
  OPTION_CALLS,
  OPTION_CHROME,
  OPTION_COPY_DIR,
  OPTION_DOT,
  OPTION_EDGE_THRES,
  OPTION_FORMAT,
  OPTION_FUNCTION,
  OPTION_GCOV,
  OPTION_LCOV,
  OPTION_LINES,
  OPTION_MAP,
  OPTION_NO_DEMANGLE,
  OPTION_NODE_THRES,
  OPTION_OBJECT,
  OPTION_SYSROOT,
  OPTION_ZEROS
};

/* Sorted by name.  */
static const struct option long_options[] = {
  { "annotate", required_argument, NULL, OPTION_ANNOTATE },
  { "blocks", no_argument, NULL, OPTION_BLOCKS },
  { "callgrind", required_argument, NULL, OPTION_CALLGRIND },
  { "calls", no_argument, NULL, OPTION_CALLS },
  { "chrome", required_argument, NULL, OPTION_CHROME },
  { "copy-dir", required_argument, NULL, OPTION_COPY_DIR },
  { "dot", required_argument, NULL, OPTION_DOT },
  { "edge-thres", required_argument, NULL, OPTION_EDGE_THRES },
  { "format", required_argument, NULL, OPTION_FORMAT },
  { "function", required_argument, NULL, OPTION_FUNCTION },
  { "gcov", required_argument, NULL, OPTION_GCOV },
  { "help", no_argument, NULL, 'h' },
  { "lcov", required_argument, NULL, OPTION_LCOV },
  { "lines", no_argument, NULL, OPTION_LINES },
  { "map", required_argument, NULL, OPTION_MAP },
  { "no-demangle", no_argument, NULL, OPTION_NO_DEMANGLE },
  { "node-thres", required_argument, NULL, OPTION_NODE_THRES },
  { "object", required_argument, NULL, OPTION_OBJECT },
  { "output", required_argument, NULL, 'o' },
  { "sysroot", required_argument, NULL, OPTION_SYSROOT },
  { "version", no_argument, NULL, 'V' },
  { "zeros", no_argument, NULL, OPTION_ZEROS },
  { NULL, 0, NULL, 0 }
};

static void
usage (FILE *stream, int status)
{
  fprintf (stream, "Usage: %s [option(s)] profile...\n"
	   "       %s [option(s)] trace...\n", program_name, program_name);
  fprintf (stream, "\
 Print the profiles written by programs rewritten with profcopy.  Several\n\
 profiles are merged: the counts of the same original object add up.\n\
 The original objects named in the profiles must be readable and unchanged.\n\
 Call traces (written by libprofcopy.so's trace hooks) are read instead\n\
 when the files given are traces: per-function calls and times, and the\n\
 call graph with times.\n\
 The options are:\n\
      --annotate=PATTERN         Print the instructions of the functions\n\
                                   PATTERN matches (a shell pattern), each\n\
                                   with its count, under its source lines\n\
      --blocks                   Print every basic block with its count\n\
                                   instead of the flat profile (profiles)\n\
      --callgrind=FILE           Also write the profile or the traces to FILE\n\
                                   in the callgrind format (source lines and\n\
                                   calls; a profile's inclusive costs are\n\
                                   estimates)\n\
      --calls                    Print the call graph instead of the flat\n\
                                   profile: callers and callees with counts\n\
      --chrome=FILE              Also write the traces to FILE as Chrome\n\
                                   trace event JSON\n\
      --copy-dir=DIR             Look for the profiled copies, which hold\n\
                                   the block tables, in DIR first (given\n\
                                   again, in each DIR in turn)\n\
      --dot=FILE                 Also write the call graph to FILE as a\n\
                                   Graphviz digraph\n\
      --edge-thres=PCT           Leave out of the graph the edges\n\
                                   below PCT%% of all calls (default 0.1)\n\
      --format=FORMAT            Print FORMAT: text (the default) or csv\n\
      --function=PATTERN         Print the flat profile's and --blocks' rows\n\
                                   of the functions PATTERN matches only (a\n\
                                   shell pattern: 'str*'), and the lines of\n\
                                   those functions in --lines, --gcov, --lcov\n\
      --gcov=DIR                 Also write one FILE.gcov per source file,\n\
                                   annotated with its lines' counts as gcov\n\
                                   does, into DIR (from the objects' DWARF)\n\
      --lcov=FILE                Also write the lines' and functions' counts\n\
                                   to FILE as an lcov tracefile (genhtml)\n\
      --lines                    Print the source lines with their counts\n\
                                   and instructions, costliest first\n\
      --map=FILE                 Name the traced program's functions from the\n\
                                   GNU ld map FILE too (a stripped program)\n\
      --no-demangle              Show C++ function names as the symbol\n\
                                   tables have them, not demangled\n\
      --node-thres=PCT           Leave out of the graph the functions below\n\
                                   PCT%% of the instructions, or of the traced\n\
                                   time for a trace (default 0.5)\n\
      --object=PATTERN           Print the rows of the objects PATTERN\n\
                                   matches only (their paths or base names:\n\
                                   'libc.so*')\n\
  -o, --output=FILE              Write the report to FILE, not standard output\n\
      --sysroot=DIR              Look for the traced objects in DIR first,\n\
                                   and for separate debug files in\n\
                                   DIR/usr/lib/debug\n\
      --zeros                    With --blocks and --lines, print the blocks\n\
                                   and lines that never ran too\n\
  -h, --help                     Display this information\n\
  -V, --version                  Display this program's version number\n");
  if (status == EXIT_SUCCESS)
    fprintf (stream, "Report bugs to <%s>.\n", PACKAGE_BUGREPORT);
  exit (status);
}

/* Report a problem: `profreport: MESSAGE'.  */
#define error_message(...) errmsg_print (program_name, __VA_ARGS__)

/* Parse the percentage ARG of option NAME, or exit.  */

static double
parse_percent (const char *name, const char *arg)
{
  char *end;
  double v;

  errno = 0;
  v = strtod (arg, &end);
  if (end == arg || *end != '\0' || errno != 0 || !(v >= 0 && v <= 100))
    {
      exit (errmsg_usage (program_name, "--%s: `%s' is not a percentage"
			  " from 0 to 100", name, arg));
    }
  return v;
}


/* What the command line asks of traces.  */
struct trace_options
{
  const char *callgrind, *chrome, *map, *sysroot;
};

/* Report the traces FILES (N): read them all, rebuild their stacks and
   print, as OPTS and TOPTS say, to OUTPUT (or standard output).  A
   trace that cannot be read is an error, and then nothing is written.
   Return the exit status.  */

static int
report_traces (char **files, int n, const struct report_options *opts,
	       const struct trace_options *topts, const char *output)
{
  struct trace *traces = calloc (n, sizeof *traces);
  struct trace_report report;
  struct trace_report_options ropts = { topts->sysroot, topts->map };
  FILE *chrome = NULL, *out = stdout;
  int status = EXIT_SUCCESS;
  char *err = NULL;
  int i;

  memset (&report, 0, sizeof report);
  if (traces == NULL)
    {
      error_message ("out of memory");
      return EXIT_FAILURE;
    }
  if (opts->blocks)
    {
      error_message ("--blocks needs profiles, not traces");
      free (traces);
      return EXIT_FAILURE;
    }
  for (i = 0; i < n; i++)
    if (!trace_read (files[i], &traces[i], &err))
      {
	error_message ("%s: %s", files[i], err != NULL ? err : "cannot read");
	free (err);
	err = NULL;
	status = EXIT_FAILURE;
      }
  if (status != EXIT_SUCCESS)
    goto done;

  if (topts->chrome != NULL)
    {
      chrome = fopen (topts->chrome, "w");
      if (chrome == NULL)
	{
	  error_message ("%s: cannot create: %s", topts->chrome,
			 strerror (errno));
	  status = EXIT_FAILURE;
	  goto done;
	}
      trace_chrome_begin (chrome);
    }
  for (i = 0; i < n; i++)
    if (!trace_report_add (&report, &traces[i], &ropts, chrome, &err))
      {
	error_message ("%s", err != NULL ? err : "out of memory");
	status = EXIT_FAILURE;
	goto done;
      }
  for (i = 0; i < n; i++)
    for (size_t k = 0; k < traces[i].n_streams; k++)
      if (traces[i].streams[k].lost != 0)
	error_message ("%s: warning: thread %" PRIu32 " of process %" PRIu32
		       " lost %" PRIu64 " events", files[i],
		       traces[i].streams[k].tid, traces[i].streams[k].pid,
		       traces[i].streams[k].lost);
  if (chrome != NULL)
    {
      trace_chrome_end (chrome);
      if ((ferror (chrome) | fclose (chrome)) != 0)
	{
	  error_message ("%s: write error: %s", topts->chrome,
			 strerror (errno));
	  status = EXIT_FAILURE;
	}
      chrome = NULL;
    }
  if (opts->dot != NULL
      && !trace_write_dot (opts->dot, &report, opts->node_thres,
			   opts->edge_thres, &err))
    {
      error_message ("%s: %s", opts->dot, err != NULL ? err : "cannot write");
      status = EXIT_FAILURE;
    }
  if (topts->callgrind != NULL
      && !trace_write_callgrind (topts->callgrind, &report, files[0], &err))
    {
      error_message ("%s: %s", topts->callgrind,
		     err != NULL ? err : "cannot write");
      status = EXIT_FAILURE;
    }
  if (output != NULL && (out = fopen (output, "w")) == NULL)
    {
      error_message ("%s: cannot create: %s", output, strerror (errno));
      status = EXIT_FAILURE;
      goto done;
    }
  trace_report_print (out, &report, opts);
  if (fflush (out) != 0 || ferror (out))
    {
      error_message ("%s: write error: %s",
		     output != NULL ? output : "standard output",
		     strerror (errno));
      status = EXIT_FAILURE;
    }
  if (output != NULL && fclose (out) != 0 && status == EXIT_SUCCESS)
    {
      error_message ("%s: write error: %s", output, strerror (errno));
      status = EXIT_FAILURE;
    }

 done:
  if (chrome != NULL)
    {
      fclose (chrome);
      unlink (topts->chrome);
    }
  free (err);
  trace_report_free (&report);
  for (i = 0; i < n; i++)
    trace_free (&traces[i]);
  free (traces);
  return status;
}

/* Say that FILE could not be written, for the reason *ERR (freed and
   cleared); return the exit status that says so.  */

static int
view_failed (const char *file, char **err)
{
  error_message ("%s: %s", file, *err != NULL ? *err : "cannot write");
  free (*err);
  *err = NULL;
  return EXIT_FAILURE;
}

int
main (int argc, char **argv)
{
  struct trace_options topts = { NULL, NULL, NULL, NULL };
  int n_traces = 0;
  struct report_options opts = { .format = REPORT_TEXT, .node_thres = 0.5,
				 .edge_thres = 0.1 };
  const char *output = NULL, *gcov_dir = NULL, *lcov_file = NULL;
  struct profile_set set;
  const char **copy_dirs = NULL;
  size_t n_copy_dirs = 0;
  struct report report;
  FILE *out = stdout;
  int status = EXIT_SUCCESS;
  int c;

  if (argc > 0 && argv[0] != NULL && argv[0][0] != '\0')
    {
      const char *slash = strrchr (argv[0], '/');
      program_name = slash != NULL ? slash + 1 : argv[0];
      /* getopt's messages start with argv[0]: the name, not the path.  */
      argv[0] = (char *) program_name;
    }
  memset (&set, 0, sizeof set);
  copy_dirs = calloc (argc > 0 ? (size_t) argc : 1, sizeof *copy_dirs);
  if (copy_dirs == NULL)
    {
      error_message ("out of memory");
      return EXIT_FAILURE;
    }
  while ((c = getopt_long (argc, argv, "ho:V", long_options, NULL)) != -1)
    switch (c)
      {
      case OPTION_BLOCKS:
	opts.blocks = true;
	break;
      case OPTION_CALLS:
	opts.calls = true;
	break;
      case OPTION_CALLGRIND:
	topts.callgrind = optarg;
	break;
      case OPTION_CHROME:
	topts.chrome = optarg;
	break;
      case OPTION_MAP:
	topts.map = optarg;
	break;
      case OPTION_NO_DEMANGLE:
	report_demangle = false;
	break;
      case OPTION_OBJECT:
	opts.object = optarg;
	break;
      case OPTION_FUNCTION:
	opts.function = optarg;
	break;
      case OPTION_ANNOTATE:
	opts.annotate = optarg;
	break;
      case OPTION_GCOV:
	gcov_dir = optarg;
	report_want_lines = true;
	break;
      case OPTION_LCOV:
	lcov_file = optarg;
	report_want_lines = true;
	break;
      case OPTION_LINES:
	opts.lines = true;
	report_want_lines = true;
	break;
      case OPTION_ZEROS:
	opts.zeros = true;
	break;
      case OPTION_SYSROOT:
	topts.sysroot = optarg;
	report_sysroot = optarg;
	break;
      case OPTION_COPY_DIR:
	copy_dirs[n_copy_dirs++] = optarg;
	break;
      case OPTION_DOT:
	opts.dot = optarg;
	break;
      case OPTION_EDGE_THRES:
	opts.edge_thres = parse_percent ("edge-thres", optarg);
	break;
      case OPTION_NODE_THRES:
	opts.node_thres = parse_percent ("node-thres", optarg);
	break;
      case OPTION_FORMAT:
	if (strcmp (optarg, "text") == 0)
	  opts.format = REPORT_TEXT;
	else if (strcmp (optarg, "csv") == 0)
	  opts.format = REPORT_CSV;
	else
	  {
	    return errmsg_usage (program_name,
				 "unknown format `%s' (text or csv)", optarg);
	  }
	break;
      case 'o':
	output = optarg;
	break;
      case 'h':
	usage (stdout, EXIT_SUCCESS);
	break;
      case 'V':
	print_version (program_name);
	break;
      default:
	/* getopt said what is wrong.  */
	fprintf (stderr, "Try '%s --help' for more information.\n",
		 program_name);
	return EXIT_FAILURE;
      }
  if (optind >= argc)
    {
      error_message ("no profile given");
      usage (stderr, EXIT_FAILURE);
    }

  for (int i = optind; i < argc; i++)
    n_traces += trace_file_p (argv[i]);
  if (n_traces > 0 && n_traces < argc - optind)
    {
      return errmsg_usage (program_name,
			   "profiles and traces cannot be reported together");
    }
  if (n_traces > 0 && (report_want_lines || opts.annotate != NULL))
    return errmsg_usage (program_name, "--lines, --gcov, --lcov and "
			 "--annotate need profiles, not traces");
  if (n_traces > 0)
    return report_traces (argv + optind, argc - optind, &opts, &topts,
			  output);
  if (topts.chrome != NULL || topts.map != NULL)
    {
      return errmsg_usage (program_name, "--chrome and --map need traces,"
			   " not profiles");
    }
  /* The callgrind file gives source lines where there are some.  */
  if (topts.callgrind != NULL)
    report_want_lines = true;

  /* A profile that cannot be read is skipped; the others are still
     reported, and the exit status says that something went wrong.  */
  set.copy_dirs = copy_dirs;
  set.n_copy_dirs = n_copy_dirs;
  for (int i = optind; i < argc; i++)
    {
      char *err = NULL;
      if (!profile_read (&set, argv[i], &err))
	{
	  error_message ("%s: %s", argv[i], err != NULL ? err : "cannot read");
	  free (err);
	  status = EXIT_FAILURE;
	}
    }

  memset (&report, 0, sizeof report);
  for (size_t i = 0; i < set.n_objects; i++)
    {
      char *err = NULL;
      const struct prof_object *obj = &set.objects[i];
      if (!report_add_object (&report, obj, &err))
	{
	  error_message ("%s: %s: %s", obj->profile, obj->path,
			 err != NULL ? err : "cannot read");
	  free (err);
	  status = EXIT_FAILURE;
	}
    }

  calls_resolve (&report);
  if ((opts.dot != NULL || topts.callgrind != NULL || opts.calls)
      && !report_prepare_inclusive (&report))
    {
      error_message ("out of memory");
      status = EXIT_FAILURE;
    }

  /* The files beside the report, when there is something to report.  */
  if (report.n_objects > 0 || status == EXIT_SUCCESS)
    {
      char *err = NULL;
      if (opts.dot != NULL
	  && !calls_write_dot (opts.dot, &report, opts.node_thres,
			       opts.edge_thres, &err))
	status = view_failed (opts.dot, &err);
      if (topts.callgrind != NULL
	  && !report_write_callgrind (topts.callgrind, &report, argv[optind],
				      &err))
	status = view_failed (topts.callgrind, &err);
      if (gcov_dir != NULL && !lines_write_gcov (gcov_dir, &report, &opts, &err))
	status = view_failed (gcov_dir, &err);
      if (lcov_file != NULL
	  && !lines_write_lcov (lcov_file, &report, &opts, &err))
	status = view_failed (lcov_file, &err);
    }

  if (report.n_objects > 0 || status == EXIT_SUCCESS)
    {
      if (output != NULL)
	{
	  out = fopen (output, "w");
	  if (out == NULL)
	    {
	      error_message ("%s: cannot create: %s", output, strerror (errno));
	      status = EXIT_FAILURE;
	    }
	}
      if (out != NULL)
	{
	  char *err = NULL;
	  if (opts.annotate == NULL)
	    report_print (out, &report, &opts);
	  else if (!annotate_print (out, &report, &opts, &err))
	    status = view_failed ("--annotate", &err);
	  if (fflush (out) != 0 || ferror (out))
	    {
	      error_message ("%s: write error: %s",
			     output != NULL ? output : "standard output",
			     strerror (errno));
	      status = EXIT_FAILURE;
	    }
	  if (output != NULL && fclose (out) != 0 && status == EXIT_SUCCESS)
	    {
	      error_message ("%s: write error: %s", output, strerror (errno));
	      status = EXIT_FAILURE;
	    }
	}
    }

  report_free (&report);
  profile_set_free (&set);
  free (copy_dirs);
  return status;
}
