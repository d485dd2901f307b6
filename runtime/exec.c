/* exec.c -- the exec functions of libprofcopy.so: write the profile,
   then replace the process image.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   libprofcopy.so is the first DT_NEEDED of a profiled program, so its
   exec functions (exec-fwd.S) come before libc's in the lookup order.
   When libc is profiled too, its exec system calls go through the
   syscall hook, which writes the profile: the exported functions then
   jump straight on to libc's own (found here in the dynamic linker's
   list, without dlsym), so that libc runs as it would without the
   runtime.  Otherwise they jump to the implementations below, which
   write the profile first: execve is the system call itself, and the
   PATH search of the p-variants is done here, as POSIX and glibc
   describe it, with buffers on the stack.  Calls that an unprofiled
   libc makes internally (posix_spawn, system, popen) are not seen;
   their children start from scratch and have no counts of their own
   to lose.  */

#define _GNU_SOURCE 1

#include <errno.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "profile-format.h"
#include "runtime.h"
#include "sys.h"
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
  errno = (int) -RAW_SYSCALL4 (__NR_execve, path, argv, envp, 0);
  return -1;
}

/* The first of S's characters that is C, or NULL.  */

static const char *
find_char (const char *s, char c)
{
  for (; *s != '\0'; s++)
    if (*s == c)
      return s;
  return NULL;
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
  size_t file_len = rt_strlen (file);
  bool got_eacces = false;

  if (file[0] == '\0')
    {
      errno = ENOENT;
      return -1;
    }
  if (find_char (file, '/') != NULL)
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

  path = rt_getenv (pcrt_current_environment (), "PATH");
  if (path == NULL)
    path = DEFAULT_PATH;
  for (p = path; ; p++)
    {
      char buf[PATH_MAX];
      const char *end = find_char (p, ':');
      size_t dir_len = end != NULL ? (size_t) (end - p) : rt_strlen (p);

      /* An empty element is the current directory.  */
      if (dir_len + 1 + file_len < sizeof buf)
	{
	  size_t len = 0;
	  if (dir_len > 0)
	    {
	      rt_memcpy (buf, p, dir_len);
	      len = dir_len;
	      buf[len++] = '/';
	    }
	  rt_memcpy (buf + len, file, file_len + 1);
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

PCRT_HIDDEN int
pcrt_own_execve (const char *path, char *const argv[], char *const envp[])
{
  pcrt_trace_flush ();
  pcrt_write_profile (PCPROF_REASON_EXEC, 0);
  return raw_execve (path, argv, envp);
}

PCRT_HIDDEN int
pcrt_own_execv (const char *path, char *const argv[])
{
  pcrt_trace_flush ();
  pcrt_write_profile (PCPROF_REASON_EXEC, 0);
  return raw_execve (path, argv, pcrt_current_environment ());
}

PCRT_HIDDEN int
pcrt_own_execvpe (const char *file, char *const argv[], char *const envp[])
{
  pcrt_trace_flush ();
  pcrt_write_profile (PCPROF_REASON_EXEC, 0);
  return search_and_exec (file, argv, envp);
}

PCRT_HIDDEN int
pcrt_own_execvp (const char *file, char *const argv[])
{
  pcrt_trace_flush ();
  pcrt_write_profile (PCPROF_REASON_EXEC, 0);
  return search_and_exec (file, argv, pcrt_current_environment ());
}

PCRT_HIDDEN int
pcrt_own_fexecve (int fd, char *const argv[], char *const envp[])
{
  pcrt_trace_flush ();
  pcrt_write_profile (PCPROF_REASON_EXEC, 0);
#ifdef __NR_execveat
  errno = (int) -sys_execveat (fd, "", argv, envp, AT_EMPTY_PATH);
  if (errno != ENOSYS)
    return -1;
#endif
  {
    /* Kernels before 3.19: go through /proc.  */
    char buf[32];
    size_t len = sizeof "/proc/self/fd/" - 1;
    char digits[12];
    size_t n = 0;
    unsigned v = (unsigned) fd;

    rt_memcpy (buf, "/proc/self/fd/", len);
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

PCRT_HIDDEN int
pcrt_own_execl (const char *path, const char *arg, ...)
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
    return pcrt_own_execv (path, argv);
  }
}

PCRT_HIDDEN int
pcrt_own_execlp (const char *file, const char *arg, ...)
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
    return pcrt_own_execvp (file, argv);
  }
}

PCRT_HIDDEN int
pcrt_own_execle (const char *path, const char *arg, ...)
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
    return pcrt_own_execve (path, argv, envp);
  }
}

/* The next definitions of the exec functions after libprofcopy.so's,
   in the order of exec-fwd.S, or 0 to run the ones above.  */
PCRT_HIDDEN uintptr_t pcrt_real_exec[8];

static const char *const exec_names[8] =
  { "execve", "execv", "execvpe", "execvp", "fexecve", "execl", "execlp",
    "execle" };

extern ElfW (Dyn) _DYNAMIC[] __attribute__ ((visibility ("hidden")));

/* The SysV ELF hash of NAME (DT_HASH).  */

static uint32_t
elf_hash (const char *name)
{
  uint32_t h = 0;

  for (const unsigned char *p = (const unsigned char *) name; *p != '\0'; p++)
    {
      uint32_t g;
      h = (h << 4) + *p;
      g = h & 0xf0000000u;
      h ^= g >> 24;
      h &= ~g;
    }
  return h;
}

/* Whether symbol I of SYMS (names in STRS) is a function or a data
   object that defines NAME.  */

static bool
defines (const ElfW (Sym) *syms, const char *strs, size_t i, const char *name)
{
  const char *a = strs + syms[i].st_name, *b = name;

  if (syms[i].st_shndx == SHN_UNDEF || syms[i].st_value == 0
      || (ELF32_ST_TYPE (syms[i].st_info) != STT_FUNC
	  && ELF32_ST_TYPE (syms[i].st_info) != STT_OBJECT))
    return false;
  while (*a != '\0' && *a == *b)
    a++, b++;
  return *a == *b;
}

/* The run-time address of the function or data object NAME defined
   by the object of link map L, or 0: the first such symbol of its
   .dynsym (whose size DT_MIPS_SYMTABNO gives), found through its
   DT_HASH table when it has one (libc's 3,218 symbols cost 300,000
   instructions per process when every exec function was looked for in
   turn).  */

static uintptr_t
find_definition (const struct link_map *l, const char *name)
{
  const ElfW (Sym) *syms = NULL;
  const char *strs = NULL;
  const uint32_t *hash = NULL;
  size_t n = 0;

  for (const ElfW (Dyn) *d = l->l_ld; d != NULL && d->d_tag != DT_NULL; d++)
    switch (d->d_tag)
      {
      case DT_SYMTAB:
	syms = (const ElfW (Sym) *) (l->l_addr + d->d_un.d_ptr);
	break;
      case DT_STRTAB:
	strs = (const char *) (l->l_addr + d->d_un.d_ptr);
	break;
      case DT_HASH:
	hash = (const uint32_t *) (l->l_addr + d->d_un.d_ptr);
	break;
#ifdef DT_MIPS_SYMTABNO
      case DT_MIPS_SYMTABNO:
	n = d->d_un.d_val;
	break;
#endif
      default:
	break;
      }
  if (syms == NULL || strs == NULL)
    return 0;
  if (hash != NULL && hash[0] != 0 && hash[1] <= n)
    {
      /* Every match on the chain, the lowest index kept: the symbol
	 that the linear search below would find.  */
      const uint32_t *chain = hash + 2 + hash[0];
      size_t best = 0, steps = 0;
      for (uint32_t i = hash[2 + elf_hash (name) % hash[0]];
	   i != STN_UNDEF && i < hash[1] && steps < hash[1];
	   i = chain[i], steps++)
	if (defines (syms, strs, i, name) && (best == 0 || i < best))
	  best = i;
      return best != 0 ? l->l_addr + syms[best].st_value : 0;
    }
  for (size_t i = 1; i < n; i++)
    if (defines (syms, strs, i, name))
      return l->l_addr + syms[i].st_value;
  return 0;
}

uintptr_t
pcrt_next_definition (const char *name)
{
  const struct link_map *self = NULL;

  for (const struct link_map *l = pcrt_objects (); l != NULL; l = l->l_next)
    {
      uintptr_t a;
      if (self == NULL)
	{
	  if (l->l_ld == _DYNAMIC)
	    self = l;
	  continue;
	}
      if ((a = find_definition (l, name)) != 0)
	return a;
    }
  return 0;
}

extern void *__dso_handle __attribute__ ((visibility ("hidden")));

int
pcrt_cxa_atexit (void (*fn) (void *), void *arg)
{
  int (*f) (void (*) (void *), void *, void *)
    = (int (*) (void (*) (void *), void *, void *))
      pcrt_next_definition ("__cxa_atexit");

  return f != NULL ? f (fn, arg, NULL) : -1;
}

int
pcrt_atfork (void (*prepare) (void), void (*parent) (void),
	     void (*child) (void))
{
  int (*f) (void (*) (void), void (*) (void), void (*) (void), void *)
    = (int (*) (void (*) (void), void (*) (void), void (*) (void), void *))
      pcrt_next_definition ("__register_atfork");

  return f != NULL ? f (prepare, parent, child, __dso_handle) : -1;
}

void
pcrt_exec_resolve (void)
{
  static int looked;

  /* Once: another thread's exec meanwhile runs exec.c's own functions,
     which write the profile too.  */
  if (__atomic_exchange_n (&looked, 1, __ATOMIC_ACQ_REL) == 0
      && pcrt_exit_hooked ())
    pcrt_exec_forward ();
}

void
pcrt_exec_forward (void)
{
  const struct link_map *self = NULL;
  uintptr_t found[8] = { 0 };

  for (const struct link_map *l = pcrt_objects (); l != NULL; l = l->l_next)
    {
      if (self == NULL)
	{
	  if (l->l_ld == _DYNAMIC)
	    self = l;
	  continue;
	}
      for (size_t k = 0; k < 8; k++)
	if (found[k] == 0)
	  found[k] = find_definition (l, exec_names[k]);
    }
  /* All or none: a mix would write the profile for some exec functions
     twice and for others not at all.  */
  for (size_t k = 0; k < 8; k++)
    if (found[k] == 0)
      return;
  for (size_t k = 0; k < 8; k++)
    pcrt_real_exec[k] = found[k];
}
