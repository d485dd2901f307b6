/* profcopy.c -- rewrite MIPS programs and their shared objects with
   counting code.  This file holds the command line and the top-level
   flow: main -> parse options -> one action per input file; whole.c
   the --whole-program rewrite.

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
#include <unistd.h>
#include <elf.h>
#ifdef HAVE_MALLOC_H
# include <malloc.h>
#endif

#include "analysis.h"
#include "dump.h"
#include "elf-write.h"
#include "errmsg.h"
#include "libsearch.h"
#include "rewrite.h"
#include "version.h"
#include "cli.h"


/* Codes of the long options without a short form.  */
enum option_code
{
  OPTION_ALL_BLOCKS = 256,
  OPTION_CALLS,
  OPTION_COPY_DIR,
  OPTION_COUNTER_CARRY,
  OPTION_COUNTER_UPDATE,
  OPTION_DUMP_BLOCKS,
  OPTION_DUMP_RELOCS,
  OPTION_LIST_NEEDED,
  OPTION_POISON_ORIGINAL,
  OPTION_RUN_DIR,
  OPTION_RUNTIME,
  OPTION_SYSROOT,
  OPTION_USE_PROFILE,
  OPTION_WHOLE_PROGRAM
};

/* Sorted by name.  */
static const struct option long_options[] = {
  { "all-blocks", no_argument, NULL, OPTION_ALL_BLOCKS },
  { "calls", no_argument, NULL, OPTION_CALLS },
  { "copy-dir", required_argument, NULL, OPTION_COPY_DIR },
  { "counter-carry", required_argument, NULL, OPTION_COUNTER_CARRY },
  { "counter-update", required_argument, NULL, OPTION_COUNTER_UPDATE },
  { "dump-blocks", no_argument, NULL, OPTION_DUMP_BLOCKS },
  { "dump-relocs", no_argument, NULL, OPTION_DUMP_RELOCS },
  { "help", no_argument, NULL, 'h' },
  { "jobs", required_argument, NULL, 'j' },
  { "library-path", required_argument, NULL, 'L' },
  { "list-needed", no_argument, NULL, OPTION_LIST_NEEDED },
  { "output", required_argument, NULL, 'o' },
  { "poison-original", no_argument, NULL, OPTION_POISON_ORIGINAL },
  { "run-dir", required_argument, NULL, OPTION_RUN_DIR },
  { "runtime", required_argument, NULL, OPTION_RUNTIME },
  { "sysroot", required_argument, NULL, OPTION_SYSROOT },
  { "use-profile", required_argument, NULL, OPTION_USE_PROFILE },
  { "verbose", no_argument, NULL, 'v' },
  { "version", no_argument, NULL, 'V' },
  { "whole-program", no_argument, NULL, OPTION_WHOLE_PROGRAM },
  { NULL, 0, NULL, 0 }
};

static void
usage (FILE *stream, int status)
{
  fprintf (stream, "Usage: %s [option(s)] in-file [out-file]\n\
       %s --whole-program [option(s)] -o out-dir program\n",
	   program_name, program_name);
  fprintf (stream, "\
 Rewrite a MIPS o32 ELF program or shared object with block-counting code.\n\
 Without out-file, in-file is replaced.  The options are:\n\
      --whole-program            Rewrite the program and every shared object\n\
                                   it needs into out-dir, with the runtime\n\
  -j, --jobs=N                   With --whole-program, rewrite N objects at\n\
                                   once (default: one per processor)\n\
  -o, --output=FILE|DIR          Write the result here\n\
      --poison-original          Fill the original code with trap\n\
                                   instructions\n\
      --calls                    Also call the runtime's trace probes at every\n\
                                   function entry and exit (call traces)\n\
      --all-blocks               Put a counter in every block (by default\n\
                                   blocks whose counts follow from others'\n\
                                   have none)\n\
      --counter-update=auto|atomic|single\n\
                                 How counters are incremented: atomic is\n\
                                   exact under threads; single is faster but\n\
                                   may lose counts when threads run the same\n\
                                   code at once; auto (the default) is single\n\
                                   when --whole-program finds no object that\n\
                                   imports a function that starts threads\n\
      --counter-carry=auto|watcher|inline\n\
                                 Who carries a count out of a counter's\n\
                                   low 32 bits: watcher, a thread of the\n\
                                   runtime (one instruction fewer per count;\n\
                                   the objects must be loaded at start-up);\n\
                                   inline, the increment itself; auto (the\n\
                                   default) is inline: the program gets no\n\
                                   thread it does not have itself\n\
      --use-profile=PROFILE      Place the counters by the block counts of\n\
                                   PROFILE, from an earlier run of the same\n\
                                   files: the counts stay exact, fewer\n\
                                   counters run (may be given again)\n\
      --copy-dir=DIR             Look for the profiled copies that wrote\n\
                                   the --use-profile profiles in DIR first\n\
      --runtime=FILE             The runtime library to copy with\n\
                                   --whole-program (default: %s/mips[el]/%s);\n\
                                   a static executable's copy takes\n\
                                   libprofcopy-static.so from its directory\n\
      --run-dir=DIR              With --whole-program, the absolute path of\n\
                                   the directory the copies will run from,\n\
                                   for a program linked with musl (default:\n\
                                   out-dir's)\n\
      --dump-relocs              Print the relocation information table\n\
                                   (every place that holds or computes a\n\
                                   text address) and exit\n\
      --dump-blocks              Print functions and basic blocks and exit\n\
      --list-needed              Print the shared objects the program needs,\n\
                                   `soname => path', and exit\n\
      --sysroot=DIR              Look for shared objects inside DIR\n\
                                   (default: %s)\n\
  -L, --library-path=DIR         Also search DIR, where ld.so searches\n\
                                   LD_LIBRARY_PATH\n\
  -v, --verbose                  Report progress on standard error\n\
  -h, --help                     Display this information\n\
  -V, --version                  Display this program's version number\n",
	   PROFCOPY_RUNTIME_DIR, RUNTIME_SONAME,
	   PROFCOPY_DEFAULT_SYSROOT[0] != '\0' ? PROFCOPY_DEFAULT_SYSROOT : "/");
  if (status == EXIT_SUCCESS)
    fprintf (stream, "Report bugs to <%s>.\n", PACKAGE_BUGREPORT);
  exit (status);
}

/* Report a problem with FILE: `profcopy: FILE: MESSAGE'.  */

void
file_error (const char *file, const char *format, ...)
{
  va_list ap;

  fprintf (stderr, "%s: %s: ", program_name, file);
  va_start (ap, format);
  vfprintf (stderr, format, ap);
  va_end (ap);
  fputc ('\n', stderr);
}

/* The shared objects FILE needs, into *CLOSURE (see cli.h).  */

bool
find_needed (const struct options *opts, const char *file, bool big_endian,
	     struct needed_closure *closure)
{
  struct lib_search search;
  char *err = NULL;

  search.sysroot = opts->sysroot;
  search.library_path = opts->library_path;
  search.n_library_path = opts->n_library_path;
  search.big_endian = big_endian;
  if (!lib_search_closure (&search, file, closure, &err))
    {
      file_error (file, "%s", err != NULL ? err : "cannot read");
      free (err);
      return false;
    }
  return true;
}

/* Say that the dynamic linker LOADER of the program FILE (musl's, which
   is profiled with it) is not in the sysroot of OPTS.  */

void
loader_not_found (const struct options *opts, const char *file,
		  const struct needed_lib *loader)
{
  file_error (file, "%s (its dynamic linker and C library): not found in "
	      "the sysroot%s%s; name the root it is in with --sysroot=DIR",
	      loader->soname,
	      opts->sysroot != NULL && opts->sysroot[0] != '\0' ? " " : "",
	      opts->sysroot != NULL ? opts->sysroot : "");
}

/* Print the shared objects FILE needs.  Return 0 if all were found.  */

static int
list_needed (const struct options *opts, const char *file, bool big_endian)
{
  struct needed_closure closure;
  int status = 0;

  if (!find_needed (opts, file, big_endian, &closure))
    return 1;
  for (size_t i = 0; i < closure.n_libs; i++)
    {
      const struct needed_lib *lib = &closure.libs[i];
      if (lib->path != NULL)
	printf ("%s => %s\n", lib->soname, lib->path);
      else
	{
	  printf ("%s => not found\n", lib->soname);
	  status = 1;
	}
    }
  if (closure.has_loader)
    {
      if (closure.loader.path != NULL)
	printf ("%s => %s\n", closure.loader.soname, closure.loader.path);
      else
	{
	  printf ("%s => not found\n", closure.loader.soname);
	  status = 1;
	}
    }
  if (closure.n_missing > 0)
    for (size_t i = 0; i < closure.n_libs; i++)
      if (closure.libs[i].path == NULL)
	file_error (file, "%s (needed by %s): not found",
		    closure.libs[i].soname, closure.libs[i].requested_by);
  if (closure.has_loader && closure.loader.path == NULL)
    loader_not_found (opts, file, &closure.loader);
  needed_closure_free (&closure);
  return status;
}

/* Whether OPTS have the runtime's watcher carry the counters' low
   words of an object (a program if MAIN_PROGRAM): only when asked for.
   The watcher is a thread that the program does not have of itself:
   signals may go to it, /proc/self/task shows it, and under QEMU it
   makes atomic increments slow; the default (auto) is the inline
   carry.  */

bool
folded_carry (const struct options *opts, bool main_program)
{
  (void) main_program;
  return opts->carry == CARRY_WATCHER;
}

/* What -v says of FOLDED.  */

const char *
carry_said (bool folded)
{
  return folded ? "low words carried by the runtime's watcher thread"
	 : "every increment carries out of its counter's low word";
}

/* Rewrite IN to OUT.  MAIN_PROGRAM: add the runtime and $ORIGIN to its
   dynamic section.  Return the exit status it earns.  */

int
rewrite_one (const struct options *opts, const char *in, const char *out,
	     bool main_program, size_t scope_index)
{
  struct rewrite_options ropts = { 0 };
  char *err = NULL;

  ropts.poison_original = opts->poison_original;
  ropts.all_blocks = opts->all_blocks;
  ropts.calls = opts->calls;
  ropts.single_update = opts->update == UPDATE_SINGLE;
  ropts.folded = folded_carry (opts, main_program);
  ropts.verbose = opts->verbose;
  ropts.runtime_soname = main_program ? RUNTIME_SONAME : NULL;
  ropts.interp = main_program ? opts->interp : NULL;
  ropts.runtime = opts->runtime;
  ropts.use_profile = opts->used.n_objects > 0 ? &opts->used : NULL;
  ropts.scope = opts->scope;
  ropts.scope_index = scope_index;
  if (opts->verbose)
    fprintf (stderr, "%s: %s -> %s\n", program_name, in, out);
  if (opts->verbose && !opts->whole_program)
    fprintf (stderr, "%s: %s: %s\n", program_name, in,
	     carry_said (ropts.folded));
  if (!rewrite_object (in, out, &ropts, &err))
    {
      file_error (in, "%s", err != NULL ? err : "cannot rewrite");
      free (err);
      return 1;
    }
  return 0;
}

/* Carry out OPTS's action on FILE: --dump-relocs, --dump-blocks or
   --list-needed (main rewrites by other ways).  Return the exit status
   it earns.  */

static int
process_file (const struct options *opts, const char *file)
{
  struct analysis a;
  char *err = NULL;
  enum analysis_depth depth
    = opts->action == ACTION_DUMP_BLOCKS ? ANALYSE_BLOCKS : ANALYSE_RELOCS;
  int status = 0;

  if (opts->action == ACTION_LIST_NEEDED)
    {
      /* Only the byte order is needed from the program itself.  */
      struct mips_object obj;
      if (!object_open (file, &obj, &err))
	{
	  file_error (file, "%s", err != NULL ? err : "cannot read");
	  free (err);
	  return 1;
	}
      status = list_needed (opts, file, obj.big_endian);
      object_close (&obj);
      return status;
    }

  if (opts->verbose)
    fprintf (stderr, "%s: analysing %s\n", program_name, file);
  if (!analysis_run (file, depth, &a, &err))
    {
      file_error (file, "%s", err != NULL ? err : "analysis failed");
      free (err);
      analysis_free (&a);
      return 1;
    }

  switch (opts->action)
    {
    case ACTION_DUMP_RELOCS:
      dump_relocs (stdout, &a);
      if (opts->verbose)
	{
	  fprintf (stderr, "%s: %s: %zu entries:", program_name, file,
		   a.relocs.n_entries);
	  for (int t = 0; t < RELOC_N_TYPES; t++)
	    fprintf (stderr, " %s %zu", reloc_type_name (t),
		     a.relocs.n_by_type[t]);
	  fputc ('\n', stderr);
	}
      break;
    case ACTION_DUMP_BLOCKS:
      dump_blocks (stdout, &a);
      if (opts->verbose)
	fprintf (stderr, "%s: %s: %zu functions, %zu blocks\n", program_name,
		 file, a.cfg.n_funcs, a.cfg.n_blocks);
      break;
    default:
      break;
    }
  if (fflush (stdout) != 0 || ferror (stdout))
    {
      fprintf (stderr, "%s: error writing standard output: %s\n",
	       program_name, strerror (errno));
      status = 1;
    }
  analysis_free (&a);
  return status;
}

/* Parse the options of ARGV into *OPTS (optind is then the first
   operand).  Return -1 to go on, or the status to exit with.  */

static int
parse_options (int argc, char **argv, struct options *opts)
{
  int c;

  opts->profiles = calloc (argc > 0 ? (size_t) argc : 1,
			   sizeof *opts->profiles);
  opts->copy_dirs = calloc (argc > 0 ? (size_t) argc : 1,
			    sizeof *opts->copy_dirs);
  if (opts->profiles == NULL || opts->copy_dirs == NULL)
    {
      fprintf (stderr, "%s: out of memory\n", program_name);
      return EXIT_FAILURE;
    }
  while ((c = getopt_long (argc, argv, "hj:L:o:vV", long_options, NULL)) != -1)
    switch (c)
      {
      case OPTION_WHOLE_PROGRAM:
	opts->whole_program = true;
	break;
      case OPTION_POISON_ORIGINAL:
	opts->poison_original = true;
	break;
      case OPTION_ALL_BLOCKS:
	opts->all_blocks = true;
	break;
      case OPTION_CALLS:
	opts->calls = true;
	break;
      case OPTION_COUNTER_UPDATE:
	if (strcmp (optarg, "auto") == 0)
	  opts->update = UPDATE_AUTO;
	else if (strcmp (optarg, "atomic") == 0)
	  opts->update = UPDATE_ATOMIC;
	else if (strcmp (optarg, "single") == 0)
	  opts->update = UPDATE_SINGLE;
	else
	  return errmsg_usage (program_name, "--counter-update: `%s' is not"
			       " auto, atomic or single", optarg);
	break;
      case OPTION_COUNTER_CARRY:
	if (strcmp (optarg, "auto") == 0)
	  opts->carry = CARRY_AUTO;
	else if (strcmp (optarg, "watcher") == 0)
	  opts->carry = CARRY_WATCHER;
	else if (strcmp (optarg, "inline") == 0)
	  opts->carry = CARRY_INLINE;
	else
	  return errmsg_usage (program_name, "--counter-carry: `%s' is not"
			       " auto, watcher or inline", optarg);
	break;
      case OPTION_RUNTIME:
	opts->runtime = optarg;
	break;
      case OPTION_RUN_DIR:
	if (optarg[0] != '/')
	  return errmsg_usage (program_name, "--run-dir: `%s' is not an"
			       " absolute path", optarg);
	opts->run_dir = optarg;
	break;
      case 'o':
	opts->output = optarg;
	break;
      case 'j':
	{
	  char *end;
	  errno = 0;
	  opts->jobs = strtol (optarg, &end, 10);
	  if (errno != 0 || end == optarg || *end != '\0' || opts->jobs < 1
	      || opts->jobs > 1024)
	    return errmsg_usage (program_name, "--jobs: `%s' is not a number"
				 " from 1 to 1024", optarg);
	}
	break;
      case OPTION_DUMP_RELOCS:
	opts->action = ACTION_DUMP_RELOCS;
	break;
      case OPTION_DUMP_BLOCKS:
	opts->action = ACTION_DUMP_BLOCKS;
	break;
      case OPTION_LIST_NEEDED:
	opts->action = ACTION_LIST_NEEDED;
	break;
      case OPTION_SYSROOT:
	opts->sysroot = optarg;
	break;
      case OPTION_USE_PROFILE:
	opts->profiles[opts->n_profiles++] = optarg;
	break;
      case OPTION_COPY_DIR:
	opts->copy_dirs[opts->n_copy_dirs++] = optarg;
	break;
      case 'L':
	{
	  const char **v = realloc (opts->library_path,
				    (opts->n_library_path + 1) * sizeof *v);
	  if (v == NULL)
	    {
	      fprintf (stderr, "%s: out of memory\n", program_name);
	      return EXIT_FAILURE;
	    }
	  opts->library_path = v;
	  opts->library_path[opts->n_library_path++] = optarg;
	}
	break;
      case 'v':
	opts->verbose = true;
	break;
      case 'h':
	usage (stdout, EXIT_SUCCESS);
	break;
      case 'V':
	print_version (program_name);
	break;
      default:
	fprintf (stderr, "Try '%s --help' for more information.\n",
		 program_name);
	return EXIT_FAILURE;
      }

  /* The profiles are read once every --copy-dir is known.  */
  opts->used.copy_dirs = opts->copy_dirs;
  opts->used.n_copy_dirs = opts->n_copy_dirs;
  for (size_t i = 0; i < opts->n_profiles; i++)
    {
      char *err = NULL;
      if (!profile_read (&opts->used, opts->profiles[i], &err))
	{
	  file_error (opts->profiles[i], "%s",
		      err != NULL ? err : "cannot read");
	  free (err);
	  return EXIT_FAILURE;
	}
    }
  return -1;
}

/* Exit with the usage when the operands (from optind of ARGC) do not
   suit OPTS.  */

static void
check_operands (const struct options *opts, int argc)
{
  if (optind >= argc)
    {
      fprintf (stderr, "%s: no input file\n", program_name);
      usage (stderr, EXIT_FAILURE);
    }
  if (opts->action == ACTION_REWRITE
      && (argc - optind > (opts->whole_program || opts->output ? 1 : 2)))
    {
      fprintf (stderr, "%s: too many file names\n", program_name);
      usage (stderr, EXIT_FAILURE);
    }
  if (opts->whole_program && opts->output == NULL)
    {
      fprintf (stderr, "%s: --whole-program needs -o DIR\n", program_name);
      usage (stderr, EXIT_FAILURE);
    }
}

/* Rewrite the one object that the operands of ARGV name: the input,
   and the output (-o, the second operand, or the input itself).  */

static int
rewrite_single (const struct options *opts, int argc, char **argv)
{
  const char *in = argv[optind];
  const char *out = opts->output != NULL ? opts->output
		    : optind + 1 < argc ? argv[optind + 1] : in;
  struct mips_object obj;
  char *err = NULL;
  bool main_program;

  if (!object_open (in, &obj, &err))
    {
      file_error (in, "%s", err != NULL ? err : "cannot read");
      free (err);
      return 1;
    }
  main_program = obj.e_type == ET_EXEC || obj.pie;
  object_close (&obj);
  return rewrite_one (opts, in, out, main_program, 0);
}

/* Settings of glibc's malloc for profcopy's pattern of allocation.  */

static void
tune_malloc (void)
{
#if defined M_MMAP_THRESHOLD && defined M_TRIM_THRESHOLD
  /* The analysis allocates, zeroes and frees large arrays object after
     object.  Taken from the heap and never given back, their pages are
     faulted in once; as separate mappings (glibc's default above
     128 KiB) every one costs its page faults again.  */
  mallopt (M_MMAP_THRESHOLD, 32 * 1024 * 1024);
  mallopt (M_TRIM_THRESHOLD, 1024 * 1024 * 1024);
#endif
#ifdef M_ARENA_MAX
  /* The estimate's thread (plan/plan.c) allocates from the same heap,
     whose pages are already faulted in, not from an arena of its
     own.  */
  mallopt (M_ARENA_MAX, 1);
#endif
}

int
main (int argc, char **argv)
{
  struct options opts = { .action = ACTION_REWRITE,
			  .sysroot = PROFCOPY_DEFAULT_SYSROOT };
  int status;

  tune_malloc ();
  elf_write_cleanup_on_signals ();
  if (argc > 0 && argv[0] != NULL && argv[0][0] != '\0')
    {
      const char *slash = strrchr (argv[0], '/');
      program_name = slash != NULL ? slash + 1 : argv[0];
      /* getopt's messages start with argv[0]: the name, not the path.  */
      argv[0] = (char *) program_name;
    }
  status = parse_options (argc, argv, &opts);
  if (status >= 0)
    return status;
  check_operands (&opts, argc);

  status = 0;
  if (opts.action == ACTION_REWRITE && opts.whole_program)
    status = whole_program (&opts, argv[optind]);
  else if (opts.action == ACTION_REWRITE)
    status = rewrite_single (&opts, argc, argv);
  else
    for (int i = optind; i < argc; i++)
      {
	if (argc - optind > 1)
	  printf ("%s:\n", argv[i]);
	status |= process_file (&opts, argv[i]);
      }
  free (opts.library_path);
  profile_set_free (&opts.used);
  free (opts.profiles);
  free (opts.copy_dirs);
  return status ? EXIT_FAILURE : EXIT_SUCCESS;
}
