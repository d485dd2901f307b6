/* whole.c -- --whole-program: find the shared objects a program needs,
   rewrite it and them, several at once in child processes, and copy
   the runtime beside them.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <elf.h>

#include "cli.h"
#include "elf-write.h"
#include "libsearch.h"
#include "object.h"

/* The path of DIR/NAME, malloc'd; NAME's directories are dropped.  */

static char *
path_in (const char *dir, const char *name)
{
  const char *base = strrchr (name, '/');
  size_t n = strlen (dir);
  char *p;

  if (asprintf (&p, "%s%s%s", dir, n > 0 && dir[n - 1] == '/' ? "" : "/",
		base != NULL ? base + 1 : name) < 0)
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

/* The path of the I-th object of a whole-program rewrite of EXE whose
   libraries are CLOSURE: the program, its libraries, then musl's
   dynamic linker.  */

static const char *
object_path (const char *exe, const struct needed_closure *closure, size_t i)
{
  return i == 0 ? exe : i <= closure->n_libs ? closure->libs[i - 1].path
	 : closure->loader.path;
}

/* The absolute path of PATH (relative to the working directory), not
   resolving its links, malloc'd; NULL when out of memory or when the
   working directory is unknown.  */

static char *
absolute_path (const char *path)
{
  char *cwd, *abs;

  if (path[0] == '/')
    return strdup (path);
  cwd = getcwd (NULL, 0);
  if (cwd == NULL || asprintf (&abs, "%s/%s", cwd, path) < 0)
    abs = NULL;
  free (cwd);
  return abs;
}

/* The index in the symbol scope (struct options's SCOPE) of the I-th
   library of CLOSURE: after the program and the runtime, and after
   musl's dynamic linker when the search order puts it before.  */

static size_t
lib_scope_index (const struct needed_closure *closure, size_t i)
{
  return 2 + i + (closure->has_loader && i >= closure->loader_at);
}

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
  size_t n = closure->n_libs + 2 + closure->has_loader;
  const char **paths = malloc (n * sizeof *paths);
  const char *bad = NULL;
  char *err = NULL;
  bool ok;

  memset (scope, 0, sizeof *scope);
  if (paths == NULL)
    return false;
  paths[0] = exe;
  paths[1] = runtime;
  for (size_t i = 0; i < closure->n_libs; i++)
    paths[lib_scope_index (closure, i)] = closure->libs[i].path;
  if (closure->has_loader)
    paths[2 + closure->loader_at] = closure->loader.path;
  ok = scope_build (scope, paths, n, &bad, &err);
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
   it is), from RUN_DIR when it is not NULL (--run-dir of a program
   linked with musl); a static executable (STATIC_EXE) needs no
   sysroot.  */

static void
say_written (const struct options *opts, const struct needed_closure *closure,
	     const char *program, const char *run_dir, bool big_endian,
	     bool static_exe)
{
  size_t n = closure->n_libs + closure->has_loader;
  const char *base = strrchr (program, '/');
  bool moved = run_dir != NULL;

  base = base != NULL ? base + 1 : program;
  if (static_exe)
    {
      printf ("%s: wrote %s, a static executable with the runtime inside;"
	      " run it with: qemu-%s %s\n", program_name, program,
	      big_endian ? "mips" : "mipsel", program);
      return;
    }
  printf ("%s: wrote %s with %zu shared object%s and the runtime; %s%s%srun"
	  " it with: qemu-%s%s%s %s%s%s\n", program_name, program, n,
	  n == 1 ? "" : "s", moved ? "move them to " : "",
	  moved ? run_dir : "", moved ? " and " : "",
	  big_endian ? "mips" : "mipsel",
	  opts->sysroot != NULL && opts->sysroot[0] != '\0' ? " -L " : "",
	  opts->sysroot != NULL ? opts->sysroot : "",
	  moved ? run_dir : "", moved && strcmp (run_dir, "/") != 0 ? "/" : "",
	  moved ? base : program);
}

/* Rewrite the program EXE and every shared object it needs into the
   directory OPTS->output, and copy the runtime there; musl's dynamic
   linker, which is also its C library, is rewritten there too, and the
   program's copy names that copy in its PT_INTERP.  With
   --counter-update=auto, all of them get single increments when none
   imports a function that starts threads, else atomic ones.  */

int
whole_program (const struct options *opts, const char *exe)
{
  struct mips_object obj;
  struct needed_closure closure;
  struct job *jobs;
  struct options chosen;
  struct symbol_scope scope;
  char *err = NULL, *out = NULL, *runtime = NULL, *interp = NULL;
  char *run_dir = NULL;
  size_t n_objects = 0;
  int status = 0;
  bool big_endian, static_exe, made_dir = false;

  if (!object_open (exe, &obj, &err))
    {
      file_error (exe, "%s", err != NULL ? err : "cannot read");
      free (err);
      return 1;
    }
  big_endian = obj.big_endian;
  static_exe = object_is_static (&obj);
  object_close (&obj);

  if (!find_needed (opts, exe, big_endian, &closure))
    return 1;
  for (size_t i = 0; i < closure.n_libs; i++)
    if (closure.libs[i].path == NULL)
      {
	file_error (exe, "%s (needed by %s): not found",
		    closure.libs[i].soname, closure.libs[i].requested_by);
	status = 1;
      }
  if (closure.has_loader && closure.loader.path == NULL)
    {
      loader_not_found (opts, exe, &closure.loader);
      status = 1;
    }
  if (status != 0)
    goto done;
  n_objects = closure.n_libs + 1 + closure.has_loader;
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

  if (closure.has_loader)
    {
      /* The copy of the program names the copy of its dynamic linker,
	 by an absolute path: the kernel and the loader take it as it
	 is.  */
      char *dir = opts->run_dir != NULL ? strdup (opts->run_dir)
		  : realpath (opts->output, NULL);
      if (dir == NULL && opts->run_dir == NULL)
	dir = absolute_path (opts->output);
      for (size_t n = dir != NULL ? strlen (dir) : 0; n > 1 && dir[n - 1] == '/';)
	dir[--n] = '\0';
      if (dir != NULL && strchr (dir, ':') != NULL)
	{
	  /* It is the copy's DT_RPATH too, where ':' separates.  */
	  file_error (opts->output, "a program linked with musl is profiled"
		      " in a directory named by its absolute path, which"
		      " must have no ':' (%s)", dir);
	  free (dir);
	  if (made_dir)
	    rmdir (opts->output);
	  status = 1;
	  goto done;
	}
      interp = dir != NULL ? path_in (dir, closure.loader.soname) : NULL;
      run_dir = dir;
      if (interp == NULL)
	goto nomem;
    }

  if (opts->update == UPDATE_AUTO)
    {
      /* Copied: the jobs rewrite with the mode chosen here.  */
      chosen = *opts;
      chosen.update = UPDATE_SINGLE;
      /* A static executable imports nothing: whether it starts threads
	 cannot be told from its imports.  */
      if (static_exe)
	{
	  chosen.update = UPDATE_ATOMIC;
	  if (opts->verbose)
	    fprintf (stderr, "%s: %s is a static executable: atomic "
		     "increments\n", program_name, exe);
	}
      for (size_t i = 0; i < n_objects && !static_exe; i++)
	{
	  const char *path = object_path (exe, &closure, i);
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
  if (scope.n_objects > 0 || interp != NULL)
    {
      if (opts != &chosen)
	chosen = *opts;
      if (scope.n_objects > 0)
	chosen.scope = &scope;
      chosen.interp = interp;
      opts = &chosen;
    }

  jobs = calloc (n_objects, sizeof *jobs);
  if (jobs == NULL)
    goto nomem;
  for (size_t i = 0; i < n_objects; i++)
    {
      jobs[i].in = object_path (exe, &closure, i);
      jobs[i].out = path_in (opts->output,
			     i == 0 ? exe : i <= closure.n_libs
			     ? closure.libs[i - 1].soname
			     : closure.loader.soname);
      jobs[i].main_program = i == 0;
      jobs[i].scope_index = i == 0 ? 0 : i <= closure.n_libs
			    ? lib_scope_index (&closure, i - 1)
			    : 2 + closure.loader_at;
      if (jobs[i].out == NULL)
	{
	  free_jobs (jobs, i);
	  goto nomem;
	}
    }
  status = run_jobs (opts, jobs, n_objects);
  scope_free (&scope);
  out = path_in (opts->output, RUNTIME_SONAME);
  if (out == NULL)
    status = 1;
  /* A static executable's copy has the runtime inside it.  */
  if (status == 0 && !static_exe && !elf_copy_file (runtime, out, &err))
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
      for (size_t i = 0; i < n_objects; i++)
	unlink (jobs[i].out);
      if (out != NULL)
	unlink (out);
      if (made_dir)
	rmdir (opts->output);
    }
  if (status == 0)
    say_written (opts, &closure, jobs[0].out,
		 opts->run_dir != NULL ? run_dir : NULL, big_endian,
		 static_exe);
  free_jobs (jobs, n_objects);
  if (out == NULL)
    goto nomem;
  goto done;

 nomem:
  fprintf (stderr, "%s: out of memory\n", program_name);
  status = 1;
 done:
  free (out);
  free (runtime);
  free (interp);
  free (run_dir);
  needed_closure_free (&closure);
  return status;
}
