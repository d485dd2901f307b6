/* rewrite.c -- write the profiled copy of one object.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The seed patent's "profiler shared object generating means".  The
   original file is kept as it is, its code included; two new PT_LOAD
   segments are added at the end, first one to read and execute:

     phdrs        the new program header table
     text         the counted copy of the code (emit.h)
     map          new address of every original code word
     blocks       the block table
     window blocks  the blocks counted in the window, ascending
     derive       how the uncounted blocks' counts follow (derive.c)

   then, on pages of its own, one to read and write:

     header       struct pc_segment_header (runtime/segment.h)
     path         the original file's path, for profreport
     build ID     the original's, when it has one
     got          the GOT, moved here with new local entries
     window       2 x 32 bits (32 with folded counters) per block
		  counted straight off gp (the hottest, as far as gp
		  reaches past the GOT), zero
     eh_frame     the new text's unwind entries (.eh_frame, .eh_frame_hdr
		  and the LSDAs), when the original has them
     dynamic      (main program only) the dynamic section, moved to add
		  the runtime's DT_NEEDED and DT_RPATH $ORIGIN
     counters     2 x 32 bits per block, zero (not in the file)

   Then every entry of the relocation information table is applied to
   the copy of the original's bytes: symbol values, the entry point,
   DT_INIT/DT_FINI, code addresses in data and in jump tables all lead
   into the new text, and the dynamic section points ld.so at the new
   GOT.  rewrite_object, at the end of this file, is the whole
   pipeline.  */

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
#include "segment.h"

#define DT_MIPS_RLD_MAP_REL_TAG 0x70000035
#define BREAK_INSN 0x0000000du

/* The new segment as it is built.  */
struct seg_builder
{
  unsigned char *buf;
  size_t size, alloc;
  uint32_t vaddr;
  bool big_endian;
};

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

static void
put32 (unsigned char *p, uint32_t v, bool big_endian)
{
  for (int i = 0; i < 4; i++)
    p[big_endian ? i : 3 - i] = (unsigned char) (v >> (24 - 8 * i));
}

/* Everything rewrite_object works with.  */
struct rewriter
{
  const struct rewrite_options *opts;
  struct analysis a;
  struct emitter e;
  struct seg_builder sb;
  unsigned char *image;		/* The copy of the original that is patched.  */
  bool main_program;
  size_t n_returning;		/* Calls that surely come back (-v).  */
  uint32_t seg_offset;		/* File offset of the new segments.  */
  uint32_t rx_size;		/* Bytes of the code segment, which comes
				   first.  */
  uint32_t rw_start;		/* Offset of the data segment from the
				   code segment's start in memory...  */
  uint32_t rw_file;		/* ... and in the file (the gap between
				   the two is not in the file).  */
  struct new_section sections[12];	/* Section headers for the segment.  */
  size_t n_sections;
  uint32_t dyn_addr, dyn_size, dynstr_addr, dynstr_size;  /* Main only.  */
  uint32_t map_addr;		/* Address of the map table.  */
  uint32_t checksum;		/* CRC-32 of the original file.  */
  struct call_sites sites;	/* Of emit_narrow_liveness, until plan.  */
  size_t n_used;		/* Profiles of --use-profile that counted
				   this file.  */
};

/* The file offset of byte OFF of RW's new segments (build).  */

static uint32_t
seg_file_offset (const struct rewriter *rw, size_t off)
{
  if (off < rw->rw_start)
    return rw->seg_offset + (uint32_t) off;
  return rw->seg_offset + rw->rw_file + (uint32_t) (off - rw->rw_start);
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

/* The word of the copy at link-time address VADDR, or NULL.  */

static unsigned char *
image_word (struct rewriter *rw, uint32_t vaddr)
{
  const unsigned char *p = object_vaddr_ptr (&rw->a.obj, vaddr, 4);

  return p == NULL ? NULL : rw->image + (p - rw->a.obj.image);
}

static void
patch_word (struct rewriter *rw, uint32_t vaddr, uint32_t value)
{
  unsigned char *p = image_word (rw, vaddr);

  if (p != NULL)
    put32 (p, value, rw->a.obj.big_endian);
}

/* The GOT index that the original slot index I has in the new GOT.  */

static uint32_t
new_got_index (const struct new_got *g, uint32_t i)
{
  return i < g->n_old_local ? i : i + g->n_new;
}

/* Fill the new GOT at OFF in the segment.  */

static void
build_got (struct rewriter *rw, size_t off)
{
  const struct mips_object *obj = &rw->a.obj;
  const struct reloc_table *t = &rw->a.relocs;
  struct new_got *g = &rw->e.got;
  unsigned char *got = rw->sb.buf + off;
  bool be = obj->big_endian;

  for (uint32_t i = 0; i < g->n_old; i++)
    {
      uint32_t v = 0;
      object_got_entry (obj, i, &v);
      /* Global entries are filled by ld.so from .dynsym; their link-time
	 values are mapped all the same, for tools that read them.  */
      if (i >= g->n_old_local && object_is_code (obj, v))
	v = emit_map (&rw->e, v);
      put32 (got + 4 * new_got_index (g, i), v, be);
    }
  for (size_t k = 0; k < t->n_entries; k++)
    if (t->entries[k].type == RELOC_GOT
	&& t->entries[k].index < g->n_old_local)
      put32 (got + 4 * t->entries[k].index,
	     emit_map (&rw->e, t->entries[k].target), be);
  for (uint32_t c = 0; c < g->n_chunks; c++)
    g->new_values[c] = rw->e.counters + 0x10000 * c + 0x8000;
  g->new_values[GOT_OLD_START (g)] = rw->e.old_start;
  g->new_values[GOT_MAP (g)] = rw->map_addr;
  g->new_values[GOT_OLD_END (g)] = rw->e.old_end;
  for (uint32_t k = 0; k < g->n_targets; k++)
    g->new_values[g->n_fixed + k] = emit_map (&rw->e, g->target_of[k]);
  for (uint32_t k = 0; k < g->n_new; k++)
    put32 (got + 4 * (g->n_old_local + k), g->new_values[k], be);
}

/* Apply the data side of the relocation information table to the copy
   of the original: code addresses in data and in jump tables, symbol
   values, the entry point.  */

static void
apply_relocs (struct rewriter *rw)
{
  const struct mips_object *obj = &rw->a.obj;
  const struct reloc_table *t = &rw->a.relocs;
  const struct emitter *e = &rw->e;

  for (size_t k = 0; k < t->n_entries; k++)
    {
      const struct reloc_entry *r = &t->entries[k];
      switch (r->type)
	{
	case RELOC_DATA:
	  /* A relocation against a symbol takes the symbol's new value
	     from .dynsym at load time; only the plain word moves.  */
	  if (r->index == 0)
	    patch_word (rw, r->addr, emit_map (e, r->target));
	  break;
	case RELOC_JUMP_TABLE:
	  patch_word (rw, r->addr,
		      r->via == VIA_GPREL
		      ? emit_map (e, r->target) - e->got.gp
		      : r->via == VIA_LABEL
		      ? emit_map (e, r->target) - emit_map (e, r->base)
		      : emit_map (e, r->target));
	  break;
	default:
	  break;
	}
    }

  for (size_t i = 0; i < obj->n_symbols; i++)
    {
      const struct object_symbol *s = &obj->symbols[i];
      unsigned char *p = rw->image + s->value_offset;
      if (s->value_offset + 4 > obj->size)
	continue;
      if (!s->dynamic && s->name != NULL && strcmp (s->name, "_gp") == 0)
	put32 (p, e->got.gp, obj->big_endian);
      else if (s->type != STT_SECTION && s->type != STT_FILE
	       && s->shndx != SHN_ABS && object_is_code (obj, s->value))
	put32 (p, emit_map (e, s->value), obj->big_endian);
    }
  if (object_is_code (obj, obj->e_entry))
    put32 (rw->image + 24, emit_map (e, obj->e_entry), obj->big_endian);

  /* The gp value that tools read from .reginfo.  */
  for (size_t i = 0; i < obj->n_sections; i++)
    if (obj->sections[i].type == SHT_MIPS_REGINFO
	&& obj->sections[i].size >= 24
	&& obj->sections[i].offset + 24 <= obj->size)
      put32 (rw->image + obj->sections[i].offset + 20, e->got.gp,
	     obj->big_endian);
}

/* Move the dynamic relocations that patch the GOT to the new GOT.  */

static void
move_got_relocs (struct rewriter *rw)
{
  const struct mips_object *obj = &rw->a.obj;
  const struct new_got *g = &rw->e.got;

  for (uint32_t off = 0; off + 8 <= obj->dyn.relsz; off += 8)
    {
      unsigned char *p = image_word (rw, obj->dyn.rel + off);
      uint32_t r_offset;
      if (p == NULL)
	break;
      r_offset = object_get32 (obj, p);
      if (r_offset >= obj->got_addr && r_offset < obj->got_addr + 4 * g->n_old)
	put32 (p, g->addr
	       + 4 * new_got_index (g, (r_offset - obj->got_addr) / 4),
	       obj->big_endian);
    }
}

/* The file offset and number of entries of the dynamic section.  */

static bool
dynamic_range (const struct mips_object *obj, size_t *off, size_t *n)
{
  for (size_t i = 0; i < obj->n_segments; i++)
    if (obj->segments[i].type == PT_DYNAMIC)
      {
	const struct object_segment *s = &obj->segments[i];
	if (s->offset > obj->size || s->filesz > obj->size - s->offset)
	  return false;
	*off = s->offset;
	*n = s->filesz / 8;
	return true;
      }
  return false;
}

/* The new value of the dynamic entry TAG whose old value is VAL, for the
   new GOT and code.  */

static uint32_t
dynamic_value (const struct rewriter *rw, uint32_t tag, uint32_t val)
{
  const struct emitter *e = &rw->e;

  switch (tag)
    {
    case DT_PLTGOT:
      return e->got.addr;
    case DT_MIPS_LOCAL_GOTNO:
      return val + e->got.n_new;
    case DT_INIT:
    case DT_FINI:
      return emit_map (e, val);
    default:
      return val;
    }
}

/* Update the dynamic section in place.  */

static void
patch_dynamic (struct rewriter *rw)
{
  const struct mips_object *obj = &rw->a.obj;
  size_t off, n;

  if (!dynamic_range (obj, &off, &n))
    return;
  for (size_t i = 0; i < n; i++)
    {
      unsigned char *p = rw->image + off + 8 * i;
      uint32_t tag = object_get32 (obj, p);
      if (tag == DT_NULL)
	break;
      put32 (p + 4, dynamic_value (rw, tag, object_get32 (obj, p + 4)),
	     obj->big_endian);
    }
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
  if (asprintf (&rpath, "$ORIGIN%s%s", old_path != NULL ? ":" : "",
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
      {
	unsigned char *ph = rw->image + obj->e_phoff + 32 * i;
	put32 (ph + 4, seg_file_offset (rw, dyn_off), be);
	put32 (ph + 8, dyn_addr, be);
	put32 (ph + 12, dyn_addr, be);
	put32 (ph + 16, (uint32_t) (8 * k), be);
	put32 (ph + 20, (uint32_t) (8 * k), be);
      }
  free (rpath);
  return true;

 nomem:
  free (rpath);
  *errmsg = strdup ("out of memory");
  return false;
}

/* Fill the original code of the copy with traps.  */

static void
poison_code (struct rewriter *rw)
{
  const struct mips_object *obj = &rw->a.obj;

  for (size_t i = 0; i < obj->n_sections; i++)
    {
      const struct object_section *s = &obj->sections[i];
      if (!(s->flags & SHF_EXECINSTR) || !(s->flags & SHF_ALLOC)
	  || s->type != SHT_PROGBITS || s->offset > obj->size
	  || s->size > obj->size - s->offset)
	continue;
      for (uint32_t k = 0; k + 4 <= s->size; k += 4)
	put32 (rw->image + s->offset + k, BREAK_INSN, obj->big_endian);
    }
}

/* The new address where the copy of the code before ADDR ends: that of
   the first word at or after ADDR that has a copy (its counting code
   included), or the end of the new text.  */

static uint32_t
eh_end (void *ctx, uint32_t addr)
{
  const struct emitter *e = ctx;
  const struct code *code = &e->a->code;
  uint32_t best_addr = UINT32_MAX, best = e->text_addr + e->text_size;

  for (size_t i = 0; i < code->n_sections; i++)
    {
      const struct insn_section *s = &code->sections[i];
      uint32_t a = addr <= s->start ? s->start : (addr + 3) & ~3u;
      for (; a < s->end && a < best_addr; a += 4)
	{
	  size_t w = s->base + (a - s->start) / 4;
	  if (e->insn_new[w] != 0)
	    {
	      best_addr = a;
	      best = e->map[w];
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
  return e->insn_new[w] != 0 ? e->map[w] : eh_end (ctx, addr);
}

static uint32_t
eh_insn (void *ctx, uint32_t addr)
{
  const struct emitter *e = ctx;
  long w = emit_word_index (e, addr);

  if (w < 0)
    return addr;
  return e->insn_new[w] != 0 ? e->insn_new[w] : eh_end (ctx, addr);
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

  if (!eh_rewrite_size (obj, &map, &eh_size, &hdr_size, &lsda_size, errmsg))
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
  for (size_t i = 0; i < obj->n_segments; i++)
    if (obj->segments[i].type == PT_GNU_EH_FRAME)
      {
	unsigned char *ph = rw->image + obj->e_phoff + 32 * i;
	put32 (ph + 4, seg_file_offset (rw, hdr_off), obj->big_endian);
	put32 (ph + 8, sb->vaddr + (uint32_t) hdr_off, obj->big_endian);
	put32 (ph + 12, sb->vaddr + (uint32_t) hdr_off, obj->big_endian);
	put32 (ph + 16, (uint32_t) hdr_size, obj->big_endian);
	put32 (ph + 20, (uint32_t) hdr_size, obj->big_endian);
      }
  return true;
}

/* Build the segment and patch the copy.  */

/* The counters of E: one per block, then one per counted branch
   edge.  */

static uint32_t
n_counters (const struct emitter *e)
{
  return (uint32_t) (e->derive.n_blocks + e->derive.n_edges);
}

/* The bytes of E's derivation table (runtime/segment.h).  */

static uint32_t
derive_size (const struct emitter *e)
{
  return (uint32_t) (sizeof (struct pc_derive) + 4 * e->derive.n_blocks
		     + 8 * e->derive.n_links + 8 * e->derive.n_edges);
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

static uint32_t
image_end (const struct mips_object *obj)
{
  uint32_t end = 0;

  for (size_t i = 0; i < obj->n_segments; i++)
    if (obj->segments[i].type == PT_LOAD
	&& obj->segments[i].vaddr + obj->segments[i].memsz > end)
      end = obj->segments[i].vaddr + obj->segments[i].memsz;
  return end;
}

/* Where the parts of the new segments are: offsets from the code
   segment's start (build).  */
struct seg_parts
{
  size_t phdrs, text, map, blocks, window_blocks, derive;  /* Code.  */
  size_t hdr, path, build_id, got, window;		    /* Data.  */
};

/* Fail with "out of memory" (build's stages).  */

static bool
no_memory (char **errmsg)
{
  *errmsg = strdup ("out of memory");
  return false;
}

/* Place RW's new segments in the file and in memory: after the image,
   at the distance the first PT_LOAD has between the two.  */

static bool
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

static bool
lay_out_code (struct rewriter *rw, struct seg_parts *at, char **errmsg)
{
  struct emitter *e = &rw->e;
  struct seg_builder *sb = &rw->sb;

  at->phdrs = seg_reserve (sb, 32 * ((size_t) rw->a.obj.n_segments + 2), 4);
  if (at->phdrs == (size_t) -1)
    return no_memory (errmsg);
  at->text = (sb->size + 15) & ~(size_t) 15;
  if (!emit_layout (e, sb->vaddr + (uint32_t) at->text, errmsg)
      || !emit_window_fit (e, errmsg))
    return false;
  if (seg_reserve (sb, e->text_size, 16) != at->text)
    return no_memory (errmsg);
  at->map = seg_reserve (sb, e->old_end - e->old_start, 4);
  at->blocks = seg_reserve (sb, 8 * rw->a.cfg.n_blocks, 4);
  if (e->n_window > 0)
    at->window_blocks = seg_reserve (sb, 4 * e->n_window, 4);
  if (e->derive.n_measured < rw->a.cfg.n_blocks)
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

static bool
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
  if (e->n_xlate_guarded > 0)
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
      need = at->text + e->text_size + (uint64_t) obj->got_addr
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
  e->probe_slots = sb->vaddr + (uint32_t) at->hdr
		   + offsetof (struct pc_segment_header, probe_enter);
  e->syscall_hook_slot = sb->vaddr + (uint32_t) at->hdr
			 + offsetof (struct pc_segment_header, syscall_hook);
  e->jump_note_slot = sb->vaddr + (uint32_t) at->hdr
		      + offsetof (struct pc_segment_header, jump_note);
  at->got = seg_reserve (sb, 4 * (e->got.n_old + e->got.n_new), 16);
  /* The window right after the GOT, within gp's reach.  */
  if (e->n_window > 0)
    at->window = seg_reserve (sb, emit_window_entry (e) * e->n_window, 8);
  if (at->got == (size_t) -1 || at->window == (size_t) -1)
    return no_memory (errmsg);
  e->got.addr = sb->vaddr + (uint32_t) at->got;
  e->window = sb->vaddr + (uint32_t) at->window;
  if (e->n_window > 0)
    {
      unsigned char *wb = sb->buf + at->window_blocks;
      memset (sb->buf + at->window, 0, emit_window_entry (e) * e->n_window);
      for (uint32_t k = 0; k < e->n_window; k++, wb += 4)
	put32 (wb, e->window_blocks[k], obj->big_endian);
    }
  rw->map_addr = sb->vaddr + (uint32_t) at->map;
  if (!build_eh (rw, errmsg))
    return false;
  e->got.gp = e->got.addr + 0x7ff0;
  if (rw->main_program && rw->opts->runtime_soname != NULL
      && !move_dynamic (rw, errmsg))
    return false;
  if (seg_reserve (sb, 0, 16) == (size_t) -1)
    return no_memory (errmsg);
  e->counters = sb->vaddr + (uint32_t) sb->size;
  return true;
}

/* The section headers of the new segments' parts AT, and of the
   sections that moved into them.  */

static void
add_sections (struct rewriter *rw, const struct seg_parts *at)
{
  const struct emitter *e = &rw->e;
  uint32_t vaddr = rw->sb.vaddr;

  add_section (rw, ".profcopy.hdr", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE,
	       vaddr + (uint32_t) at->hdr,
	       (uint32_t) sizeof (struct pc_segment_header), 8);
  add_section (rw, ".profcopy.text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR,
	       vaddr + (uint32_t) at->text, e->text_size, 16);
  add_section (rw, ".profcopy.map", SHT_PROGBITS, SHF_ALLOC,
	       vaddr + (uint32_t) at->map, e->old_end - e->old_start, 4);
  add_section (rw, ".profcopy.blocks", SHT_PROGBITS, SHF_ALLOC,
	       vaddr + (uint32_t) at->blocks,
	       8 * (uint32_t) rw->a.cfg.n_blocks, 4);
  if (at->derive != 0)
    add_section (rw, ".profcopy.derive", SHT_PROGBITS, SHF_ALLOC,
		 vaddr + (uint32_t) at->derive, derive_size (e), 4);
  add_section (rw, ".profcopy.counters", SHT_NOBITS, SHF_ALLOC | SHF_WRITE,
	       e->counters, 8 * n_counters (e), 16);
  move_section_header (rw, ".got", e->got.addr,
		       seg_file_offset (rw, at->got),
		       4 * (e->got.n_old + e->got.n_new));
  if (rw->dyn_addr != 0)
    {
      move_section_header (rw, ".dynamic", rw->dyn_addr,
			   seg_file_offset (rw, rw->dyn_addr - vaddr),
			   rw->dyn_size);
      move_section_header (rw, ".dynstr", rw->dynstr_addr,
			   seg_file_offset (rw, rw->dynstr_addr - vaddr),
			   rw->dynstr_size);
    }
}

/* Write the map, the block table and the derivation table at AT.  */

static void
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
      put32 (d, e->derive.n_vertices, be);
      put32 (d + 4, (uint32_t) e->derive.n_links, be);
      put32 (d + 8, (uint32_t) e->derive.n_edges, be);
      d += sizeof (struct pc_derive);
      for (size_t i = 0; i < cfg->n_blocks; i++, d += 4)
	put32 (d, e->derive.rule[i], be);
      for (size_t i = 0; i < 2 * e->derive.n_links; i++, d += 4)
	put32 (d, e->derive.links[i], be);
      for (size_t i = 0; i < 2 * e->derive.n_edges; i++, d += 4)
	put32 (d, e->derive.edges[i], be);
    }
}

/* Write the segment header (runtime/segment.h) at AT.  */

static void
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
  put32 (h + 24, e->counters, be);
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
		 | (e->exit_hooked ? PC_SEGMENT_F_EXIT_HOOK : 0)
		 | (rw->opts->poison_original ? PC_SEGMENT_F_POISONED : 0), be);
  put32 (h + 64, at->derive != 0 ? vaddr + (uint32_t) at->derive : 0, be);
  put32 (h + 68, 0, be);	/* probe_enter, probe_exit: the runtime's.  */
  put32 (h + 72, 0, be);
  put32 (h + 76, e->n_window > 0 ? e->window : 0, be);
  put32 (h + 80, e->n_window, be);
  put32 (h + 84, e->n_window > 0 ? vaddr + (uint32_t) at->window_blocks : 0,
	 be);
  put32 (h + 88, 0, be);	/* syscall_hook: the runtime's.  */
  put32 (h + 92, 0, be);	/* jump_note: the runtime's.  */
}

/* Build RW's new segments for the original at IN_PATH, and patch the
   copy of its image to use them.  */

static bool
build (struct rewriter *rw, const char *in_path, char **errmsg)
{
  struct seg_parts at;
  char *real = realpath (in_path, NULL);
  const char *path = real != NULL ? real : in_path;
  bool ok;

  memset (&at, 0, sizeof at);
  ok = place_segments (rw, errmsg)
       && lay_out_code (rw, &at, errmsg)
       && lay_out_data (rw, &at, path, errmsg);
  free (real);
  if (!ok)
    return false;
  add_sections (rw, &at);
  build_got (rw, at.got);
  if (!emit_text (&rw->e, rw->sb.buf + at.text, errmsg))
    return false;
  fill_tables (rw, &at);
  fill_header (rw, &at);
  apply_relocs (rw);
  move_got_relocs (rw);
  if (!(rw->main_program && rw->opts->runtime_soname != NULL))
    patch_dynamic (rw);
  if (rw->opts->poison_original)
    poison_code (rw);
  return true;
}

/* The objects of the profiles SET that counted the original of RW (the
   same checksum and size: the same file) in a malloc'd array of *N, or
   NULL (also when out of memory, *N then not 0).  */

static const struct prof_object **
profiled_runs (const struct rewriter *rw, const struct profile_set *set,
	       size_t *n)
{
  const struct prof_object **runs;

  *n = 0;
  if (set == NULL || set->n_objects == 0)
    return NULL;
  runs = malloc (set->n_objects * sizeof *runs);
  for (size_t i = 0; i < set->n_objects; i++)
    if (set->objects[i].checksum == rw->checksum
	&& set->objects[i].file_size == rw->a.obj.size)
      {
	if (runs != NULL)
	  runs[*n] = &set->objects[i];
	++*n;
      }
  if (*n == 0)
    {
      free (runs);
      return NULL;
    }
  return runs;
}

/* Analyse the object at IN_PATH into RW, and start the liveness of
   its registers (emit_narrow_liveness) in a thread of its own.  */

static bool
analyse (struct rewriter *rw, const char *in_path, char **errmsg)
{
  const struct rewrite_options *opts = rw->opts;

  memset (&rw->a, 0, sizeof rw->a);
  if (!object_open (in_path, &rw->a.obj, errmsg))
    return false;
  rw->a.have_obj = true;
  if (object_profcopy_header (&rw->a.obj, NULL) != NULL)
    {
      *errmsg = strdup ("already profiled (it is a copy that profcopy"
			" wrote); give profcopy the original");
      return false;
    }
  /* Liveness comes with emit_narrow_liveness.  */
  if (!analysis_run_object (ANALYSE_CFG, &rw->a, errmsg))
    return false;
  if (rw->a.relocs.n_by_type[RELOC_HI_LO] > 0)
    {
      *errmsg = strdup ("non-PIC code builds code addresses with lui/addiu "
			"pairs; rewriting such code is not supported yet");
      return false;
    }
  if (!emit_narrow_liveness (&rw->a, &rw->sites, opts->scope,
			     opts->scope_index, opts->single_update))
    return no_memory (errmsg);
  rw->main_program = rw->a.obj.e_type == ET_EXEC || rw->a.obj.pie;
  /* The segment header's checksum, which also names the object in the
     profiles of --use-profile.  */
  rw->checksum = crc32_ieee (rw->a.obj.image, rw->a.obj.size);
  return true;
}

/* Plan RW's counting code (emit_plan), by the counts of the profiles
   of --use-profile that counted this file, if any.  */

static bool
plan (struct rewriter *rw, char **errmsg)
{
  const struct rewrite_options *opts = rw->opts;
  const struct prof_object **used;
  bool ok;

  used = profiled_runs (rw, opts->use_profile, &rw->n_used);
  if (rw->n_used > 0 && used == NULL)
    ok = no_memory (errmsg);
  else
    ok = emit_plan (&rw->e, &rw->a, opts->all_blocks, opts->calls,
		    opts->single_update, opts->folded, opts->poison_original,
		    &rw->sites, used,
		    rw->n_used, errmsg);
  free (used);
  for (size_t i = 0; rw->sites.returning != NULL && i < rw->a.cfg.n_blocks;
       i++)
    rw->n_returning += rw->sites.returning[i];
  call_sites_free (&rw->sites);
  return ok;
}

/* The copy of the original's image that build patches.  */

static bool
copy_image (struct rewriter *rw, char **errmsg)
{
  rw->image = malloc (rw->a.obj.size);
  if (rw->image == NULL)
    return no_memory (errmsg);
  memcpy (rw->image, rw->a.obj.image, rw->a.obj.size);
  return true;
}

/* The -v report of how RW's object at IN_PATH was counted.  */

static void
report (const struct rewriter *rw, const char *in_path)
{
  const struct emitter *e = &rw->e;

  fprintf (stderr, "profcopy: %s: %zu blocks, %zu of them derived from "
	   "the others' counts, %zu counted on edges; %zu branch edges "
	   "counted (%zu in gp's window)\n", in_path, rw->a.cfg.n_blocks,
	   e->n_derived, e->n_edge, e->n_edge_counters, e->n_edge_window);
  fprintf (stderr, "profcopy: %s: increments: %zu through gp, %zu through "
	   "t9, %zu through the gp saved in the frame, %zu pc-relative, "
	   "%zu absolute; %zu in gp's window, %zu with saved registers, "
	   "%zu with the next instruction in their delay slot (%zu of them "
	   "behind a branch-likely), %zu in place of the unconditional "
	   "branch after them\n", in_path, e->n_count_gp, e->n_count_t9,
	   e->n_count_saved_gp, e->n_count_pc, e->n_count_abs,
	   e->n_count_window, e->n_spilled, e->n_hoisted + e->n_skipped,
	   e->n_skipped, e->n_jumps);
  fprintf (stderr, "profcopy: %s: %zu loops by their induction register "
	   "(%zu of them with the copy on the stack), %zu calls that surely "
	   "come back\n", in_path, e->n_loops, e->n_loops_stack,
	   rw->n_returning);
  fprintf (stderr, "profcopy: %s: %zu long branches, %zu indirect jumps "
	   "translated at run time (%zu of them with the gp guard, %zu "
	   "without gp left as they are), %u new GOT entries, %zu probes "
	   "with %zu stubs; new text %u bytes\n", in_path, e->n_long_calls,
	   e->n_xlate, e->n_xlate_guarded, e->n_xlate_skipped, e->got.n_new,
	   e->n_probes, e->n_probe_stubs, e->text_size);
  if (e->n_gotref_nogp > 0)
    fprintf (stderr, "profcopy: %s: %zu GOT references where gp may not "
	     "be valid, written without gp (%zu left relative to gp)\n",
	     in_path, e->n_gotref_nogp - e->n_gotref_unsafe,
	     e->n_gotref_unsafe);
  if (rw->opts->use_profile != NULL && !rw->opts->all_blocks)
    {
      if (rw->n_used > 0)
	fprintf (stderr, "profcopy: %s: counters placed by the counts of "
		 "%zu earlier run%s (%zu of its blocks counted)\n", in_path,
		 rw->n_used, rw->n_used == 1 ? "" : "s", e->n_profiled);
      else
	fprintf (stderr, "profcopy: %s: no profile counts this file; "
		 "counters placed by the estimate\n", in_path);
    }
}

/* Write the patched image with RW's new segments to OUT_PATH, with the
   mode of the original at IN_PATH.  */

static bool
write_output (const struct rewriter *rw, const char *in_path,
	      const char *out_path, char **errmsg)
{
  struct new_segment seg;
  struct stat st;

  if (stat (in_path, &st) != 0)
    st.st_mode = 0755;
  seg.vaddr = rw->sb.vaddr;
  seg.offset = rw->seg_offset;
  seg.bytes = rw->sb.buf;
  seg.filesz = (uint32_t) rw->sb.size;
  seg.rx_size = rw->rx_size;
  seg.rw_start = rw->rw_start;
  seg.rw_file = rw->rw_file;
  seg.memsz = rw->e.counters + 8 * n_counters (&rw->e) - rw->sb.vaddr;
  /* A program's heap starts where its image ends (qemu-user starts
     brk right there, not on a page boundary): the copy's image ends at
     the same offset in a 64 KiB page as the original's, so that the
     heap's blocks keep their places within pages, which code that
     reads words ahead (libc's strcmp) and hashes of addresses look
     at.  */
  if (rw->main_program)
    seg.memsz += (uint32_t) (image_end (&rw->a.obj)
			     - (seg.vaddr + seg.memsz)) & 0xffffu;
  seg.sections = rw->sections;
  seg.n_sections = rw->n_sections;
  return elf_write_with_segment (out_path, rw->image, rw->a.obj.size,
				 rw->a.obj.big_endian, &seg, st.st_mode,
				 errmsg);
}

/* The pipeline: analyse, plan, build the new segments (layout, then
   the text, the tables and the patched image), write.  */

bool
rewrite_object (const char *in_path, const char *out_path,
		const struct rewrite_options *opts, char **errmsg)
{
  struct rewriter rw;
  bool ok;

  memset (&rw, 0, sizeof rw);
  rw.opts = opts;
  ok = analyse (&rw, in_path, errmsg)
       && plan (&rw, errmsg)
       && copy_image (&rw, errmsg)
       && build (&rw, in_path, errmsg);
  if (ok && opts->verbose)
    report (&rw, in_path);
  ok = ok && write_output (&rw, in_path, out_path, errmsg);

  call_sites_free (&rw.sites);
  free (rw.image);
  free (rw.sb.buf);
  emit_free (&rw.e);
  analysis_free (&rw.a);
  return ok;
}
