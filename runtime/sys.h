/* sys.h -- the runtime's own system calls and string helpers.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The runtime runs inside a program whose libc is profiled too: every
   libc function it called would count in the program's profile.  So
   the profile's side of the runtime (profile.c and its parts, fold.c)
   calls no libc
   function at all: its system calls are made here with the syscall
   instruction, its strings are handled here, and errno is never
   touched.  Every call returns the kernel's result, or -errno.  */

#ifndef PROFCOPY_SYS_H
#define PROFCOPY_SYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "runtime.h"

/* The kernel's struct sigaction on MIPS (asm/signal.h): flags first,
   no restorer (the kernel provides the return trampoline), and a set
   of 128 signals.  QEMU's linux-user keeps a restorer word after the
   mask for o32 and writes it with the old action: RESERVED takes it,
   or the four bytes after the structure would be overwritten (the
   flags of a second action placed there, which lost SA_RESETHAND and
   made a fatal signal's handler run for ever).  The kernel reads and
   writes only the first 24 bytes.  */
struct k_sigaction
{
  unsigned int flags;
  void (*handler) (int);
  unsigned long mask[4];
  unsigned long reserved;
};

#define K_SIGSET_SIZE 16
#define K_SA_SIGINFO 0x00000008u
#define K_SA_RESTART 0x10000000u
#define K_SA_NODEFER 0x40000000u
#define K_SA_RESETHAND 0x80000000u

/* File types in the kernel's st_mode.  */
#define K_S_IFMT 0170000
#define K_S_IFREG 0100000
#define K_S_IFDIR 0040000
#define K_S_IFLNK 0120000

static inline long
sys_write (int fd, const void *buf, size_t len)
{
  return RAW_SYSCALL4 (__NR_write, fd, buf, len, 0);
}

static inline long
sys_open (const char *path, int flags, int mode)
{
  return RAW_SYSCALL4 (__NR_open, path, flags, mode, 0);
}

static inline long
sys_close (int fd)
{
  return RAW_SYSCALL4 (__NR_close, fd, 0, 0, 0);
}

static inline long
sys_rename (const char *from, const char *to)
{
  return RAW_SYSCALL4 (__NR_rename, from, to, 0, 0);
}

static inline long
sys_unlink (const char *path)
{
  return RAW_SYSCALL4 (__NR_unlink, path, 0, 0, 0);
}

static inline long
sys_getpid (void)
{
  return RAW_SYSCALL4 (__NR_getpid, 0, 0, 0, 0);
}

static inline long
sys_gettid (void)
{
  return RAW_SYSCALL4 (__NR_gettid, 0, 0, 0, 0);
}

static inline long
sys_tgkill (long pid, long tid, int sig)
{
  return RAW_SYSCALL4 (__NR_tgkill, pid, tid, sig, 0);
}

static inline long
sys_sigaction (int sig, const struct k_sigaction *act,
	       struct k_sigaction *old)
{
  return RAW_SYSCALL4 (__NR_rt_sigaction, sig, act, old, K_SIGSET_SIZE);
}

static inline long
sys_sigprocmask (int how, const unsigned long *set, unsigned long *old)
{
  return RAW_SYSCALL4 (__NR_rt_sigprocmask, how, set, old, K_SIGSET_SIZE);
}

static inline long
sys_getcwd (char *buf, size_t size)
{
  return RAW_SYSCALL4 (__NR_getcwd, buf, size, 0, 0);
}

static inline long
sys_readlink (const char *path, char *buf, size_t size)
{
  return RAW_SYSCALL4 (__NR_readlink, path, buf, size, 0);
}

/* The mmap2 system call itself, not libc's mmap: the address of the
   mapping, or -errno (sys_mmap_failed).  PGOFF counts 4096-byte
   units.  */
static inline long
sys_mmap2 (uintptr_t addr, size_t len, int prot, int flags, long fd,
	   long pgoff)
{
#if defined __mips__ && _MIPS_SIM == _ABIO32
  return RAW_SYSCALL6 (__NR_mmap2, addr, len, prot, flags, fd, pgoff);
#else
  void *p = mmap ((void *) addr, len, prot, flags, (int) fd,
		  (off_t) pgoff * 4096);
  return p == MAP_FAILED ? -errno : (long) p;
#endif
}

/* True if the sys_mmap2 result R is an error.  */
static inline bool
sys_mmap_failed (long r)
{
  return (unsigned long) r > -4096ul;
}

/* One byte per page of [ADDR, ADDR + LEN) into VEC: bit 0 set when the
   page is in memory.  ADDR is page-aligned.  */
static inline long
sys_mincore (uintptr_t addr, size_t len, unsigned char *vec)
{
  return RAW_SYSCALL4 (__NR_mincore, addr, len, vec, 0);
}

/* The kernel's struct sysinfo (linux/sysinfo.h) as far as the runtime
   reads it: its total swap, in units of MEM_UNIT bytes.  */
struct k_sysinfo
{
  long uptime;
  unsigned long loads[3];
  unsigned long totalram, freeram, sharedram, bufferram;
  unsigned long totalswap, freeswap;
  unsigned short procs, pad;
  unsigned long totalhigh, freehigh;
  unsigned int mem_unit;
  char reserved[64];		/* The kernel's padding, and room.  */
};

static inline long
sys_sysinfo (struct k_sysinfo *info)
{
  return RAW_SYSCALL4 (__NR_sysinfo, info, 0, 0, 0);
}

static inline long
sys_munmap (void *p, size_t len)
{
  return RAW_SYSCALL4 (__NR_munmap, p, len, 0, 0);
}

/* The kernel's struct iovec.  */
struct k_iovec
{
  const void *base;
  size_t len;
};

/* Write the N pieces IOV (which it changes) to FD whole: 0, or -errno.  */
long sys_writev_all (int fd, struct k_iovec *iov, size_t n);

/* The execveat system call itself: only when it fails does it return,
   -errno.  */
long sys_execveat (int fd, const char *path, char *const argv[],
		   char *const envp[], int flags);

/* The st_mode of PATH (not following a last symbolic link with
   NOFOLLOW), or -errno.  */
long sys_file_mode (const char *path, bool nofollow);

/* The same of the open file FD.  */
long sys_fd_mode (int fd);

/* Write the LEN bytes at P to FD, whole, through short writes and
   EINTR.  0, or -errno (-ENOSPC for a write of nothing).  */
long sys_write_all (int fd, const void *p, size_t len);

/* String helpers: no libc, no builtins that could turn into calls.  */
size_t rt_strlen (const char *s);
bool rt_streq (const char *a, const char *b);
void rt_memcpy (void *to, const void *from, size_t n);
void rt_memset (void *to, int c, size_t n);

/* Append the N bytes at S to the buffer BUF of SIZE bytes, *LEN of
   them used, calling FLUSH, which empties it, whenever it is full.  */
void rt_buffer_put (void *buf, size_t size, size_t *len, const void *s,
		    size_t n, void (*flush) (void));

/* Format V in decimal into BUF (at least 21 bytes); return the length
   (the string is also NUL-terminated).  */
size_t rt_format_decimal (char *buf, uint64_t v);

/* Write V to BUF as 0x and eight hexadecimal digits, with a NUL (11
   bytes); return 10.  */
size_t rt_format_hex (char *buf, uint32_t v);

/* Append the N bytes of S to BUF (SIZE bytes, *LEN used), keeping it
   NUL-terminated.  False if they do not fit.  */
bool rt_append (char *buf, size_t size, size_t *len, const char *s,
		size_t n);

/* The value of NAME in the environment ENVP (NULL-terminated), or
   NULL.  */
const char *rt_getenv (char *const *envp, const char *name);

/* Note the PROFCOPY_ variables of the environment ENVP (NULL: none), in
   one pass over it, for rt_setting.  */
void rt_note_settings (char *const *envp);

/* The value of the PROFCOPY_ variable NAME (the whole name) that
   rt_note_settings found, or NULL.  */
const char *rt_setting (const char *name);

/* Write "libprofcopy: " and the NUL-terminated strings of PARTS (ending
   with NULL) to standard error, then a newline.  */
void rt_say (const char *const *parts);

/* The message of error number ERR, for the ones the writer meets; NULL
   for the others.  */
const char *rt_strerror (int err);

#endif /* PROFCOPY_SYS_H */
