/* trace-file.c -- the call trace file.  Part of libprofcopy.so.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The trace file is named after PROFCOPY_TRACE_OUTPUT or the program,
   binary (trace-format.h) or text (PROFCOPY_TRACE_FORMAT), and created
   at the first write of a thread's buffer (trace.c).  The load
   addresses of the process's objects are written first, then again
   whenever the dynamic linker reports objects added (dlopen); a
   buffer then goes in as one record with one write, under a
   process-wide lock.  A child made by fork writes its own file if the
   file's name has its pid, else appends to its parent's, which the
   parent creates before the fork for that.  Like trace.c, raw system
   calls only: no libc function, errno untouched, no floating-point
   register.  */

#define _GNU_SOURCE 1

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "trace-format.h"
#include "runtime.h"
#include "sys.h"
#include "trace-int.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* The settings, read from the environment at the first event.  */
static int settings_done;
static bool text_format;
static const char *output_template;	/* PROFCOPY_TRACE_OUTPUT or NULL.  */

/* The trace file, and what is known about it.  Guarded by FILE_LOCK.  */
static int file_lock;
static int trace_fd = -1;
static bool trace_failed;		/* Could not be created: stop.  */
static uint32_t objects_stamp;		/* objects_now when last listed.  */
static pid_t trace_pid;

/* The output buffer of the text form and of object records, and the
   file's name.  Guarded by FILE_LOCK.  */
static struct
{
  size_t len;
  char buf[8192];
} text;
static char trace_path[PATH_MAX];
static char exe_path[PATH_MAX];

static void trace_child (void);

/* The little-endian word at P (store32 is in trace-int.h).  */

static inline uint32_t
load32 (const unsigned char *p)
{
  return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t) p[3] << 24;
}

/* The process-wide lock of the file.  A thread spins, yielding the
   processor, for at most TRIES attempts (0: for ever).  Return true if
   it got the lock.  */

static bool
lock_file (unsigned tries)
{
  for (unsigned i = 0; tries == 0 || i < tries; i++)
    {
      if (__atomic_exchange_n (&file_lock, 1, __ATOMIC_ACQUIRE) == 0)
	return true;
      RAW_SYSCALL4 (__NR_sched_yield, 0, 0, 0, 0);
    }
  return false;
}

static void
unlock_file (void)
{
  __atomic_store_n (&file_lock, 0, __ATOMIC_RELEASE);
}

/* Text output, through TEXT.  */

static void
text_flush (void)
{
  if (text.len > 0 && trace_fd >= 0)
    sys_write_all (trace_fd, text.buf, text.len);
  text.len = 0;
}

static void
text_put (const char *s, size_t n)
{
  rt_buffer_put (text.buf, sizeof text.buf, &text.len, s, n, text_flush);
}

static void
text_string (const char *s)
{
  text_put (s, rt_strlen (s));
}

static void
text_decimal (uint64_t v)
{
  char digits[24];

  text_put (digits, rt_format_decimal (digits, v));
}

static void
text_hex (uint32_t v)
{
  char digits[10];
  size_t n = sizeof digits;

  do
    {
      digits[--n] = "0123456789abcdef"[v & 15];
      v >>= 4;
    }
  while (v != 0);
  digits[--n] = 'x';
  digits[--n] = '0';
  text_put (digits + n, sizeof digits - n);
}

/* Read the settings from the environment, once.  getenv takes no lock
   and allocates nothing.  */

void
pcrt_trace_read_settings (void)
{
  const char *format;

  if (__atomic_load_n (&settings_done, __ATOMIC_ACQUIRE))
    return;
  format = rt_getenv (pcrt_environment (), "PROFCOPY_TRACE_FORMAT");
  text_format = format != NULL && format[0] == 't';
  output_template = rt_getenv (pcrt_environment (), "PROFCOPY_TRACE_OUTPUT");
  if (output_template != NULL && output_template[0] == '\0')
    output_template = NULL;
  trace_pid = pcrt_raw_getpid ();
  __atomic_store_n (&settings_done, 1, __ATOMIC_RELEASE);
}

/* Append S (N bytes) to PATH at *LEN.  False if it does not fit.  */

static bool
path_append (size_t *len, const char *s, size_t n)
{
  if (n >= sizeof trace_path - *len)
    return false;
  rt_memcpy (trace_path + *len, s, n);
  *len += n;
  trace_path[*len] = '\0';
  return true;
}

/* Build the trace file's name into TRACE_PATH: PROFCOPY_TRACE_OUTPUT
   with %p replaced by the process id and %% by %, or else the
   program's base name followed by ".trace".  */

static bool
trace_name (void)
{
  size_t len = 0;
  char num[24];
  size_t n;
  uint32_t pid = (uint32_t) trace_pid;

  trace_path[0] = '\0';
  if (output_template == NULL)
    {
      const char *prog = pcrt_program_name ();
      if (prog == NULL || prog[0] == '\0')
	prog = "profcopy";
      return (path_append (&len, prog, rt_strlen (prog))
	      && path_append (&len, ".trace", 6));
    }
  for (const char *p = output_template; *p != '\0'; p++)
    {
      bool ok;
      if (p[0] == '%' && p[1] == 'p')
	{
	  n = sizeof num;
	  do
	    {
	      num[--n] = '0' + pid % 10;
	      pid /= 10;
	    }
	  while (pid != 0);
	  pid = (uint32_t) trace_pid;
	  ok = path_append (&len, num + n, sizeof num - n);
	  p++;
	}
      else if (p[0] == '%' && p[1] == '%')
	{
	  ok = path_append (&len, "%", 1);
	  p++;
	}
      else
	ok = path_append (&len, p, 1);
      if (!ok)
	return false;
    }
  return true;
}

/* Tell standard error that the trace could not be written.  */

static void
say_failure (const char *what, long err)
{
  static const char prefix[] = "libprofcopy: ";
  char num[24];
  size_t n = rt_format_decimal (num, (uint64_t) -err);

  sys_write_all (STDERR_FILENO, prefix, sizeof prefix - 1);
  sys_write_all (STDERR_FILENO, trace_path, rt_strlen (trace_path));
  sys_write_all (STDERR_FILENO, ": ", 2);
  sys_write_all (STDERR_FILENO, what, rt_strlen (what));
  sys_write_all (STDERR_FILENO, ": error ", 8);
  sys_write_all (STDERR_FILENO, num, n);
  sys_write_all (STDERR_FILENO, "\n", 1);
}

/* A stamp of the dynamic linker's list of objects: it changes when an
   object is added or removed.  */

static uint32_t
objects_now (void)
{
  uint32_t stamp = 1;

  for (const struct link_map *l = pcrt_objects (); l != NULL; l = l->l_next)
    stamp = stamp * 31 + (uint32_t) l->l_addr + 1;
  return stamp;
}

/* Write the object record of the object of link map L, the program if
   FIRST.  */

static void
write_object (const struct link_map *l, bool first)
{
  uint64_t low = UINT64_MAX, high = 0;
  const char *path = l->l_name;
  const ElfW (Phdr) *phdr;
  size_t phnum, path_len;

  if (first && (path == NULL || path[0] == '\0'))
    {
      long n = RAW_SYSCALL4 (__NR_readlink, "/proc/self/exe", exe_path,
			     sizeof exe_path - 1, 0);
      if (n > 0)
	{
	  exe_path[n] = '\0';
	  path = exe_path;
	}
    }
  if (path == NULL || path[0] == '\0' || !pcrt_object_phdrs (l, &phdr, &phnum))
    return;
  for (size_t i = 0; i < phnum; i++)
    if (phdr[i].p_type == PT_LOAD)
      {
	uint64_t lo = l->l_addr + phdr[i].p_vaddr;
	uint64_t hi = lo + phdr[i].p_memsz;
	if (lo < low)
	  low = lo;
	if (hi > high)
	  high = hi;
      }
  if (high == 0 || high > UINT32_MAX)
    return;
  path_len = rt_strlen (path);
  if (path_len > PCTRACE_MAX_PATH_LEN)
    return;
  if (text_format)
    {
      text_string ("O ");
      text_hex ((uint32_t) low);
      text_string (" ");
      text_hex ((uint32_t) high);
      text_string (" ");
      text_hex ((uint32_t) l->l_addr);
      text_string (" ");
      text_put (path, path_len);
      text_string ("\n");
    }
  else
    {
      unsigned char head[PCTRACE_O_SIZE];
      static const unsigned char zeros[8];
      size_t padded = PCTRACE_PAD8 (path_len + 1);
      store32 (head + PCTRACE_R_TYPE, PCTRACE_REC_OBJECT);
      store32 (head + PCTRACE_R_SIZE, PCTRACE_O_SIZE + padded);
      store32 (head + PCTRACE_O_BIAS, (uint32_t) l->l_addr);
      store32 (head + PCTRACE_O_LOW, (uint32_t) low);
      store32 (head + PCTRACE_O_HIGH, (uint32_t) high);
      store32 (head + PCTRACE_O_PATH_LEN, path_len);
      text_put ((const char *) head, sizeof head);
      text_put (path, path_len);
      text_put ((const char *) zeros, padded - path_len);
    }
}

/* Write the object records if the dynamic linker's list changed since
   they were last written (or they never were).  */

static void
write_objects (void)
{
  uint32_t stamp = objects_now ();

  if (stamp == objects_stamp)
    return;
  for (const struct link_map *l = pcrt_objects (); l != NULL; l = l->l_next)
    write_object (l, l == pcrt_objects ());
  text_flush ();
  objects_stamp = stamp;
}

/* Create the trace file if it is not open yet and write its header.
   Called with FILE_LOCK held.  Return false if there is no file.  */

static bool
open_trace (bool in_signal)
{
  long fd;

  if (trace_fd >= 0)
    {
      if (!in_signal)
	write_objects ();
      return true;
    }
  if (trace_failed)
    return false;
  if (!trace_name ())
    {
      trace_failed = true;
      say_failure ("cannot name the trace", -ENAMETOOLONG);
      return false;
    }
  fd = RAW_SYSCALL4 (__NR_open, trace_path,
		     O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC,
		     0666, 0);
  if (fd < 0)
    {
      trace_failed = true;
      say_failure ("cannot create the trace", fd);
      return false;
    }
  trace_fd = (int) fd;
  text.len = 0;
  if (text_format)
    {
      text_string ("# profcopy trace 1 pid ");
      text_decimal ((uint32_t) trace_pid);
      text_string ("\n");
    }
  else
    {
      unsigned char head[PCTRACE_HEADER_SIZE];
      const uint16_t one = 1;
      for (size_t i = 0; i < sizeof head; i++)
	head[i] = 0;
      rt_memcpy (head + PCTRACE_H_MAGIC, PCTRACE_MAGIC, PCTRACE_MAGIC_LEN);
      store32 (head + PCTRACE_H_VERSION, PCTRACE_VERSION);
      store32 (head + PCTRACE_H_HEADER_SIZE, PCTRACE_HEADER_SIZE);
      store32 (head + PCTRACE_H_FLAGS,
	       *(const unsigned char *) &one == 0 ? PCTRACE_F_BIG_ENDIAN : 0);
      store32 (head + PCTRACE_H_PID, (uint32_t) trace_pid);
      store32 (head + PCTRACE_H_CLOCK, PCTRACE_CLOCK_MONOTONIC_NS);
      text_put ((const char *) head, sizeof head);
    }
  text_flush ();
  objects_stamp = 0;
  write_objects ();
  return true;
}

/* Write the events of buffer B, which the caller owns (BUSY is 2), and
   empty it.  IN_SIGNAL: called from the fatal-signal handler, which
   must not wait for the lock for ever.  */

void
pcrt_trace_write_buffer (struct trace_buffer *b, bool in_signal)
{
  if (b->n_events == 0 && b->n_lost == 0)
    return;
  if (!lock_file (in_signal ? 1000 : 0))
    return;
  if (pcrt_raw_getpid () != trace_pid)
    trace_child ();
  if (open_trace (in_signal))
    {
      store32 (b->record + PCTRACE_R_TYPE, PCTRACE_REC_EVENTS);
      store32 (b->record + PCTRACE_R_SIZE,
	       PCTRACE_E_SIZE + b->n_events * PCTRACE_EVENT_SIZE);
      store32 (b->record + PCTRACE_E_PID, (uint32_t) trace_pid);
      store32 (b->record + PCTRACE_E_TID, b->tid);
      store32 (b->record + PCTRACE_E_N_EVENTS, b->n_events);
      store32 (b->record + PCTRACE_E_N_LOST,
	       __atomic_load_n (&b->n_lost, __ATOMIC_RELAXED));
      if (!text_format)
	sys_write_all (trace_fd, b->record,
		       PCTRACE_E_SIZE + b->n_events * PCTRACE_EVENT_SIZE);
      else
	{
	  text_string ("T ");
	  text_decimal ((uint32_t) trace_pid);
	  text_string (" ");
	  text_decimal (b->tid);
	  text_string ("\n");
	  if (b->n_lost != 0)
	    {
	      text_string ("# lost ");
	      text_decimal (b->n_lost);
	      text_string ("\n");
	    }
	  for (uint32_t i = 0; i < b->n_events; i++)
	    {
	      const unsigned char *e = b->record + PCTRACE_E_SIZE
				       + i * PCTRACE_EVENT_SIZE;
	      uint64_t stamp = load32 (e + PCTRACE_V_STAMP)
			       | (uint64_t) load32 (e + PCTRACE_V_STAMP + 4) << 32;
	      text_string ((stamp & 1) == PCTRACE_EXIT ? "X " : "E ");
	      text_hex (load32 (e + PCTRACE_V_FUNC));
	      text_string (" ");
	      text_decimal (stamp >> 1);
	      text_string ("\n");
	    }
	  text_flush ();
	}
    }
  b->n_events = 0;
  __atomic_store_n (&b->n_lost, 0, __ATOMIC_RELAXED);
  unlock_file ();
}

/* True if the trace's name has the process id in it.  */

static bool
name_has_pid (void)
{
  if (output_template == NULL)
    return false;
  for (const char *p = output_template; *p != '\0'; p++)
    if (p[0] == '%' && p[1] == 'p')
      return true;
  return false;
}

/* Before a fork: a parent that traced and whose child will share its
   file creates the file now, so that both append to it; created later,
   by each of them, the second would replace the first's.  */

void
pcrt_trace_atfork_prepare (void)
{
  if (__atomic_load_n (&pcrt_trace_buffers, __ATOMIC_ACQUIRE) == NULL
      || name_has_pid () || !lock_file (0))
    return;
  open_trace (false);
  unlock_file ();
}

/* A child of a fork, found at a write in a child made without
   pthread_atfork's help (the syscall hook wrote the parent's buffers
   before the fork: the events in the child's are its own), or by
   pcrt_trace_atfork_child: its pid and thread id, and, when its trace
   name has its own pid, its own file to open.  Called with FILE_LOCK
   held, or in a child that no other thread shares.  */

static void
trace_child (void)
{
  trace_pid = pcrt_raw_getpid ();
  if (pcrt_my_trace_buffer != NULL)
    pcrt_my_trace_buffer->tid = pcrt_raw_gettid ();
  if (name_has_pid ())
    {
      if (trace_fd >= 0)
	RAW_SYSCALL4 (__NR_close, trace_fd, 0, 0, 0);
      trace_fd = -1;
      trace_failed = false;
    }
}

/* The child of a fork: the buffered events are the parent's, which
   writes them itself.  A child whose trace name has its own pid opens
   its own file; otherwise it appends to the parent's, and its records
   carry its pid.  */

void
pcrt_trace_atfork_child (void)
{
  file_lock = 0;
  for (struct trace_buffer *b = pcrt_trace_buffers; b != NULL; b = b->next)
    {
      b->n_events = 0;
      b->n_lost = 0;
      b->busy = 0;
    }
  trace_child ();
}
