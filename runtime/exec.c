/* exec.c -- the exec functions of libprofcopy.so: write the profile,
   then replace the process image.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   libprofcopy.so is the first DT_NEEDED of a profiled program, so these
   definitions come before libc's in the lookup order.  They do not call
   libc's versions (finding them with dlsym could allocate): execve is
   the system call itself, and the PATH search of the p-variants is done
   here, as POSIX and glibc describe it, with buffers on the stack.
   Calls that libc makes internally (posix_spawn, system, popen) are not
   seen; their children start from scratch and have no counts of their
   own to lose.  */

#define _GNU_SOURCE 1

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "profile-format.h"
#include "runtime.h"
#include "trace.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* The search path when PATH is unset, as glibc's confstr (_CS_PATH).  */
#define DEFAULT_PATH "/bin:/usr/bin"

/* Replace the process image without writing the profile.  */

static int
raw_execve (const char *path, char *const argv[], char *const envp[])
{
  return syscall (SYS_execve, path, argv, envp);
}

/* Run the script PATH, which the kernel refused with ENOEXEC, with
   /bin/sh, as execvp does.  ARGV and ENVP are the original
   arguments.  */

static int
exec_script (const char *path, char *const argv[], char *const envp[])
{
  size_t argc = 0;

  while (argv[argc] != NULL)
    argc++;
  {
    char *sh_argv[argc + 2];
    sh_argv[0] = (char *) "/bin/sh";
    sh_argv[1] = (char *) path;
    for (size_t i = 1; i <= argc; i++)
      sh_argv[i + 1] = argv[i];
    if (argc == 0)
      sh_argv[2] = NULL;
    return raw_execve (sh_argv[0], sh_argv, envp);
  }
}

/* Search PATH for FILE and execute it with ARGV and ENVP, without
   writing the profile.  */

static int
search_and_exec (const char *file, char *const argv[], char *const envp[])
{
  const char *path, *p;
  size_t file_len = strlen (file);
  bool got_eacces = false;

  if (file[0] == '\0')
    {
      errno = ENOENT;
      return -1;
    }
  if (strchr (file, '/') != NULL)
    {
      raw_execve (file, argv, envp);
      if (errno == ENOEXEC)
	exec_script (file, argv, envp);
      return -1;
    }
  if (file_len >= PATH_MAX)
    {
      errno = ENAMETOOLONG;
      return -1;
    }

  path = getenv ("PATH");
  if (path == NULL)
    path = DEFAULT_PATH;
  for (p = path; ; p++)
    {
      char buf[PATH_MAX];
      const char *end = strchr (p, ':');
      size_t dir_len = end != NULL ? (size_t) (end - p) : strlen (p);

      /* An empty element is the current directory.  */
      if (dir_len + 1 + file_len < sizeof buf)
	{
	  size_t len = 0;
	  if (dir_len > 0)
	    {
	      memcpy (buf, p, dir_len);
	      len = dir_len;
	      buf[len++] = '/';
	    }
	  memcpy (buf + len, file, file_len + 1);
	  raw_execve (buf, argv, envp);
	  switch (errno)
	    {
	    case EACCES:
	      got_eacces = true;
	      break;
	    case ENOEXEC:
	      exec_script (buf, argv, envp);
	      return -1;
	    case ENOENT:
	    case ENOTDIR:
	    case ESTALE:
	    case ENODEV:
	    case ETIMEDOUT:
	    case ENAMETOOLONG:
	      break;
	    default:
	      return -1;
	    }
	}
      if (end == NULL)
	break;
      p = end;
    }
  errno = got_eacces ? EACCES : ENOENT;
  return -1;
}

PCRT_EXPORT int
execve (const char *path, char *const argv[], char *const envp[])
{
  pcrt_trace_flush ();
  pcrt_write_profile (PCPROF_REASON_EXEC, 0);
  return raw_execve (path, argv, envp);
}

PCRT_EXPORT int
execv (const char *path, char *const argv[])
{
  pcrt_trace_flush ();
  pcrt_write_profile (PCPROF_REASON_EXEC, 0);
  return raw_execve (path, argv, environ);
}

PCRT_EXPORT int
execvpe (const char *file, char *const argv[], char *const envp[])
{
  pcrt_trace_flush ();
  pcrt_write_profile (PCPROF_REASON_EXEC, 0);
  return search_and_exec (file, argv, envp);
}

PCRT_EXPORT int
execvp (const char *file, char *const argv[])
{
  pcrt_trace_flush ();
  pcrt_write_profile (PCPROF_REASON_EXEC, 0);
  return search_and_exec (file, argv, environ);
}

PCRT_EXPORT int
fexecve (int fd, char *const argv[], char *const envp[])
{
  pcrt_trace_flush ();
  pcrt_write_profile (PCPROF_REASON_EXEC, 0);
#ifdef SYS_execveat
  syscall (SYS_execveat, fd, "", argv, envp, AT_EMPTY_PATH);
  if (errno != ENOSYS)
    return -1;
#endif
  {
    /* Kernels before 3.19: go through /proc.  */
    char buf[32] = "/proc/self/fd/";
    size_t len = strlen (buf);
    char digits[12];
    size_t n = 0;
    unsigned v = (unsigned) fd;

    if (fd < 0)
      {
	errno = EBADF;
	return -1;
      }
    do
      {
	digits[n++] = '0' + v % 10;
	v /= 10;
      }
    while (v != 0);
    while (n > 0)
      buf[len++] = digits[--n];
    buf[len] = '\0';
    return raw_execve (buf, argv, envp);
  }
}

/* The list forms.  Each counts its arguments, copies them into an array
   on the stack and calls the matching vector form.  */

/* Count the arguments, the first one included, up to the terminating
   null pointer in AP (which is consumed).  As in glibc, the first
   argument itself must not be null.  */

static size_t
count_args (va_list ap)
{
  size_t argc = 1;

  while (va_arg (ap, char *) != NULL)
    argc++;
  return argc;
}

/* Fill ARGV (ARGC + 1 slots) from FIRST and AP.  */

static void
fill_args (char **argv, size_t argc, const char *first, va_list ap)
{
  argv[0] = (char *) first;
  for (size_t i = 1; i < argc; i++)
    argv[i] = va_arg (ap, char *);
  argv[argc] = NULL;
}

PCRT_EXPORT int
execl (const char *path, const char *arg, ...)
{
  va_list ap;
  size_t argc;

  va_start (ap, arg);
  argc = count_args (ap);
  va_end (ap);
  {
    char *argv[argc + 1];
    va_start (ap, arg);
    fill_args (argv, argc, arg, ap);
    va_end (ap);
    return execv (path, argv);
  }
}

PCRT_EXPORT int
execlp (const char *file, const char *arg, ...)
{
  va_list ap;
  size_t argc;

  va_start (ap, arg);
  argc = count_args (ap);
  va_end (ap);
  {
    char *argv[argc + 1];
    va_start (ap, arg);
    fill_args (argv, argc, arg, ap);
    va_end (ap);
    return execvp (file, argv);
  }
}

PCRT_EXPORT int
execle (const char *path, const char *arg, ...)
{
  va_list ap;
  size_t argc;
  char *const *envp;

  va_start (ap, arg);
  argc = count_args (ap);
  va_end (ap);
  {
    char *argv[argc + 1];
    va_start (ap, arg);
    fill_args (argv, argc, arg, ap);
    /* The environment follows the null pointer that ends the list.  */
    (void) va_arg (ap, char *);
    envp = va_arg (ap, char *const *);
    va_end (ap);
    return execve (path, argv, envp);
  }
}
