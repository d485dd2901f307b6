/* profile.c -- find the profiled objects of a process and write its
   profile.  Part of libprofcopy.so, the runtime that profcopy adds to
   every profiled program as its first DT_NEEDED.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The runtime never allocates memory from the heap: the program's heap
   must look the same with and without profiling.  The profile is built
   in a static buffer and written with write(2); names are built on the
   stack.  Writing a profile starts with profcopy_snapshot, which copies
   every counter of every profiled object into pages mapped with a raw
   mmap2 system call before any libc function runs, so that the counts
   written are those of the moment the write began: libc is profiled
   too, and the writing code's own calls into libc would otherwise move
   its counts while they are written.  At
   load time the constructor only installs the fatal-signal handlers and
   an atexit hook.  The profile is written at normal exit (by the atexit
   hook, which runs after the destructors; by the destructor only if the
   hook ran before it; a write that would repeat the previous one is
   skipped), before exec (exec.c) and on a fatal signal.  The format is in profile-format.h.  */

#define _GNU_SOURCE 1

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "profile-format.h"
#include "runtime.h"
#include "segment.h"
#include "trace.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* The signals whose default action kills the process with a core dump
   because the program went wrong.  */
static const int fatal_signals[] =
  { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };

/* Nonzero while one thread writes a profile; a second writer (another
   thread, or a signal arriving during the write) gives up.  */
static int busy;

/* The process that wrote the previous profile, the reason, and the sum
   and number of its counts: an exit-time write that would write the
   same counts again is skipped.  Per pid, because a forked child
   inherits these and must still write its own profile.  */
static pid_t last_pid;
static unsigned last_reason;
static uint64_t last_total;
static size_t last_blocks;

/* The process whose profile was written for a fatal signal: nothing is
   written after that.  */
static pid_t final_pid;

/* The output buffer and file.  Guarded by BUSY.  */
static struct
{
  int fd;
  int error;			/* errno of the first failed write, or 0.  */
  size_t len;
  unsigned char buf[8192] __attribute__ ((aligned (8)));
} out;

/* Write the LEN bytes at P to standard error, ignoring failures.  */

static void
say (const char *p, size_t len)
{
  while (len > 0)
    {
      ssize_t n = write (STDERR_FILENO, p, len);
      if (n < 0 && errno == EINTR)
	continue;
      if (n <= 0)
	return;
      p += n;
      len -= n;
    }
}

/* Format the unsigned number V in decimal into BUF (at least 21 bytes).
   Return the length.  */

static size_t
format_decimal (char *buf, uint64_t v)
{
  char digits[21];
  size_t n = 0, len = 0;

  do
    {
      digits[n++] = '0' + v % 10;
      v /= 10;
    }
  while (v != 0);
  while (n > 0)
    buf[len++] = digits[--n];
  buf[len] = '\0';
  return len;
}

/* Report that the profile NAME could not be written because of errno
   value ERR.  strerror is avoided: it may allocate for its message.  */

static void
report_error (const char *name, const char *what, int err)
{
  char num[24];
  const char *reason = NULL;

  switch (err)
    {
    case ENOENT: reason = "No such file or directory"; break;
    case EACCES: reason = "Permission denied"; break;
    case ENOSPC: reason = "No space left on device"; break;
    case EROFS: reason = "Read-only file system"; break;
    case ENAMETOOLONG: reason = "File name too long"; break;
    case EISDIR: reason = "Is a directory"; break;
    default: break;
    }
  say ("libprofcopy: ", 13);
  say (name, strlen (name));
  say (": ", 2);
  say (what, strlen (what));
  say (": ", 2);
  if (reason != NULL)
    say (reason, strlen (reason));
  else
    {
      say ("error ", 6);
      say (num, format_decimal (num, (unsigned) err));
    }
  say ("\n", 1);
}

/* Write the buffered bytes.  */

static void
flush (void)
{
  const unsigned char *p = out.buf;

  while (out.len > 0 && out.error == 0)
    {
      ssize_t n = write (out.fd, p, out.len);
      if (n < 0 && errno == EINTR)
	continue;
      if (n <= 0)
	out.error = n < 0 ? errno : ENOSPC;
      else
	{
	  p += n;
	  out.len -= n;
	}
    }
  out.len = 0;
}

/* Append the LEN bytes at P to the output.  */

static void
put_bytes (const void *p, size_t len)
{
  const unsigned char *q = p;

  while (len > 0)
    {
      size_t room = sizeof out.buf - out.len;
      size_t n = len < room ? len : room;
      memcpy (out.buf + out.len, q, n);
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

/* Store V little-endian at P.  */

static inline void
store32 (unsigned char *p, uint32_t v)
{
  p[0] = v;
  p[1] = v >> 8;
  p[2] = v >> 16;
  p[3] = v >> 24;
}

/* put32 and put64 store straight into the buffer: the profile has two
   words per block and a count, and a call of (profiled) memcpy for each
   would cost the program tens of millions of instructions at exit.  */

static inline __attribute__ ((always_inline)) void
put32 (uint32_t v)
{
  if (sizeof out.buf - out.len < 4)
    flush ();
  store32 (out.buf + out.len, v);
  out.len += 4;
  if (out.len == sizeof out.buf)
    flush ();
}

static void
put64 (uint64_t v)
{
  put32 ((uint32_t) v);
  put32 ((uint32_t) (v >> 32));
}

/* V as the little-endian file wants it, for a whole-word store.  */

static inline uint32_t
le32 (uint32_t v)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  return __builtin_bswap32 (v);
#else
  return v;
#endif
}

static uint64_t read_count (const volatile struct pc_counter *c);

/* How many of LEFT 8-byte pairs go straight into the buffer as whole
   words, at *W: 0 when it is nearly full or not aligned, and the caller
   puts one pair the slow way.  */

static uint32_t
pair_room (uint32_t left, uint32_t **w)
{
  uint32_t room;

  if (out.len % 4 != 0 || sizeof out.buf - out.len < 8)
    return 0;
  room = (uint32_t) (sizeof out.buf - out.len) / 8;
  *w = (uint32_t *) (void *) (out.buf + out.len);
  return left < room ? left : room;
}

/* N pairs were stored at the place pair_room gave.  */

static void
pairs_stored (uint32_t n)
{
  out.len += 8 * n;
  if (out.len == sizeof out.buf)
    flush ();
}

struct seg_view;
static uint64_t live_count (const volatile struct pc_counter *counters,
			    const struct seg_view *view, uint32_t b,
			    uint32_t *j);

/* Append the block table and the counts of N blocks: BLOCKS (link-time
   start and size), and COUNTS or, when it is NULL, the live COUNTERS
   (and the window counters of VIEW).
   Whole words go straight into the buffer, a buffer's worth at a time:
   this is the bulk of every profile.  */

static void
put_blocks_and_counts (const struct pc_block *blocks, uint32_t n,
		       const uint64_t *counts,
		       const volatile struct pc_counter *counters,
		       const struct seg_view *view)
{
  uint32_t *w, m, j = 0;

  for (uint32_t b = 0; b < n; b += m)
    {
      m = pair_room (n - b, &w);
      if (m == 0)
	{
	  put32 (blocks[b].start);
	  put32 (blocks[b].size);
	  m = 1;
	  continue;
	}
      for (uint32_t k = b; k < b + m; k++, w += 2)
	{
	  w[0] = le32 (blocks[k].start);
	  w[1] = le32 (blocks[k].size);
	}
      pairs_stored (m);
    }
  for (uint32_t b = 0; b < n; b += m)
    {
      m = pair_room (n - b, &w);
      if (m == 0)
	{
	  put64 (counts != NULL ? counts[b]
		 : live_count (counters, view, b, &j));
	  m = 1;
	  continue;
	}
      for (uint32_t k = b; k < b + m; k++, w += 2)
	{
	  uint64_t v = counts != NULL ? counts[k]
		       : live_count (counters, view, k, &j);
	  w[0] = le32 ((uint32_t) v);
	  w[1] = le32 ((uint32_t) (v >> 32));
	}
      pairs_stored (m);
    }
}


/* Return true if the LEN bytes at link-time address ADDR lie inside one
   PT_LOAD segment of the object INFO describes.  If so and END is not
   NULL, set *END to the link-time end of that segment.  */

static bool
in_object (const struct dl_phdr_info *info, uint32_t addr, uint32_t len,
	   uint32_t *end)
{
  for (size_t i = 0; i < info->dlpi_phnum; i++)
    {
      const ElfW (Phdr) *ph = &info->dlpi_phdr[i];
      uint64_t lo = ph->p_vaddr, hi = lo + ph->p_memsz;
      if (ph->p_type == PT_LOAD && addr >= lo && (uint64_t) addr + len <= hi)
	{
	  if (end != NULL)
	    *end = (uint32_t) (hi > UINT32_MAX ? UINT32_MAX : hi);
	  return true;
	}
    }
  return false;
}

/* What the runtime reads of one profiled object.  */
struct seg_view
{
  const struct pc_segment_header *header;
  const struct pc_block *blocks;
  const volatile struct pc_counter *counters;
  const char *path;
  size_t path_len;
  const unsigned char *build_id;
  uint32_t build_id_len;
  const volatile struct pc_counter *window;	/* segment.h */
  const uint32_t *window_blocks;
  uint32_t n_window;
};

/* The most window counters H may have: one per block and per counted
   edge, of which the derivation has at most two per block.  */

static inline uint64_t
max_window (const struct pc_segment_header *h)
{
  return 3 * (uint64_t) h->n_blocks;
}

/* If segment I of the object INFO describes is a PT_LOAD that starts
   with a valid profcopy header, fill *VIEW and return true.  Every
   address the header gives is checked to lie inside the object.  */

static bool
find_segment (const struct dl_phdr_info *info, size_t i,
	      struct seg_view *view)
{
  const ElfW (Phdr) *ph = &info->dlpi_phdr[i];
  const struct pc_segment_header *h;
  uintptr_t bias = info->dlpi_addr;
  uint32_t end;

  if (ph->p_type != PT_LOAD || ph->p_filesz < sizeof *h)
    return false;
  h = (const struct pc_segment_header *) (bias + ph->p_vaddr);
  if (memcmp (h->magic, PC_SEGMENT_MAGIC, sizeof h->magic) != 0
      || h->version != PC_SEGMENT_VERSION
      || h->header_size < sizeof *h
      || h->n_blocks > UINT32_MAX / sizeof (struct pc_block)
      || (h->blocks & 3) != 0 || (h->counters & 3) != 0
      || !in_object (info, h->blocks, h->n_blocks * sizeof (struct pc_block),
		     NULL)
      || !in_object (info, h->counters,
		     h->n_blocks * sizeof (struct pc_counter), NULL)
      || !in_object (info, h->path, 1, &end)
      || h->build_id_len > PCPROF_MAX_BUILD_ID_LEN
      || (h->build_id_len != 0
	  && !in_object (info, h->build_id, h->build_id_len, NULL))
      || h->n_window > max_window (h)
      || (h->n_window != 0
	  && ((h->window & 3) != 0 || (h->window_blocks & 3) != 0
	      || !in_object (info, h->window,
			     h->n_window * sizeof (struct pc_counter), NULL)
	      || !in_object (info, h->window_blocks, h->n_window * 4, NULL))))
    return false;

  view->header = h;
  view->blocks = (const struct pc_block *) (bias + h->blocks);
  view->counters = (const volatile struct pc_counter *) (bias + h->counters);
  view->path = (const char *) (bias + h->path);
  view->path_len = strnlen (view->path, end - h->path);
  if (view->path_len > PCPROF_MAX_PATH_LEN || view->path_len == end - h->path)
    return false;
  view->build_id_len = h->build_id_len;
  view->build_id = (const unsigned char *) (bias + h->build_id);
  view->n_window = h->n_window;
  view->window = (const volatile struct pc_counter *) (bias + h->window);
  view->window_blocks = (const uint32_t *) (bias + h->window_blocks);
  return true;
}

/* Read counter C.  Another thread may be incrementing it; the high word
   is read twice so that a carry between the reads is seen.  */

static uint64_t
read_count (const volatile struct pc_counter *c)
{
  uint32_t high, low;

  do
    {
      high = c->high;
      low = c->low;
    }
  while (high != c->high);
  return (uint64_t) high << 32 | low;
}

/* The live count of block B: its counter, plus its window counter
   when VIEW has one (*J walks VIEW's ascending window_blocks).  */

static uint64_t
live_count (const volatile struct pc_counter *counters,
	    const struct seg_view *view, uint32_t b, uint32_t *j)
{
  uint64_t v = read_count (&counters[b]);

  while (*j < view->n_window && view->window_blocks[*j] < b)
    ++*j;
  if (*j < view->n_window && view->window_blocks[*j] == b)
    v += read_count (&view->window[*j]);
  return v;
}

/* The counters of one profiled object, copied by profcopy_snapshot.  */
struct snap_object
{
  uintptr_t bias;			/* Load bias (dlpi_addr, l_addr).  */
  const struct pc_segment_header *header;
  uint32_t n_blocks;
  const uint64_t *counts;		/* N_BLOCKS counts.  */
};

/* A snapshot: the mapping it lives in and the objects it holds.  */
struct snapshot
{
  size_t map_size;			/* Bytes mapped, for munmap.  */
  uint32_t n_objects;
  size_t n_blocks;
  uint64_t total;			/* Sum of all counts.  */
  struct snap_object objects[];
};

/* The program headers of every object loaded at start-up, noted by the
   constructor; profcopy_snapshot finds them here without calling libc.
   Objects loaded later (dlopen) are found through their ELF header.  */
#define MAX_KNOWN_OBJECTS 256
static struct
{
  uintptr_t bias;
  const ElfW (Phdr) *phdr;
  size_t phnum;
} known_objects[MAX_KNOWN_OBJECTS];
static size_t n_known_objects;

/* Map LEN bytes of private anonymous memory with the mmap2 system call
   itself, not libc's mmap (o32: number in v0, arguments in a0..a3 and
   the fifth and sixth on the stack, a3 nonzero on error).  Return NULL
   on failure.  trace.c uses it too.  */

void *
pcrt_mmap (size_t len)
{
#if defined __mips__ && _MIPS_SIM == _ABIO32
  register long v0 __asm__ ("$2") = __NR_mmap2;
  register long a0 __asm__ ("$4") = 0;
  register long a1 __asm__ ("$5") = (long) len;
  register long a2 __asm__ ("$6") = PROT_READ | PROT_WRITE;
  register long a3 __asm__ ("$7") = MAP_PRIVATE | MAP_ANONYMOUS;

  __asm__ volatile ("addiu $sp,$sp,-32\n\t"
		    "li $8,-1\n\t"
		    "sw $8,16($sp)\n\t"
		    "sw $0,20($sp)\n\t"
		    "syscall\n\t"
		    "addiu $sp,$sp,32"
		    : "+r" (v0), "+r" (a3)
		    : "r" (a0), "r" (a1), "r" (a2)
		    : "$1", "$3", "$8", "$9", "$10", "$11", "$12", "$13",
		      "$14", "$15", "$24", "$25", "hi", "lo", "memory");
  if (a3 != 0)
    return NULL;
  return (void *) v0;
#else
  void *p = mmap (NULL, len, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
#endif
}

/* Unmap the LEN bytes at P with the munmap system call itself.  */

static void
raw_munmap (void *p, size_t len)
{
#if defined __mips__ && _MIPS_SIM == _ABIO32
  register long v0 __asm__ ("$2") = __NR_munmap;
  register long a0 __asm__ ("$4") = (long) p;
  register long a1 __asm__ ("$5") = (long) len;
  register long a3 __asm__ ("$7");

  __asm__ volatile ("syscall"
		    : "+r" (v0), "=r" (a3)
		    : "r" (a0), "r" (a1)
		    : "$1", "$3", "$8", "$9", "$10", "$11", "$12", "$13",
		      "$14", "$15", "$24", "$25", "hi", "lo", "memory");
#else
  munmap (p, len);
#endif
}

/* If the LEN bytes at link-time address ADDR lie inside one PT_LOAD of
   the PHNUM program headers PHDR, return true and set *END to the
   link-time end of that segment.  No libc call.  */

static bool
snap_in_object (const ElfW (Phdr) *phdr, size_t phnum, uint32_t addr,
		uint32_t len)
{
  for (size_t i = 0; i < phnum; i++)
    {
      uint64_t lo = phdr[i].p_vaddr, hi = lo + phdr[i].p_memsz;
      if (phdr[i].p_type == PT_LOAD && addr >= lo
	  && (uint64_t) addr + len <= hi)
	return true;
    }
  return false;
}

/* Return the profcopy segment header of the object with load bias BIAS
   and the PHNUM program headers PHDR, or NULL.  The checks are those of
   find_segment that need no libc call.  */

static const struct pc_segment_header *
snap_find_header (uintptr_t bias, const ElfW (Phdr) *phdr, size_t phnum)
{
  static const char magic[8] = PC_SEGMENT_MAGIC;

  for (size_t i = 0; i < phnum; i++)
    {
      const struct pc_segment_header *h;
      size_t k;

      if (phdr[i].p_type != PT_LOAD || phdr[i].p_filesz < sizeof *h)
	continue;
      h = (const struct pc_segment_header *) (bias + phdr[i].p_vaddr);
      for (k = 0; k < sizeof magic; k++)
	if (h->magic[k] != magic[k])
	  break;
      if (k < sizeof magic
	  || h->version != PC_SEGMENT_VERSION
	  || h->header_size < sizeof *h
	  || h->n_blocks > UINT32_MAX / sizeof (struct pc_block)
	  || (h->counters & 3) != 0
	  || !snap_in_object (phdr, phnum, h->counters,
			      h->n_blocks * sizeof (struct pc_counter)))
	continue;
      return h;
    }
  return NULL;
}

/* Find the program headers of the object with load bias BIAS: noted at
   start-up, or else read from its ELF header, which GNU ld maps at the
   bias of a shared object.  Return false if there are none.  */

static bool
snap_phdrs (uintptr_t bias, const ElfW (Phdr) **phdr, size_t *phnum)
{
  const ElfW (Ehdr) *eh;

  for (size_t i = 0; i < n_known_objects; i++)
    if (known_objects[i].bias == bias)
      {
	*phdr = known_objects[i].phdr;
	*phnum = known_objects[i].phnum;
	return true;
      }
  if (bias == 0)
    return false;
  eh = (const ElfW (Ehdr) *) bias;
  if (eh->e_ident[EI_MAG0] != ELFMAG0 || eh->e_ident[EI_MAG1] != ELFMAG1
      || eh->e_ident[EI_MAG2] != ELFMAG2 || eh->e_ident[EI_MAG3] != ELFMAG3
      || eh->e_type != ET_DYN || eh->e_phentsize != sizeof (ElfW (Phdr))
      || eh->e_phoff < sizeof *eh || eh->e_phoff > 4096 - sizeof (ElfW (Phdr))
      || eh->e_phnum > (4096 - eh->e_phoff) / sizeof (ElfW (Phdr)))
    return false;
  *phdr = (const ElfW (Phdr) *) (bias + eh->e_phoff);
  *phnum = eh->e_phnum;
  return true;
}

/* The derivation table of the object with header H, load bias BIAS and
   program headers PHDR, PHNUM, if it has a valid one, else NULL.  */

static const struct pc_derive *
snap_derive (const struct pc_segment_header *h, uintptr_t bias,
	     const ElfW (Phdr) *phdr, size_t phnum)
{
  const struct pc_derive *d;

  if (h->derive == 0 || (h->derive & 3) != 0
      || !snap_in_object (phdr, phnum, h->derive, sizeof *d))
    return NULL;
  d = (const struct pc_derive *) (bias + h->derive);
  if (d->n_vertices != 2 * h->n_blocks + 1
      || d->n_links > d->n_vertices || d->n_edges > 2 * h->n_blocks
      || !snap_in_object (phdr, phnum, h->derive,
			  sizeof *d + 4 * h->n_blocks + 8 * d->n_links
			  + 8 * d->n_edges)
      || !snap_in_object (phdr, phnum, h->counters,
			  ((size_t) h->n_blocks + d->n_edges)
			  * sizeof (struct pc_counter)))
    return NULL;
  return d;
}

/* Add the flow C of edge K of EDGE (from and to vertex pairs) to ACC:
   out of the vertex it leaves, into the one it enters.  False if a
   vertex is not below N.  */

static inline bool
add_edge_flow (const uint32_t *edge, uint32_t k, uint32_t n, uint64_t c,
	       uint64_t *acc)
{
  uint32_t from = edge[2 * k], to = edge[2 * k + 1];

  if (__builtin_expect ((from >= n) | (to >= n), 0))
    return false;
  if (c != 0)
    {
      acc[from] += c;
      acc[to] -= c;
    }
  return true;
}

/* Fill in the N_BLOCKS counts COUNTS of the blocks that have no counter,
   from the others and from the counters EDGE_COUNTERS of D's edges and
   the N_WINDOW window counters WIN of the edges (WB lists whose, as
   n_blocks + the edge; the blocks' are in COUNTS already), as D says
   (segment.h); ACC is D->n_vertices zeros
   (fresh pages: zeroing them here could become a call to memset, which
   is profiled code, before the counts of libc are copied).  A value out
   of range stops the derivation.  */

static void
snap_derive_counts (const struct pc_derive *d, uint32_t n_blocks,
		    const volatile struct pc_counter *edge_counters,
		    const volatile struct pc_counter *win,
		    const uint32_t *wb, uint32_t n_window,
		    uint64_t *counts, uint64_t *acc)
{
  const uint32_t *rule = (const uint32_t *) (d + 1);
  const uint32_t *link = rule + n_blocks;
  const uint32_t *edge = link + 2 * d->n_links;
  uint32_t n = d->n_vertices;

  /* Most blocks of a library never run: skip the zeros (64-bit sums
     cost several instructions each on MIPS32).  */
  for (uint32_t b = 0; b < n_blocks; b++)
    if (rule[b] == 0 && counts[b] != 0)
      {
	acc[2 * b] += counts[b];
	acc[2 * b + 1] -= counts[b];
      }
  for (uint32_t k = 0; k < d->n_edges; k++)
    if (!add_edge_flow (edge, k, n, read_count (&edge_counters[k]), acc))
      return;
  for (uint32_t j = 0; j < n_window; j++)
    if (wb[j] >= n_blocks && wb[j] - n_blocks < d->n_edges
	&& !add_edge_flow (edge, wb[j] - n_blocks, n, read_count (&win[j]),
			   acc))
      return;
  for (const uint32_t *l = link, *end = link + 2 * d->n_links; l < end;
       l += 2)
    {
      uint32_t child = l[0], parent = l[1];
      if (__builtin_expect ((child >= n) | (parent >= n), 0))
	return;
      if (acc[child] != 0)
	acc[parent] += acc[child];
    }
  for (uint32_t b = 0; b < n_blocks; b++)
    if (rule[b] != 0)
      {
	uint32_t v = (rule[b] - 1) / 2;
	if (v < n)
	  counts[b] = (rule[b] & 1) ? acc[v] : -acc[v];
      }
}

/* Copy every counter of every profiled object of the process into new
   private pages and return them, or NULL if nothing is profiled or the
   pages cannot be had.  No libc function is called (the test suite's
   QEMU oracle stops counting at this function's first instruction, so
   libc's counts in the profile must be those of that moment); the
   objects are those of ld.so's link map, r_debug.  Free the result
   with snapshot_free.  */

PCRT_EXPORT __attribute__ ((noinline)) struct snapshot *
profcopy_snapshot (void)
{
  uint32_t n_objects = 0;
  size_t n_blocks = 0, size, n_vertices = 0;
  struct snapshot *s;
  uint64_t *counts, *acc;

  for (const struct link_map *l = _r_debug.r_map; l != NULL; l = l->l_next)
    {
      const ElfW (Phdr) *phdr;
      size_t phnum;
      const struct pc_segment_header *h;

      if (snap_phdrs (l->l_addr, &phdr, &phnum)
	  && (h = snap_find_header (l->l_addr, phdr, phnum)) != NULL)
	{
	  const struct pc_derive *d = snap_derive (h, l->l_addr, phdr, phnum);
	  n_objects++;
	  n_blocks += h->n_blocks;
	  if (d != NULL)
	    n_vertices += d->n_vertices;
	}
    }
  if (n_objects == 0)
    return NULL;
  size = sizeof *s + n_objects * sizeof s->objects[0]
	 + (n_blocks + n_vertices) * sizeof (uint64_t);
  size = (size + 4095) & ~(size_t) 4095;
  s = pcrt_mmap (size);
  if (s == NULL)
    return NULL;
  s->map_size = size;
  s->n_objects = 0;
  s->n_blocks = 0;
  s->total = 0;
  counts = (uint64_t *) &s->objects[n_objects];
  acc = counts + n_blocks;
  for (const struct link_map *l = _r_debug.r_map;
       l != NULL && s->n_objects < n_objects; l = l->l_next)
    {
      const ElfW (Phdr) *phdr;
      size_t phnum;
      const struct pc_segment_header *h;
      struct snap_object *o;
      const volatile struct pc_counter *c, *win;
      const uint32_t *wb;
      uint32_t n_window;
      const struct pc_derive *d;

      if (!snap_phdrs (l->l_addr, &phdr, &phnum)
	  || (h = snap_find_header (l->l_addr, phdr, phnum)) == NULL
	  || h->n_blocks > n_blocks - s->n_blocks)
	continue;
      o = &s->objects[s->n_objects++];
      o->bias = l->l_addr;
      o->header = h;
      o->n_blocks = h->n_blocks;
      o->counts = counts;
      c = (const volatile struct pc_counter *) (l->l_addr + h->counters);
      for (uint32_t b = 0; b < h->n_blocks; b++)
	counts[b] = read_count (&c[b]);
      win = NULL;
      wb = NULL;
      n_window = 0;
      if (h->n_window != 0 && h->n_window <= max_window (h)
	  && snap_in_object (phdr, phnum, h->window,
			     h->n_window * sizeof (struct pc_counter))
	  && snap_in_object (phdr, phnum, h->window_blocks, h->n_window * 4))
	{
	  win = (const volatile struct pc_counter *) (l->l_addr + h->window);
	  wb = (const uint32_t *) (l->l_addr + h->window_blocks);
	  n_window = h->n_window;
	  for (uint32_t k = 0; k < h->n_window; k++)
	    if (wb[k] < h->n_blocks)
	      counts[wb[k]] += read_count (&win[k]);
	}
      d = snap_derive (h, l->l_addr, phdr, phnum);
      if (d != NULL && d->n_vertices <= n_vertices)
	{
	  snap_derive_counts (d, h->n_blocks, c + h->n_blocks, win, wb,
			      n_window, counts, acc);
	  acc += d->n_vertices;
	  n_vertices -= d->n_vertices;
	}
      for (uint32_t b = 0; b < h->n_blocks; b++)
	s->total += counts[b];
      counts += h->n_blocks;
      s->n_blocks += h->n_blocks;
    }
  return s;
}

/* Free the snapshot S (may be NULL).  */

static void
snapshot_free (struct snapshot *s)
{
  if (s != NULL)
    raw_munmap (s, s->map_size);
}

/* The snapshot the profile being written takes its counts from, or
   NULL to read the live counters.  Guarded by BUSY.  */
static struct snapshot *current_snapshot;

/* Return the counts of the object with header H loaded with bias BIAS
   in the current snapshot, or NULL.  */

static const uint64_t *
snapshot_counts (const struct pc_segment_header *h, uintptr_t bias)
{
  struct snapshot *s = current_snapshot;

  if (s == NULL)
    return NULL;
  for (uint32_t i = 0; i < s->n_objects; i++)
    if (s->objects[i].header == h && s->objects[i].bias == bias
	&& s->objects[i].n_blocks == h->n_blocks)
      return s->objects[i].counts;
  return NULL;
}

/* The number of objects in the dynamic linker's list when
   pcrt_fill_probe_slots last looked; 0: never.  */
static unsigned probe_objects_seen;

void
pcrt_fill_probe_slots (void)
{
  unsigned n = 0;

  for (const struct link_map *l = _r_debug.r_map; l != NULL; l = l->l_next)
    n++;
  if (n == __atomic_load_n (&probe_objects_seen, __ATOMIC_RELAXED))
    return;
  __atomic_store_n (&probe_objects_seen, n, __ATOMIC_RELAXED);
  for (const struct link_map *l = _r_debug.r_map; l != NULL; l = l->l_next)
    {
      const ElfW (Phdr) *phdr;
      size_t phnum;
      const struct pc_segment_header *ch;
      struct pc_segment_header *h;

      if (!snap_phdrs (l->l_addr, &phdr, &phnum)
	  || (ch = snap_find_header (l->l_addr, phdr, phnum)) == NULL
	  || !(ch->flags & PC_SEGMENT_F_CALLS) || ch->probe_enter != 0)
	continue;
      /* Its segment is writable.  */
      h = (struct pc_segment_header *) (uintptr_t) ch;
      h->probe_enter = (uint32_t) (uintptr_t) profcopy_trace_enter;
      h->probe_exit = (uint32_t) (uintptr_t) profcopy_trace_exit;
    }
}

/* dl_iterate_phdr callback of the constructor: note the program headers
   of the object INFO describes.  SIZE and DATA are unused.  */

static int
note_object (struct dl_phdr_info *info, size_t size, void *data)
{
  (void) size;
  (void) data;
  if (n_known_objects < MAX_KNOWN_OBJECTS)
    {
      known_objects[n_known_objects].bias = info->dlpi_addr;
      known_objects[n_known_objects].phdr = info->dlpi_phdr;
      known_objects[n_known_objects].phnum = info->dlpi_phnum;
      n_known_objects++;
    }
  return 0;
}

/* The state of one pass over the loaded objects.  */
struct pass
{
  bool write;			/* Write records, else only sum.  */
  uint32_t n_objects;
  uint64_t total;		/* Sum of all counts.  */
  size_t n_blocks;
};

/* Append the object record of VIEW, loaded with bias BIAS.  */

static void
put_record (const struct seg_view *view, uintptr_t bias)
{
  const struct pc_segment_header *h = view->header;
  uint32_t path_pad = PCPROF_PAD8 (view->path_len + 1);
  uint32_t bid_pad = PCPROF_PAD8 (view->build_id_len);
  uint64_t size = PCPROF_RECORD_SIZE + path_pad + bid_pad
		  + (uint64_t) h->n_blocks * (PCPROF_BLOCK_SIZE
					     + PCPROF_COUNT_SIZE);

  put32 ((uint32_t) size);
  put32 (h->flags);
  put32 (h->checksum);
  put32 (h->file_size);
  put32 (h->n_blocks);
  put32 ((uint32_t) view->path_len);
  put32 (view->build_id_len);
  put32 ((uint32_t) bias);
  put_bytes (view->path, view->path_len);
  put_zeros (path_pad - view->path_len);
  put_bytes (view->build_id, view->build_id_len);
  put_zeros (bid_pad - view->build_id_len);
  put_blocks_and_counts (view->blocks, h->n_blocks,
			 snapshot_counts (h, bias), view->counters, view);
}

/* dl_iterate_phdr callback: visit the profcopy segments of the object
   INFO describes, as the pass DATA says.  */

static int
visit_object (struct dl_phdr_info *info, size_t size, void *data)
{
  struct pass *pass = data;
  struct seg_view view;

  (void) size;
  for (size_t i = 0; i < info->dlpi_phnum; i++)
    if (find_segment (info, i, &view))
      {
	uint32_t n = view.header->n_blocks;
	if (pass->write)
	  put_record (&view, info->dlpi_addr);
	else
	  {
	    for (uint32_t b = 0; b < n; b++)
	      pass->total += read_count (&view.counters[b]);
	    for (uint32_t k = 0; k < view.n_window; k++)
	      if (view.window_blocks[k] < n)
		pass->total += read_count (&view.window[k]);
	  }
	pass->n_objects++;
	pass->n_blocks += n;
	/* One profcopy segment an object.  */
	break;
      }
  return 0;
}

/* Append the string S to BUF of SIZE bytes at *LEN.  Return false if it
   does not fit (with its NUL).  */

static bool
append (char *buf, size_t size, size_t *len, const char *s, size_t n)
{
  if (n >= size - *len)
    return false;
  memcpy (buf + *len, s, n);
  *len += n;
  buf[*len] = '\0';
  return true;
}

/* Build the profile's file name for process PID into BUF (SIZE bytes):
   PROFCOPY_OUTPUT with %p replaced by the pid and %% by %, or else the
   program's base name followed by ".prof".  Return false if too
   long.  */

static bool
profile_name (char *buf, size_t size, pid_t pid)
{
  const char *tmpl = getenv ("PROFCOPY_OUTPUT");
  size_t len = 0;
  char num[24];

  buf[0] = '\0';
  if (tmpl == NULL || tmpl[0] == '\0')
    {
      const char *prog = program_invocation_short_name;
      if (prog == NULL || prog[0] == '\0')
	prog = "profcopy";
      return (append (buf, size, &len, prog, strlen (prog))
	      && append (buf, size, &len, ".prof", 5));
    }
  for (const char *p = tmpl; *p != '\0'; p++)
    {
      bool ok;
      if (p[0] == '%' && p[1] == 'p')
	{
	  ok = append (buf, size, &len, num,
		       format_decimal (num, (unsigned) pid));
	  p++;
	}
      else if (p[0] == '%' && p[1] == '%')
	{
	  ok = append (buf, size, &len, "%", 1);
	  p++;
	}
      else
	ok = append (buf, size, &len, p, 1);
      if (!ok)
	return false;
    }
  return true;
}

/* Write the profile file FINAL (through the temporary TEMP) from the
   loaded objects.  REASON and SIGNO go into the header.  Return
   true on success.  */

static bool
write_file (const char *final, const char *temp, pid_t pid, unsigned reason,
	    int signo)
{
  unsigned char header[PCPROF_HEADER_SIZE];
  struct pass pass = { true, 0, 0, 0 };
  const uint16_t one = 1;
  bool big_endian = *(const unsigned char *) &one == 0;

  out.fd = open (temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (out.fd < 0)
    {
      report_error (temp, "cannot create the profile", errno);
      return false;
    }
  out.error = 0;
  out.len = 0;
  put_zeros (PCPROF_HEADER_SIZE);
  dl_iterate_phdr (visit_object, &pass);
  flush ();

  memset (header, 0, sizeof header);
  memcpy (header + PCPROF_H_MAGIC, PCPROF_MAGIC, PCPROF_MAGIC_LEN);
  store32 (header + PCPROF_H_VERSION, PCPROF_VERSION);
  store32 (header + PCPROF_H_BOM, PCPROF_BOM);
  store32 (header + PCPROF_H_HEADER_SIZE, PCPROF_HEADER_SIZE);
  store32 (header + PCPROF_H_PID, (uint32_t) pid);
  store32 (header + PCPROF_H_N_OBJECTS, pass.n_objects);
  store32 (header + PCPROF_H_REASON, reason);
  store32 (header + PCPROF_H_SIGNAL, (uint32_t) signo);
  store32 (header + PCPROF_H_FLAGS, big_endian ? PCPROF_F_BIG_ENDIAN : 0);
  if (out.error == 0
      && pwrite (out.fd, header, sizeof header, 0) != (ssize_t) sizeof header)
    out.error = errno != 0 ? errno : ENOSPC;
  if (close (out.fd) != 0 && out.error == 0)
    out.error = errno;
  if (out.error == 0 && rename (temp, final) != 0)
    out.error = errno;
  if (out.error != 0)
    {
      report_error (final, "cannot write the profile", out.error);
      unlink (temp);
      return false;
    }
  return true;
}

/* The profile's file name and its temporary name.  Static rather than
   on the stack, which may be nearly full when a fatal signal arrives;
   guarded by BUSY.  */
static char profile_path[PATH_MAX], temp_path[PATH_MAX];

void
pcrt_write_profile (unsigned reason, int signo)
{
  int saved_errno;
  struct pass pass = { false, 0, 0, 0 };
  size_t len;
  pid_t pid;
  char num[24];

  if (__atomic_exchange_n (&busy, 1, __ATOMIC_ACQUIRE) != 0)
    return;
  /* First of all, before any libc call (errno included).  */
  current_snapshot = profcopy_snapshot ();
  saved_errno = errno;
  pid = getpid ();
  if (final_pid == pid)
    goto done;

  if (current_snapshot != NULL)
    {
      pass.n_objects = current_snapshot->n_objects;
      pass.total = current_snapshot->total;
      pass.n_blocks = current_snapshot->n_blocks;
    }
  else
    dl_iterate_phdr (visit_object, &pass);
  if (pass.n_objects == 0)
    goto done;
  /* The destructor and the atexit hook both write at exit; the second
     one only writes if something was counted in between.  */
  if (reason == PCPROF_REASON_EXIT && last_pid == pid
      && last_reason == PCPROF_REASON_EXIT && last_total == pass.total
      && last_blocks == pass.n_blocks)
    goto done;

  if (!profile_name (profile_path, sizeof profile_path, pid))
    {
      report_error (profile_path, "cannot name the profile",
		    ENAMETOOLONG);
      goto done;
    }
  len = strlen (profile_path);
  memcpy (temp_path, profile_path, len + 1);
  if (!append (temp_path, sizeof temp_path, &len, ".", 1)
      || !append (temp_path, sizeof temp_path, &len, num,
		  format_decimal (num, pid))
      || !append (temp_path, sizeof temp_path, &len, ".tmp", 4))
    {
      report_error (profile_path, "cannot name the profile",
		    ENAMETOOLONG);
      goto done;
    }
  if (write_file (profile_path, temp_path, pid, reason, signo))
    {
      last_pid = pid;
      last_reason = reason;
      last_total = pass.total;
      last_blocks = pass.n_blocks;
      if (reason == PCPROF_REASON_SIGNAL)
	final_pid = pid;
    }

 done:
  snapshot_free (current_snapshot);
  current_snapshot = NULL;
  __atomic_store_n (&busy, 0, __ATOMIC_RELEASE);
  errno = saved_errno;
}

/* The handler of the fatal signals: write the profile, then die of
   signal SIGNO as the program would have without the runtime.
   SA_RESETHAND has restored the default action already and SA_NODEFER
   lets the raised signal through at once.  */

static void
fatal_handler (int signo)
{
  struct sigaction dfl;

  pcrt_write_profile (PCPROF_REASON_SIGNAL, signo);
  memset (&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset (&dfl.sa_mask);
  sigaction (signo, &dfl, NULL);
  raise (signo);
}

/* Nonzero once the atexit hook ran.  */
static int exit_hook_done;

/* The atexit hook.  It runs last at normal exit: the constructor
   registers it before __libc_start_main registers ld.so's _dl_fini, so
   it runs after every destructor.  It writes the final counts.  */

static void
exit_hook (void)
{
  exit_hook_done = 1;
  pcrt_write_profile (PCPROF_REASON_EXIT, 0);
}

/* Install the fatal-signal handlers where the signal still has its
   default action, and the atexit hook.  A program that installs its
   own handlers later simply replaces ours.  */

static void __attribute__ ((constructor))
pcrt_init (void)
{
  struct sigaction sa, old;

  dl_iterate_phdr (note_object, NULL);
  pcrt_fill_probe_slots ();
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = fatal_handler;
  sigemptyset (&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND | SA_NODEFER;
  for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
    if (sigaction (fatal_signals[i], NULL, &old) == 0
	&& !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL)
      sigaction (fatal_signals[i], &sa, NULL);
  atexit (exit_hook);
}

/* The destructor: write at exit if the atexit hook ran before it.  The
   hook normally runs after it; writing here as well would count this
   write's own libc calls into the profile the hook writes.  */

static void __attribute__ ((destructor))
pcrt_fini (void)
{
  if (exit_hook_done)
    pcrt_write_profile (PCPROF_REASON_EXIT, 0);
}
