/* profcopy.c -- rewrite MIPS programs and their shared objects with
   counting code.  This file holds the command line and the top-level
   flow: main -> parse options -> one action per input file.

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
#include <sys/stat.h>
#include <sys/wait.h>
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
#include "profile-read.h"
#include "rewrite.h"
#include "scope.h"
#include "version.h"

#ifndef PROFCOPY_DEFAULT_SYSROOT
#define PROFCOPY_DEFAULT_SYSROOT ""
#endif

#ifndef PROFCOPY_RUNTIME_DIR
#define PROFCOPY_RUNTIME_DIR "/usr/local/lib/profcopy"
#endif

/* The soname of the runtime that profiled programs load.  */
#define RUNTIME_SONAME "libprofcopy.so"

static const char *program_name = "profcopy";

enum action
{
  ACTION_REWRITE,
  ACTION_DUMP_RELOCS,
  ACTION_DUMP_BLOCKS,
  ACTION_LIST_NEEDED
};

/* How counters are incremented (--counter-update).  */
enum counter_update
{
  UPDATE_AUTO,			/* Single when no thread can run them.  */
  UPDATE_ATOMIC,
  UPDATE_SINGLE
};

/* Who carries a count out of a counter's low word (--counter-carry).  */
enum counter_carry
{
  CARRY_AUTO,			/* The watcher with --whole-program.  */
  CARRY_WATCHER,		/* The runtime's watcher thread.  */
  CARRY_INLINE			/* Every increment, with a test.  */
};

/* Everything the command line says.  */
struct options
{
  enum action action;
  const char *sysroot;
  const char **library_path;
  size_t n_library_path;
  bool verbose;
  bool whole_program;
  bool poison_original;
  bool all_blocks;
  bool calls;
  enum counter_update update;	/* --counter-update.  */
  enum counter_carry carry;	/* --counter-carry.  */
  const char *output;		/* -o: file, or directory with --whole-program.  */
  const char *runtime;		/* --runtime: the runtime library to copy.  */
  long jobs;			/* -j: objects rewritten at once, 0: one per
				   processor.  */
  struct profile_set used;	/* The profiles of --use-profile.  */
  const char **profiles;	/* Their names, N_PROFILES of them.  */
  size_t n_profiles;
  const char **copy_dirs;	/* --copy-dir, N_COPY_DIRS of them.  */
  size_t n_copy_dirs;
  /* With --whole-program: the closure's dynamic symbols, the program
     first, then the runtime, then the libraries (struct job's
     SCOPE_INDEX).  */
  const struct symbol_scope *scope;
};

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
                                   --whole-program (default: %s/mips[el]/%s)\n\
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

static void
file_error (const char *file, const char *format, ...)
{
  va_list ap;

  fprintf (stderr, "%s: %s: ", program_name, file);
  va_start (ap, format);
  vfprintf (stderr, format, ap);
  va_end (ap);
  fputc ('\n', stderr);
}

/* Print the shared objects FILE needs.  Return 0 if all were found.  */

static int
list_needed (const struct options *opts, const char *file, bool big_endian)
{
  struct lib_search search;
  struct needed_closure closure;
  char *err = NULL;
  int status = 0;

  search.sysroot = opts->sysroot;
  search.library_path = opts->library_path;
  search.n_library_path = opts->n_library_path;
  search.big_endian = big_endian;
  if (!lib_search_closure (&search, file, &closure, &err))
    {
      file_error (file, "%s", err != NULL ? err : "cannot read");
      free (err);
      return 1;
    }
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
  if (closure.n_missing > 0)
    for (size_t i = 0; i < closure.n_libs; i++)
      if (closure.libs[i].path == NULL)
	file_error (file, "%s (needed by %s): not found",
		    closure.libs[i].soname, closure.libs[i].requested_by);
  needed_closure_free (&closure);
  return status;
}

/* Whether OPTS have the runtime's watcher carry the counters' low
   words of an object (a program if MAIN_PROGRAM): only when asked for.
   The watcher is a thread that the program does not have of itself:
   signals may go to it, /proc/self/task shows it, and under QEMU it
   makes atomic increments slow; the default (auto) is the inline
   carry.  */

static bool
folded_carry (const struct options *opts, bool main_program)
{
  (void) main_program;
  return opts->carry == CARRY_WATCHER;
}

/* What -v says of FOLDED.  */

static const char *
carry_said (bool folded)
{
  return folded ? "low words carried by the runtime's watcher thread"
	 : "every increment carries out of its counter's low word";
}

/* Rewrite IN to OUT.  MAIN_PROGRAM: add the runtime and $ORIGIN to its
   dynamic section.  Return the exit status it earns.  */

static int
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

/* The path of DIR/NAME, malloc'd; NAME's directories are dropped.  */

static char *
path_in (const char *dir, const char *name)
{
  const char *base = strrchr (name, '/');
  char *p;

  if (asprintf (&p, "%s/%s", dir, base != NULL ? base + 1 : name) < 0)
    return NULL;
  return p;
}

/* One object of a whole-program rewrite, rewritten by a child process
   of its own when several run at once.  */
struct job
{
  const char *in;
  char *out;
  bool main_program;
  size_t scope_index;		/* In OPTS->scope.  */
  off_t size;			/* IN's size: the largest start first.  */
  pid_t pid;			/* 0: not started.  */
  FILE *log;			/* The child's standard error.  */
  int status;
  bool done;
};

static void
free_jobs (struct job *jobs, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      free (jobs[i].out);
      if (jobs[i].log != NULL)
	fclose (jobs[i].log);
    }
  free (jobs);
}

/* Start JOB in a child process that writes its messages to a file of
   its own; if no child can be made, rewrite it here and now.  */

static void
start_job (const struct options *opts, struct job *job)
{
  fflush (stdout);
  fflush (stderr);
  job->log = tmpfile ();
  job->pid = job->log != NULL ? fork () : -1;
  if (job->pid == 0)
    {
      int status;
      if (dup2 (fileno (job->log), STDERR_FILENO) < 0)
	_exit (1);
      status = rewrite_one (opts, job->in, job->out, job->main_program,
			    job->scope_index);
      fflush (stderr);
      _exit (status);
    }
  if (job->pid < 0)
    {
      if (job->log != NULL)
	fclose (job->log);
      job->log = NULL;
      job->status = rewrite_one (opts, job->in, job->out, job->main_program,
				 job->scope_index);
      job->done = true;
    }
}

/* Copy what JOB's child said to our standard error.  */

static void
print_job_log (struct job *job)
{
  char buf[4096];
  size_t n;

  if (job->log == NULL)
    return;
  rewind (job->log);
  while ((n = fread (buf, 1, sizeof buf, job->log)) > 0)
    fwrite (buf, 1, n, stderr);
  fflush (stderr);
}

static int
compare_job_size (const void *a, const void *b)
{
  const struct job *x = *(struct job *const *) a;
  const struct job *y = *(struct job *const *) b;

  if (x->size != y->size)
    return x->size > y->size ? -1 : 1;
  return x < y ? -1 : x > y;
}

/* Rewrite the N objects of JOBS, OPTS->jobs of them at once (one per
   processor when 0), the largest first.  Their messages come out in the
   order of JOBS whatever the order they finish in; after a failure no
   new object is started, as when they are rewritten one by one.  Return
   the exit status earned.  */

static int
run_jobs (const struct options *opts, struct job *jobs, size_t n)
{
  long width = opts->jobs;
  struct job **order;
  size_t next = 0, printed = 0;
  long running = 0;
  int status = 0;

  if (width == 0)
    {
      width = sysconf (_SC_NPROCESSORS_ONLN);
      if (width < 1)
	width = 1;
    }
  if (width == 1 || n == 1)
    {
      for (size_t i = 0; status == 0 && i < n; i++)
	status = rewrite_one (opts, jobs[i].in, jobs[i].out,
			      jobs[i].main_program, jobs[i].scope_index);
      return status;
    }
  order = malloc (n * sizeof *order);
  if (order == NULL)
    {
      fprintf (stderr, "%s: out of memory\n", program_name);
      return 1;
    }
  for (size_t i = 0; i < n; i++)
    {
      struct stat st;
      jobs[i].size = stat (jobs[i].in, &st) == 0 ? st.st_size : 0;
      order[i] = &jobs[i];
    }
  qsort (order, n, sizeof *order, compare_job_size);

  while (printed < n)
    {
      while (status == 0 && running < width && next < n)
	{
	  start_job (opts, order[next]);
	  if (order[next]->done)
	    status |= order[next]->status;
	  else
	    running++;
	  next++;
	}
      if (running > 0)
	{
	  int wstatus;
	  pid_t pid = wait (&wstatus);
	  if (pid < 0)
	    {
	      if (errno == EINTR)
		continue;
	      fprintf (stderr, "%s: wait: %s\n", program_name,
		       strerror (errno));
	      free (order);
	      return 1;
	    }
	  for (size_t i = 0; i < n; i++)
	    if (jobs[i].pid == pid && !jobs[i].done)
	      {
		jobs[i].done = true;
		running--;
		if (WIFEXITED (wstatus))
		  jobs[i].status = WEXITSTATUS (wstatus);
		else
		  {
		    jobs[i].status = 1;
		    fprintf (jobs[i].log, "%s: %s: the rewrite was killed "
			     "by signal %d\n", program_name, jobs[i].in,
			     WTERMSIG (wstatus));
		  }
		status |= jobs[i].status;
	      }
	}
      /* Messages in the order of JOBS; the objects that will not start
	 (after a failure) say nothing.  */
      while (printed < n)
	{
	  if (jobs[printed].done)
	    print_job_log (&jobs[printed]);
	  else if (jobs[printed].pid != 0 || status == 0)
	    break;
	  printed++;
	}
    }
  free (order);
  return status;
}

/* Functions of the C library that start threads: pthread_create and
   C11's thrd_create, clone, and those whose notifications or requests a
   thread of the library serves (SIGEV_THREAD timers and message queue
   notifications, POSIX asynchronous I/O, getaddrinfo_a).  */
static const char *const thread_starters[] = {
  "aio_fsync", "aio_fsync64", "aio_read", "aio_read64", "aio_write",
  "aio_write64", "clone", "getaddrinfo_a", "lio_listio", "lio_listio64",
  "mq_notify", "pthread_create", "thrd_create", "timer_create", NULL
};

/* Set *NAME to a function of thread_starters that the object at PATH
   imports (an undefined dynamic symbol), or NULL if none.  False, with
   *ERRMSG, when PATH cannot be read.  */

static bool
thread_starter (const char *path, const char **name, char **errmsg)
{
  struct mips_object obj;

  *name = NULL;
  if (!object_read (path, &obj, errmsg))
    return false;
  for (size_t i = 0; i < obj.n_symbols && *name == NULL; i++)
    {
      const struct object_symbol *sym = &obj.symbols[i];
      if (!sym->dynamic || sym->shndx != SHN_UNDEF || sym->name == NULL)
	continue;
      for (size_t k = 0; thread_starters[k] != NULL; k++)
	if (strcmp (sym->name, thread_starters[k]) == 0)
	  {
	    *name = thread_starters[k];
	    break;
	  }
    }
  object_close (&obj);
  return true;
}

/* Rewrite the program EXE and every shared object it needs into the
   directory OPTS->output, and copy the runtime there.  With
   --counter-update=auto, all of them get single increments when none
   imports a function that starts threads, else atomic ones.  */

/* Fill *SCOPE with the dynamic symbols of the program EXE, the runtime
   RUNTIME and the libraries of CLOSURE, in the order the dynamic linker
   searches them; empty (and -v says why) when one cannot be read, as
   the runtime may not be yet (its copy then fails).  False when out of
   memory.  */

static bool
build_scope (const struct options *opts, const char *exe,
	     const char *runtime, const struct needed_closure *closure,
	     struct symbol_scope *scope)
{
  const char **paths = malloc ((closure->n_libs + 2) * sizeof *paths);
  const char *bad = NULL;
  char *err = NULL;
  bool ok;

  memset (scope, 0, sizeof *scope);
  if (paths == NULL)
    return false;
  paths[0] = exe;
  paths[1] = runtime;
  for (size_t i = 0; i < closure->n_libs; i++)
    paths[i + 2] = closure->libs[i].path;
  ok = scope_build (scope, paths, closure->n_libs + 2, &bad, &err);
  free (paths);
  if (!ok && bad == NULL)
    {
      free (err);
      return false;
    }
  if (!ok && opts->verbose)
    fprintf (stderr, "%s: %s: %s: calls into exported functions taken as "
	     "ways out\n", program_name, bad, err != NULL ? err : "?");
  free (err);
  return true;
}

/* Check that RUNTIME is a runtime for programs of the byte order
   BIG_ENDIAN: a MIPS shared object of that order.  Say why not, with
   what to do, and return false if it is not.  */

static bool
check_runtime (const char *runtime, bool big_endian)
{
  struct mips_object obj;
  char *err = NULL;
  bool ok;

  if (!object_open (runtime, &obj, &err))
    {
      file_error (runtime, "cannot read the runtime: %s; build it, or name"
		  " libprofcopy.so for %s with --runtime=FILE",
		  err != NULL ? err : "out of memory",
		  big_endian ? "mips" : "mipsel");
      free (err);
      return false;
    }
  ok = obj.big_endian == big_endian && obj.e_type == ET_DYN;
  if (!ok)
    file_error (runtime, "%s, not a runtime for %s programs; name"
		" libprofcopy.so for %s with --runtime=FILE",
		obj.e_type != ET_DYN ? "not a shared object"
		: obj.big_endian ? "a big-endian runtime"
		: "a little-endian runtime",
		big_endian ? "big-endian" : "little-endian",
		big_endian ? "mips" : "mipsel");
  object_close (&obj);
  return ok;
}

/* Say on standard output what a --whole-program rewrite wrote, for the
   CLOSURE of the program PROGRAM (its copy), and how to run it: under
   the qemu-user of the byte order (BIG_ENDIAN), with the sysroot the
   libraries came from (on a board of that byte order, the copy runs as
   it is).  */

static void
say_written (const struct options *opts, const struct needed_closure *closure,
	     const char *program, bool big_endian)
{
  printf ("%s: wrote %s with %zu shared object%s and the runtime; run it"
	  " with: qemu-%s%s%s %s\n", program_name, program, closure->n_libs,
	  closure->n_libs == 1 ? "" : "s", big_endian ? "mips" : "mipsel",
	  opts->sysroot != NULL && opts->sysroot[0] != '\0' ? " -L " : "",
	  opts->sysroot != NULL ? opts->sysroot : "", program);
}

static int
whole_program (const struct options *opts, const char *exe)
{
  struct mips_object obj;
  struct lib_search search;
  struct needed_closure closure;
  struct job *jobs;
  struct options chosen;
  struct symbol_scope scope;
  char *err = NULL, *out = NULL, *runtime = NULL;
  int status = 0;
  bool big_endian, made_dir = false;

  if (!object_open (exe, &obj, &err))
    {
      file_error (exe, "%s", err != NULL ? err : "cannot read");
      free (err);
      return 1;
    }
  big_endian = obj.big_endian;
  object_close (&obj);

  search.sysroot = opts->sysroot;
  search.library_path = opts->library_path;
  search.n_library_path = opts->n_library_path;
  search.big_endian = big_endian;
  if (!lib_search_closure (&search, exe, &closure, &err))
    {
      file_error (exe, "%s", err != NULL ? err : "cannot read");
      free (err);
      return 1;
    }
  for (size_t i = 0; i < closure.n_libs; i++)
    if (closure.libs[i].path == NULL)
      {
	file_error (exe, "%s (needed by %s): not found",
		    closure.libs[i].soname, closure.libs[i].requested_by);
	status = 1;
      }
  if (status != 0)
    goto done;
  if (opts->runtime != NULL)
    runtime = strdup (opts->runtime);
  else if (asprintf (&runtime, "%s/%s/%s", PROFCOPY_RUNTIME_DIR,
		     big_endian ? "mips" : "mipsel", RUNTIME_SONAME) < 0)
    runtime = NULL;
  if (runtime == NULL)
    goto nomem;
  if (!check_runtime (runtime, big_endian))
    {
      status = 1;
      goto done;
    }
  if (mkdir (opts->output, 0777) == 0)
    made_dir = true;
  else if (errno != EEXIST)
    {
      file_error (opts->output, "%s", strerror (errno));
      status = 1;
      goto done;
    }

  if (opts->update == UPDATE_AUTO)
    {
      /* Copied: the jobs rewrite with the mode chosen here.  */
      chosen = *opts;
      chosen.update = UPDATE_SINGLE;
      for (size_t i = 0; i <= closure.n_libs; i++)
	{
	  const char *path = i == 0 ? exe : closure.libs[i - 1].path;
	  const char *name = NULL;
	  if (!thread_starter (path, &name, &err))
	    {
	      file_error (path, "%s", err != NULL ? err : "cannot read");
	      free (err);
	      status = 1;
	      goto done;
	    }
	  if (name != NULL)
	    {
	      chosen.update = UPDATE_ATOMIC;
	      if (opts->verbose)
		fprintf (stderr, "%s: %s imports %s: atomic increments\n",
			 program_name, path, name);
	      break;
	    }
	}
      if (opts->verbose && chosen.update == UPDATE_SINGLE)
	fprintf (stderr, "%s: no object imports a function that starts "
		 "threads: single increments\n", program_name);
      opts = &chosen;
    }
  if (opts->verbose)
    fprintf (stderr, "%s: %s\n", program_name,
	     carry_said (folded_carry (opts, true)));

  if (!build_scope (opts, exe, runtime, &closure, &scope))
    goto nomem;
  if (scope.n_objects > 0)
    {
      if (opts != &chosen)
	chosen = *opts;
      chosen.scope = &scope;
      opts = &chosen;
    }

  jobs = calloc (closure.n_libs + 1, sizeof *jobs);
  if (jobs == NULL)
    goto nomem;
  for (size_t i = 0; i <= closure.n_libs; i++)
    {
      jobs[i].in = i == 0 ? exe : closure.libs[i - 1].path;
      jobs[i].out = path_in (opts->output,
			     i == 0 ? exe : closure.libs[i - 1].soname);
      jobs[i].main_program = i == 0;
      jobs[i].scope_index = i == 0 ? 0 : i + 1;
      if (jobs[i].out == NULL)
	{
	  free_jobs (jobs, i);
	  goto nomem;
	}
    }
  status = run_jobs (opts, jobs, closure.n_libs + 1);
  scope_free (&scope);
  out = path_in (opts->output, RUNTIME_SONAME);
  if (out == NULL)
    status = 1;
  if (status == 0 && !elf_copy_file (runtime, out, &err))
    {
      file_error (runtime, "cannot copy the runtime: %s",
		  err != NULL ? err : "out of memory");
      free (err);
      status = 1;
    }
  if (status != 0)
    {
      /* Nothing half done is left: not the objects that were written,
	 nor the directory if this run made it.  */
      for (size_t i = 0; i <= closure.n_libs; i++)
	unlink (jobs[i].out);
      if (out != NULL)
	unlink (out);
      if (made_dir)
	rmdir (opts->output);
    }
  if (status == 0)
    say_written (opts, &closure, jobs[0].out, big_endian);
  free_jobs (jobs, closure.n_libs + 1);
  if (out == NULL)
    goto nomem;
  goto done;

 nomem:
  fprintf (stderr, "%s: out of memory\n", program_name);
  status = 1;
 done:
  free (out);
  free (runtime);
  needed_closure_free (&closure);
  return status;
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
