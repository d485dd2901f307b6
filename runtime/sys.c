/* sys.c -- the runtime's own system calls and string helpers (sys.h).

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#define _GNU_SOURCE 1

#include <errno.h>

#include "sys.h"

/* The kernel's struct stat64 on MIPS o32 (asm/stat.h) has st_mode at
   byte 24 of 104.  */
#define K_STAT64_SIZE 104
#define K_STAT64_MODE 24

static long
mode_of (const unsigned char *st)
{
  uint32_t mode;

  rt_memcpy (&mode, st + K_STAT64_MODE, sizeof mode);
  return (long) mode;
}

long
sys_file_mode (const char *path, bool nofollow)
{
  unsigned char st[K_STAT64_SIZE] __attribute__ ((aligned (8)));
  long r = nofollow ? RAW_SYSCALL4 (__NR_lstat64, path, st, 0, 0)
	   : RAW_SYSCALL4 (__NR_stat64, path, st, 0, 0);

  return r < 0 ? r : mode_of (st);
}

long
sys_fd_mode (int fd)
{
  unsigned char st[K_STAT64_SIZE] __attribute__ ((aligned (8)));
  long r = RAW_SYSCALL4 (__NR_fstat64, fd, st, 0, 0);

  return r < 0 ? r : mode_of (st);
}

void *
pcrt_mmap (size_t len)
{
  long r = sys_mmap2 (0, len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

  return sys_mmap_failed (r) ? NULL : (void *) r;
}

long
sys_write_all (int fd, const void *p, size_t len)
{
  const unsigned char *q = p;

  while (len > 0)
    {
      long n = sys_write (fd, q, len);
      if (n == -EINTR)
	continue;
      if (n < 0)
	return n;
      if (n == 0)
	return -ENOSPC;
      q += n;
      len -= (size_t) n;
    }
  return 0;
}

long
sys_writev_all (int fd, struct k_iovec *iov, size_t n)
{
  while (n > 0)
    {
      long r = RAW_SYSCALL4 (__NR_writev, fd, iov, n < 1024 ? n : 1024, 0);
      if (r == -EINTR)
	continue;
      if (r < 0)
	return r;
      if (r == 0)
	return -ENOSPC;
      /* Past what was written: whole pieces, then part of one.  */
      for (; n > 0 && (size_t) r >= iov->len; iov++, n--)
	r -= (long) iov->len;
      if (r > 0)
	{
	  iov->base = (const unsigned char *) iov->base + r;
	  iov->len -= (size_t) r;
	}
    }
  return 0;
}

long
sys_execveat (int fd, const char *path, char *const argv[],
	      char *const envp[], int flags)
{
#if defined __mips__ && _MIPS_SIM == _ABIO32 && defined __NR_execveat
  /* o32: the fifth argument goes on the stack, at 16 bytes up.  */
  register long v0 __asm__ ("$2") = __NR_execveat;
  register long a0 __asm__ ("$4") = fd;
  register long a1 __asm__ ("$5") = (long) path;
  register long a2 __asm__ ("$6") = (long) argv;
  register long a3 __asm__ ("$7") = (long) envp;
  register long a4 __asm__ ("$8") = flags;

  __asm__ volatile ("addiu $sp,$sp,-32\n\t"
		    "sw $8,16($sp)\n\t"
		    "syscall\n\t"
		    "addiu $sp,$sp,32"
		    : "+r" (v0), "+r" (a3), "+r" (a4)
		    : "r" (a0), "r" (a1), "r" (a2)
		    : "$1", "$3", "$9", "$10", "$11", "$12", "$13",
		      "$14", "$15", "$24", "$25", "hi", "lo", "memory");
  return a3 != 0 ? -v0 : v0;
#else
  (void) fd, (void) path, (void) argv, (void) envp, (void) flags;
  return -ENOSYS;
#endif
}

size_t
rt_strlen (const char *s)
{
  size_t n = 0;

  while (s[n] != '\0')
    n++;
  return n;
}

bool
rt_streq (const char *a, const char *b)
{
  while (*a != '\0' && *a == *b)
    a++, b++;
  return *a == *b;
}

/* The two loops below are kept loops: without this, GCC may recognise
   them and call libc's memcpy and memset.  */

void
rt_memcpy (void *to, const void *from, size_t n)
{
  typedef uint32_t __attribute__ ((__may_alias__)) word;
  volatile unsigned char *t = to;
  const unsigned char *f = from;

  /* Words while both are aligned (the profile's header fields and
     small tables): a fifth of the instructions of bytes.  */
  if ((((uintptr_t) t | (uintptr_t) f) & 3) == 0)
    for (; n >= 4; n -= 4, t += 4, f += 4)
      *(volatile word *) t = *(const word *) f;
  while (n-- > 0)
    *t++ = *f++;
}

void
rt_memset (void *to, int c, size_t n)
{
  typedef uint32_t __attribute__ ((__may_alias__)) word;
  volatile unsigned char *t = to;

  /* Words while aligned, as rt_memcpy.  */
  if (((uintptr_t) t & 3) == 0)
    {
      uint32_t w = (unsigned char) c * 0x01010101u;
      for (; n >= 4; n -= 4, t += 4)
	*(volatile word *) t = w;
    }
  while (n-- > 0)
    *t++ = (unsigned char) c;
}

void
rt_buffer_put (void *buf, size_t size, size_t *len, const void *s,
	       size_t n, void (*flush) (void))
{
  const unsigned char *q = s;

  while (n > 0)
    {
      size_t room = size - *len;
      size_t k = n < room ? n : room;
      rt_memcpy ((unsigned char *) buf + *len, q, k);
      *len += k;
      q += k;
      n -= k;
      if (*len == size)
	flush ();
    }
}

size_t
rt_format_decimal (char *buf, uint64_t v)
{
  char digits[21];
  size_t n = 0, len = 0;

  do
    {
      digits[n++] = (char) ('0' + v % 10);
      v /= 10;
    }
  while (v != 0);
  while (n > 0)
    buf[len++] = digits[--n];
  buf[len] = '\0';
  return len;
}

size_t
rt_format_hex (char *buf, uint32_t v)
{
  static const char hex[] = "0123456789abcdef";

  buf[0] = '0';
  buf[1] = 'x';
  for (int i = 0; i < 8; i++)
    buf[2 + i] = hex[(v >> (28 - 4 * i)) & 0xf];
  buf[10] = '\0';
  return 10;
}

bool
rt_append (char *buf, size_t size, size_t *len, const char *s, size_t n)
{
  if (n >= size - *len)
    return false;
  rt_memcpy (buf + *len, s, n);
  *len += n;
  buf[*len] = '\0';
  return true;
}

/* S past PREFIX if S starts with it, else NULL.  */

static const char *
after_prefix (const char *s, const char *prefix)
{
  for (; *prefix != '\0'; s++, prefix++)
    if (*s != *prefix)
      return NULL;
  return s;
}

/* The value of the environment entry E if it is NAME=VALUE, else
   NULL.  */

static const char *
entry_value (const char *e, const char *name)
{
  const char *v = after_prefix (e, name);

  return v != NULL && *v == '=' ? v + 1 : NULL;
}

const char *
rt_getenv (char *const *envp, const char *name)
{
  for (; envp != NULL && *envp != NULL; envp++)
    {
      const char *v = entry_value (*envp, name);
      if (v != NULL)
	return v;
    }
  return NULL;
}

/* The PROFCOPY_ variables the runtime reads at start and exit (a
   trace's own, trace-file.c's, are looked up when tracing starts),
   after their common prefix, and the value of each that rt_note_settings
   found: the first one of its name in the environment, as getenv
   finds it.  One pass over an environment that may hold hundreds of
   other variables finds them all.  (An array of arrays, not of
   pointers: libprofcopy-static.so may have few relocations.)  */
static const char setting_prefix[] = "PROFCOPY_";
static const char setting_names[][18] = {
  "OUTPUT", "TABLES", "COUNTS", "VERBOSE", "TEST_CARRY",
  "TEST_CARRY_REPORT"
};
#define N_SETTINGS (sizeof setting_names / sizeof setting_names[0])
static const char *setting_values[N_SETTINGS];

void
rt_note_settings (char *const *envp)
{
  for (size_t i = 0; i < N_SETTINGS; i++)
    setting_values[i] = NULL;
  for (; envp != NULL && *envp != NULL; envp++)
    {
      const char *e = after_prefix (*envp, setting_prefix), *v = NULL;
      size_t i = 0;

      if (e == NULL)
	continue;
      while (i < N_SETTINGS && (v = entry_value (e, setting_names[i])) == NULL)
	i++;
      if (v != NULL && setting_values[i] == NULL)
	setting_values[i] = v;
    }
}

const char *
rt_setting (const char *name)
{
  const char *n = after_prefix (name, setting_prefix);

  for (size_t i = 0; n != NULL && i < N_SETTINGS; i++)
    if (rt_streq (n, setting_names[i]))
      return setting_values[i];
  return NULL;
}

void
rt_say (const char *const *parts)
{
  char line[1024];
  size_t len = 0;

  rt_append (line, sizeof line, &len, "libprofcopy: ", 13);
  for (; *parts != NULL; parts++)
    {
      size_t n = rt_strlen (*parts);
      if (n > sizeof line - 2 - len)
	n = sizeof line - 2 - len;
      rt_append (line, sizeof line, &len, *parts, n);
    }
  line[len++] = '\n';
  sys_write_all (2, line, len);
}

const char *
rt_strerror (int err)
{
  switch (err)
    {
    case ENOENT: return "No such file or directory";
    case EACCES: return "Permission denied";
    case EPERM: return "Operation not permitted";
    case ENOSPC: return "No space left on device";
    case EDQUOT: return "Disk quota exceeded";
    case EFBIG: return "File too large";
    case EROFS: return "Read-only file system";
    case ENAMETOOLONG: return "File name too long";
    case EISDIR: return "Is a directory";
    case ENOTDIR: return "Not a directory";
    case ELOOP: return "Too many levels of symbolic links";
    case ENXIO: return "No reader on the FIFO";
    case EIO: return "Input/output error";
    case EEXIST: return "File exists";
    default: return NULL;
    }
}
