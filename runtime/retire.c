/* retire.c -- the counts of objects that dlclose unloads.  Part of
   libprofcopy.so.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   Objects that dlclose unloaded keep their counts: before the real
   dlclose, the record of every profiled object that dlopen loaded
   (only those can go) is built in memory; after it, the records of the
   ones gone join the retired list, adding their counts to a retired
   record of the same object (loaded and unloaded again).  The profile
   adds a retired record's counts to those of the same object loaded
   again, and has the others as they are.  Records live in pages of
   their own (pcrt_mmap); a retired one is kept until the process
   ends.

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

#define _GNU_SOURCE 1

#include <elf.h>
#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "profile-format.h"
#include "profile.h"
#include "runtime.h"
#include "segment.h"
#include "sys.h"

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
  size_t page_size = pcrt_page_size ();
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
      || sys_mmap_failed (view = sys_mmap2 (0, end - start,
				       PROT_READ | PROT_WRITE, MAP_SHARED,
				       fd, 0)))
    {
      sys_close (fd);
      return false;
    }
  rt_memcpy ((void *) view, (const void *) start, end - start);
  r = sys_mmap2 (start, end - start, PROT_READ | PROT_WRITE,
		MAP_SHARED | MAP_FIXED, fd, 0);
  sys_close (fd);
  if (sys_mmap_failed (r))
    {
      sys_munmap ((void *) view, end - start);
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
  copy = sys_mmap2 (0, k->len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (!sys_mmap_failed (copy))
    {
      rt_memcpy ((void *) copy, k->view, k->len);
      if (RAW_SYSCALL6 (__NR_mremap, copy, k->len, k->len,
			MREMAP_MAYMOVE | MREMAP_FIXED, k->start, 0) < 0)
	sys_munmap ((void *) copy, k->len);
    }
  sys_munmap (k->view, k->len);
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
    PCPROF_R_DERIVE_SIZE, PCPROF_R_N_EDGES, PCPROF_R_N_WINDOW,
    PCPROF_R_TABLES_CRC };

  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    if (record_word (a, keys[i]) != record_word (b, keys[i]))
      return false;
  return true;
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
  size_t page_size = pcrt_page_size ();
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

/* Unmap the record R of SIZE bytes of a candidate.  */

static void
free_record (unsigned char *r, uint32_t size)
{
  sys_munmap (r, ((size_t) size + 4095) & ~(size_t) 4095);
}

/* Before a dlclose: the records of the objects it may unload.  */

static void
retire_prepare (void)
{
  n_pending = 0;
  if (!pcrt_try_busy ())
    return;
  for (const struct link_map *l = pcrt_objects ();
       l != NULL && n_pending < MAX_RETIRED; l = l->l_next)
    {
      const ElfW (Phdr) *phdr;
      size_t phnum;
      const struct pc_segment_header *h;
      struct seg_view view;
      unsigned char *mem;
      size_t cap;

      if (!pcrt_phdrs (l->l_addr, &phdr, &phnum)
	  || (h = pcrt_find_header (l->l_addr, phdr, phnum)) == NULL
	  || pcrt_loaded_at_start (l->l_addr, h)
	  || !pcrt_view (h, l->l_addr, phdr, phnum, &view))
	continue;
      cap = (pcrt_record_size (&view) + 4095) & ~(size_t) 4095;
      mem = pcrt_mmap (cap);
      if (mem == NULL)
	continue;
      if (!pcrt_record_in_memory (&view, l->l_addr, mem))
	{
	  free_record (mem, pcrt_record_size (&view));
	  continue;
	}
      pending[n_pending].header = h;
      pending[n_pending].bias = l->l_addr;
      pending[n_pending].record = mem;
      pending[n_pending].size = pcrt_record_size (&view);
      pending[n_pending].view = view;
      keep_counters (&pending[n_pending], phdr, phnum);
      n_pending++;
    }
  pcrt_end_busy ();
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
    pcrt_copy_counts (c, n, counts, NULL, NULL);
  w = kept_address (pending[k].kept, v->window,
		    (size_t) v->n_window * v->window_stride * 4);
  if (w != NULL && v->window_stride == 2)
    pcrt_copy_counts ((const volatile struct pc_counter *) w, v->n_window,
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
	sys_munmap (pending[k].kept[i].view, pending[k].kept[i].len);
	pending[k].kept[i].view = NULL;
      }
}

/* After a dlclose: keep the records of the objects it unloaded; free
   the others.  */

static void
retire_commit (void)
{
  for (size_t k = 0; k < n_pending; k++)
    {
      bool loaded = false;
      for (const struct link_map *l = pcrt_objects (); l != NULL && !loaded;
	   l = l->l_next)
	if (l->l_addr == pending[k].bias)
	  {
	    const ElfW (Phdr) *phdr;
	    size_t phnum;
	    loaded = pcrt_phdrs (l->l_addr, &phdr, &phnum)
		     && pcrt_find_header (l->l_addr, phdr, phnum)
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
	 && record_word (r, PCPROF_R_RECORD_SIZE) == pcrt_record_size (view)
	 && record_word (r, PCPROF_R_N_BLOCKS) == h->n_blocks
	 && record_word (r, PCPROF_R_N_EDGES) == view->n_edges
	 && record_word (r, PCPROF_R_N_WINDOW) == view->n_window
	 && record_word (r, PCPROF_R_TABLES_CRC) == view->tables_crc;
}

bool
pcrt_has_retired (const struct seg_view *v)
{
  for (size_t i = 0; i < n_retired; i++)
    if (retired_of (retired[i].record, v))
      return true;
  return false;
}

void
pcrt_retired_add_to (const struct seg_view *view, struct pc_counter *counts)
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

uint32_t
pcrt_retired_unmatched (struct snapshot *s)
{
  uint32_t n = 0;

  for (size_t i = 0; i < n_retired; i++)
    {
      retired[i].matched = retired[i].added = false;
      for (const struct link_map *l = pcrt_objects ();
	   l != NULL && !retired[i].matched; l = l->l_next)
	{
	  struct seg_view view;
	  if (!pcrt_object_view (l, &view)
	      || pcrt_snapshot_counts (s, &view, l->l_addr) == NULL
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

uint32_t
pcrt_retired_put (void)
{
  uint32_t n = 0;

  for (size_t i = 0; i < n_retired; i++)
    if (!retired[i].matched)
      {
	pcrt_put_bytes (retired[i].record, retired[i].size);
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
  if (!pcrt_active ())
    return real (handle);
  retire_prepare ();
  r = real (handle);
  retire_commit ();
  return r;
}
