/* profile.c -- find the profiled objects of a process and write its
   profile.  Part of libprofcopy.so, the runtime that profcopy adds to
   every profiled program as its first DT_NEEDED.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The runtime's work must not show in the profile, and libc is
   profiled too: this file calls no libc function (sys.h), allocates
   nothing from the heap (the profile is built in a static buffer,
   names in static arrays, the snapshot in pages of its own) and keeps
   errno as it was.

   The profile is written as late as the process runs profiled code:
   profcopy puts a call of the runtime's syscall hook (hook.S) before
   every system call of the rewritten objects whose number may be
   exit_group, execve, execveat, fork or clone.  At exit_group every
   destructor, atexit handler and libc's own exit path has run, so the
   counts are those of the whole run; at an exec they are those up to
   the exec (if it fails, the next write replaces the file).  A fork
   or clone only tells the hook whether a child will share this
   memory (vfork, posix_spawn): such a child's exec or exit writes
   nothing, its counts are the parent's.  A fatal signal, and SIGINT,
   SIGTERM and SIGHUP where they still have their default action,
   write the profile from a handler, which then lets the signal take
   its course.  When no loaded object has its exit_group hooked (libc
   was not rewritten), the profile is written by an exit handler
   registered with __cxa_atexit for no object, which runs after every
   destructor; libc's own calls are then not counted anyway.  A process
   without any profiled object (the test suite's oracle runs the
   original programs with the runtime preloaded) does nothing at all.

   Writing starts with profcopy_snapshot, which copies into pages of
   its own the counters that need changing before they are written
   (folded ones, biased ones, and those a dlclose'd load of the same
   object adds to); the others are written straight from memory.  The
   counters are written as they are, with
   the tables of the segment that say how the blocks without a counter
   follow from them; profreport does that arithmetic.  The format is in
   profile-format.h.  */

#define _GNU_SOURCE 1

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "profile-format.h"
#include "runtime.h"
#include "segment.h"
#include "sys.h"
#include "trace.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* The signals that the runtime writes the profile for where they have
   their default action: those that kill the process because the
   program went wrong, and the usual requests to end it.  */
static const int handled_signals[] =
  { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGSYS, SIGTRAP,
    SIGINT, SIGTERM, SIGHUP };

/* Nonzero while one thread writes a profile; a second writer (another
   thread, or a signal arriving during the write) gives up.  */
static int busy;

/* The process whose profile was written for a fatal signal: nothing is
   written after that.  */
static long final_pid;

/* The pid of the process that last asked for a child that shares its
   memory (clone with CLONE_VM but not CLONE_THREAD: vfork,
   posix_spawn), or 0 when its last child was an ordinary fork.  A
   process whose pid differs is that child.  */
static long vm_clone_parent;

/* Some loaded object has the exit_group system call hooked
   (PC_SEGMENT_F_EXIT_HOOK): the hook writes the profile at exit.  */
static bool exit_hooked;

/* Some loaded object is poisoned (PC_SEGMENT_F_POISONED): its jumps
   note themselves in JUMP_NOTE, and a fatal signal at an address that
   is not code is explained (explain_poison_trap).  With threads, the
   note is the last any thread wrote.  */
static bool poisoned;
static struct pc_jump_note jump_note;

/* Some profiled object is loaded: the runtime has work to do.  */
static bool active;

/* The environment and the program's name, from the constructor.  */
static char *const *env;
static const char *program_name;

/* PROFCOPY_OUTPUT as an absolute name (relative names are taken from
   the directory the program started in), or "" for the default,
   PROGRAM.PID.prof there.  */
static char output_template[PATH_MAX];

/* The directory the program started in, with a final slash, or "" if
   it cannot be had.  */
static char start_dir[PATH_MAX];

/* The profile's file name and its temporary name.  Static rather than
   on the stack, which may be nearly full when a fatal signal arrives;
   guarded by BUSY.  */
static char profile_path[PATH_MAX], temp_path[PATH_MAX];

/* The profile this process image wrote last ("" if none): it may
   replace that one, not one that an earlier image of the same process
   wrote before an exec.  */
static char written_path[PATH_MAX];

/* The output buffer and file, or memory (MEM, CAP bytes, MEM_LEN
   used) for the record of an object that dlclose unloads.  Guarded by
   BUSY.  */
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

/* Read counter C.  Another thread may be incrementing it; the high word
   is read twice so that a carry between the reads is seen.  */

static inline uint64_t
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

/* What the runtime reads of one profiled object: its segment header,
   and the tables and counters the header names, checked to lie inside
   the object.  */
struct seg_view
{
  const struct pc_segment_header *header;
  const struct pc_block *blocks;
  /* N_BLOCKS + N_EDGES counters: the blocks', then those of the
     derivation's counted edges.  */
  const volatile struct pc_counter *counters;
  uint32_t n_edges;
  const struct pc_derive *derive;	/* NULL: every block is counted.  */
  uint32_t derive_size;			/* Bytes of it and its tables.  */
  /* The window (segment.h): counter K's low word at WINDOW[K * STRIDE],
     its high word after it with WINDOW_STRIDE 2; with 1 (a folded
     object) the high word is that of the counter the block or edge has
     outside the window, which the runtime keeps.  */
  const volatile uint32_t *window;
  uint32_t window_stride;
  const uint32_t *window_blocks;
  uint32_t n_window;
  const char *path;
  uint32_t path_len;
  const unsigned char *build_id;
  uint32_t build_id_len;
  uint32_t record_size;			/* Of its record in the profile.  */
};

/* The number of counts an object's record has: blocks, edges, window.  */

static inline uint32_t
view_counts (const struct seg_view *v)
{
  return v->header->n_blocks + v->n_edges + v->n_window;
}

/* The most window counters H may have: one per block and per counted
   edge, of which the derivation has at most two per block.  */

static inline uint64_t
max_window (const struct pc_segment_header *h)
{
  return 3 * (uint64_t) h->n_blocks;
}

/* The counters of one profiled object, copied by profcopy_snapshot.  */
struct snap_object
{
  uintptr_t bias;			/* Load bias (dlpi_addr, l_addr).  */
  const struct pc_segment_header *header;
  uint32_t n_counts;
  const struct pc_counter *counts;	/* As its record has them.  */
};

/* A snapshot: the mapping it lives in and the objects it holds.  */
struct snapshot
{
  size_t map_size;			/* Bytes mapped, for munmap.  */
  uint32_t n_objects;
  struct snap_object objects[];
};

/* The program headers of every object loaded at start-up, noted by the
   constructor (note_objects).  Objects loaded later (dlopen) are found
   through their ELF header.  */
#define MAX_KNOWN_OBJECTS 256
static struct
{
  uintptr_t bias;
  const ElfW (Phdr) *phdr;
  size_t phnum;
} known_objects[MAX_KNOWN_OBJECTS];
static size_t n_known_objects;

/* The mmap2 system call itself, not libc's mmap: the address of the
   mapping, or -errno.  PGOFF counts 4096-byte units.  */

static long
raw_mmap (uintptr_t addr, size_t len, int prot, int flags, long fd,
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

/* True if the mmap2 result R is an error.  */

static inline bool
mmap_failed (long r)
{
  return (unsigned long) r > -4096ul;
}

/* Map LEN bytes of private anonymous memory.  Return NULL on failure.
   trace.c uses it too.  */

void *
pcrt_mmap (size_t len)
{
  long r = raw_mmap (0, len, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

  return mmap_failed (r) ? NULL : (void *) r;
}

/* Unmap the LEN bytes at P with the munmap system call itself.  */

static void
raw_munmap (void *p, size_t len)
{
  RAW_SYSCALL4 (__NR_munmap, p, len, 0, 0);
}

/* If the LEN bytes at link-time address ADDR lie inside one PT_LOAD of
   the PHNUM program headers PHDR, return true and, if END is not NULL,
   set *END to the link-time end of that segment.  No libc call.  */

static bool
snap_in_object (const ElfW (Phdr) *phdr, size_t phnum, uint32_t addr,
		uint64_t len, uint32_t *end)
{
  for (size_t i = 0; i < phnum; i++)
    {
      uint64_t lo = phdr[i].p_vaddr, hi = lo + phdr[i].p_memsz;
      if (phdr[i].p_type == PT_LOAD && addr >= lo && addr + len <= hi)
	{
	  if (end != NULL)
	    *end = (uint32_t) (hi > UINT32_MAX ? UINT32_MAX : hi);
	  return true;
	}
    }
  return false;
}

/* Return the profcopy segment header of the object with load bias BIAS
   and the PHNUM program headers PHDR: the first PT_LOAD that starts with
   the magic and this runtime's version; or NULL.  No libc call.  */

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
      if (k == sizeof magic && h->version == PC_SEGMENT_VERSION
	  && h->header_size >= sizeof *h)
	return h;
    }
  return NULL;
}

/* Fill *V from the profcopy header H of the object with load bias BIAS
   and program headers PHDR, PHNUM.  Return false, and the object is not
   profiled, if a table or counter array H names is not inside the
   object, misaligned or inconsistent.  The snapshot and the writer
   both look at an object through this, so they agree on its counts.
   No libc call.  */

static bool check_view (const struct pc_segment_header *h, uintptr_t bias,
			const ElfW (Phdr) *phdr, size_t phnum,
			struct seg_view *v);

/* The views snap_view made, for the next look at the same object: the
   writer looks at every object four times or more, and each check costs
   a thousand instructions.  A header at the same place, with the same
   bias, checksum and counters, is the same loaded object, whose tables
   do not change.  VIEW_CACHE_BUSY keeps two threads from using it at
   once (the second does without).  */
#define VIEW_CACHE_SIZE 8
static struct
{
  const struct pc_segment_header *header;
  uintptr_t bias;
  uint32_t checksum, counters;
  struct seg_view view;
} view_cache[VIEW_CACHE_SIZE];
static unsigned view_cache_next;
static int view_cache_busy;

static bool
snap_view (const struct pc_segment_header *h, uintptr_t bias,
	   const ElfW (Phdr) *phdr, size_t phnum, struct seg_view *v)
{
  bool ok;

  if (__atomic_exchange_n (&view_cache_busy, 1, __ATOMIC_ACQUIRE) != 0)
    return check_view (h, bias, phdr, phnum, v);
  for (unsigned i = 0; i < VIEW_CACHE_SIZE; i++)
    if (view_cache[i].header == h && view_cache[i].bias == bias
	&& view_cache[i].checksum == h->checksum
	&& view_cache[i].counters == h->counters)
      {
	rt_memcpy (v, &view_cache[i].view, sizeof *v);
	__atomic_store_n (&view_cache_busy, 0, __ATOMIC_RELEASE);
	return true;
      }
  ok = check_view (h, bias, phdr, phnum, v);
  if (ok)
    {
      unsigned i = view_cache_next++ % VIEW_CACHE_SIZE;
      view_cache[i].header = h;
      view_cache[i].bias = bias;
      view_cache[i].checksum = h->checksum;
      view_cache[i].counters = h->counters;
      rt_memcpy (&view_cache[i].view, v, sizeof *v);
    }
  __atomic_store_n (&view_cache_busy, 0, __ATOMIC_RELEASE);
  return ok;
}

/* snap_view's checks, without the cache.  */

static bool
check_view (const struct pc_segment_header *h, uintptr_t bias,
	    const ElfW (Phdr) *phdr, size_t phnum, struct seg_view *v)
{
  uint64_t n = h->n_blocks, size;
  uint32_t end;

  if ((h->blocks & 3) != 0 || (h->counters & 3) != 0
      || !snap_in_object (phdr, phnum, h->blocks, n * sizeof *v->blocks,
			  NULL)
      || !snap_in_object (phdr, phnum, h->path, 1, &end)
      || h->build_id_len > PCPROF_MAX_BUILD_ID_LEN
      || (h->build_id_len != 0
	  && !snap_in_object (phdr, phnum, h->build_id, h->build_id_len,
			      NULL))
      || h->n_window > max_window (h)
      || (h->n_window != 0
	  && ((h->window & 3) != 0 || (h->window_blocks & 3) != 0
	      || !snap_in_object (phdr, phnum, h->window,
				  h->n_window
				  * ((h->flags & PC_SEGMENT_F_FOLDED) ? 4 : 8),
				  NULL)
	      || !snap_in_object (phdr, phnum, h->window_blocks,
				  h->n_window * 4ull, NULL))))
    return false;
  v->header = h;
  v->blocks = (const struct pc_block *) (bias + h->blocks);
  v->counters = (const volatile struct pc_counter *) (bias + h->counters);
  v->n_window = h->n_window;
  v->window = (const volatile uint32_t *) (bias + h->window);
  v->window_stride = (h->flags & PC_SEGMENT_F_FOLDED) ? 1 : 2;
  v->window_blocks = (const uint32_t *) (bias + h->window_blocks);
  v->build_id_len = h->build_id_len;
  v->build_id = (const unsigned char *) (bias + h->build_id);
  v->path = (const char *) (bias + h->path);
  for (v->path_len = 0;
       v->path_len < end - h->path && v->path[v->path_len] != '\0';
       v->path_len++)
    if (v->path_len == PCPROF_MAX_PATH_LEN)
      return false;
  if (v->path_len == end - h->path)
    return false;

  v->derive = NULL;
  v->derive_size = 0;
  v->n_edges = 0;
  if (h->derive != 0)
    {
      const struct pc_derive *d;
      if ((h->derive & 3) != 0
	  || !snap_in_object (phdr, phnum, h->derive, sizeof *d, NULL))
	return false;
      d = (const struct pc_derive *) (bias + h->derive);
      size = sizeof *d + 4 * n + 8 * (uint64_t) d->n_links
	     + 8 * (uint64_t) d->n_edges;
      if (d->n_vertices != 2 * n + 1 || d->n_links > d->n_vertices
	  || d->n_edges > 2 * n || size > UINT32_MAX
	  || !snap_in_object (phdr, phnum, h->derive, size, NULL))
	return false;
      v->derive = d;
      v->derive_size = (uint32_t) size;
      v->n_edges = d->n_edges;
    }
  if (!snap_in_object (phdr, phnum, h->counters,
		       (n + v->n_edges) * sizeof (struct pc_counter), NULL))
    return false;
  size = PCPROF_RECORD_SIZE + PCPROF_PAD8 (v->path_len + 1)
	 + PCPROF_PAD8 (v->build_id_len) + n * PCPROF_BLOCK_SIZE
	 + PCPROF_PAD8 ((uint64_t) v->derive_size)
	 + PCPROF_PAD8 (4 * (uint64_t) v->n_window)
	 + (n + v->n_edges + v->n_window) * PCPROF_COUNT_SIZE;
  if (size > UINT32_MAX)
    return false;
  v->record_size = (uint32_t) size;
  return true;
}

/* Copy the N counters C into TO, for an object whose counters
   needs_copy says are not written as they are.  Each counter is read
   once, high word first.  Only another thread that carries a counter
   into its high word between the two loads (once in 2^32 increments of
   that counter, at that instant) can make a copied count wrong.  With
   SEEN, the counters are folded (fold.c, pcrt_fold_seen): a low word
   below its SEEN has wrapped once more than the high word says, and the
   copy says so (the watcher's next look will too); *WRAPS counts
   those.  */

static void
copy_counts (const volatile struct pc_counter *c, uint32_t n,
	     struct pc_counter *to, const uint32_t *seen, uint32_t *wraps)
{
  for (const volatile struct pc_counter *end = c + n; c != end; c++, to++)
    {
      uint32_t high = c->high, low = c->low, wrap = 0;
      if (seen != NULL)
	{
	  wrap = low < *seen++;
	  *wraps += wrap;
	}
      to->high = high + wrap;
      to->low = low;
    }
}

/* copy_counts for the window of V, into COUNTS after the copies of the
   other counters.  A wrap that the watcher has not seen goes into the
   copy of the high word of the block's or edge's other counter.  */

static void
copy_window (const struct seg_view *v, struct pc_counter *counts,
	     uint32_t *wraps)
{
  uint32_t n = v->header->n_blocks + v->n_edges;
  const uint32_t *seen = pcrt_fold_seen (v->window);
  struct pc_counter *to = counts + n;

  if (v->window_stride == 2)
    {
      copy_counts ((const volatile struct pc_counter *) v->window,
		   v->n_window, to, seen, wraps);
      return;
    }
  for (uint32_t k = 0; k < v->n_window; k++)
    {
      uint32_t low = v->window[k];
      to[k].low = low;
      to[k].high = 0;
      if (seen != NULL && low < seen[k])
	{
	  counts[v->window_blocks[k]].high++;
	  ++*wraps;
	}
    }
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
  /* The program headers are at BIAS plus e_phoff: right after the ELF
     header in what GNU ld writes, at the start of the code segment of
     a profiled copy, which profcopy places at the same distance from
     its file offset as the first segment (offset 0 at address 0).  */
  eh = (const ElfW (Ehdr) *) bias;
  if (eh->e_ident[EI_MAG0] != ELFMAG0 || eh->e_ident[EI_MAG1] != ELFMAG1
      || eh->e_ident[EI_MAG2] != ELFMAG2 || eh->e_ident[EI_MAG3] != ELFMAG3
      || eh->e_type != ET_DYN || eh->e_phentsize != sizeof (ElfW (Phdr))
      || eh->e_phoff < sizeof *eh || eh->e_phnum == 0 || eh->e_phnum > 64)
    return false;
  *phdr = (const ElfW (Phdr) *) (bias + eh->e_phoff);
  *phnum = eh->e_phnum;
  return true;
}

/* Copy every counter of every profiled object of the process into new
   private pages and return them, or NULL if nothing is profiled or the
   pages cannot be had.  The objects are those of ld.so's link map,
   r_debug.  The counters are
   copied as they are: profreport derives the blocks without a counter
   (segment.h), so that the program does not spend the time at exit.
   Free the result with snapshot_free.  */

static struct snapshot *snapshot_folded (void);

static struct snapshot *
profcopy_snapshot (void)
{
  struct snapshot *s;

  pcrt_fold_lock ();
  s = snapshot_folded ();
  pcrt_fold_unlock ();
  return s;
}

/* Take off the carry test's bias (pcrt_fold_bias) of the N counters
   whose low words start at LOW from their copies TO.  */

static void
unbias_counts (const volatile void *low, uint32_t n, struct pc_counter *to)
{
  uint32_t bias = pcrt_fold_bias (low);

  if (bias != 0)
    for (uint32_t k = 0; k < n; k++)
      {
	to[k].high -= to[k].low < bias;
	to[k].low -= bias;
      }
}

/* Add the count FROM to TO, modulo 2^64.  */

static inline void
add_count (struct pc_counter *to, const struct pc_counter *from)
{
  uint32_t low = to->low + from->low;

  to->high += from->high + (low < from->low);
  to->low = low;
}

static bool has_retired (const struct seg_view *v);

/* Whether the counters of the object V shows are copied at the
   snapshot: when they are not as its record has them (folded ones,
   whose wraps the watcher may not have seen yet; the carry test's
   bias), or a retired record's counts are to be added to them.  The
   others are written straight from the segment (put_record).  */

static bool
needs_copy (const struct seg_view *v)
{
  return pcrt_fold_seen (v->counters) != NULL || v->window_stride != 2
	 || pcrt_fold_seen (v->window) != NULL
	 || pcrt_fold_bias (v->counters) != 0
	 || pcrt_fold_bias (v->window) != 0 || has_retired (v);
}

/* profcopy_snapshot's work, under the lock that keeps the watcher
   (fold.c) away: the copy of the counters of the objects that
   needs_copy says.  */

static struct snapshot *
snapshot_folded (void)
{
  uint32_t n_objects = 0, wraps = 0;
  size_t n_counts = 0, size;
  struct snapshot *s;
  struct pc_counter *counts;
  struct seg_view v;

  for (const struct link_map *l = _r_debug.r_map; l != NULL; l = l->l_next)
    {
      const ElfW (Phdr) *phdr;
      size_t phnum;
      const struct pc_segment_header *h;

      if (snap_phdrs (l->l_addr, &phdr, &phnum)
	  && (h = snap_find_header (l->l_addr, phdr, phnum)) != NULL
	  && snap_view (h, l->l_addr, phdr, phnum, &v) && needs_copy (&v))
	{
	  n_objects++;
	  n_counts += view_counts (&v);
	}
    }
  if (n_objects == 0)
    return NULL;
  size = sizeof *s + n_objects * sizeof s->objects[0]
	 + n_counts * sizeof (struct pc_counter);
  size = (size + 4095) & ~(size_t) 4095;
  s = pcrt_mmap (size);
  if (s == NULL)
    return NULL;
  s->map_size = size;
  s->n_objects = 0;
  counts = (struct pc_counter *) &s->objects[n_objects];
  for (const struct link_map *l = _r_debug.r_map;
       l != NULL && s->n_objects < n_objects; l = l->l_next)
    {
      const ElfW (Phdr) *phdr;
      size_t phnum;
      const struct pc_segment_header *h;
      struct snap_object *o;
      uint32_t n;

      if (!snap_phdrs (l->l_addr, &phdr, &phnum)
	  || (h = snap_find_header (l->l_addr, phdr, phnum)) == NULL
	  || !snap_view (h, l->l_addr, phdr, phnum, &v) || !needs_copy (&v)
	  || view_counts (&v) > n_counts)
	continue;
      n = h->n_blocks + v.n_edges;
      o = &s->objects[s->n_objects++];
      o->bias = l->l_addr;
      o->header = h;
      o->n_counts = view_counts (&v);
      o->counts = counts;
      copy_counts (v.counters, n, counts, pcrt_fold_seen (v.counters),
		   &wraps);
      copy_window (&v, counts, &wraps);
      unbias_counts (v.counters, n, counts);
      unbias_counts (v.window, v.n_window, counts + n);
      counts += o->n_counts;
      n_counts -= o->n_counts;
    }
  pcrt_fold_note_wraps (wraps);
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

/* Return the counts of the object VIEW shows, loaded with bias BIAS, in
   the current snapshot, or NULL.  */

static const struct pc_counter *
snapshot_counts (const struct seg_view *view, uintptr_t bias)
{
  struct snapshot *s = current_snapshot;

  if (s == NULL)
    return NULL;
  for (uint32_t i = 0; i < s->n_objects; i++)
    if (s->objects[i].header == view->header && s->objects[i].bias == bias
	&& s->objects[i].n_counts == view_counts (view))
      return s->objects[i].counts;
  return NULL;
}

/* Fill the slots of the profcopy segment of every loaded object that
   does not have them yet: the syscall hook of every object, the probe
   routines of the objects rewritten with --calls.  Done when the
   dynamic linker's list of objects changed since the last call (always
   the first time).  No libc call, no lock.  */

static unsigned slots_objects_seen;

void
pcrt_fill_probe_slots (void)
{
  unsigned n = 0;

  for (const struct link_map *l = _r_debug.r_map; l != NULL; l = l->l_next)
    n++;
  if (n == __atomic_load_n (&slots_objects_seen, __ATOMIC_RELAXED))
    return;
  __atomic_store_n (&slots_objects_seen, n, __ATOMIC_RELAXED);
  for (const struct link_map *l = _r_debug.r_map; l != NULL; l = l->l_next)
    {
      const ElfW (Phdr) *phdr;
      size_t phnum;
      const struct pc_segment_header *ch;
      struct pc_segment_header *h;

      if (!snap_phdrs (l->l_addr, &phdr, &phnum)
	  || (ch = snap_find_header (l->l_addr, phdr, phnum)) == NULL)
	continue;
      /* Its segment is writable.  */
      h = (struct pc_segment_header *) (uintptr_t) ch;
      if (h->syscall_hook == 0)
	h->syscall_hook = (uint32_t) (uintptr_t) profcopy_syscall_hook;
      if (h->flags & PC_SEGMENT_F_POISONED)
	{
	  poisoned = true;
	  if (h->jump_note == 0)
	    h->jump_note = (uint32_t) (uintptr_t) &jump_note;
	}
      if ((h->flags & PC_SEGMENT_F_CALLS) && h->probe_enter == 0)
	{
	  h->probe_enter = (uint32_t) (uintptr_t) pcrt_trace_enter;
	  h->probe_exit = (uint32_t) (uintptr_t) pcrt_trace_exit;
	}
    }
}

/* The auxiliary vector's value for TYPE, from AUXV, or 0.  */

static uintptr_t
aux_value (const ElfW (auxv_t) *auxv, uintptr_t type)
{
  for (; auxv != NULL && auxv->a_type != AT_NULL; auxv++)
    if (auxv->a_type == type)
      return auxv->a_un.a_val;
  return 0;
}

/* Note the program headers of every object loaded now: the program's
   from the auxiliary vector AUXV (it follows the environment on the
   initial stack), the others' from their ELF headers.  Return true if
   some object is profiled.  */

static bool
note_objects (const ElfW (auxv_t) *auxv)
{
  const ElfW (Phdr) *main_phdr = (const ElfW (Phdr) *) aux_value (auxv,
								  AT_PHDR);
  size_t main_phnum = aux_value (auxv, AT_PHNUM);
  bool profiled = false;

  for (const struct link_map *l = _r_debug.r_map; l != NULL; l = l->l_next)
    {
      const ElfW (Phdr) *phdr = NULL;
      size_t phnum = 0;
      const struct pc_segment_header *h;

      if (l == _r_debug.r_map && main_phdr != NULL)
	{
	  phdr = main_phdr;
	  phnum = main_phnum;
	}
      else if (!snap_phdrs (l->l_addr, &phdr, &phnum))
	continue;
      if (n_known_objects < MAX_KNOWN_OBJECTS)
	{
	  known_objects[n_known_objects].bias = l->l_addr;
	  known_objects[n_known_objects].phdr = phdr;
	  known_objects[n_known_objects].phnum = phnum;
	  n_known_objects++;
	}
      h = snap_find_header (l->l_addr, phdr, phnum);
      if (h != NULL)
	{
	  profiled = true;
	  if (h->flags & PC_SEGMENT_F_EXIT_HOOK)
	    exit_hooked = true;
	}
    }
  return profiled;
}

/* Register the counters of every object loaded at start-up whose
   increments leave the carry to the runtime (fold.c), and start the
   watcher if there are any.  */

static void
watch_folded_objects (void)
{
  bool any = false;

  for (size_t i = 0; i < n_known_objects; i++)
    {
      const struct pc_segment_header *h
	= snap_find_header (known_objects[i].bias, known_objects[i].phdr,
			    known_objects[i].phnum);
      struct seg_view v;

      if (h != NULL && (h->flags & PC_SEGMENT_F_FOLDED)
	  && snap_view (h, known_objects[i].bias, known_objects[i].phdr,
			known_objects[i].phnum, &v))
	{
	  uint32_t k, n = h->n_blocks + v.n_edges;
	  any = true;
	  pcrt_fold_add ((volatile struct pc_counter *) v.counters, n);
	  for (k = 0; k < v.n_window && v.window_blocks[k] < n; k++)
	    continue;
	  if (k == v.n_window)
	    pcrt_fold_add_window ((volatile uint32_t *) v.window, v.n_window,
				  (volatile struct pc_counter *) v.counters,
				  v.window_blocks);
	}
    }
  if (any)
    pcrt_fold_start (rt_getenv (env, "PROFCOPY_TEST_CARRY"));
}

static void retired_add_to (const struct seg_view *view,
			    struct pc_counter *counts);

/* Append the object record of VIEW, loaded with bias BIAS
   (profile-format.h): the tables are written as the segment has them,
   the counts from the snapshot or else from the live counters.  */

static void
put_record (const struct seg_view *view, uintptr_t bias)
{
  const struct pc_segment_header *h = view->header;
  struct pc_counter *counts
    = (struct pc_counter *) snapshot_counts (view, bias);
  uint32_t n = h->n_blocks + view->n_edges;

  if (counts != NULL && out.mem == NULL)
    retired_add_to (view, counts);

  put32 (view->record_size);
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
  put32 (0);
  put_bytes (view->path, view->path_len);
  put_zeros (PCPROF_PAD8 (view->path_len + 1) - view->path_len);
  put_bytes (view->build_id, view->build_id_len);
  put_zeros (PCPROF_PAD8 (view->build_id_len) - view->build_id_len);
  put_bytes (view->blocks, (size_t) h->n_blocks * PCPROF_BLOCK_SIZE);
  put_bytes (view->derive, view->derive_size);
  put_zeros (PCPROF_PAD8 (view->derive_size) - view->derive_size);
  put_bytes (view->window_blocks, 4 * (size_t) view->n_window);
  put_zeros (PCPROF_PAD8 (4 * view->n_window) - 4 * view->n_window);
  /* The counters as they are, low word then high word (version 3):
     from the snapshot, or straight from the segment, which costs the
     program nothing a counter.  */
  if (counts != NULL)
    put_bytes (counts, (size_t) view_counts (view) * PCPROF_COUNT_SIZE);
  else
    {
      put_bytes ((const void *) view->counters, (size_t) n * PCPROF_COUNT_SIZE);
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


/* Objects that dlclose unloaded keep their counts: before the real
   dlclose, the record of every profiled object that dlopen loaded
   (only those can go) is built in memory; after it, the records of the
   ones gone join the retired list, adding their counts to a retired
   record of the same object (loaded and unloaded again).  The profile
   adds a retired record's counts to those of the same object loaded
   again, and has the others as they are.  Records live in pages of
   their own (pcrt_mmap), never freed.

   The unloaded object's own destructors run inside dlclose, after the
   record is built and before the object is unmapped.  So that their
   counts are kept too, the pages of its counters are first moved into
   a memory file (memfd) of which the runtime maps a second view: the
   counts the destructors add are still there after the unmapping, and
   replace those of the record.  If the object stays loaded, its pages
   become private again.  Moving a page loses what another thread
   writes to it meanwhile: the pages of the window, which it shares
   with the object's data, are moved only while the process has one
   thread (glibc's __libc_single_threaded); the counter array has a
   segment of its own, where at worst a count of such a thread is
   lost.  */

#define MAX_RETIRED 64

struct retired
{
  unsigned char *record;	/* A whole profile record.  */
  uint32_t size;
  bool matched;			/* Goes with a loaded object this time...  */
  bool added;			/* ... and its counts were added there.  */
};

static struct retired retired[MAX_RETIRED];
static size_t n_retired;

/* Pages moved into a memory file: START and LEN page-aligned, the
   runtime's view of the same memory at VIEW, or NULL.  */
struct kept_pages
{
  uintptr_t start;
  size_t len;
  unsigned char *view;
};

/* A candidate of one dlclose: the object and its record, and the
   pages of its counters (KEPT[0]) and of its window (KEPT[1]), if
   moved.  */
struct candidate
{
  const struct pc_segment_header *header;
  uintptr_t bias;
  unsigned char *record;
  uint32_t size;
  struct seg_view view;
  struct kept_pages kept[2];
};

static struct candidate pending[MAX_RETIRED];
static size_t n_pending;

/* The memory page size, from the auxiliary vector.  */
static size_t page_size = 4096;

#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 1u
#endif
#ifndef MREMAP_MAYMOVE
#define MREMAP_MAYMOVE 1
#endif
#ifndef MREMAP_FIXED
#define MREMAP_FIXED 2
#endif

/* Move the pages of the LEN bytes at ADDR, of a PT_LOAD of PHDR with
   load bias BIAS that is readable and writable and outside
   PT_GNU_RELRO, into a memory file, and map it at K->view too.  Return
   false (K->view NULL, the pages as they were) if they cannot be.  */

static bool
keep_pages (struct kept_pages *k, uintptr_t addr, size_t len,
	    uintptr_t bias, const ElfW (Phdr) *phdr, size_t phnum)
{
  uintptr_t start = addr & ~(page_size - 1);
  uintptr_t end = (addr + len + page_size - 1) & ~(page_size - 1);
  bool inside = false;
  long fd, view, r;

  k->view = NULL;
  if (len == 0)
    return false;
  for (size_t i = 0; i < phnum; i++)
    {
      uintptr_t lo = bias + phdr[i].p_vaddr, hi = lo + phdr[i].p_memsz;
      if (phdr[i].p_type == PT_GNU_RELRO && lo < end && start < hi)
	return false;
      if (phdr[i].p_type == PT_LOAD && (lo & ~(page_size - 1)) <= start
	  && end <= ((hi + page_size - 1) & ~(page_size - 1))
	  && (phdr[i].p_flags & (PF_R | PF_W | PF_X)) == (PF_R | PF_W))
	inside = true;
    }
  if (!inside)
    return false;
  fd = RAW_SYSCALL4 (__NR_memfd_create, "profcopy", MFD_CLOEXEC, 0, 0);
  if (fd < 0)
    return false;
  if (RAW_SYSCALL4 (__NR_ftruncate, fd, end - start, 0, 0) < 0
      || mmap_failed (view = raw_mmap (0, end - start,
				       PROT_READ | PROT_WRITE, MAP_SHARED,
				       fd, 0)))
    {
      sys_close (fd);
      return false;
    }
  rt_memcpy ((void *) view, (const void *) start, end - start);
  r = raw_mmap (start, end - start, PROT_READ | PROT_WRITE,
		MAP_SHARED | MAP_FIXED, fd, 0);
  sys_close (fd);
  if (mmap_failed (r))
    {
      raw_munmap ((void *) view, end - start);
      return false;
    }
  k->start = start;
  k->len = end - start;
  k->view = (unsigned char *) view;
  return true;
}

/* Where the LEN bytes at run-time address ADDR are seen after their
   object is gone: in the view of one of the pages KEPT[0] and KEPT[1],
   or NULL if neither holds them all (the record's copy is then kept as
   it is).  */

static const volatile void *
kept_address (const struct kept_pages *kept, const volatile void *addr,
	      size_t len)
{
  uintptr_t a = (uintptr_t) addr;

  for (int i = 0; i < 2; i++)
    if (kept[i].view != NULL && a >= kept[i].start
	&& a - kept[i].start <= kept[i].len
	&& len <= kept[i].len - (a - kept[i].start))
      return kept[i].view + (a - kept[i].start);
  return NULL;
}

/* The object of pages K stays loaded: make its pages private again,
   with what they hold now, and drop the view.  */

static void
unkeep_pages (struct kept_pages *k)
{
  long copy;

  if (k->view == NULL)
    return;
  copy = raw_mmap (0, k->len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (!mmap_failed (copy))
    {
      rt_memcpy ((void *) copy, k->view, k->len);
      if (RAW_SYSCALL6 (__NR_mremap, copy, k->len, k->len,
			MREMAP_MAYMOVE | MREMAP_FIXED, k->start, 0) < 0)
	raw_munmap ((void *) copy, k->len);
    }
  raw_munmap (k->view, k->len);
  k->view = NULL;
}


static uint32_t
record_word (const unsigned char *r, size_t off)
{
  uint32_t v;

  rt_memcpy (&v, r + off, sizeof v);
  return v;
}

/* The number of counts of record R, and where they start.  */

static uint32_t
record_counts (const unsigned char *r, struct pc_counter **counts)
{
  uint32_t n = record_word (r, PCPROF_R_N_BLOCKS)
	       + record_word (r, PCPROF_R_N_EDGES)
	       + record_word (r, PCPROF_R_N_WINDOW);

  *counts = (struct pc_counter *) (r + record_word (r, PCPROF_R_RECORD_SIZE)
				   - (size_t) n * PCPROF_COUNT_SIZE);
  return n;
}

/* True if records A and B are of the same object.  */

static bool
same_object (const unsigned char *a, const unsigned char *b)
{
  static const size_t keys[] = { PCPROF_R_RECORD_SIZE, PCPROF_R_FLAGS,
    PCPROF_R_CHECKSUM, PCPROF_R_FILE_SIZE, PCPROF_R_N_BLOCKS,
    PCPROF_R_DERIVE_SIZE, PCPROF_R_N_EDGES, PCPROF_R_N_WINDOW };

  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    if (record_word (a, keys[i]) != record_word (b, keys[i]))
      return false;
  return true;
}

/* True if the object with header H and bias BIAS was loaded at
   start-up (it is never unloaded).  */

static bool
loaded_at_start (uintptr_t bias, const struct pc_segment_header *h)
{
  for (size_t i = 0; i < n_known_objects; i++)
    if (known_objects[i].bias == bias
	&& snap_find_header (bias, known_objects[i].phdr,
			     known_objects[i].phnum) == h)
      return true;
  return false;
}

/* True if the process has one thread: glibc's __libc_single_threaded
   says so (false without it).  */

static bool
single_threaded (void)
{
  static const char *flag;
  static bool looked;

  if (!looked)
    {
      flag = (const char *) pcrt_next_definition ("__libc_single_threaded");
      looked = true;
    }
  return flag != NULL && *flag != 0;
}

/* Move the pages of the counters of candidate P, whose object has the
   PHNUM program headers PHDR, into memory files (keep_pages): those of
   its counter array, and those of its window if the process has one
   thread, with the counter array's if they share a page.  */

static void
keep_counters (struct candidate *p, const ElfW (Phdr) *phdr, size_t phnum)
{
  const struct seg_view *v = &p->view;
  uintptr_t c = (uintptr_t) v->counters, w = (uintptr_t) v->window;
  size_t c_len = (size_t) (v->header->n_blocks + v->n_edges)
		 * PCPROF_COUNT_SIZE;
  size_t w_len = (size_t) v->n_window * v->window_stride * 4;
  uintptr_t lo, hi;

  p->kept[0].view = p->kept[1].view = NULL;
  if (w_len == 0 || !single_threaded ())
    {
      keep_pages (&p->kept[0], c, c_len, p->bias, phdr, phnum);
      return;
    }
  /* One range if the two meet on a page: moving a page twice would
     leave the first view behind.  */
  if ((w & ~(page_size - 1)) <= ((c + c_len - 1) | (page_size - 1))
      && (c & ~(page_size - 1)) <= ((w + w_len - 1) | (page_size - 1)))
    {
      lo = c < w ? c : w;
      hi = c + c_len > w + w_len ? c + c_len : w + w_len;
      keep_pages (&p->kept[0], lo, hi - lo, p->bias, phdr, phnum);
      return;
    }
  keep_pages (&p->kept[0], c, c_len, p->bias, phdr, phnum);
  keep_pages (&p->kept[1], w, w_len, p->bias, phdr, phnum);
}

/* Before a dlclose: the records of the objects it may unload.  */

static void
retire_prepare (void)
{
  n_pending = 0;
  if (__atomic_exchange_n (&busy, 1, __ATOMIC_ACQUIRE) != 0)
    return;
  for (const struct link_map *l = _r_debug.r_map;
       l != NULL && n_pending < MAX_RETIRED; l = l->l_next)
    {
      const ElfW (Phdr) *phdr;
      size_t phnum;
      const struct pc_segment_header *h;
      struct seg_view view;
      unsigned char *mem;
      size_t cap;

      if (!snap_phdrs (l->l_addr, &phdr, &phnum)
	  || (h = snap_find_header (l->l_addr, phdr, phnum)) == NULL
	  || loaded_at_start (l->l_addr, h)
	  || !snap_view (h, l->l_addr, phdr, phnum, &view))
	continue;
      cap = (view.record_size + 4095) & ~(size_t) 4095;
      mem = pcrt_mmap (cap);
      if (mem == NULL)
	continue;
      out.mem = mem;
      out.cap = view.record_size;
      out.mem_len = 0;
      out.len = 0;
      out.error = 0;
      put_record (&view, l->l_addr);
      flush ();
      out.mem = NULL;
      if (out.error != 0 || out.mem_len != view.record_size)
	continue;
      pending[n_pending].header = h;
      pending[n_pending].bias = l->l_addr;
      pending[n_pending].record = mem;
      pending[n_pending].size = view.record_size;
      pending[n_pending].view = view;
      keep_counters (&pending[n_pending], phdr, phnum);
      n_pending++;
    }
  __atomic_store_n (&busy, 0, __ATOMIC_RELEASE);
}

/* The object of candidate K is gone: replace the counts of its record
   with those its kept pages have now, destructors included.  Only
   the copy V of its view is read, never the object's memory.  */

static void
keep_final_counts (size_t k)
{
  const struct seg_view *v = &pending[k].view;
  const unsigned char *r = pending[k].record;
  uint32_t n = record_word (r, PCPROF_R_N_BLOCKS) + v->n_edges;
  struct pc_counter *counts;
  const volatile struct pc_counter *c;
  const volatile uint32_t *w;

  record_counts (pending[k].record, &counts);
  c = kept_address (pending[k].kept, v->counters,
		    (size_t) n * PCPROF_COUNT_SIZE);
  if (c != NULL)
    copy_counts (c, n, counts, NULL, NULL);
  w = kept_address (pending[k].kept, v->window,
		    (size_t) v->n_window * v->window_stride * 4);
  if (w != NULL && v->window_stride == 2)
    copy_counts ((const volatile struct pc_counter *) w, v->n_window,
		 counts + n, NULL, NULL);
  else if (w != NULL)
    for (uint32_t j = 0; j < v->n_window; j++)
      {
	counts[n + j].low = w[j];
	counts[n + j].high = 0;
      }
  for (int i = 0; i < 2; i++)
    if (pending[k].kept[i].view != NULL)
      {
	raw_munmap (pending[k].kept[i].view, pending[k].kept[i].len);
	pending[k].kept[i].view = NULL;
      }
}

/* Unmap the record R of SIZE bytes that retire_prepare built.  */

static void
free_record (unsigned char *r, uint32_t size)
{
  raw_munmap (r, ((size_t) size + 4095) & ~(size_t) 4095);
}

/* After a dlclose: keep the records of the objects it unloaded; free
   the others.  */

static void
retire_commit (void)
{
  for (size_t k = 0; k < n_pending; k++)
    {
      bool loaded = false;
      for (const struct link_map *l = _r_debug.r_map; l != NULL && !loaded;
	   l = l->l_next)
	if (l->l_addr == pending[k].bias)
	  {
	    const ElfW (Phdr) *phdr;
	    size_t phnum;
	    loaded = snap_phdrs (l->l_addr, &phdr, &phnum)
		     && snap_find_header (l->l_addr, phdr, phnum)
			== pending[k].header;
	  }
      if (loaded)
	{
	  unkeep_pages (&pending[k].kept[0]);
	  unkeep_pages (&pending[k].kept[1]);
	  free_record (pending[k].record, pending[k].size);
	  continue;
	}
      keep_final_counts (k);
      for (size_t i = 0; i < n_retired; i++)
	if (same_object (retired[i].record, pending[k].record))
	  {
	    struct pc_counter *to, *from;
	    uint32_t n = record_counts (retired[i].record, &to);
	    record_counts (pending[k].record, &from);
	    for (uint32_t j = 0; j < n; j++)
	      add_count (&to[j], &from[j]);
	    free_record (pending[k].record, pending[k].size);
	    pending[k].record = NULL;
	    break;
	  }
      if (pending[k].record != NULL && n_retired < MAX_RETIRED)
	{
	  retired[n_retired].record = pending[k].record;
	  retired[n_retired].size = pending[k].size;
	  n_retired++;
	}
      else if (pending[k].record != NULL)
	free_record (pending[k].record, pending[k].size);
    }
  n_pending = 0;
}

/* True if the retired record R is of the object VIEW shows.  */

static bool
retired_of (const unsigned char *r, const struct seg_view *view)
{
  const struct pc_segment_header *h = view->header;

  return record_word (r, PCPROF_R_CHECKSUM) == h->checksum
	 && record_word (r, PCPROF_R_FILE_SIZE) == h->file_size
	 && record_word (r, PCPROF_R_RECORD_SIZE) == view->record_size
	 && record_word (r, PCPROF_R_N_BLOCKS) == h->n_blocks
	 && record_word (r, PCPROF_R_N_EDGES) == view->n_edges
	 && record_word (r, PCPROF_R_N_WINDOW) == view->n_window;
}

/* Whether some retired record is of the object V shows.  */

static bool
has_retired (const struct seg_view *v)
{
  for (size_t i = 0; i < n_retired; i++)
    if (retired_of (retired[i].record, v))
      return true;
  return false;
}

/* Add to COUNTS, the counts of the loaded object VIEW shows, those of
   the retired record retired_unmatched matched with it.  */

static void
retired_add_to (const struct seg_view *view, struct pc_counter *counts)
{
  for (size_t i = 0; i < n_retired; i++)
    if (retired[i].matched && !retired[i].added
	&& retired_of (retired[i].record, view))
      {
	struct pc_counter *from;
	uint32_t n = record_counts (retired[i].record, &from);
	for (uint32_t j = 0; j < n; j++)
	  add_count (&counts[j], &from[j]);
	retired[i].added = true;
	return;
      }
}

/* Match every retired record with a loaded object of the same file,
   if the snapshot has the loaded one's counts.  Return the number of
   the others.  */

static uint32_t
retired_unmatched (void)
{
  uint32_t n = 0;

  for (size_t i = 0; i < n_retired; i++)
    {
      retired[i].matched = retired[i].added = false;
      for (const struct link_map *l = _r_debug.r_map;
	   l != NULL && !retired[i].matched; l = l->l_next)
	{
	  const ElfW (Phdr) *phdr;
	  size_t phnum;
	  const struct pc_segment_header *h;
	  struct seg_view view;
	  if (!snap_phdrs (l->l_addr, &phdr, &phnum)
	      || (h = snap_find_header (l->l_addr, phdr, phnum)) == NULL
	      || !snap_view (h, l->l_addr, phdr, phnum, &view)
	      || snapshot_counts (&view, l->l_addr) == NULL
	      || !retired_of (retired[i].record, &view))
	    continue;
	  /* One retired record per loaded object.  */
	  bool taken = false;
	  for (size_t k = 0; k < i; k++)
	    taken |= retired[k].matched
		     && retired_of (retired[k].record, &view);
	  retired[i].matched = !taken;
	}
      n += !retired[i].matched;
    }
  return n;
}

/* Append the retired records that no loaded object took.  Return how
   many.  */

static uint32_t
retired_put (void)
{
  uint32_t n = 0;

  for (size_t i = 0; i < n_retired; i++)
    if (!retired[i].matched)
      {
	put_bytes (retired[i].record, retired[i].size);
	n++;
      }
  return n;
}

/* dlclose for the program: libc's, between the two halves above.  */

PCRT_EXPORT int
dlclose (void *handle)
{
  static int (*real) (void *);
  int r;

  if (real == NULL)
    real = (int (*) (void *)) pcrt_next_definition ("dlclose");
  if (real == NULL)
    return -1;
  if (!active)
    return real (handle);
  retire_prepare ();
  r = real (handle);
  retire_commit ();
  return r;
}

/* Append the record of every profiled object in the dynamic linker's
   list.  Return how many there are.  */

static uint32_t
put_records (void)
{
  uint32_t n = 0;

  for (const struct link_map *l = _r_debug.r_map; l != NULL; l = l->l_next)
    {
      const ElfW (Phdr) *phdr;
      size_t phnum;
      const struct pc_segment_header *h;
      struct seg_view view;

      if (snap_phdrs (l->l_addr, &phdr, &phnum)
	  && (h = snap_find_header (l->l_addr, phdr, phnum)) != NULL
	  && snap_view (h, l->l_addr, phdr, phnum, &view))
	{
	  put_record (&view, l->l_addr);
	  n++;
	}
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
      const char *prog = program_name;
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

/* Write the profile into the open file OUT.FD.  */

static void
put_profile (long pid, unsigned reason, int signo)
{
  unsigned char header[PCPROF_HEADER_SIZE];
  const uint16_t one = 1;
  bool big_endian = *(const unsigned char *) &one == 0;
  uint32_t n_objects;

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
  n_objects = 0;
  for (const struct link_map *l = _r_debug.r_map; l != NULL; l = l->l_next)
    {
      const ElfW (Phdr) *phdr;
      size_t phnum;
      const struct pc_segment_header *h;
      struct seg_view view;
      if (snap_phdrs (l->l_addr, &phdr, &phnum)
	  && (h = snap_find_header (l->l_addr, phdr, phnum)) != NULL
	  && snap_view (h, l->l_addr, phdr, phnum, &view))
	n_objects++;
    }
  n_objects += retired_unmatched ();
  store32 (header + PCPROF_H_N_OBJECTS, n_objects);
  put_bytes (header, sizeof header);
  n_objects -= put_records ();
  n_objects -= retired_put ();
  if (n_objects != 0 && out.error == 0)
    out.error = EIO;
  flush ();
}

/* Set SIGXFSZ to be ignored while the profile is written (a file size
   limit must not kill the program), keeping its action in *OLD.  */

static void
quiet_xfsz (struct k_sigaction *old)
{
  struct k_sigaction ign;

  rt_memset (&ign, 0, sizeof ign);
  ign.handler = SIG_IGN;
  if (sys_sigaction (SIGXFSZ, &ign, old) < 0)
    old->handler = NULL;
}

static void
restore_xfsz (const struct k_sigaction *old)
{
  if (old->handler != NULL)
    sys_sigaction (SIGXFSZ, old, NULL);
}


/* Write the profile of process PID to PROFILE_PATH.  A regular file
   (or none yet) is written through a temporary file in the same
   directory and renamed into place, so that a reader never sees half
   a profile; a symbolic link's target gets the profile, the link
   stays; a device, a FIFO or a socket is written into as it is (a
   FIFO without a reader is left alone rather than waited for).
   Return true on success.  */

static bool
write_file (long pid, unsigned reason, int signo)
{
  char num[24];
  size_t len;
  long r, mode;
  struct k_sigaction xfsz;
  bool special;

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
  if (special)
    {
      r = sys_open (profile_path,
		    O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0);
      if (r < 0)
	{
	  restore_xfsz (&xfsz);
	  report_error (profile_path, "cannot write the profile", (int) -r);
	  return false;
	}
      out.fd = (int) r;
      put_profile (pid, reason, signo);
      sys_close (out.fd);
      restore_xfsz (&xfsz);
      if (out.error != 0)
	{
	  report_error (profile_path, "cannot write the profile", out.error);
	  return false;
	}
      return true;
    }

  len = rt_strlen (profile_path);
  rt_memcpy (temp_path, profile_path, len + 1);
  if (!rt_append (temp_path, sizeof temp_path, &len, ".", 1)
      || !rt_append (temp_path, sizeof temp_path, &len, num,
		     rt_format_decimal (num, (unsigned long) pid))
      || !rt_append (temp_path, sizeof temp_path, &len, ".tmp", 4))
    {
      restore_xfsz (&xfsz);
      report_error (profile_path, "cannot write the profile",
		    ENAMETOOLONG);
      return false;
    }
  r = sys_open (temp_path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW
			   | O_CLOEXEC, 0666);
  if (r < 0)
    {
      restore_xfsz (&xfsz);
      report_error (profile_path, "cannot write the profile", (int) -r);
      return false;
    }
  out.fd = (int) r;
  put_profile (pid, reason, signo);
  r = sys_close (out.fd);
  if (r < 0 && out.error == 0)
    out.error = (int) -r;
  if (out.error == 0 && (r = sys_rename (temp_path, profile_path)) < 0)
    out.error = (int) -r;
  if (out.error != 0)
    sys_unlink (temp_path);
  restore_xfsz (&xfsz);
  if (out.error != 0)
    {
      report_error (profile_path, "cannot write the profile", out.error);
      return false;
    }
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
  const char *file = rt_getenv (env, "PROFCOPY_TEST_CARRY_REPORT");
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

/* True in a child that shares its parent's memory (see
   vm_clone_parent): its counts are its parent's.  */

static bool
in_vm_child (long pid)
{
  long parent = __atomic_load_n (&vm_clone_parent, __ATOMIC_RELAXED);

  return parent != 0 && parent != pid;
}

void
pcrt_write_profile (unsigned reason, int signo)
{
  long pid;

  if (!active || __atomic_exchange_n (&busy, 1, __ATOMIC_ACQUIRE) != 0)
    return;
  /* First of all, so that the counts are those of this moment.  */
  current_snapshot = profcopy_snapshot ();
  pid = sys_getpid ();
  if (final_pid == pid || in_vm_child (pid))
    goto done;
  if (!profile_name (profile_path, sizeof profile_path, pid))
    {
      report_error (profile_path, "cannot name the profile", ENAMETOOLONG);
      goto done;
    }
  report_carry_test ();
  if (write_file (pid, reason, signo) && reason == PCPROF_REASON_SIGNAL)
    final_pid = pid;

 done:
  snapshot_free (current_snapshot);
  current_snapshot = NULL;
  __atomic_store_n (&busy, 0, __ATOMIC_RELEASE);
}

/* The syscall hook (hook.S): the rewritten code is about to make
   system call NR with the arguments A0, A1 and A2.  */

#ifndef CLONE_VM
#define CLONE_VM 0x00000100
#endif
#ifndef CLONE_THREAD
#define CLONE_THREAD 0x00010000
#endif

PCRT_HIDDEN void pcrt_syscall_hook (long nr, long a0, long a1, long a2);

void
pcrt_syscall_hook (long nr, long a0, long a1, long a2)
{
  uint64_t flags;

  (void) a1;
  (void) a2;
  switch (nr)
    {
    case __NR_exit_group:
      pcrt_trace_flush ();
      pcrt_write_profile (PCPROF_REASON_EXIT, 0);
      break;
    case __NR_execve:
#ifdef __NR_execveat
    case __NR_execveat:
#endif
      pcrt_trace_flush ();
      pcrt_write_profile (PCPROF_REASON_EXEC, 0);
      break;
    case __NR_fork:
      __atomic_store_n (&vm_clone_parent, 0, __ATOMIC_RELAXED);
      pcrt_trace_fork ();
      break;
    case __NR_clone:
#ifdef __NR_clone3
    case __NR_clone3:
#endif
      flags = (uint32_t) a0;
#ifdef __NR_clone3
      if (nr == __NR_clone3)
	{
	  if (a0 == 0)
	    break;
	  rt_memcpy (&flags, (const void *) a0, sizeof flags);
	}
#endif
      if (flags & CLONE_THREAD)
	break;
      __atomic_store_n (&vm_clone_parent,
			(flags & CLONE_VM) ? sys_getpid () : 0,
			__ATOMIC_RELAXED);
      if (!(flags & CLONE_VM))
	pcrt_trace_fork ();
      break;
    default:
      break;
    }
}

/* The handler of the signals the runtime writes the profile for: write
   it, then let signal SIGNO do what it would have done without the
   runtime.  SA_RESETHAND has restored the default action already and
   SA_NODEFER lets the signal sent again through at once; a fault
   repeats when the handler returns.  */

/* The object of the link map with ADDR in one of its PT_LOAD segments
   (an executable one, with EXEC), or NULL.  No libc call.  */

static const struct link_map *
object_at (uintptr_t addr, bool exec)
{
  for (const struct link_map *l = _r_debug.r_map; l != NULL; l = l->l_next)
    {
      const ElfW (Phdr) *phdr;
      size_t phnum;

      if (!snap_phdrs (l->l_addr, &phdr, &phnum))
	continue;
      for (size_t i = 0; i < phnum; i++)
	if (phdr[i].p_type == PT_LOAD && (!exec || (phdr[i].p_flags & PF_X))
	    && addr - (l->l_addr + phdr[i].p_vaddr) < phdr[i].p_memsz)
	  return l;
    }
  return NULL;
}

/* The name of the object L for a message: the original's, if L is a
   profiled copy, else its own.  */

static const char *
object_name (const struct link_map *l)
{
  const ElfW (Phdr) *phdr;
  size_t phnum;
  const struct pc_segment_header *h;

  if (snap_phdrs (l->l_addr, &phdr, &phnum)
      && (h = snap_find_header (l->l_addr, phdr, phnum)) != NULL)
    return (const char *) (l->l_addr + h->path);
  if (l->l_name != NULL && l->l_name[0] != '\0')
    return l->l_name;
  return program_name != NULL ? program_name : "the program";
}

/* The program counter in the kernel's ucontext that a handler with
   SA_SIGINFO gets (asm/ucontext.h and asm/sigcontext.h of o32 MIPS:
   uc_mcontext 24 bytes in, its 64-bit sc_pc 8 bytes into that).  */

static uint32_t
context_pc (const void *context)
{
  uint64_t pc;

  rt_memcpy (&pc, (const char *) context + 32, sizeof pc);
  return (uint32_t) pc;
}

/* In a process with a poisoned object, say why the signal SIGNO came
   when it came at an address that is not code: the poisoned original
   code of a profiled object, or no executable segment of any object
   (data, or nothing mapped).  The message names the last indirect
   jump, call or return noted, which is the one that went there unless
   a direct branch did (or another thread jumped since).  */

static void
explain_poison_trap (int signo, const void *context)
{
  uint32_t pc = context_pc (context);
  char pc_hex[11], link_hex[11], jump_hex[11];
  const char *where = "which is not code", *where_obj = "";
  const char *jump_obj;
  const struct link_map *l;

  if (signo != SIGTRAP && signo != SIGILL && signo != SIGSEGV
      && signo != SIGBUS)
    return;
  rt_format_hex (pc_hex, pc);
  link_hex[0] = '\0';
  for (l = _r_debug.r_map; l != NULL; l = l->l_next)
    {
      const ElfW (Phdr) *phdr;
      size_t phnum;
      const struct pc_segment_header *h;

      if (snap_phdrs (l->l_addr, &phdr, &phnum)
	  && (h = snap_find_header (l->l_addr, phdr, phnum)) != NULL
	  && (h->flags & PC_SEGMENT_F_POISONED)
	  && pc - l->l_addr >= h->text_start && pc - l->l_addr < h->text_end)
	{
	  rt_format_hex (link_hex, (uint32_t) (pc - l->l_addr));
	  where = "the poisoned original code at ";
	  where_obj = object_name (l);
	  break;
	}
    }
  if (l == NULL)
    {
      if (object_at (pc, true) != NULL)
	return;
      /* Data of some object, or nothing mapped.  */
      l = object_at (pc, false);
      if (l != NULL)
	{
	  rt_format_hex (link_hex, (uint32_t) (pc - l->l_addr));
	  where = "which is not code: ";
	  where_obj = object_name (l);
	}
    }
  if (jump_note.at == 0)
    {
      const char *parts[] = { "--poison-original: ", pc_hex, " was reached, ",
			      where, link_hex[0] != '\0' ? link_hex : "",
			      where_obj[0] != '\0' ? " of " : "", where_obj,
			      ", and no indirect jump, call or return was"
			      " noted before: a branch went there", NULL };
      rt_say (parts);
      return;
    }
  rt_format_hex (jump_hex, jump_note.jump);
  l = object_at (jump_note.at, true);
  jump_obj = l != NULL ? object_name (l) : "an unknown object";
  {
    const char *parts[] = { "--poison-original: the jump at ", jump_hex,
			    " of ", jump_obj, " went to ", pc_hex, ", ",
			    where, link_hex[0] != '\0' ? link_hex : "",
			    where_obj[0] != '\0' ? " of " : "", where_obj,
			    NULL };
    rt_say (parts);
  }
}

static void
signal_handler (int signo, siginfo_t *info, void *context)
{
  (void) info;
  if (poisoned)
    explain_poison_trap (signo, context);
  pcrt_trace_flush ();
  pcrt_write_profile (PCPROF_REASON_SIGNAL, signo);
  sys_tgkill (sys_getpid (), sys_gettid (), signo);
}

/* Write the profile at exit when no system call of the process is
   hooked (libc was not rewritten).  */

static void
exit_handler (void *unused)
{
  (void) unused;
  pcrt_trace_flush ();
  pcrt_write_profile (PCPROF_REASON_EXIT, 0);
}

extern char **environ __attribute__ ((weak));

/* Take PROFCOPY_OUTPUT from the environment, as an absolute name, and
   note the starting directory.  */

static void
read_output_setting (void)
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

/* The base name of PATH.  */

static const char *
base_name (const char *path)
{
  const char *b = path;

  if (path == NULL)
    return NULL;
  for (const char *p = path; *p != '\0'; p++)
    if (*p == '/')
      b = p + 1;
  return b;
}

/* The constructor.  glibc passes init functions the program's
   arguments and environment; the auxiliary vector follows the
   environment on the initial stack.  In a process without profiled
   objects it does nothing.  */

static void __attribute__ ((constructor))
pcrt_init (int argc, char **argv, char **envp)
{
  const ElfW (auxv_t) *auxv = NULL;
  struct k_sigaction sa, old;

  env = envp != NULL ? envp : (&environ != NULL ? environ : NULL);
  if (env != NULL)
    {
      char *const *e = env;
      while (*e != NULL)
	e++;
      auxv = (const ElfW (auxv_t) *) (e + 1);
    }
  program_name = argc > 0 && argv != NULL ? base_name (argv[0]) : NULL;
  if (aux_value (auxv, AT_PAGESZ) != 0)
    page_size = aux_value (auxv, AT_PAGESZ);
  if (!note_objects (auxv))
    return;
  active = true;
  verbose = rt_getenv (env, "PROFCOPY_VERBOSE") != NULL;
  read_output_setting ();
  pcrt_fill_probe_slots ();
  watch_folded_objects ();
  rt_memset (&sa, 0, sizeof sa);
  sa.handler = (void (*) (int)) (void (*) (void)) signal_handler;
  sa.flags = K_SA_SIGINFO | K_SA_RESETHAND | K_SA_NODEFER;
  for (size_t i = 0; i < sizeof handled_signals / sizeof handled_signals[0];
       i++)
    if (sys_sigaction (handled_signals[i], NULL, &old) == 0
	&& !(old.flags & K_SA_SIGINFO) && old.handler == SIG_DFL)
      sys_sigaction (handled_signals[i], &sa, NULL);
  if (exit_hooked)
    pcrt_exec_forward ();
  else
    pcrt_cxa_atexit (exit_handler, NULL);
}

bool
pcrt_exit_hooked (void)
{
  return exit_hooked;
}

char *const *
pcrt_environment (void)
{
  return env != NULL ? env : (&environ != NULL ? environ : NULL);
}

bool
pcrt_object_phdrs (const struct link_map *l, const ElfW (Phdr) **phdr,
		   size_t *phnum)
{
  return snap_phdrs (l->l_addr, phdr, phnum);
}

const char *
pcrt_program_name (void)
{
  return program_name;
}

/* The handle of this object for __cxa_atexit and pthread_atfork
   (crtbeginS.o, which would define it, is left out).  */
PCRT_HIDDEN void *__dso_handle = &__dso_handle;
