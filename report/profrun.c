/* profrun.c -- profile a MIPS program in one command: rewrite it and its
   libraries (cached), run the copy, report.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   As `valgrind --tool=callgrind PROG' does in one step what profcopy,
   qemu and profreport do in three: the byte order of PROG chooses the
   sysroot, the runtime and qemu-mips or qemu-mipsel; `profcopy
   --whole-program' writes the copies into a cache directory named by a
   hash of every input (the program, the objects it needs, the runtime,
   profcopy's version and options), so that a second run of unchanged
   files rewrites nothing; the copy runs with the user's arguments,
   standard streams and environment, each process writing its own
   profile; profreport prints its report of them on standard error (the
   program's output stays alone on standard output).  profrun exits as
   the program did.  */

#include <config.h>

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "errmsg.h"
#include "profrun.h"
#include "version.h"

#ifndef PROFCOPY_RUNTIME_DIR
# define PROFCOPY_RUNTIME_DIR "/usr/local/lib/profcopy"
#endif

const char *program_name = "profrun";

static void usage (FILE *stream, int status) __attribute__ ((noreturn));

static void
usage (FILE *stream, int status)
{
  fprintf (stream, "Usage: %s [option(s)] program [argument(s)]\n",
	   program_name);
  fputs ("\
 Profile a MIPS o32 program and every shared object it loads, libc\n\
 included, in one command: rewrite them with profcopy --whole-program\n\
 (into a cache, reused while the files are unchanged), run the copy\n\
 under qemu-mips or qemu-mipsel (by the program's byte order) with the\n\
 arguments given, and print profreport's report of its profiles on\n\
 standard error.  The exit status is the program's.\n\
 The options are:\n\
      --sysroot=DIR              The program's root: its libraries, and\n\
                                   qemu's -L (default: /usr/mips-linux-gnu\n\
                                   or /usr/mipsel-linux-gnu by byte order;\n\
                                   / with --native)\n\
      --runtime=FILE             The runtime library (default: the installed\n\
                                   one of the program's byte order, else\n\
                                   the build tree's)\n\
      --cache=DIR                Keep the profiled copies in DIR (default:\n\
                                   $PROFCOPY_CACHE, else\n\
                                   $XDG_CACHE_HOME/profcopy or\n\
                                   ~/.cache/profcopy)\n\
      --profile-dir=DIR          Write the profiles into DIR, one per\n\
                                   process, PROGRAM.PID.prof (default: .)\n\
      --qemu=PROGRAM             Run the copy with PROGRAM (default:\n\
                                   qemu-mips or qemu-mipsel)\n\
      --native                   Run the copy directly, as on a MIPS board\n\
  -j, --jobs=N                   Rewrite N objects at once\n\
      --no-report                Write the profiles but print no report\n\
  -v, --verbose                  Say what is rewritten, run and reported\n\
 Options of profreport, passed on to it (see profreport --help):\n\
      --blocks --calls --lines --zeros --no-demangle\n\
      --format=FORMAT --object=PATTERN --function=PATTERN\n\
      --dot=FILE --callgrind=FILE --gcov=DIR --lcov=FILE\n\
      --annotate=PATTERN\n\
      --node-thres=PCT --edge-thres=PCT\n\
  -o, --output=FILE              Write the report to FILE\n\
  -h, --help                     Display this information\n\
  -V, --version                  Display this program's version number\n",
	 stream);
  if (status == EXIT_SUCCESS)
    fprintf (stream, "Report bugs to <%s>.\n", PACKAGE_BUGREPORT);
  exit (status);
}

enum option_code
{
  OPTION_CACHE = 256,
  OPTION_NATIVE,
  OPTION_NO_REPORT,
  OPTION_PROFILE_DIR,
  OPTION_QEMU,
  OPTION_RUNTIME,
  OPTION_SYSROOT,
  OPTION_REPORT			/* Passed on to profreport.  */
};

static const struct option long_options[] = {
  { "annotate", required_argument, NULL, OPTION_REPORT },
  { "blocks", no_argument, NULL, OPTION_REPORT },
  { "cache", required_argument, NULL, OPTION_CACHE },
  { "callgrind", required_argument, NULL, OPTION_REPORT },
  { "calls", no_argument, NULL, OPTION_REPORT },
  { "dot", required_argument, NULL, OPTION_REPORT },
  { "edge-thres", required_argument, NULL, OPTION_REPORT },
  { "format", required_argument, NULL, OPTION_REPORT },
  { "function", required_argument, NULL, OPTION_REPORT },
  { "gcov", required_argument, NULL, OPTION_REPORT },
  { "help", no_argument, NULL, 'h' },
  { "jobs", required_argument, NULL, 'j' },
  { "lcov", required_argument, NULL, OPTION_REPORT },
  { "lines", no_argument, NULL, OPTION_REPORT },
  { "native", no_argument, NULL, OPTION_NATIVE },
  { "no-demangle", no_argument, NULL, OPTION_REPORT },
  { "no-report", no_argument, NULL, OPTION_NO_REPORT },
  { "node-thres", required_argument, NULL, OPTION_REPORT },
  { "object", required_argument, NULL, OPTION_REPORT },
  { "output", required_argument, NULL, 'o' },
  { "profile-dir", required_argument, NULL, OPTION_PROFILE_DIR },
  { "qemu", required_argument, NULL, OPTION_QEMU },
  { "runtime", required_argument, NULL, OPTION_RUNTIME },
  { "sysroot", required_argument, NULL, OPTION_SYSROOT },
  { "verbose", no_argument, NULL, 'v' },
  { "version", no_argument, NULL, 'V' },
  { "zeros", no_argument, NULL, OPTION_REPORT },
  { NULL, 0, NULL, 0 }
};

/* A malloc'd copy of the concatenation of the strings given, up to a
   NULL; exits when out of memory.  */

char *
concat (const char *first, ...)
{
  va_list ap;
  size_t len = 0;
  char *s, *p;

  va_start (ap, first);
  for (const char *a = first; a != NULL; a = va_arg (ap, const char *))
    len += strlen (a);
  va_end (ap);
  s = p = malloc (len + 1);
  if (s == NULL)
    {
      error_message ("out of memory");
      exit (EXIT_FAILURE);
    }
  va_start (ap, first);
  for (const char *a = first; a != NULL; a = va_arg (ap, const char *))
    p = stpcpy (p, a);
  va_end (ap);
  return s;
}

bool
is_file (const char *path)
{
  struct stat st;

  return stat (path, &st) == 0 && S_ISREG (st.st_mode);
}

bool
is_dir (const char *path)
{
  struct stat st;

  return stat (path, &st) == 0 && S_ISDIR (st.st_mode);
}

/* The program PATH names: as given when it has a slash, else the first
   regular file of that name in $PATH, then in SYSROOT's bin
   directories; NULL when there is none.  */

static char *
find_program (const char *path, const char *sysroot)
{
  const char *dirs = getenv ("PATH");
  static const char *const bins[] = { "/usr/bin", "/bin", "/usr/sbin",
				      "/sbin" };

  if (strchr (path, '/') != NULL)
    return is_file (path) ? concat (path, NULL) : NULL;
  for (const char *d = dirs; d != NULL && *d != '\0';)
    {
      const char *end = strchr (d, ':');
      size_t n = end != NULL ? (size_t) (end - d) : strlen (d);
      char *dir = strndup (d, n);
      char *p = dir != NULL ? concat (n > 0 ? dir : ".", "/", path, NULL)
	: NULL;
      free (dir);
      if (p != NULL && is_file (p))
	return p;
      free (p);
      d = end != NULL ? end + 1 : NULL;
    }
  for (size_t i = 0; sysroot != NULL && i < sizeof bins / sizeof bins[0];
       i++)
    {
      char *p = concat (sysroot, bins[i], "/", path, NULL);
      if (is_file (p))
	return p;
      free (p);
    }
  return NULL;
}

/* Read the ELF header of PATH: whether it is a MIPS ELF32 program, and
   its byte order into *BIG.  False with a message when it is not.  */

static bool
read_byte_order (const char *path, bool *big)
{
  unsigned char h[52];
  unsigned machine;
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  ssize_t n;

  if (fd < 0)
    {
      error_message ("%s: %s", path, strerror (errno));
      return false;
    }
  n = read (fd, h, sizeof h);
  close (fd);
  if (n != (ssize_t) sizeof h || memcmp (h, "\177ELF", 4) != 0)
    {
      error_message ("%s: not an ELF file", path);
      return false;
    }
  *big = h[5] == 2;
  machine = *big ? (unsigned) h[18] << 8 | h[19]
		 : (unsigned) h[19] << 8 | h[18];
  if (h[4] != 1 || (h[5] != 1 && h[5] != 2) || machine != 8)
    {
      error_message ("%s: not a MIPS ELF32 program (profrun profiles "
		     "MIPS o32 programs)", path);
      return false;
    }
  return true;
}

/* What comes before "profrun" in NAME (malloc'd), or NULL when NAME
   does not end in it.  */

static char *
name_prefix (const char *name)
{
  size_t n = strlen (name), k = strlen ("profrun");

  if (n < k || strcmp (name + n - k, "profrun") != 0)
    return NULL;
  return strndup (name, n - k);
}

/* Find profrun's own directory and name prefix, and the tools beside
   it: installed, they are PREFIXprofcopy and PREFIXprofreport in the
   same directory; in a build tree, ../profcopy/profcopy and
   profreport.  */

static bool
find_tools (struct run_setup *s, const char *argv0)
{
  char self[4096];
  ssize_t n = readlink ("/proc/self/exe", self, sizeof self - 1);
  const char *base, *at;

  if (n <= 0)
    {
      error_message ("cannot find its own file (/proc/self/exe)");
      return false;
    }
  self[n] = '\0';
  base = strrchr (self, '/') + 1;
  s->self_dir = strndup (self, (size_t) (base - self - 1));
  /* The name profrun was called by says the prefix, as binutils'
     cross tools are named; else its file's name does.  */
  at = strrchr (argv0, '/');
  at = at != NULL ? at + 1 : argv0;
  s->prefix = name_prefix (at);
  if (s->prefix == NULL)
    s->prefix = name_prefix (base);
  if (s->prefix == NULL)
    s->prefix = strdup ("");
  if (s->self_dir == NULL || s->prefix == NULL)
    {
      error_message ("out of memory");
      return false;
    }
  s->profcopy = concat (s->self_dir, "/", s->prefix, "profcopy", NULL);
  s->profreport = concat (s->self_dir, "/", s->prefix, "profreport", NULL);
  if (!is_file (s->profcopy))
    {
      free (s->profcopy);
      s->profcopy = concat (s->self_dir, "/../profcopy/profcopy", NULL);
    }
  if (!is_file (s->profcopy) || !is_file (s->profreport))
    {
      error_message ("cannot find profcopy and profreport beside %s", self);
      return false;
    }
  return true;
}

/* Choose the sysroot, runtime and qemu of S's byte order.  */

static bool
choose_by_byte_order (struct run_setup *s, const struct run_options *o)
{
  const char *arch = s->big_endian ? "mips" : "mipsel";

  if (o->sysroot != NULL)
    s->sysroot = concat (o->sysroot, NULL);
  else if (o->native)
    s->sysroot = concat ("/", NULL);
  else
    s->sysroot = concat ("/usr/", arch, "-linux-gnu", NULL);
  if (!is_dir (s->sysroot))
    {
      error_message ("%s: no such directory: the %s-endian program's "
		     "sysroot; try --sysroot=DIR", s->sysroot,
		     s->big_endian ? "big" : "little");
      return false;
    }
  if (o->runtime != NULL)
    s->runtime = concat (o->runtime, NULL);
  else
    {
      s->runtime = concat (PROFCOPY_RUNTIME_DIR, "/", arch,
			   "/libprofcopy.so", NULL);
      if (!is_file (s->runtime))
	{
	  free (s->runtime);
	  s->runtime = concat (s->self_dir, "/../runtime/", arch,
			       "/libprofcopy.so", NULL);
	}
    }
  if (!is_file (s->runtime))
    {
      error_message ("no runtime for %s programs (%s); try --runtime=FILE",
		     arch, o->runtime != NULL ? o->runtime
		     : PROFCOPY_RUNTIME_DIR "/ARCH/libprofcopy.so");
      return false;
    }
  if (!o->native)
    s->qemu = concat (o->qemu != NULL ? o->qemu : s->big_endian
		      ? "qemu-mips" : "qemu-mipsel", NULL);
  return true;
}

/* Run ARGV (ARGV[0] searched in $PATH), its standard output to
   /dev/null when QUIET and to FD_OUT (when not -1) else; with the
   variable SETENV (NAME=VALUE, or NULL) added to the environment.
   Return its exit status as a shell gives it (128 + N for signal N),
   or -1 when it could not be run.  */

int
run (char *const *argv, bool quiet, int fd_out, const char *setenv_var)
{
  struct sigaction ign, old_int, old_quit;
  int status;
  pid_t pid;

  memset (&ign, 0, sizeof ign);
  ign.sa_handler = SIG_IGN;
  /* As system() does: a ^C goes to the program, profrun waits.  */
  sigaction (SIGINT, &ign, &old_int);
  sigaction (SIGQUIT, &ign, &old_quit);
  pid = fork ();
  if (pid == 0)
    {
      sigaction (SIGINT, &old_int, NULL);
      sigaction (SIGQUIT, &old_quit, NULL);
      if (quiet)
	{
	  int null = open ("/dev/null", O_WRONLY);
	  if (null >= 0)
	    dup2 (null, STDOUT_FILENO);
	}
      else if (fd_out >= 0)
	dup2 (fd_out, STDOUT_FILENO);
      if (setenv_var != NULL)
	putenv ((char *) setenv_var);
      execvp (argv[0], argv);
      fprintf (stderr, "%s: %s: %s\n", program_name, argv[0],
	       strerror (errno));
      _exit (127);
    }
  status = -1;
  if (pid > 0)
    while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
      ;
  sigaction (SIGINT, &old_int, NULL);
  sigaction (SIGQUIT, &old_quit, NULL);
  if (pid < 0)
    {
      error_message ("cannot run %s: %s", argv[0], strerror (errno));
      return -1;
    }
  if (WIFEXITED (status))
    return WEXITSTATUS (status);
  if (WIFSIGNALED (status))
    return 128 + WTERMSIG (status);
  return -1;
}

/* Whether file name F is NAME.PID.prof or NAME.PID.N.prof: a profile
   that PROFCOPY_OUTPUT's NAME.%p.prof names (N for later images of one
   process).  */

static bool
profile_name (const char *f, const char *name)
{
  size_t n = strlen (name);
  const char *p = f + n;
  int dots = 0;

  if (strncmp (f, name, n) != 0 || *p != '.')
    return false;
  while (*p == '.' && p[1] >= '0' && p[1] <= '9' && dots < 2)
    {
      p++;
      while (*p >= '0' && *p <= '9')
	p++;
      dots++;
    }
  return dots > 0 && strcmp (p, ".prof") == 0;
}

static bool
not_before (const struct timespec *t, const struct timespec *start)
{
  return t->tv_sec > start->tv_sec
	 || (t->tv_sec == start->tv_sec && t->tv_nsec >= start->tv_nsec);
}

/* The profiles of NAME in DIR written since START, into a malloc'd
   array of *N malloc'd paths.  */

static char **
new_profiles (const char *dir, const char *name,
	      const struct timespec *start, size_t *n)
{
  DIR *d = opendir (dir);
  struct dirent *e;
  char **paths = NULL;
  size_t n_alloc = 0;

  *n = 0;
  if (d == NULL)
    return NULL;
  while ((e = readdir (d)) != NULL)
    {
      struct stat st;
      char *path;
      if (!profile_name (e->d_name, name))
	continue;
      path = concat (dir, "/", e->d_name, NULL);
      if (stat (path, &st) != 0 || !S_ISREG (st.st_mode)
	  || !not_before (&st.st_mtim, start))
	{
	  free (path);
	  continue;
	}
      if (*n == n_alloc)
	{
	  char **grown;
	  n_alloc = n_alloc != 0 ? 2 * n_alloc : 16;
	  grown = realloc (paths, n_alloc * sizeof *paths);
	  if (grown == NULL)
	    {
	      free (path);
	      break;
	    }
	  paths = grown;
	}
      paths[(*n)++] = path;
    }
  closedir (d);
  return paths;
}

int
main (int argc, char **argv)
{
  struct run_options o = { .profile_dir = ".", .report = true };
  struct run_setup s;
  struct timespec start;
  char **prog_argv, *output_var, *template, **profiles, **rargv;
  const char *argv0 = NULL;
  size_t n_profiles, k = 0, n_prog = 0;
  int c, index = 0, status, rstatus;

  memset (&s, 0, sizeof s);
  if (argc > 0 && argv[0] != NULL && argv[0][0] != '\0')
    {
      const char *slash = strrchr (argv[0], '/');
      program_name = slash != NULL ? slash + 1 : argv[0];
    }
  /* getopt's messages start with argv[0]: the name, not the path.  */
  argv0 = argv[0];
  if (argc > 0)
    argv[0] = (char *) program_name;
  o.report_args = calloc ((size_t) argc + 1, sizeof *o.report_args);
  if (o.report_args == NULL)
    return EXIT_FAILURE;
  /* '+': the options end at the program's name; its own options are
     its own.  */
  while ((c = getopt_long (argc, argv, "+hj:o:vV", long_options, &index))
	 != -1)
    switch (c)
      {
      case OPTION_CACHE:
	o.cache = optarg;
	break;
      case OPTION_NATIVE:
	o.native = true;
	break;
      case OPTION_NO_REPORT:
	o.report = false;
	break;
      case OPTION_PROFILE_DIR:
	o.profile_dir = optarg;
	break;
      case OPTION_QEMU:
	o.qemu = optarg;
	break;
      case OPTION_RUNTIME:
	o.runtime = optarg;
	break;
      case OPTION_SYSROOT:
	o.sysroot = optarg;
	break;
      case OPTION_REPORT:
	/* For profreport, in its --NAME[=VALUE] form whichever way it was
	   given.  */
	o.report_args[o.n_report_args++]
	  = concat ("--", long_options[index].name, optarg != NULL ? "=" : "",
		    optarg != NULL ? optarg : "", NULL);
	break;
      case 'o':
	o.report_args[o.n_report_args++] = concat ("--output=", optarg, NULL);
	break;
      case 'j':
	o.jobs = optarg;
	break;
      case 'v':
	o.verbose = true;
	break;
      case 'h':
	usage (stdout, EXIT_SUCCESS);
      case 'V':
	print_version (program_name);
      default:
	fprintf (stderr, "Try '%s --help' for more information.\n",
		 program_name);
	return EXIT_FAILURE;
      }
  if (optind >= argc)
    return errmsg_usage (program_name, "no program given");
  prog_argv = argv + optind;

  if (!find_tools (&s, argv0 != NULL ? argv0 : program_name))
    return EXIT_FAILURE;
  s.program = find_program (prog_argv[0], o.sysroot);
  if (s.program == NULL)
    {
      error_message ("%s: no such program", prog_argv[0]);
      return EXIT_FAILURE;
    }
  s.name = strrchr (s.program, '/') != NULL ? strrchr (s.program, '/') + 1
	   : s.program;
  if (!read_byte_order (s.program, &s.big_endian)
      || !choose_by_byte_order (&s, &o)
      || !run_cache_copies (&s, &o)
      || !make_dirs (o.profile_dir))
    return EXIT_FAILURE;

  /* The copy, with the program's arguments.  */
  while (prog_argv[n_prog] != NULL)
    n_prog++;
  {
    char **cmd = calloc (n_prog + 4, sizeof *cmd);
    size_t m = 0;
    if (cmd == NULL)
      return EXIT_FAILURE;
    if (!o.native)
      {
	cmd[m++] = s.qemu;
	cmd[m++] = (char *) "-L";
	cmd[m++] = s.sysroot;
      }
    cmd[m++] = concat (s.cache_entry, "/", s.name, NULL);
    for (size_t i = 1; i < n_prog; i++)
      cmd[m++] = prog_argv[i];
    cmd[m] = NULL;
    template = concat (o.profile_dir, "/", s.name, ".%p.prof", NULL);
    output_var = concat ("PROFCOPY_OUTPUT=", template, NULL);
    if (o.verbose)
      fprintf (stderr, "%s: running %s%s%s, profiles %s\n", program_name,
	       o.native ? "" : s.qemu, o.native ? "" : " ", cmd[m - n_prog],
	       template);
    clock_gettime (CLOCK_REALTIME, &start);
    /* The file system's times may lag the clock by a tick.  */
    if (start.tv_nsec >= 50000000)
      start.tv_nsec -= 50000000;
    else
      {
	start.tv_sec--;
	start.tv_nsec += 950000000;
      }
    fflush (NULL);
    status = run (cmd, false, -1, output_var);
    free (cmd);
  }
  if (status < 0 || status == 127)
    return status < 0 ? EXIT_FAILURE : status;

  profiles = new_profiles (o.profile_dir, s.name, &start, &n_profiles);
  if (n_profiles == 0)
    {
      error_message ("%s wrote no profile into %s (did it exit by a signal "
		     "that cannot be caught?)", s.program, o.profile_dir);
      return status != 0 ? status : EXIT_FAILURE;
    }
  if (!o.report)
    return status;

  /* The report, on standard error unless -o says where.  */
  rargv = calloc (o.n_report_args + n_profiles + 4, sizeof *rargv);
  if (rargv == NULL)
    return EXIT_FAILURE;
  rargv[k++] = s.profreport;
  rargv[k++] = concat ("--sysroot=", s.sysroot, NULL);
  for (size_t i = 0; i < o.n_report_args; i++)
    rargv[k++] = (char *) o.report_args[i];
  for (size_t i = 0; i < n_profiles; i++)
    rargv[k++] = profiles[i];
  rargv[k] = NULL;
  fprintf (stderr, "%s: %zu profile%s of %s (%s)\n", program_name, n_profiles,
	   n_profiles == 1 ? "" : "s", s.name, template);
  fflush (stderr);
  rstatus = run (rargv, false, STDERR_FILENO, NULL);
  if (rstatus != 0)
    error_message ("profreport failed (status %d)", rstatus);
  return status != 0 ? status : rstatus != 0 ? EXIT_FAILURE : 0;
}
