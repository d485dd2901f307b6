/* records.c -- the profile's contents.  Part of libprofcopy.so.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The profile (profile-format.h) is a header and one record per
   profiled object: its tables as the segment has them, and its
   counters as they are in memory (or from the snapshot), low word
   first, only the runs of those on pages in memory when it can be.  It
   is built in a static buffer and written into the file writer.c
   opened, or in memory for the record of an object that dlclose
   unloads.  No libc call, no heap, errno untouched.  */

#define _GNU_SOURCE 1

#include <errno.h>
#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile-format.h"
#include "profile.h"
#include "runtime.h"
#include "segment.h"
#include "sys.h"
#include "writer-int.h"

/* The output (writer-int.h).  Guarded by the busy flag
   (pcrt_try_busy).  */
struct writer_out pcrt_out;

/* Write the LEN bytes at P to the profile, unbuffered.  The first
   failure is kept in PCRT_OUT.ERROR and stops every later write.  */

static void
write_all (const void *p, size_t len)
{
  long r;

  if (pcrt_out.error != 0)
    return;
  if (pcrt_out.mem != NULL)
    {
      if (len > pcrt_out.cap - pcrt_out.mem_len)
	pcrt_out.error = ENOSPC;
      else
	{
	  rt_memcpy (pcrt_out.mem + pcrt_out.mem_len, p, len);
	  pcrt_out.mem_len += len;
	}
      return;
    }
  r = sys_write_all (pcrt_out.fd, p, len);
  if (r < 0)
    pcrt_out.error = (int) -r;
}

/* Write the buffered bytes.  */

static void
flush (void)
{
  write_all (pcrt_out.buf, pcrt_out.len);
  pcrt_out.len = 0;
}

/* Append the LEN bytes at P to the output.  Large blocks (the tables of
   a segment, the counts of a snapshot) are written straight from P,
   after what is buffered: copying them would cost the program an
   instruction or more a byte at exit.  */

static void
put_bytes (const void *p, size_t len)
{
  if (len >= sizeof pcrt_out.buf / 2)
    {
      flush ();
      write_all (p, len);
      return;
    }
  rt_buffer_put (pcrt_out.buf, sizeof pcrt_out.buf, &pcrt_out.len, p, len,
		 flush);
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
  if (sizeof pcrt_out.buf - pcrt_out.len < 4)
    flush ();
  store32 (pcrt_out.buf + pcrt_out.len, v);
  pcrt_out.len += 4;
  if (pcrt_out.len == sizeof pcrt_out.buf)
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
  if (pcrt_out.error != 0)
    return;
  r = sys_writev_all (pcrt_out.fd, pieces, m);
  if (r < 0)
    pcrt_out.error = (int) -r;
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
  in_runs = counts == NULL && pcrt_out.mem == NULL && find_runs (view, n);
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
  put32 ((pcrt_tables_here ? PCPROF_TABLES_HERE : PCPROF_TABLES_IN_COPY)
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
  if (pcrt_tables_here)
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

/* Write the profile into the open file PCRT_OUT.FD, with the counts of
   snapshot S where it has them.  */

void
pcrt_put_profile (long pid, unsigned reason, int signo, struct snapshot *s)
{
  unsigned char header[PCPROF_HEADER_SIZE];
  const uint16_t one = 1;
  bool big_endian = *(const unsigned char *) &one == 0;
  uint32_t n_objects;
  struct seg_view view;

  pcrt_out.error = 0;
  pcrt_out.len = 0;
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
    runs_allowed = !pcrt_dense_asked && sys_sysinfo (&info) == 0
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
  if (n_objects != 0 && pcrt_out.error == 0)
    pcrt_out.error = EIO;
  flush ();
}


uint32_t
pcrt_record_size (const struct seg_view *view)
{
  return view->record_size + (pcrt_tables_here ? view->tables_size : 0);
}

bool
pcrt_record_in_memory (const struct seg_view *view, uintptr_t bias,
		       unsigned char *mem)
{
  pcrt_out.mem = mem;
  pcrt_out.cap = pcrt_record_size (view);
  pcrt_out.mem_len = 0;
  pcrt_out.len = 0;
  pcrt_out.error = 0;
  put_record (view, bias, NULL);
  flush ();
  pcrt_out.mem = NULL;
  return pcrt_out.error == 0 && pcrt_out.mem_len == pcrt_record_size (view);
}

void
pcrt_put_bytes (const void *p, size_t len)
{
  put_bytes (p, len);
}
