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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "profile-read.h"
#include "report.h"

static const char *program_name = "profreport";

/* Codes of the long options without a short form.  */
enum option_code
{
  OPTION_BLOCKS = 256,
  OPTION_CALLS,
  OPTION_DOT,
  OPTION_EDGE_THRES,
  OPTION_FORMAT,
  OPTION_NODE_THRES
};

/* Sorted by name.  */
static const struct option long_options[] = {
  { "blocks", no_argument, NULL, OPTION_BLOCKS },
  { "calls", no_argument, NULL, OPTION_CALLS },
  { "dot", required_argument, NULL, OPTION_DOT },
  { "edge-thres", required_argument, NULL, OPTION_EDGE_THRES },
  { "format", required_argument, NULL, OPTION_FORMAT },
  { "help", no_argument, NULL, 'h' },
  { "node-thres", required_argument, NULL, OPTION_NODE_THRES },
  { "output", required_argument, NULL, 'o' },
  { "version", no_argument, NULL, 'V' },
  { NULL, 0, NULL, 0 }
};

static void
usage (FILE *stream, int status)
{
  fprintf (stream, "Usage: %s [option(s)] profile...\n", program_name);
  fprintf (stream, "\
 Print the profiles written by programs rewritten with profcopy.  Several\n\
 profiles are merged: the counts of the same original object add up.\n\
 The original objects named in the profiles must be readable and unchanged.\n\
 The options are:\n\
      --blocks                   Print every basic block with its count\n\
                                   instead of the flat profile\n\
      --calls                    Print the call graph instead of the flat\n\
                                   profile: callers and callees with counts\n\
      --dot=FILE                 Also write the call graph to FILE as a\n\
                                   Graphviz digraph\n\
      --edge-thres=PCT           Leave out of the graph the edges\n\
                                   below PCT%% of all calls (default 0.1)\n\
      --format=FORMAT            Print FORMAT: text (the default) or csv\n\
      --node-thres=PCT           Leave out of the graph the functions below\n\
                                   PCT%% of the instructions (default 0.5)\n\
  -o, --output=FILE              Write the report to FILE, not standard output\n\
  -h, --help                     Display this information\n\
  -V, --version                  Display this program's version number\n");
  if (status == EXIT_SUCCESS)
    fprintf (stream, "Report bugs to <%s>.\n", PACKAGE_BUGREPORT);
  exit (status);
}

static void
print_version (void)
{
  printf ("%s (%s) %s\n", program_name, PACKAGE_NAME, PACKAGE_VERSION);
  printf ("Copyright (C) 2026 The profcopy authors.\n\
This program is free software; you may redistribute it under the terms of\n\
the GNU General Public License version 3 or (at your option) any later version.\n\
This program has absolutely no warranty.\n");
  exit (EXIT_SUCCESS);
}

/* Report a problem: `profreport: MESSAGE'.  */

static void error_message (const char *format, ...);

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
      error_message ("--%s: `%s' is not a percentage from 0 to 100",
		     name, arg);
      exit (EXIT_FAILURE);
    }
  return v;
}

/* Report a problem: `profreport: MESSAGE'.  */

static void
error_message (const char *format, ...)
{
  va_list ap;

  fprintf (stderr, "%s: ", program_name);
  va_start (ap, format);
  vfprintf (stderr, format, ap);
  va_end (ap);
  fputc ('\n', stderr);
}

int
main (int argc, char **argv)
{
  struct report_options opts = { false, false, REPORT_TEXT, NULL, 0.5, 0.1 };
  const char *output = NULL;
  struct profile_set set = { NULL, 0 };
  struct report report;
  FILE *out = stdout;
  int status = EXIT_SUCCESS;
  int c;

  if (argc > 0 && argv[0] != NULL && argv[0][0] != '\0')
    {
      const char *slash = strrchr (argv[0], '/');
      program_name = slash != NULL ? slash + 1 : argv[0];
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
	    error_message ("unknown format `%s' (text or csv)", optarg);
	    return EXIT_FAILURE;
	  }
	break;
      case 'o':
	output = optarg;
	break;
      case 'h':
	usage (stdout, EXIT_SUCCESS);
	break;
      case 'V':
	print_version ();
	break;
      default:
	usage (stderr, EXIT_FAILURE);
      }
  if (optind >= argc)
    {
      error_message ("no profile given");
      usage (stderr, EXIT_FAILURE);
    }

  /* A profile that cannot be read is skipped; the others are still
     reported, and the exit status says that something went wrong.  */
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

  if (opts.dot != NULL && (report.n_objects > 0 || status == EXIT_SUCCESS))
    {
      char *err = NULL;
      if (!calls_write_dot (opts.dot, &report, opts.node_thres,
			    opts.edge_thres, &err))
	{
	  error_message ("%s: %s", opts.dot, err != NULL ? err : "cannot write");
	  free (err);
	  status = EXIT_FAILURE;
	}
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
	  report_print (out, &report, &opts);
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
  return status;
}
