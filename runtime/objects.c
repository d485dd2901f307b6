/* objects.c -- the profiled objects of the process, and what the
   runtime reads of each.  Part of libprofcopy.so.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   An object is profiled when one of its PT_LOAD segments starts with a
   profcopy segment header (segment.h) of this runtime's version.  The
   objects are those of the dynamic linker's list (pcrt_objects); their
   program headers are noted at start-up, or read from their ELF
   headers for the ones dlopen loads later.  Everything a header names
   is checked to lie inside its object before the runtime reads it
   (pcrt_view), and the checked view is cached.  No libc call.  */

#define _GNU_SOURCE 1

#include <elf.h>
#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile-format.h"
#include "profile.h"
#include "runtime.h"
#include "segment.h"
#include "sys.h"

#ifdef PCRT_STATIC

/* A static executable has no dynamic linker's list: its one object is
   the program itself, loaded where it was linked or, a static PIE,
   where the kernel put it.  */
static struct link_map static_program = { .l_name = (char *) "" };

void
pcrt_static_bias (uintptr_t bias)
{
  static_program.l_addr = bias;
}

bool
pcrt_glibc_loader (void)
{
  return false;
}

const struct link_map *
pcrt_objects (void)
{
  return &static_program;
}

#else

/* The dynamic linker's list: glibc's r_debug, or musl's debug record
   (struct debug, whose first two fields are those of struct r_debug),
   reached through the pointer musl exports.  Weak, so that the runtime
   needs neither ld.so.1 nor libc.so.6 by name (musl's loader has
   neither).  */
extern struct r_debug _r_debug __attribute__ ((weak));
extern struct r_debug *_dl_debug_addr __attribute__ ((weak));

bool
pcrt_glibc_loader (void)
{
  return &_r_debug != NULL;
}

const struct link_map *
pcrt_objects (void)
{
  if (&_r_debug != NULL)
    return _r_debug.r_map;
  if (&_dl_debug_addr != NULL && _dl_debug_addr != NULL)
    return _dl_debug_addr->r_map;
  return NULL;
}

#endif

/* The program headers of every object loaded at start-up, noted by the
   constructor (pcrt_note_objects).  Objects loaded later (dlopen) are found
   through their ELF header.  */
#define MAX_KNOWN_OBJECTS 256
static struct
{
  uintptr_t bias;
  const ElfW (Phdr) *phdr;
  size_t phnum;
} known_objects[MAX_KNOWN_OBJECTS];
static size_t n_known_objects;

/* The most window counters H may have: one per block and per counted
   edge, of which the derivation has at most two per block.  */

static inline uint64_t
max_window (const struct pc_segment_header *h)
{
  return 3 * (uint64_t) h->n_blocks;
}

/* If the LEN bytes at link-time address ADDR lie inside one PT_LOAD of
   the PHNUM program headers PHDR, return true and, if END is not NULL,
   set *END to the link-time end of that segment.  No libc call.  */

static bool
in_object (const ElfW (Phdr) *phdr, size_t phnum, uint32_t addr,
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

/* The header is at the start of the first PT_LOAD that starts with the
   magic and this runtime's version.  */

const struct pc_segment_header *
pcrt_find_header (uintptr_t bias, const ElfW (Phdr) *phdr, size_t phnum)
{
  /* The magic as two words: the header is aligned, and the runtime
     looks for it in every object at each step of its work.  */
  static const union
  {
    char c[8];
    uint32_t w[2];
  } magic = { PC_SEGMENT_MAGIC };

  for (size_t i = 0; i < phnum; i++)
    {
      const struct pc_segment_header *h;
      const uint32_t *w;

      if (phdr[i].p_type != PT_LOAD || phdr[i].p_filesz < sizeof *h
	  || (phdr[i].p_vaddr & 7) != 0)
	continue;
      h = (const struct pc_segment_header *) (bias + phdr[i].p_vaddr);
      w = (const uint32_t *) h->magic;
      if (w[0] == magic.w[0] && w[1] == magic.w[1]
	  && h->version == PC_SEGMENT_VERSION && h->header_size >= sizeof *h)
	return h;
    }
  return NULL;
}

/* pcrt_view's checks, without the cache and the copy's name.  */

static bool check_view (const struct pc_segment_header *h, uintptr_t bias,
			const ElfW (Phdr) *phdr, size_t phnum,
			struct seg_view *v);
static bool string_length (const char *s, uint32_t room, uint32_t *len);

/* The program's file as the kernel names it (/proc/self/exe), or as it
   was run when that cannot be read (AT_EXECFN, when absolute), noted
   at start-up (pcrt_note_program_file); empty when neither is known.  */
static char program_file[PCPROF_MAX_PATH_LEN + 1];
static uint32_t program_file_len;

void
pcrt_note_program_file (const char *execfn)
{
  long n = sys_readlink ("/proc/self/exe", program_file,
			 sizeof program_file - 1);
  uint32_t len;

  if (n > 0 && program_file[0] == '/')
    program_file_len = (uint32_t) n;
  else if (execfn != NULL && execfn[0] == '/'
	   && string_length (execfn, sizeof program_file, &len))
    {
      rt_memcpy (program_file, execfn, len);
      program_file_len = len;
    }
  else
    program_file_len = 0;
  program_file[program_file_len] = '\0';
}

/* Set V's copy name, the file the object at BIAS (program headers PHDR,
   PHNUM) was loaded from, and count it in V's record size: the
   dynamic linker's name for it (the path it opened, absolute unless a
   search path or dlopen's argument was relative), the program's file
   for the program, whose name in the list is empty (glibc) or argv[0]
   (musl).  The object is the one of the list whose dynamic section is
   the one PHDR gives.  Without a name, the original's base name (the
   copy's, as profcopy writes it), which profreport looks for in the
   directories it is given.  */

static void
name_copy (uintptr_t bias, const ElfW (Phdr) *phdr, size_t phnum,
	   struct seg_view *v)
{
  const struct link_map *first = pcrt_objects ();
  uintptr_t dyn = 0;
  const char *name = NULL;
  uint32_t len = 0;

  for (size_t i = 0; i < phnum; i++)
    if (phdr[i].p_type == PT_DYNAMIC)
      dyn = bias + phdr[i].p_vaddr;
  /* A static executable's copy (a static PIE has a dynamic section
     too): the program.  */
  if (first != NULL && first->l_ld == NULL && first->l_addr == bias
      && program_file_len != 0)
    {
      name = program_file;
      len = program_file_len;
    }
  for (const struct link_map *l = first; l != NULL && dyn != 0
       && name == NULL; l = l->l_next)
    if ((uintptr_t) l->l_ld == dyn)
      {
	if (l == first && program_file_len != 0)
	  {
	    name = program_file;
	    len = program_file_len;
	  }
	else if (l->l_name != NULL
		 && string_length (l->l_name, PCPROF_MAX_PATH_LEN + 1, &len)
		 && len != 0)
	  name = l->l_name;
	else
	  len = 0;
	break;
      }
  if (len == 0)
    {
      name = v->path;
      for (const char *p = v->path; *p != '\0'; p++)
	if (*p == '/')
	  name = p + 1;
      len = v->path_len - (uint32_t) (name - v->path);
    }
  v->copy_path = name;
  v->copy_path_len = len;
  v->record_size += PCPROF_PAD8 (len + 1);
}

/* The views pcrt_view made, for the next look at the same object: the
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

bool
pcrt_view (const struct pc_segment_header *h, uintptr_t bias,
	   const ElfW (Phdr) *phdr, size_t phnum, struct seg_view *v)
{
  bool ok;

  if (__atomic_exchange_n (&view_cache_busy, 1, __ATOMIC_ACQUIRE) != 0)
    {
      ok = check_view (h, bias, phdr, phnum, v);
      if (ok)
	name_copy (bias, phdr, phnum, v);
      return ok;
    }
  for (unsigned i = 0; i < VIEW_CACHE_SIZE; i++)
    if (view_cache[i].header == h && view_cache[i].bias == bias
	&& view_cache[i].checksum == h->checksum
	&& view_cache[i].counters == h->counters)
      {
	rt_memcpy (v, &view_cache[i].view, sizeof *v);
	__atomic_store_n (&view_cache_busy, 0, __ATOMIC_RELEASE);
	name_copy (bias, phdr, phnum, v);
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
  if (ok)
    name_copy (bias, phdr, phnum, v);
  return ok;
}

/* Set *LEN to the length of the string at S, which must end within
   ROOM bytes and be at most PCPROF_MAX_PATH_LEN long.  */

static bool
string_length (const char *s, uint32_t room, uint32_t *len)
{
  const char *p = s, *end;

  if (room > PCPROF_MAX_PATH_LEN + 1)
    room = PCPROF_MAX_PATH_LEN + 1;
  for (end = s + room; p < end && *p != '\0'; p++)
    continue;
  *len = (uint32_t) (p - s);
  return p < end;
}

static bool
check_view (const struct pc_segment_header *h, uintptr_t bias,
	    const ElfW (Phdr) *phdr, size_t phnum, struct seg_view *v)
{
  uint64_t n = h->n_blocks, size, tables;
  uint32_t end;

  if ((h->blocks & 3) != 0 || (h->counters & 3) != 0
      || !in_object (phdr, phnum, h->blocks, n * sizeof *v->blocks, NULL)
      || !in_object (phdr, phnum, h->path, 1, &end)
      || h->build_id_len > PCPROF_MAX_BUILD_ID_LEN
      || (h->build_id_len != 0
	  && !in_object (phdr, phnum, h->build_id, h->build_id_len, NULL))
      || h->n_window > max_window (h)
      || (h->n_window != 0
	  && ((h->window & 3) != 0 || (h->window_blocks & 3) != 0
	      || !in_object (phdr, phnum, h->window,
			     h->n_window
			     * ((h->flags & PC_SEGMENT_F_FOLDED) ? 4 : 8),
			     NULL)
	      || !in_object (phdr, phnum, h->window_blocks,
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
  v->tables_crc = h->tables_crc;
  if (!string_length (v->path, end - h->path, &v->path_len))
    return false;

  v->derive = NULL;
  v->derive_size = 0;
  v->n_edges = 0;
  if (h->derive != 0)
    {
      const struct pc_derive *d;
      if ((h->derive & 3) != 0
	  || !in_object (phdr, phnum, h->derive, sizeof *d, NULL))
	return false;
      d = (const struct pc_derive *) (bias + h->derive);
      size = sizeof *d + 4 * n + 8 * (uint64_t) d->n_links
	     + 8 * (uint64_t) d->n_edges;
      if (d->n_vertices != 2 * n + 1 || d->n_links > d->n_vertices
	  || d->n_edges > 2 * n || size > UINT32_MAX
	  || !in_object (phdr, phnum, h->derive, size, NULL))
	return false;
      v->derive = d;
      v->derive_size = (uint32_t) size;
      v->n_edges = d->n_edges;
    }
  if (!in_object (phdr, phnum, h->counters,
		  (n + v->n_edges) * sizeof (struct pc_counter), NULL))
    return false;
  /* The copy's name is added by name_copy.  */
  size = PCPROF_RECORD_SIZE + PCPROF_PAD8 (v->path_len + 1)
	 + PCPROF_PAD8 (v->build_id_len)
	 + (n + v->n_edges + v->n_window) * PCPROF_COUNT_SIZE;
  tables = n * PCPROF_BLOCK_SIZE + PCPROF_PAD8 ((uint64_t) v->derive_size)
	   + PCPROF_PAD8 (4 * (uint64_t) v->n_window);
  if (size + tables + PCPROF_MAX_PATH_LEN + 1 > UINT32_MAX)
    return false;
  v->record_size = (uint32_t) size;
  v->tables_size = (uint32_t) tables;
  return true;
}

/* Find the program headers of the object with load bias BIAS: noted at
   start-up, or else read from its ELF header, which GNU ld maps at the
   bias of a shared object.  Return false if there are none.  */

bool
pcrt_phdrs (uintptr_t bias, const ElfW (Phdr) **phdr, size_t *phnum)
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

bool
pcrt_object_view (const struct link_map *l, struct seg_view *v)
{
  const ElfW (Phdr) *phdr;
  size_t phnum;
  const struct pc_segment_header *h;

  return pcrt_phdrs (l->l_addr, &phdr, &phnum)
	 && (h = pcrt_find_header (l->l_addr, phdr, phnum)) != NULL
	 && pcrt_view (h, l->l_addr, phdr, phnum, v);
}

bool
pcrt_note_objects (const ElfW (Phdr) *main_phdr, size_t main_phnum,
		   bool *exit_hooked)
{
  bool profiled = false;

  for (const struct link_map *l = pcrt_objects (); l != NULL; l = l->l_next)
    {
      const ElfW (Phdr) *phdr = NULL;
      size_t phnum = 0;
      const struct pc_segment_header *h;

      if (l == pcrt_objects () && main_phdr != NULL)
	{
	  phdr = main_phdr;
	  phnum = main_phnum;
	}
      else if (!pcrt_phdrs (l->l_addr, &phdr, &phnum))
	continue;
      if (n_known_objects < MAX_KNOWN_OBJECTS)
	{
	  known_objects[n_known_objects].bias = l->l_addr;
	  known_objects[n_known_objects].phdr = phdr;
	  known_objects[n_known_objects].phnum = phnum;
	  n_known_objects++;
	}
      h = pcrt_find_header (l->l_addr, phdr, phnum);
      if (h != NULL)
	{
	  profiled = true;
	  if (h->flags & PC_SEGMENT_F_EXIT_HOOK)
	    *exit_hooked = true;
	}
    }
  return profiled;
}

bool
pcrt_loaded_at_start (uintptr_t bias, const struct pc_segment_header *h)
{
  for (size_t i = 0; i < n_known_objects; i++)
    if (known_objects[i].bias == bias
	&& pcrt_find_header (bias, known_objects[i].phdr,
			     known_objects[i].phnum) == h)
      return true;
  return false;
}

void
pcrt_watch_folded_objects (const char *test)
{
  bool any = false;

  for (size_t i = 0; i < n_known_objects; i++)
    {
      const struct pc_segment_header *h
	= pcrt_find_header (known_objects[i].bias, known_objects[i].phdr,
			    known_objects[i].phnum);
      struct seg_view v;

      if (h != NULL && (h->flags & PC_SEGMENT_F_FOLDED)
	  && pcrt_view (h, known_objects[i].bias, known_objects[i].phdr,
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
    pcrt_fold_start (test);
}

bool
pcrt_object_phdrs (const struct link_map *l, const ElfW (Phdr) **phdr,
		   size_t *phnum)
{
  return pcrt_phdrs (l->l_addr, phdr, phnum);
}

