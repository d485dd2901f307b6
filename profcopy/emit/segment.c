/* segment.c -- the new segments of a profiled copy.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The original file is kept as it is, its code included; two new
   PT_LOAD segments are added at the end, first one to read and
   execute:

     phdrs        the new program header table
     text         the counted copy of the code (emit.h)
     map          new address of every original code word
     blocks       the block table
     window blocks  the blocks counted in the window, ascending
     derive       how the uncounted blocks' counts follow (derive.c)

   then, on pages of its own, one to read and write:

     header       struct pc_segment_header (include/segment.h)
     path         the original file's path, for profreport
     build ID     the original's, when it has one
     got          the GOT, moved here with new local entries
     window       2 x 32 bits (32 with folded counters) per block
		  counted straight off gp (the hottest, as far as gp
		  reaches past the GOT), zero
     eh_frame     the new text's unwind entries (.eh_frame, .eh_frame_hdr
		  and the LSDAs), when the original has them
     dynamic      (main program only) the dynamic section, moved to add
		  the runtime's DT_NEEDED and DT_RPATH $ORIGIN (the
		  copies' absolute directory for a program of musl)
     interp       (main program of musl only) the path of the copy of
		  its dynamic linker, which PT_INTERP names
     counters     2 x 32 bits per block, zero (not in the file)

   rewrite.c's build places them (place_segments), lays them out
   (lay_out_code, lay_out_data) and fills them once the text is
   written.  */

#include <config.h>

#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "crc32.h"
#include "ehframe-write.h"
#include "elf-write.h"
#include "emit.h"
#include "profile-read.h"
#include "rewrite.h"
#include "rewriter.h"
#include "segment.h"

/* Reserve LEN zero bytes aligned to ALIGN; return their offset in the
   segment, or (size_t) -1 when out of memory.  */

static size_t
seg_reserve (struct seg_builder *sb, size_t len, size_t align)
{
  size_t off = (sb->size + align - 1) & ~(align - 1);

  if (off + len > sb->alloc)
    {
      size_t n = sb->alloc ? sb->alloc : 65536;
      unsigned char *p;
      while (n < off + len)
	n *= 2;
      p = realloc (sb->buf, n);
      if (p == NULL)
	return (size_t) -1;
      sb->buf = p;
      sb->alloc = n;
    }
  /* Clear only what is handed out: the rest of the buffer is never
     touched (a libc's segment would fault in 6 MiB more).  */
  memset (sb->buf + sb->size, 0, off + len - sb->size);
  sb->size = off + len;
  return off;
}

/* The file offset of byte OFF of RW's new segments (build).  */

static uint32_t
seg_file_offset (const struct rewriter *rw, size_t off)
{
  if (off < rw->rw_start)
    return rw->seg_offset + (uint32_t) off;
  return rw->seg_offset + rw->rw_file + (uint32_t) (off - rw->rw_start);
}

/* Point the program header PH at the SIZE bytes at offset OFF of RW's
   new segments: its file offset, address and sizes.  */

static void
point_phdr (const struct rewriter *rw, unsigned char *ph, size_t off,
	    uint32_t size)
{
  bool be = rw->a.obj.big_endian;
  uint32_t vaddr = rw->sb.vaddr + (uint32_t) off;

  put32 (ph + 4, seg_file_offset (rw, off), be);
  put32 (ph + 8, vaddr, be);
  put32 (ph + 12, vaddr, be);
  put32 (ph + 16, size, be);
  put32 (ph + 20, size, be);
}

/* Add a section header NAME for SIZE bytes at ADDR of the segment.  */

static void
add_section (struct rewriter *rw, const char *name, uint32_t type,
	     uint32_t flags, uint32_t addr, uint32_t size, uint32_t align)
{
  struct new_section *ns = &rw->sections[rw->n_sections++];

  ns->name = name;
  ns->type = type;
  ns->flags = flags;
  ns->addr = addr;
  ns->size = size;
  ns->align = align;
  ns->entsize = 0;
}

/* Point the section header NAME of the copy at ADDR (file offset OFF)
   and SIZE, so that tools read the moved table.  */

static void
move_section_header (struct rewriter *rw, const char *name, uint32_t addr,
		     uint32_t off, uint32_t size)
{
  const struct mips_object *obj = &rw->a.obj;
  const struct object_section *sec = object_section_named (obj, name);
  unsigned char *sh;

  if (sec == NULL || obj->e_shoff + 40 * (sec->index + 1) > obj->size)
    return;
  sh = rw->image + obj->e_shoff + 40 * sec->index;
  put32 (sh + 12, addr, obj->big_endian);
  put32 (sh + 16, off, obj->big_endian);
  put32 (sh + 20, size, obj->big_endian);
}

/* The GOT index that the original slot index I has in the new GOT.  */

uint32_t
new_got_index (const struct new_got *g, uint32_t i)
{
  return i < g->n_old_local ? i : i + g->n_new;
}

/* Fill the new GOT at OFF in the segment, or, where the GOTs stay in
   place, only the values of its new entries.  */

void
build_got (struct rewriter *rw, size_t off)
{
  const struct mips_object *obj = &rw->a.obj;
  const struct reloc_table *t = &rw->a.relocs;
  struct new_got *g = &rw->e.plan.got;
  unsigned char *got = rw->sb.buf + off;
  bool be = obj->big_endian;

  for (uint32_t i = 0; !g->in_place && i < g->n_old; i++)
    {
      uint32_t v = 0;
      object_got_entry (obj, i, &v);
      /* Global entries are filled by ld.so from .dynsym; their link-time
	 values are mapped all the same, for tools that read them.  */
      if (i >= g->n_old_local && object_is_code (obj, v))
	v = emit_map (&rw->e, v);
      put32 (got + 4 * new_got_index (g, i), v, be);
    }
  for (size_t k = 0; !g->in_place && k < t->n_entries; k++)
    if (t->entries[k].type == RELOC_GOT
	&& t->entries[k].index < g->n_old_local)
      put32 (got + 4 * t->entries[k].index,
	     emit_map (&rw->e, t->entries[k].target), be);
  for (uint32_t c = 0; c < g->n_chunks; c++)
    g->new_values[c] = rw->e.seg.counters + 0x10000 * c + 0x8000;
  g->new_values[GOT_OLD_START (g)] = rw->e.old_start;
  g->new_values[GOT_MAP (g)] = rw->map_addr;
  g->new_values[GOT_OLD_END (g)] = rw->e.old_end;
  for (uint32_t k = 0; k < g->n_targets; k++)
    g->new_values[g->n_fixed + k] = emit_map (&rw->e, g->target_of[k]);
  for (uint32_t k = 0; !g->in_place && k < g->n_new; k++)
    put32 (got + 4 * (g->n_old_local + k), g->new_values[k], be);
}

/* For the main program: build a new dynamic section in the segment with
   the runtime as first DT_NEEDED and DT_RPATH $ORIGIN (before any run
   path the program had), and a new string table for their names.  The
   old section stays, unused.  */

static bool
move_dynamic (struct rewriter *rw, char **errmsg)
{
  const struct mips_object *obj = &rw->a.obj;
  const char *soname = rw->opts->runtime_soname;
  const char *old_path = obj->dyn.runpath != NULL ? obj->dyn.runpath
			 : obj->dyn.rpath;
  char *rpath = NULL;
  size_t off, n, str_off, dyn_off, k = 0;
  size_t strsz = obj->dyn.strsz;
  const unsigned char *strtab = object_vaddr_ptr (obj, obj->dyn.strtab,
						  (uint32_t) strsz);
  uint32_t needed_str, rpath_str, dyn_addr, dyn_vaddr = 0;
  bool be = obj->big_endian;

  for (size_t i = 0; i < obj->n_segments; i++)
    if (obj->segments[i].type == PT_DYNAMIC)
      dyn_vaddr = obj->segments[i].vaddr;
  if (!dynamic_range (obj, &off, &n) || strtab == NULL)
    {
      *errmsg = strdup ("cannot read the dynamic section");
      return false;
    }
  /* The new names are found through the DT_STRTAB and DT_STRSZ that
     the copy's entries give; without them its DT_NEEDED would name
     nothing (an empty PT_DYNAMIC, say).  */
  if (obj->dyn.strtab == 0 || strsz == 0)
    {
      *errmsg = strdup ("the dynamic section has no string table "
			"(DT_STRTAB, DT_STRSZ) for the runtime's DT_NEEDED");
      return false;
    }
  /* With the copy of musl's dynamic linker named by an absolute path,
     the directory is named so too: musl expands $ORIGIN into memory
     that it takes from the program's malloc, whose heap would then
     differ from the original's.  */
  const char *interp = rw->opts->interp;
  const char *slash = interp != NULL ? strrchr (interp, '/') : NULL;
  const char *dir = "$ORIGIN";
  int dir_len = 7;

  if (slash != NULL)
    {
      dir = interp;
      dir_len = slash == interp ? 1 : (int) (slash - interp);
    }
  if (asprintf (&rpath, "%.*s%s%s", dir_len, dir, old_path != NULL ? ":" : "",
		old_path != NULL ? old_path : "") < 0)
    {
      *errmsg = strdup ("out of memory");
      return false;
    }

  str_off = seg_reserve (&rw->sb, strsz + strlen (soname) + strlen (rpath)
			 + 2, 1);
  if (str_off == (size_t) -1)
    goto nomem;
  memcpy (rw->sb.buf + str_off, strtab, strsz);
  needed_str = (uint32_t) strsz;
  strcpy ((char *) rw->sb.buf + str_off + needed_str, soname);
  rpath_str = needed_str + (uint32_t) strlen (soname) + 1;
  strcpy ((char *) rw->sb.buf + str_off + rpath_str, rpath);

  dyn_off = seg_reserve (&rw->sb, 8 * (n + 2), 8);
  if (dyn_off == (size_t) -1)
    goto nomem;
  dyn_addr = rw->sb.vaddr + (uint32_t) dyn_off;

#define PUT_DYN(tag, val)						\
  do {									\
    put32 (rw->sb.buf + dyn_off + 8 * k, (tag), be);			\
    put32 (rw->sb.buf + dyn_off + 8 * k + 4, (val), be);		\
    k++;								\
  } while (0)

  PUT_DYN (DT_NEEDED, needed_str);
  PUT_DYN (DT_RPATH, rpath_str);
  for (size_t i = 0; i < n; i++)
    {
      const unsigned char *p = obj->image + off + 8 * i;
      uint32_t tag = object_get32 (obj, p), val = object_get32 (obj, p + 4);
      if (tag == DT_NULL)
	break;
      if (tag == DT_RPATH || tag == DT_RUNPATH)
	continue;
      if (tag == DT_STRTAB)
	val = rw->sb.vaddr + (uint32_t) str_off;
      else if (tag == DT_STRSZ)
	val = rpath_str + (uint32_t) strlen (rpath) + 1;
      else if (tag == DT_MIPS_RLD_MAP_REL_TAG)
	/* Relative to the entry itself, which moves.  */
	val = val + dyn_vaddr + 8 * (uint32_t) i - (dyn_addr + 8 * (uint32_t) k);
      else
	val = dynamic_value (rw, tag, val);
      PUT_DYN (tag, val);
    }
  PUT_DYN (DT_NULL, 0);
#undef PUT_DYN

  rw->dyn_addr = dyn_addr;
  rw->dyn_size = (uint32_t) (8 * k);
  rw->dynstr_addr = rw->sb.vaddr + (uint32_t) str_off;
  rw->dynstr_size = rpath_str + (uint32_t) strlen (rpath) + 1;

  /* Point PT_DYNAMIC and the .dynamic section header at the copy.  */
  for (size_t i = 0; i < obj->n_segments; i++)
    if (obj->segments[i].type == PT_DYNAMIC)
      point_phdr (rw, rw->image + obj->e_phoff + 32 * i, dyn_off,
		  (uint32_t) (8 * k));
  free (rpath);
  return true;

 nomem:
  free (rpath);
  *errmsg = strdup ("out of memory");
  return false;
}

/* Point the main program's PT_INTERP at the path RW->opts->interp (the
   copy of musl's dynamic linker), written into the data segment: musl's
   loader takes its own name from the address that PT_INTERP gives, so
   the path must be loaded.  */

static bool
move_interp (struct rewriter *rw, char **errmsg)
{
  const struct mips_object *obj = &rw->a.obj;
  const char *path = rw->opts->interp;
  size_t len = strlen (path) + 1, off;
  bool found = false;

  /* What the kernel reads of a PT_INTERP (binfmt_elf).  */
  if (len > PATH_MAX)
    {
      if (asprintf (errmsg, "%s: too long a path for PT_INTERP", path) < 0)
	*errmsg = NULL;
      return false;
    }
  off = seg_reserve (&rw->sb, len, 1);
  if (off == (size_t) -1)
    return no_memory (errmsg);
  memcpy (rw->sb.buf + off, path, len);
  rw->interp_addr = rw->sb.vaddr + (uint32_t) off;
  rw->interp_size = (uint32_t) len;
  for (size_t i = 0; i < obj->n_segments; i++)
    if (obj->segments[i].type == PT_INTERP)
      {
	point_phdr (rw, rw->image + obj->e_phoff + 32 * i, off,
		    rw->interp_size);
	found = true;
      }
  if (!found)
    {
      *errmsg = strdup ("the program has no PT_INTERP to name the copy of "
			"its dynamic linker");
      return false;
    }
  return true;
}

/* The new address where the copy of the code before ADDR ends: that of
   the first word at or after ADDR that has a copy (its counting code
   included), or the end of the new text.  */

static uint32_t
eh_end (void *ctx, uint32_t addr)
{
  const struct emitter *e = ctx;
  const struct code *code = &e->a->code;
  uint32_t best_addr = UINT32_MAX;
  uint32_t best = e->layout.text_addr + e->layout.text_size;

  for (size_t i = 0; i < code->n_sections; i++)
    {
      const struct insn_section *s = &code->sections[i];
      uint32_t a = addr <= s->start ? s->start : (addr + 3) & ~3u;
      for (; a < s->end && a < best_addr; a += 4)
	{
	  size_t w = s->base + (a - s->start) / 4;
	  if (e->layout.insn_new[w] != 0)
	    {
	      best_addr = a;
	      best = e->layout.map[w];
	      break;
	    }
	}
    }
  return best;
}

static uint32_t
eh_entry (void *ctx, uint32_t addr)
{
  const struct emitter *e = ctx;
  long w = emit_word_index (e, addr);

  if (w < 0)
    return addr;
  return e->layout.insn_new[w] != 0 ? e->layout.map[w] : eh_end (ctx, addr);
}

static uint32_t
eh_insn (void *ctx, uint32_t addr)
{
  const struct emitter *e = ctx;
  long w = emit_word_index (e, addr);

  if (w < 0)
    return addr;
  return e->layout.insn_new[w] != 0 ? e->layout.insn_new[w]
				      : eh_end (ctx, addr);
}

/* Build the new .eh_frame, .eh_frame_hdr and LSDAs in the segment and
   point PT_GNU_EH_FRAME at the new header.  */

static bool
build_eh (struct rewriter *rw, char **errmsg)
{
  const struct mips_object *obj = &rw->a.obj;
  struct seg_builder *sb = &rw->sb;
  struct eh_map map = { eh_insn, eh_entry, eh_end, &rw->e };
  size_t eh_size, hdr_size, lsda_size, eh_off, hdr_off, lsda_off;

  if (!eh_rewrite_size (obj, &map, &eh_size, &hdr_size, &lsda_size,
			&rw->eh_catches, errmsg))
    return false;
  if (eh_size == 0)
    return true;
  eh_off = seg_reserve (sb, eh_size, 4);
  hdr_off = seg_reserve (sb, hdr_size, 4);
  lsda_off = seg_reserve (sb, lsda_size, 4);
  if (eh_off == (size_t) -1 || hdr_off == (size_t) -1
      || lsda_off == (size_t) -1)
    {
      *errmsg = strdup ("out of memory");
      return false;
    }
  if (!eh_rewrite (obj, &map, sb->vaddr + (uint32_t) eh_off,
		   sb->buf + eh_off, sb->vaddr + (uint32_t) hdr_off,
		   sb->buf + hdr_off, sb->vaddr + (uint32_t) lsda_off,
		   sb->buf + lsda_off, errmsg))
    return false;
  rw->eh_hdr = sb->vaddr + (uint32_t) hdr_off;
  rw->eh_hdr_size = (uint32_t) hdr_size;
  for (size_t i = 0; i < obj->n_segments; i++)
    if (obj->segments[i].type == PT_GNU_EH_FRAME)
      point_phdr (rw, rw->image + obj->e_phoff + 32 * i, hdr_off,
		  (uint32_t) hdr_size);
  return true;
}

/* A static executable's program reads its own program header table
   (static-runtime.c), the original's, in which libgcc's unwinder looks
   for the unwind tables of the code that throws (_dl_find_object or
   dl_iterate_phdr: a PT_LOAD that holds the address, and the
   PT_GNU_EH_FRAME beside it); the FDEs that crtbeginT.o registers are
   the original's, whose addresses the copy's code never runs at.  When
   the program can catch an exception, or unwind its own stack
   (unwinds_stack), show it at AT's `shown' a copy of the original's
   table that finds the new tables: PT_GNU_EH_FRAME
   names the new .eh_frame_hdr (in the place of a PT_NULL or
   PT_MIPS_REGINFO entry, which nothing reads at run time, else
   appended), and the PT_LOAD that ends highest reaches over the new
   text.  Else the program keeps the original's table as it is: libc's
   start-up runs a loop over the entries and looks for PT_GNU_EH_FRAME,
   so the counts of a few of its blocks differ from the original's
   when it finds one.  */

/* The functions of a static glibc that unwind the stack they run on:
   pthread_exit and pthread_cancel's forced unwind (run by
   __pthread_unwind, at every cancellation point too), which runs the
   thread's cleanup handlers frame by frame, and backtrace(3).  Every
   static glibc program holds libgcc's unwinder (glibc's own code has
   cleanup regions); these are the ways a C program uses it.  */
static const char *const stack_unwinders[] = {
  "__pthread_unwind", "__pthread_unwind_next", "___pthread_unwind_next",
  "__backtrace", "backtrace"
};

/* True if OBJ's symbols define a function that unwinds the stack it
   runs on (stack_unwinders).  A stripped program shows none.  */

static bool
unwinds_stack (const struct mips_object *obj)
{
  for (size_t i = 0; i < obj->n_symbols; i++)
    {
      const struct object_symbol *sym = &obj->symbols[i];
      if (sym->shndx == SHN_UNDEF || sym->type != STT_FUNC)
	continue;
      for (size_t k = 0;
	   k < sizeof stack_unwinders / sizeof stack_unwinders[0]; k++)
	if (strcmp (sym->name, stack_unwinders[k]) == 0)
	  return true;
    }
  return false;
}

static void
show_phdrs (struct rewriter *rw, const struct seg_parts *at)
{
  const struct mips_object *obj = &rw->a.obj;
  const struct emitter *e = &rw->e;
  unsigned char *t = rw->sb.buf + at->shown;
  uint32_t text_end = rw->sb.vaddr + (uint32_t) at->text
		      + e->layout.text_size;
  uint32_t n = (uint32_t) obj->n_segments;
  bool be = obj->big_endian;
  size_t eh = n, spare = n, top = n;
  uint64_t top_end = 0;

  if ((!rw->eh_catches && !unwinds_stack (obj)) || rw->eh_hdr_size == 0)
    return;
  memcpy (t, rw->image + obj->e_phoff, 32 * (size_t) n);
  for (size_t i = 0; i < n; i++)
    {
      const struct object_segment *s = &obj->segments[i];
      if (s->type == PT_GNU_EH_FRAME)
	eh = i;
      else if (s->type == PT_NULL
	       || (s->type == PT_MIPS_REGINFO && spare == n))
	spare = i;
      if (s->type == PT_LOAD && (uint64_t) s->vaddr + s->memsz >= top_end)
	{
	  top = i;
	  top_end = (uint64_t) s->vaddr + s->memsz;
	}
    }
  if (top == n || top_end > text_end)
    return;
  /* build_eh has pointed the original's own PT_GNU_EH_FRAME at the new
     header already.  */
  if (eh == n)
    {
      unsigned char *ph;
      eh = spare;
      if (eh == n)
	n++;
      ph = t + 32 * eh;
      put32 (ph, PT_GNU_EH_FRAME, be);
      point_phdr (rw, ph, rw->eh_hdr - rw->sb.vaddr, rw->eh_hdr_size);
      put32 (ph + 24, PF_R, be);
      put32 (ph + 28, 4, be);
    }
  put32 (t + 32 * top + 20, text_end - obj->segments[top].vaddr, be);
  /* A libc may take the load bias from PT_PHDR's address less its
     p_vaddr (musl's static TLS set-up does, but for a static PIE,
     whose PT_DYNAMIC, unchanged here, it prefers).  */
  for (size_t i = 0; i < obj->n_segments; i++)
    if (obj->segments[i].type == PT_PHDR)
      point_phdr (rw, t + 32 * i, at->shown, 32 * n);
  rw->shown_phdr = rw->sb.vaddr + (uint32_t) at->shown;
  rw->shown_phnum = n;
}

/* The counters of E: one per block, then one per counted branch
   edge.  */

uint32_t
n_counters (const struct emitter *e)
{
  return (uint32_t) (e->plan.derive.n_blocks + e->plan.derive.n_edges);
}

/* The bytes of E's derivation table (include/segment.h).  */

static uint32_t
derive_size (const struct emitter *e)
{
  return (uint32_t) (sizeof (struct pc_derive) + 4 * e->plan.derive.n_blocks
		     + 8 * e->plan.derive.n_links
		     + 8 * e->plan.derive.n_edges);
}

/* The distance from file offsets to addresses in OBJ's first PT_LOAD
   (0 when it has none).  */

static uint32_t
first_load_delta (const struct mips_object *obj)
{
  for (size_t i = 0; i < obj->n_segments; i++)
    if (obj->segments[i].type == PT_LOAD)
      return obj->segments[i].vaddr - obj->segments[i].offset;
  return 0;
}

/* The end of OBJ's highest PT_LOAD in memory.  */

uint32_t
image_end (const struct mips_object *obj)
{
  uint32_t end = 0;

  for (size_t i = 0; i < obj->n_segments; i++)
    if (obj->segments[i].type == PT_LOAD
	&& obj->segments[i].vaddr + obj->segments[i].memsz > end)
      end = obj->segments[i].vaddr + obj->segments[i].memsz;
  return end;
}

/* Place RW's new segments in the file and in memory: after the image,
   at the distance the first PT_LOAD has between the two.  */

bool
place_segments (struct rewriter *rw, char **errmsg)
{
  const struct mips_object *obj = &rw->a.obj;
  uint32_t max_end = image_end (obj), delta;

  /* The new segment goes above the image, in the user half of the
     address space (kseg0 starts at 0x80000000).  */
  if (max_end > 0x70000000u)
    {
      if (asprintf (errmsg, "the image ends at 0x%08x: no room for the "
		    "new segment above it", max_end) < 0)
	*errmsg = NULL;
      return false;
    }
  /* The new segments follow the image in the file and in memory at
     the distance the first PT_LOAD has between them, so that the new
     program header table, at their start, is where a loader that takes
     it to be at the first segment's address plus e_phoff (qemu-user)
     finds it.  */
  delta = first_load_delta (obj);
  rw->seg_offset = (uint32_t) ((obj->size + 0xffff) & ~(size_t) 0xffff);
  if (max_end > delta && max_end - delta > rw->seg_offset)
    rw->seg_offset = ((max_end - delta) + 0xffff) & ~0xffffu;
  rw->sb.vaddr = rw->seg_offset + delta;
  rw->sb.big_endian = obj->big_endian;
  return true;
}

/* The code segment (read and execute): the program header table, the
   new text (laid out here), the map and the block and derivation
   tables.  */

bool
lay_out_code (struct rewriter *rw, struct seg_parts *at, char **errmsg)
{
  struct emitter *e = &rw->e;
  struct seg_builder *sb = &rw->sb;

  /* Two more entries for the new segments, and two for the static
     runtime's in a static executable.  */
  at->phdrs = seg_reserve (sb, 32 * ((size_t) rw->a.obj.n_segments + 2
				     + (object_is_static (&rw->a.obj) ? 2 : 0)),
		       4);
  if (at->phdrs == (size_t) -1)
    return no_memory (errmsg);
  /* A static executable's program is shown the original's table, with
     one entry more at most (show_phdrs).  */
  if (object_is_static (&rw->a.obj))
    {
      at->shown = seg_reserve (sb, 32 * ((size_t) rw->a.obj.n_segments + 1),
			       4);
      if (at->shown == (size_t) -1)
	return no_memory (errmsg);
    }
  at->text = (sb->size + 15) & ~(size_t) 15;
  if (!emit_layout (e, sb->vaddr + (uint32_t) at->text, errmsg)
      || !emit_window_fit (e, errmsg))
    return false;
  if (seg_reserve (sb, e->layout.text_size, 16) != at->text)
    return no_memory (errmsg);
  at->map = seg_reserve (sb, e->old_end - e->old_start, 4);
  at->blocks = seg_reserve (sb, 8 * rw->a.cfg.n_blocks, 4);
  if (e->plan.n_window > 0)
    at->window_blocks = seg_reserve (sb, 4 * e->plan.n_window, 4);
  if (e->plan.derive.n_measured < rw->a.cfg.n_blocks)
    {
      at->derive = seg_reserve (sb, derive_size (e), 4);
      if (at->derive == (size_t) -1)
	return no_memory (errmsg);
    }
  if (at->map == (size_t) -1 || at->blocks == (size_t) -1
      || at->window_blocks == (size_t) -1)
    return no_memory (errmsg);
  rw->rx_size = (uint32_t) sb->size;
  return true;
}

/* The data segment (read and write) on pages of its own: the segment
   header, the original's path and build ID, the new GOT with the
   window after it, the moved .eh_frame_hdr and dynamic section, then
   the counters (not in the file).  PATH is the original's.  */

bool
lay_out_data (struct rewriter *rw, struct seg_parts *at, const char *path,
	      char **errmsg)
{
  const struct mips_object *obj = &rw->a.obj;
  struct emitter *e = &rw->e;
  struct seg_builder *sb = &rw->sb;
  size_t rw_start;

  /* Nothing the program or the runtime writes shares a page with code
     (W^X; under QEMU a store to a page of translated code throws that
     code away).  The gp guard (emit/text.c, put_gp_guard) takes the
     values in [TEXT_START, TEXT_END) plus the distance between the new
     GOT and the old for switch table words: that range must hold no
     code, so the new GOT goes at least as far after the new text as
     the old GOT is after the original code; the gap between the
     segments, mapped by neither, makes up what the tables do not.  */
  rw_start = (sb->size + 0xffff) & ~(size_t) 0xffff;
  if (e->plan.n_xlate_guarded > 0)
    {
      uint64_t need;
      if (obj->got_addr < e->old_end)
	{
	  if (asprintf (errmsg, "the GOT (0x%08x) lies before the end of"
			" the code (0x%08x): gp-relative switch tables"
			" cannot be guarded", obj->got_addr, e->old_end) < 0)
	    *errmsg = NULL;
	  return false;
	}
      need = at->text + e->layout.text_size + (uint64_t) obj->got_addr
	     - e->old_start;
      if (need > rw_start)
	rw_start = (size_t) ((need + 0xffff) & ~(uint64_t) 0xffff);
    }
  if (seg_reserve (sb, rw_start - sb->size, 1) == (size_t) -1)
    return no_memory (errmsg);
  rw->rw_start = (uint32_t) rw_start;
  rw->rw_file = (rw->rx_size + 0xffffu) & ~0xffffu;
  at->hdr = seg_reserve (sb, sizeof (struct pc_segment_header), 8);
  at->path = seg_reserve (sb, strlen (path) + 1, 1);
  if (at->hdr == (size_t) -1 || at->path == (size_t) -1)
    return no_memory (errmsg);
  memcpy (sb->buf + at->path, path, strlen (path) + 1);
  if (obj->build_id != NULL)
    {
      at->build_id = seg_reserve (sb, obj->build_id_len, 1);
      if (at->build_id == (size_t) -1)
	return no_memory (errmsg);
      memcpy (sb->buf + at->build_id, obj->build_id, obj->build_id_len);
    }
  e->seg.probe_slots = sb->vaddr + (uint32_t) at->hdr
		   + offsetof (struct pc_segment_header, probe_enter);
  e->seg.syscall_hook_slot = sb->vaddr + (uint32_t) at->hdr
			 + offsetof (struct pc_segment_header, syscall_hook);
  e->seg.jump_note_slot = sb->vaddr + (uint32_t) at->hdr
		      + offsetof (struct pc_segment_header, jump_note);
  at->got = e->plan.got.in_place ? 0
	    : seg_reserve (sb, 4 * (e->plan.got.n_old + e->plan.got.n_new),
			   16);
  /* The window right after the GOT, within gp's reach.  */
  if (e->plan.n_window > 0)
    at->window = seg_reserve (sb, emit_window_entry (e) * e->plan.n_window, 8);
  if (at->got == (size_t) -1 || at->window == (size_t) -1)
    return no_memory (errmsg);
  e->plan.got.addr = e->plan.got.in_place ? obj->got_addr
		: sb->vaddr + (uint32_t) at->got;
  e->seg.window = sb->vaddr + (uint32_t) at->window;
  if (e->plan.n_window > 0)
    {
      unsigned char *wb = sb->buf + at->window_blocks;
      memset (sb->buf + at->window, 0,
	      emit_window_entry (e) * e->plan.n_window);
      for (uint32_t k = 0; k < e->plan.n_window; k++, wb += 4)
	put32 (wb, e->plan.window_blocks[k], obj->big_endian);
    }
  rw->map_addr = sb->vaddr + (uint32_t) at->map;
  if (!build_eh (rw, errmsg))
    return false;
  if (object_is_static (obj))
    show_phdrs (rw, at);
  e->plan.got.gp = e->plan.got.in_place ? obj->gp : e->plan.got.addr + 0x7ff0;
  if (rw->main_program && rw->opts->runtime_soname != NULL
      && rw->a.obj.dyn.present && !rw->a.obj.static_pie
      && !move_dynamic (rw, errmsg))
    return false;
  if (rw->main_program && rw->opts->interp != NULL
      && !move_interp (rw, errmsg))
    return false;
  if (seg_reserve (sb, 0, 16) == (size_t) -1)
    return no_memory (errmsg);
  e->seg.counters = sb->vaddr + (uint32_t) sb->size;
  return true;
}

/* The section headers of the new segments' parts AT, and of the
   sections that moved into them.  */

void
add_sections (struct rewriter *rw, const struct seg_parts *at)
{
  const struct emitter *e = &rw->e;
  uint32_t vaddr = rw->sb.vaddr;

  add_section (rw, ".profcopy.hdr", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE,
	       vaddr + (uint32_t) at->hdr,
	       (uint32_t) sizeof (struct pc_segment_header), 8);
  add_section (rw, ".profcopy.text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR,
	       vaddr + (uint32_t) at->text, e->layout.text_size, 16);
  add_section (rw, ".profcopy.map", SHT_PROGBITS, SHF_ALLOC,
	       vaddr + (uint32_t) at->map, e->old_end - e->old_start, 4);
  add_section (rw, ".profcopy.blocks", SHT_PROGBITS, SHF_ALLOC,
	       vaddr + (uint32_t) at->blocks,
	       8 * (uint32_t) rw->a.cfg.n_blocks, 4);
  if (at->derive != 0)
    add_section (rw, ".profcopy.derive", SHT_PROGBITS, SHF_ALLOC,
		 vaddr + (uint32_t) at->derive, derive_size (e), 4);
  add_section (rw, ".profcopy.counters", SHT_NOBITS, SHF_ALLOC | SHF_WRITE,
	       e->seg.counters, 8 * n_counters (e), 16);
  if (!e->plan.got.in_place)
    move_section_header (rw, ".got", e->plan.got.addr,
			 seg_file_offset (rw, at->got),
			 4 * (e->plan.got.n_old + e->plan.got.n_new));
  if (rw->dyn_addr != 0)
    {
      move_section_header (rw, ".dynamic", rw->dyn_addr,
			   seg_file_offset (rw, rw->dyn_addr - vaddr),
			   rw->dyn_size);
      move_section_header (rw, ".dynstr", rw->dynstr_addr,
			   seg_file_offset (rw, rw->dynstr_addr - vaddr),
			   rw->dynstr_size);
    }
  if (rw->interp_addr != 0)
    move_section_header (rw, ".interp", rw->interp_addr,
			 seg_file_offset (rw, rw->interp_addr - vaddr),
			 rw->interp_size);
}

/* Write the map, the block table and the derivation table at AT.  */

void
fill_tables (struct rewriter *rw, const struct seg_parts *at)
{
  const struct cfg *cfg = &rw->a.cfg;
  const struct emitter *e = &rw->e;
  unsigned char *buf = rw->sb.buf;
  bool be = rw->a.obj.big_endian;

  for (uint32_t a = e->old_start; a < e->old_end; a += 4)
    put32 (buf + at->map + (a - e->old_start), emit_map (e, a), be);
  for (size_t i = 0; i < cfg->n_blocks; i++)
    {
      put32 (buf + at->blocks + 8 * i, cfg->blocks[i].start, be);
      put32 (buf + at->blocks + 8 * i + 4,
	     cfg->blocks[i].end - cfg->blocks[i].start, be);
    }

  if (at->derive != 0)
    {
      unsigned char *d = buf + at->derive;
      put32 (d, e->plan.derive.n_vertices, be);
      put32 (d + 4, (uint32_t) e->plan.derive.n_links, be);
      put32 (d + 8, (uint32_t) e->plan.derive.n_edges, be);
      d += sizeof (struct pc_derive);
      for (size_t i = 0; i < cfg->n_blocks; i++, d += 4)
	put32 (d, e->plan.derive.rule[i], be);
      for (size_t i = 0; i < 2 * e->plan.derive.n_links; i++, d += 4)
	put32 (d, e->plan.derive.links[i], be);
      for (size_t i = 0; i < 2 * e->plan.derive.n_edges; i++, d += 4)
	put32 (d, e->plan.derive.edges[i], be);
    }
}

/* The CRC-32 of the tables at AT as the file has them (segment.h's
   tables_crc): the block table, the derivation table, the window's
   list.  */

static uint32_t
tables_crc (const struct rewriter *rw, const struct seg_parts *at)
{
  const unsigned char *buf = rw->sb.buf;
  const struct emitter *e = &rw->e;
  uint32_t crc;

  crc = crc32_ieee_add (0, buf + at->blocks,
			8 * (size_t) rw->a.cfg.n_blocks);
  if (at->derive != 0)
    crc = crc32_ieee_add (crc, buf + at->derive, derive_size (e));
  if (e->plan.n_window > 0)
    crc = crc32_ieee_add (crc, buf + at->window_blocks,
			  4 * (size_t) e->plan.n_window);
  return crc;
}

/* Write the segment header (include/segment.h) at AT.  */

void
fill_header (struct rewriter *rw, const struct seg_parts *at)
{
  const struct mips_object *obj = &rw->a.obj;
  const struct emitter *e = &rw->e;
  uint32_t vaddr = rw->sb.vaddr;
  unsigned char *h = rw->sb.buf + at->hdr;
  bool be = obj->big_endian;

  memcpy (h, PC_SEGMENT_MAGIC, sizeof PC_SEGMENT_MAGIC);
  put32 (h + 8, PC_SEGMENT_VERSION, be);
  put32 (h + 12, sizeof (struct pc_segment_header), be);
  put32 (h + 16, (uint32_t) rw->a.cfg.n_blocks, be);
  put32 (h + 20, vaddr + (uint32_t) at->blocks, be);
  put32 (h + 24, e->seg.counters, be);
  put32 (h + 28, vaddr + (uint32_t) at->map, be);
  put32 (h + 32, e->old_start, be);
  put32 (h + 36, e->old_end, be);
  put32 (h + 40, rw->checksum, be);
  put32 (h + 44, (uint32_t) obj->size, be);
  put32 (h + 48, vaddr + (uint32_t) at->path, be);
  put32 (h + 52, obj->build_id != NULL ? vaddr + (uint32_t) at->build_id : 0,
	 be);
  put32 (h + 56, obj->build_id != NULL ? obj->build_id_len : 0, be);
  put32 (h + 60, (rw->main_program ? PC_SEGMENT_F_MAIN : 0)
		 | (rw->opts->calls ? PC_SEGMENT_F_CALLS : 0)
		 | (rw->opts->folded ? PC_SEGMENT_F_FOLDED : 0)
		 | (e->plan.exit_hooked ? PC_SEGMENT_F_EXIT_HOOK : 0)
		 | (rw->opts->poison_original ? PC_SEGMENT_F_POISONED : 0), be);
  put32 (h + 64, at->derive != 0 ? vaddr + (uint32_t) at->derive : 0, be);
  put32 (h + 68, 0, be);	/* probe_enter, probe_exit: the runtime's.  */
  put32 (h + 72, 0, be);
  put32 (h + 76, e->plan.n_window > 0 ? e->seg.window : 0, be);
  put32 (h + 80, e->plan.n_window, be);
  put32 (h + 84,
	 e->plan.n_window > 0 ? vaddr + (uint32_t) at->window_blocks : 0,
	 be);
  put32 (h + 88, 0, be);	/* syscall_hook: the runtime's.  */
  put32 (h + 92, 0, be);	/* jump_note: the runtime's.  */
  put32 (h + 96, tables_crc (rw, at), be);
}
