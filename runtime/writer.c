/* writer.c -- the profile file.  Part of libprofcopy.so.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The profile (profile-format.h) is a header and one record per
   profiled object: its tables as the segment has them, and its
   counters as they are in memory (or from the snapshot), low word
   first.  It is named after PROFCOPY_OUTPUT or the program and the
   pid, written through a temporary file and renamed into place, or
   written into a device or FIFO as it is.  It is built in a static
   buffer, or in memory for the record of an object that dlclose
   unloads.  No libc call, no heap, errno untouched.  */

#define _GNU_SOURCE 1

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "profile-format.h"
#include "profile.h"
#include "runtime.h"
#include "segment.h"
#include "sys.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* PROFCOPY_OUTPUT as an absolute name (relative names are taken from
   the directory the program started in), or "" for the default,
   PROGRAM.PID.prof there.  */
static char output_template[PATH_MAX];

/* The directory the program started in, with a final slash, or "" if
   it cannot be had.  */
static char start_dir[PATH_MAX];

/* The profile's file name and its temporary name.  Static rather than
   on the stack, which may be nearly full when a fatal signal arrives;
   guarded by the busy flag (pcrt_try_busy).  */
static char profile_path[PATH_MAX], temp_path[PATH_MAX];

/* The profile this process image wrote last ("" if none): it may
   replace that one, not one that an earlier image of the same process
   wrote before an exec.  */
static char written_path[PATH_MAX];

/* The output buffer and file, or memory (MEM, CAP bytes, MEM_LEN
   used) for the record of an object that dlclose unloads.  Guarded by
   the busy flag (pcrt_try_busy).  */
static struct
{
  int fd;
  int error;			/* errno of the first failed write, or 0.  */
  size_t len;
  unsigned char *mem;
  size_t cap, mem_len;
  unsigned char buf[8192] __attribute__ ((aligned (8)));
} out;

/* Messages on standard error only with PROFCOPY_VERBOSE set: the
   runtime must not change what the program writes.  */
static bool verbose;

/* Whether the records hold the objects' tables (PROFCOPY_TABLES=profile)
   or leave them in the profiled copies (the default).  */
static bool tables_here;

/* Whether every counter is written (PROFCOPY_COUNTS=all), not only the
   runs of those that may not be 0.  */
static bool dense_asked;

/* Report that the profile NAME could not be written: WHAT, for the
   error number ERR.  */

static void
report_error (const char *name, const char *what, int err)
{
  char num[24];
  const char *reason = rt_strerror (err);

  if (!verbose)
    return;
  if (reason == NULL)
    {
      rt_format_decimal (num, (unsigned) err);
      const char *parts[] = { name, ": ", what, ": error ", num, NULL };
      rt_say (parts);
      return;
    }
  const char *parts[] = { name, ": ", what, ": ", reason, NULL };
  rt_say (parts);
}

/* Write the LEN bytes at P to the profile, unbuffered.  The first
   failure is kept in OUT.ERROR and stops every later write.  */

static void
write_all (const void *p, size_t len)
{
  long r;

  if (out.error != 0)
    return;
  if (out.mem != NULL)
    {
      if (len > out.cap - out.mem_len)
	out.error = ENOSPC;
      else
	{
	  rt_memcpy (out.mem + out.mem_len, p, len);
	  out.mem_len += len;
	}
      return;
    }
  r = sys_write_all (out.fd, p, len);
  if (r < 0)
    out.error = (int) -r;
}

/* Write the buffered bytes.  */

static void
flush (void)
{
  write_all (out.buf, out.len);
  out.len = 0;
}

/* Append the LEN bytes at P to the output.  Large blocks (the tables of
   a segment, the counts of a snapshot) are written straight from P,
   after what is buffered: copying them would cost the program an
   instruction or more a byte at exit.  */

static void
put_bytes (const void *p, size_t len)
{
  const unsigned char *q = p;

  if (len >= sizeof out.buf / 2)
    {
      flush ();
      write_all (p, len);
      return;
    }
  while (len > 0)
    {
      size_t room = sizeof out.buf - out.len;
      size_t n = len < room ? len : room;
      rt_memcpy (out.buf + out.len, q, n);
      out.len += n;
      q += n;
      len -= n;
      if (out.len == sizeof out.buf)
	flush ();
    }
}

/* Append LEN zero bytes.  */

static void
put_zeros (size_t len)
{
  static const unsigned char zeros[8];

  while (len > 0)
    {
      size_t n = len < sizeof zeros ? len : sizeof zeros;
      put_bytes (zeros, n);
      len -= n;
    }
}

/* Store V at P in the program's byte order, which is the profile's.  */

static inline void
store32 (unsigned char *p, uint32_t v)
{
  rt_memcpy (p, &v, sizeof v);
}

static void
put32 (uint32_t v)
{
  if (sizeof out.buf - out.len < 4)
    flush ();
  store32 (out.buf + out.len, v);
  out.len += 4;
  if (out.len == sizeof out.buf)
    flush ();
}


/* The runs of counters that a record holds (version 5,
   PCPROF_COUNTS_RUNS): those on the pages of memory that the process
   touched.  The counters live in pages that only an increment brings
   into memory (a NOBITS section past the object's file, or the gp
   window's), and a page that never came in holds only zeros, so a
   short process writes a few pages of libc's counters instead of all
   of them (hello world: 46 of 223 pages).  That holds as long as
   nothing leaves memory: with swap, a written page may be out too, and
   every counter is written.  */
struct run
{
  uint32_t first, n;
};

#define MAX_RUNS 512

static struct run runs[MAX_RUNS];
static size_t n_runs;

/* One byte per page, from mincore: the counters of an object span at
   most this many pages for their runs to be found (32 MiB).  */
static unsigned char resident[8192] __attribute__ ((aligned (4)));

/* Whether the profile being written may leave out the counters of pages
   not in memory: true when the system has no swap (sysinfo), found
   once per profile written.  */
static bool runs_allowed;

/* Add the runs of the N counters at P, the record's from FIRST on,
   that lie on pages in memory to RUNS.  False when they cannot be told
   (too many pages or runs, mincore failed): then the record holds every
   counter.  */

static bool
add_runs (const volatile void *p, uint32_t first, uint32_t n)
{
  uintptr_t page = pcrt_page_size ();
  uintptr_t start = (uintptr_t) p;
  uintptr_t end = start + (uintptr_t) n * PCPROF_COUNT_SIZE;
  uintptr_t base = start & ~(page - 1);
  size_t n_pages;

  if (n == 0)
    return true;
  n_pages = (end - base + page - 1) / page;
  if (n_pages > sizeof resident
      || sys_mincore (base, n_pages * page, resident) != 0)
    return false;
  for (size_t k = 0, j; k < n_pages; k = j)
    {
      uintptr_t lo, hi;
      uint32_t from, to;

      /* Pages K to J - 1 are in memory.  Most are not: skip them four
	 at a time.  */
      if (!(resident[k] & 1))
	{
	  typedef uint32_t __attribute__ ((__may_alias__)) word;
	  j = k + 1;
	  if ((j & 3) == 0)
	    while (j + 4 <= n_pages
		   && (*(const word *) (resident + j) & 0x01010101u) == 0)
	      j += 4;
	  continue;
	}
      for (j = k + 1; j < n_pages && (resident[j] & 1); j++)
	;
      lo = base + k * page;
      hi = base + j * page;
      lo = lo < start ? start : lo;
      hi = hi > end ? end : hi;
      /* A counter that straddles two pages is in each one's run.  */
      from = first + (uint32_t) ((lo - start) / PCPROF_COUNT_SIZE);
      to = first + (uint32_t) ((hi - start + PCPROF_COUNT_SIZE - 1)
			       / PCPROF_COUNT_SIZE);
      if (n_runs > 0 && runs[n_runs - 1].first + runs[n_runs - 1].n >= from)
	runs[n_runs - 1].n = to - runs[n_runs - 1].first;
      else if (n_runs == MAX_RUNS)
	return false;
      else
	{
	  runs[n_runs].first = from;
	  runs[n_runs].n = to - from;
	  n_runs++;
	}
    }
  return true;
}

/* Find the runs of the record of VIEW, whose N counters of blocks and
   edges are live (no snapshot).  False when the record holds every
   counter.  */

static bool
find_runs (const struct seg_view *view, uint32_t n)
{
  n_runs = 0;
  return runs_allowed && view->window_stride == 2
	 && add_runs (view->counters, 0, n)
	 && add_runs (view->window, n, view->n_window);
}

/* The pieces of memory put_runs writes: at most two a run (one in the
   counters, one in the window).  */
static struct k_iovec pieces[2 * MAX_RUNS];

/* Append the counters RUNS name, of the record of VIEW whose N counters
   of blocks and edges come first, straight from memory in one system
   call: copying parts of pages into the buffer, or a write a run, would
   cost the program more instructions than hello world's whole profile
   does.  */

static void
put_runs (const struct seg_view *view, uint32_t n)
{
  const volatile unsigned char *counters
    = (const volatile unsigned char *) view->counters;
  const volatile unsigned char *window
    = (const volatile unsigned char *) view->window;
  size_t m = 0;
  long r;

  put32 ((uint32_t) n_runs);
  put32 (0);
  /* struct run is the pair as the file has it.  */
  put_bytes (runs, n_runs * sizeof runs[0]);
  flush ();
  for (size_t k = 0; k < n_runs; k++)
    {
      uint32_t from = runs[k].first, to = from + runs[k].n;
      if (from < n)
	{
	  pieces[m].base = (const void *) (counters + (size_t) from
					   * PCPROF_COUNT_SIZE);
	  pieces[m++].len = (size_t) ((to < n ? to : n) - from)
			    * PCPROF_COUNT_SIZE;
	}
      if (to > n)
	{
	  from = from > n ? from : n;
	  pieces[m].base = (const void *) (window + (size_t) (from - n)
					   * PCPROF_COUNT_SIZE);
	  pieces[m++].len = (size_t) (to - from) * PCPROF_COUNT_SIZE;
	}
    }
  if (out.error != 0)
    return;
  r = sys_writev_all (out.fd, pieces, m);
  if (r < 0)
    out.error = (int) -r;
}

/* Append the object record of VIEW, loaded with bias BIAS
   (profile-format.h): the tables are written as the segment has them,
   the counts from the snapshot S or else from the live counters, only
   those that may not be 0 when a file is written (a record made in
   memory, retire.c's, has them all).  */

static void
put_record (const struct seg_view *view, uintptr_t bias, struct snapshot *s)
{
  const struct pc_segment_header *h = view->header;
  struct pc_counter *counts = pcrt_snapshot_counts (s, view, bias);
  uint32_t n = h->n_blocks + view->n_edges;
  uint32_t size = pcrt_record_size (view);
  bool in_runs;

  if (counts != NULL)
    pcrt_retired_add_to (view, counts);
  in_runs = counts == NULL && out.mem == NULL && find_runs (view, n);
  if (in_runs)
    {
      uint64_t listed = 0;
      for (size_t k = 0; k < n_runs; k++)
	listed += runs[k].n;
      size -= view_counts (view) * PCPROF_COUNT_SIZE;
      size += (uint32_t) (PCPROF_RUNS_HEADER_SIZE + PCPROF_RUN_SIZE * n_runs
			  + PCPROF_COUNT_SIZE * listed);
    }

  put32 (size);
  put32 (h->flags);
  put32 (h->checksum);
  put32 (h->file_size);
  put32 (h->n_blocks);
  put32 (view->path_len);
  put32 (view->build_id_len);
  put32 ((uint32_t) bias);
  put32 (view->derive_size);
  put32 (view->n_edges);
  put32 (view->n_window);
  put32 (view->tables_crc);
  put32 (view->copy_path_len);
  put32 ((tables_here ? PCPROF_TABLES_HERE : PCPROF_TABLES_IN_COPY)
	 | (in_runs ? PCPROF_COUNTS_RUNS : 0));
  put_bytes (view->path, view->path_len);
  put_zeros (PCPROF_PAD8 (view->path_len + 1) - view->path_len);
  put_bytes (view->build_id, view->build_id_len);
  put_zeros (PCPROF_PAD8 (view->build_id_len) - view->build_id_len);
  put_bytes (view->copy_path, view->copy_path_len);
  put_zeros (PCPROF_PAD8 (view->copy_path_len + 1) - view->copy_path_len);
  /* The tables are in the copy, which profreport reads; they go into
     the profile only when asked for (a profile that does without the
     copies).  */
  if (tables_here)
    {
      put_bytes (view->blocks, (size_t) h->n_blocks * PCPROF_BLOCK_SIZE);
      put_bytes (view->derive, view->derive_size);
      put_zeros (PCPROF_PAD8 (view->derive_size) - view->derive_size);
      put_bytes (view->window_blocks, 4 * (size_t) view->n_window);
      put_zeros (PCPROF_PAD8 (4 * view->n_window) - 4 * view->n_window);
    }
  /* The counters as they are, low word then high word (version 3):
     from the snapshot, or straight from the segment, which costs the
     program nothing a counter.  */
  if (counts != NULL)
    put_bytes (counts, (size_t) view_counts (view) * PCPROF_COUNT_SIZE);
  else if (in_runs)
    put_runs (view, n);
  else
    {
      put_bytes ((const void *) view->counters,
		 (size_t) n * PCPROF_COUNT_SIZE);
      if (view->window_stride == 2)
	put_bytes ((const void *) view->window,
		   (size_t) view->n_window * PCPROF_COUNT_SIZE);
      else
	for (uint32_t k = 0; k < view->n_window; k++)
	  {
	    put32 (view->window[k]);
	    put32 (0);
	  }
    }
}

/* Append the record of every profiled object in the dynamic linker's
   list, with the counts of snapshot S where it has them.  Return how
   many there are.  */

static uint32_t
put_records (struct snapshot *s)
{
  uint32_t n = 0;
  struct seg_view view;

  for (const struct link_map *l = pcrt_objects (); l != NULL; l = l->l_next)
    if (pcrt_object_view (l, &view))
      {
	put_record (&view, l->l_addr, s);
	n++;
      }
  return n;
}

/* Build the profile's file name for process PID into BUF (SIZE bytes):
   the output template with %p replaced by the pid and %% by %, or
   else the program's base name, the pid and ".prof", in the directory
   the program started in (every process keeps its profile).  Return
   false if too long.  */

static bool
profile_name (char *buf, size_t size, long pid)
{
  size_t len = 0;
  char num[24];

  buf[0] = '\0';
  if (output_template[0] == '\0')
    {
      const char *prog = pcrt_program_name ();
      if (prog == NULL || prog[0] == '\0')
	prog = "profcopy";
      return (rt_append (buf, size, &len, start_dir, rt_strlen (start_dir))
	      && rt_append (buf, size, &len, prog, rt_strlen (prog))
	      && rt_append (buf, size, &len, ".", 1)
	      && rt_append (buf, size, &len, num,
			    rt_format_decimal (num, (unsigned long) pid))
	      && rt_append (buf, size, &len, ".prof", 5));
    }
  for (const char *p = output_template; *p != '\0'; p++)
    {
      bool ok;
      if (p[0] == '%' && p[1] == 'p')
	{
	  ok = rt_append (buf, size, &len, num,
			  rt_format_decimal (num, (unsigned long) pid));
	  p++;
	}
      else if (p[0] == '%' && p[1] == '%')
	{
	  ok = rt_append (buf, size, &len, "%", 1);
	  p++;
	}
      else
	ok = rt_append (buf, size, &len, p, 1);
      if (!ok)
	return false;
    }
  return true;
}

/* If PATH is a symbolic link, replace it in place (SIZE bytes) by the
   name of the file it finally leads to, so that the profile goes to
   the link's target and the link stays.  Return 0 or -errno.  */

static long
follow_links (char *path, size_t size)
{
  for (int depth = 0; depth < 40; depth++)
    {
      char target[PATH_MAX];
      long mode = sys_file_mode (path, true), n;
      size_t dir, len;

      if (mode < 0 || (mode & K_S_IFMT) != K_S_IFLNK)
	return 0;
      n = sys_readlink (path, target, sizeof target - 1);
      if (n < 0)
	return n;
      target[n] = '\0';
      if (target[0] == '/')
	{
	  if ((size_t) n >= size)
	    return -ENAMETOOLONG;
	  rt_memcpy (path, target, (size_t) n + 1);
	  continue;
	}
      /* Relative to the link's directory.  */
      for (dir = rt_strlen (path); dir > 0 && path[dir - 1] != '/'; dir--)
	continue;
      len = dir;
      path[len] = '\0';
      if (!rt_append (path, size, &len, target, (size_t) n))
	return -ENAMETOOLONG;
    }
  return -ELOOP;
}

/* True if PATH holds a profile written by process PID (the first
   bytes of its header say so).  */

static bool
profile_of (const char *path, long pid)
{
  unsigned char h[PCPROF_HEADER_SIZE];
  uint32_t p;
  long fd = sys_open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0), n;

  if (fd < 0)
    return false;
  n = RAW_SYSCALL4 (__NR_read, fd, h, sizeof h, 0);
  sys_close ((int) fd);
  if (n != (long) sizeof h)
    return false;
  for (size_t i = 0; i < PCPROF_MAGIC_LEN; i++)
    if (h[PCPROF_H_MAGIC + i] != (unsigned char) PCPROF_MAGIC[i])
      return false;
  rt_memcpy (&p, h + PCPROF_H_PID, sizeof p);
  return p == (uint32_t) pid;
}

/* PROFILE_PATH exists: if an earlier image of process PID wrote it
   (before an exec into this one), change it to the first free name of
   NAME.1.prof, NAME.2.prof... (NAME.1 without the .prof ending), so
   that each image of an exec chain keeps its profile.  False if no
   name is free.  */

static bool
free_name (long pid)
{
  char num[24];
  size_t len = rt_strlen (profile_path), stem = len;
  bool prof = len > 5 && rt_streq (profile_path + len - 5, ".prof");

  if (!profile_of (profile_path, pid))
    return true;
  if (prof)
    stem -= 5;
  for (unsigned k = 1; k < 1000; k++)
    {
      size_t n = 0;
      temp_path[0] = '\0';
      if (!rt_append (temp_path, sizeof temp_path, &n, profile_path, stem)
	  || !rt_append (temp_path, sizeof temp_path, &n, ".", 1)
	  || !rt_append (temp_path, sizeof temp_path, &n, num,
			 rt_format_decimal (num, k))
	  || (prof && !rt_append (temp_path, sizeof temp_path, &n, ".prof", 5)))
	break;
      if (sys_file_mode (temp_path, true) < 0
	  || !profile_of (temp_path, pid))
	{
	  rt_memcpy (profile_path, temp_path, n + 1);
	  return true;
	}
    }
  report_error (profile_path, "cannot write the profile", EEXIST);
  return false;
}

/* Write the profile into the open file OUT.FD, with the counts of
   snapshot S where it has them.  */

static void
put_profile (long pid, unsigned reason, int signo, struct snapshot *s)
{
  unsigned char header[PCPROF_HEADER_SIZE];
  const uint16_t one = 1;
  bool big_endian = *(const unsigned char *) &one == 0;
  uint32_t n_objects;
  struct seg_view view;

  out.error = 0;
  out.len = 0;
  rt_memset (header, 0, sizeof header);
  rt_memcpy (header + PCPROF_H_MAGIC, PCPROF_MAGIC, PCPROF_MAGIC_LEN);
  store32 (header + PCPROF_H_VERSION, PCPROF_VERSION);
  store32 (header + PCPROF_H_BOM, PCPROF_BOM);
  store32 (header + PCPROF_H_HEADER_SIZE, PCPROF_HEADER_SIZE);
  store32 (header + PCPROF_H_PID, (uint32_t) pid);
  store32 (header + PCPROF_H_REASON, reason);
  store32 (header + PCPROF_H_SIGNAL, (uint32_t) signo);
  store32 (header + PCPROF_H_FLAGS, big_endian ? PCPROF_F_BIG_ENDIAN : 0);
  {
    struct k_sysinfo info;
    runs_allowed = !dense_asked && sys_sysinfo (&info) == 0
		   && info.totalswap == 0;
  }
  n_objects = 0;
  for (const struct link_map *l = pcrt_objects (); l != NULL; l = l->l_next)
    n_objects += pcrt_object_view (l, &view);
  n_objects += pcrt_retired_unmatched (s);
  store32 (header + PCPROF_H_N_OBJECTS, n_objects);
  put_bytes (header, sizeof header);
  n_objects -= put_records (s);
  n_objects -= pcrt_retired_put ();
  if (n_objects != 0 && out.error == 0)
    out.error = EIO;
  flush ();
}

/* Set SIGXFSZ to be ignored while the profile is written (a file size
   limit must not kill the program), keeping its action in *OLD for
   restore_xfsz, which puts it back whatever it was (SIG_DFL too: an
   ignored signal stays ignored across exec, so a program the profiled
   one runs would otherwise inherit it).  Guarded by the busy flag.  */

static bool xfsz_saved;

static void
quiet_xfsz (struct k_sigaction *old)
{
  struct k_sigaction ign;

  rt_memset (&ign, 0, sizeof ign);
  ign.handler = SIG_IGN;
  xfsz_saved = sys_sigaction (SIGXFSZ, &ign, old) == 0;
}

static void
restore_xfsz (const struct k_sigaction *old)
{
  if (xfsz_saved)
    sys_sigaction (SIGXFSZ, old, NULL);
  xfsz_saved = false;
}

/* write_file's writing, with SIGXFSZ ignored: into PROFILE_PATH as it
   is when it is SPECIAL (a device, a FIFO or a socket), else through
   TEMP_PATH renamed into place, which is removed if anything failed.
   Return 0, or the error number.  */

static int
write_into (long pid, unsigned reason, int signo, struct snapshot *s,
	    bool special)
{
  char num[24];
  size_t len;
  long r;

  if (special)
    {
      r = sys_open (profile_path,
		    O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0);
      if (r < 0)
	return (int) -r;
      out.fd = (int) r;
      put_profile (pid, reason, signo, s);
      sys_close (out.fd);
      return out.error;
    }
  len = rt_strlen (profile_path);
  rt_memcpy (temp_path, profile_path, len + 1);
  if (!rt_append (temp_path, sizeof temp_path, &len, ".", 1)
      || !rt_append (temp_path, sizeof temp_path, &len, num,
		     rt_format_decimal (num, (unsigned long) pid))
      || !rt_append (temp_path, sizeof temp_path, &len, ".tmp", 4))
    return ENAMETOOLONG;
  r = sys_open (temp_path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW
			   | O_CLOEXEC, 0666);
  if (r < 0)
    return (int) -r;
  out.fd = (int) r;
  put_profile (pid, reason, signo, s);
  r = sys_close (out.fd);
  if (r < 0 && out.error == 0)
    out.error = (int) -r;
  if (out.error == 0 && (r = sys_rename (temp_path, profile_path)) < 0)
    out.error = (int) -r;
  if (out.error != 0)
    sys_unlink (temp_path);
  return out.error;
}

/* Write the profile of process PID to PROFILE_PATH.  A regular file
   (or none yet) is written through a temporary file in the same
   directory and renamed into place, so that a reader never sees half
   a profile; a symbolic link's target gets the profile, the link
   stays; a device, a FIFO or a socket is written into as it is (a
   FIFO without a reader is left alone rather than waited for).
   Return true on success.  */

static bool
write_file (long pid, unsigned reason, int signo, struct snapshot *s)
{
  long r, mode;
  struct k_sigaction xfsz;
  bool special;
  int err;

  r = follow_links (profile_path, sizeof profile_path);
  if (r < 0)
    {
      report_error (profile_path, "cannot write the profile", (int) -r);
      return false;
    }
  mode = sys_file_mode (profile_path, false);
  special = mode >= 0 && (mode & K_S_IFMT) != K_S_IFREG;
  if (!special && mode >= 0 && !rt_streq (profile_path, written_path)
      && !free_name (pid))
    return false;
  if (special && (mode & K_S_IFMT) == K_S_IFDIR)
    {
      report_error (profile_path, "cannot write the profile", EISDIR);
      return false;
    }
  quiet_xfsz (&xfsz);
  err = write_into (pid, reason, signo, s, special);
  restore_xfsz (&xfsz);
  if (err != 0)
    {
      report_error (profile_path, "cannot write the profile", err);
      return false;
    }
  if (!special)
    rt_memcpy (written_path, profile_path, rt_strlen (profile_path) + 1);
  return true;
}

/* With the carry test on (PROFCOPY_TEST_CARRY=1), append to the file
   PROFCOPY_TEST_CARRY_REPORT names a line of its figures: "biased N
   watcher W write X", the counters biased and the wraps of low words
   the watcher and the snapshots found.  */

static void
report_carry_test (void)
{
  uint32_t biased, watcher_wraps, other_wraps;
  const char *file = rt_getenv (pcrt_environment (),
				"PROFCOPY_TEST_CARRY_REPORT");
  char line[96], num[24];
  size_t len = 0;
  long fd;

  if (!pcrt_fold_test_figures (&biased, &watcher_wraps, &other_wraps)
      || file == NULL)
    return;
  rt_append (line, sizeof line, &len, "biased ", 7);
  rt_append (line, sizeof line, &len, num, rt_format_decimal (num, biased));
  rt_append (line, sizeof line, &len, " watcher ", 9);
  rt_append (line, sizeof line, &len, num,
	     rt_format_decimal (num, watcher_wraps));
  rt_append (line, sizeof line, &len, " write ", 7);
  rt_append (line, sizeof line, &len, num,
	     rt_format_decimal (num, other_wraps));
  rt_append (line, sizeof line, &len, "\n", 1);
  fd = sys_open (file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
  if (fd >= 0)
    {
      long r = sys_write_all ((int) fd, line, len);
      if (r < 0)
	report_error (file, "cannot write", (int) -r);
      sys_close ((int) fd);
    }
}

/* Take PROFCOPY_OUTPUT from the environment, as an absolute name, and
   note the starting directory.  */

static void
read_output_setting (char *const *env)
{
  const char *o = rt_getenv (env, "PROFCOPY_OUTPUT");
  size_t len = 0;
  long n = sys_getcwd (start_dir, sizeof start_dir - 1);

  if (n <= 0)
    start_dir[0] = '\0';
  else
    {
      len = rt_strlen (start_dir);
      if (len > 0 && start_dir[len - 1] != '/')
	rt_append (start_dir, sizeof start_dir, &len, "/", 1);
    }
  output_template[0] = '\0';
  if (o == NULL || o[0] == '\0')
    return;
  len = 0;
  if (o[0] != '/')
    rt_append (output_template, sizeof output_template, &len, start_dir,
	       rt_strlen (start_dir));
  if (!rt_append (output_template, sizeof output_template, &len, o,
		  rt_strlen (o)))
    {
      rt_memcpy (profile_path, o, rt_strlen (o) < 200 ? rt_strlen (o) + 1
		 : 200);
      profile_path[199] = '\0';
      report_error (profile_path, "cannot name the profile", ENAMETOOLONG);
      output_template[0] = '\0';
    }
}

void
pcrt_writer_init (char *const *env)
{
  const char *tables = rt_getenv (env, "PROFCOPY_TABLES");
  const char *counts = rt_getenv (env, "PROFCOPY_COUNTS");

  verbose = rt_getenv (env, "PROFCOPY_VERBOSE") != NULL;
  tables_here = tables != NULL && rt_streq (tables, "profile");
  dense_asked = counts != NULL && rt_streq (counts, "all");
  read_output_setting (env);
}

bool
pcrt_write_file (long pid, unsigned reason, int signo, struct snapshot *s)
{
  if (!profile_name (profile_path, sizeof profile_path, pid))
    {
      report_error (profile_path, "cannot name the profile", ENAMETOOLONG);
      return false;
    }
  report_carry_test ();
  return write_file (pid, reason, signo, s);
}

uint32_t
pcrt_record_size (const struct seg_view *view)
{
  return view->record_size + (tables_here ? view->tables_size : 0);
}

bool
pcrt_record_in_memory (const struct seg_view *view, uintptr_t bias,
		       unsigned char *mem)
{
  out.mem = mem;
  out.cap = pcrt_record_size (view);
  out.mem_len = 0;
  out.len = 0;
  out.error = 0;
  put_record (view, bias, NULL);
  flush ();
  out.mem = NULL;
  return out.error == 0 && out.mem_len == pcrt_record_size (view);
}

void
pcrt_put_bytes (const void *p, size_t len)
{
  put_bytes (p, len);
}
