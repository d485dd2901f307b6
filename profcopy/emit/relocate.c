/* relocate.c -- patch the copy of the original to use the new
   segments.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   Every entry of the relocation information table is applied to
   the copy of the original's bytes: symbol values, the entry point,
   DT_INIT/DT_FINI, code addresses in data and in jump tables all lead
   into the new text, and the dynamic section points ld.so at the new
   GOT.  */
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
#include "stages.h"

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

/* Apply the data side of the relocation information table to the copy
   of the original: code addresses in data and in jump tables, symbol
   values, the entry point.  */

void
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
		      ? emit_map (e, r->target) - (r->base == obj->gp
						   ? e->plan.got.gp : r->base)
		      : r->via == VIA_LABEL
		      ? emit_map (e, r->target) - emit_map (e, r->base)
		      : emit_map (e, r->target));
	  break;
	case RELOC_GOT:
	  /* A GOT that stays in place (struct new_got) gets the new
	     address in its entry, which ld.so moves by the load bias (a
	     secondary GOT's through its R_MIPS_REL32 relocation); not a
	     page, which the copy leaves as it is there.  */
	  if (e->plan.got.in_place && (r->target & 0xffff) != 0)
	    patch_word (rw, r->addr, emit_map (e, r->target));
	  break;
	default:
	  break;
	}
    }

  /* The primary GOT's global entries of the object's own functions, in
     place: with lazy binding, ld.so only adds the load bias to one that
     differs from the symbol's value (glibc's elf_machine_got_rel), and
     the secondary GOTs' copy them.  */
  for (uint32_t i = obj->dyn.local_gotno;
       e->plan.got.in_place && i < e->plan.got.n_old;
       i++)
    {
      uint32_t v;
      if (object_got_entry (obj, i, &v) && object_is_code (obj, v))
	patch_word (rw, obj->got_addr + 4 * i, emit_map (e, v));
    }

  for (size_t i = 0; i < obj->n_symbols; i++)
    {
      const struct object_symbol *s = &obj->symbols[i];
      unsigned char *p = rw->image + s->value_offset;
      if (s->value_offset + 4 > obj->size)
	continue;
      if (!s->dynamic && s->name != NULL && strcmp (s->name, "_gp") == 0)
	put32 (p, e->plan.got.gp, obj->big_endian);
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
      put32 (rw->image + obj->sections[i].offset + 20, e->plan.got.gp,
	     obj->big_endian);
}

/* Move the dynamic relocations that patch the GOT to the new GOT.  */

void
move_got_relocs (struct rewriter *rw)
{
  const struct mips_object *obj = &rw->a.obj;
  const struct new_got *g = &rw->e.plan.got;

  for (uint32_t off = 0; !g->in_place && off + 8 <= obj->dyn.relsz; off += 8)
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

bool
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

uint32_t
dynamic_value (const struct rewriter *rw, uint32_t tag, uint32_t val)
{
  const struct emitter *e = &rw->e;

  switch (tag)
    {
    case DT_PLTGOT:
      return e->plan.got.addr;
    case DT_MIPS_LOCAL_GOTNO:
      /* A static PIE moves its local GOT entries by its load bias
	 itself, before it runs much of its code, which the counters
	 and translations of the new entries already serve: the static
	 runtime's entry moves those (rewrite.c, write_static), after
	 the old local ones, where the static PIE has no global one
	 (analyse).  */
      return e->plan.got.in_place || rw->a.obj.static_pie
	     ? val : val + e->plan.got.n_new;
    case DT_INIT:
    case DT_FINI:
      return emit_map (e, val);
    default:
      return val;
    }
}

/* Update the dynamic section in place.  */

void
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

/* Fill the original code of the copy with traps: every code word, not
   the islands (analyse/islands.c), which keep running as they are.  */

void
poison_code (struct rewriter *rw)
{
  const struct mips_object *obj = &rw->a.obj;
  const struct code *code = &rw->a.code;

  for (size_t i = 0; i < code->n_sections; i++)
    {
      const struct insn_section *is = &code->sections[i];
      const struct object_section *s = is->section;
      size_t off = s->offset + (is->start - s->addr);
      if (s->type != SHT_PROGBITS || off > obj->size
	  || 4 * is->n_insns > obj->size - off)
	continue;
      for (size_t k = 0; k < is->n_insns; k++)
	put32 (rw->image + off + 4 * k, BREAK_INSN, obj->big_endian);
    }
}

/* In a fixed-address program, make the old entry of every function go
   to its copy: `lui t9,%hi(new); addiu t9,t9,%lo(new); jr t9; nop'
   over its first four words (t9 as a call through t9 leaves it, for a
   copy that computes gp from it).  The copy keeps the addresses of
   functions that the code builds with lui/addiu as they were, so that
   a function's address is one value wherever it is built, and the
   objects that call them back (atexit, qsort) jump to those: they land
   here.  A function of two or three words gets `j new; nop' instead
   when its copy is in the same 256 MiB region; a one-word one, or a
   shorter one whose copy is out of reach, keeps its old code (or
   traps).  */

void
forward_entries (struct rewriter *rw)
{
  const struct cfg *cfg = &rw->a.cfg;
  uint32_t hi;
  int32_t lo;

  if (!rw->e.fixed_address)
    return;
  for (size_t i = 0; i < cfg->n_funcs; i++)
    {
      const struct function *f = &cfg->funcs[i];
      uint32_t to;

      if (f->end - f->entry < 8 || (f->entry & 3) != 0
	  || image_word (rw, f->entry) == NULL
	  || image_word (rw, f->entry + 4) == NULL)
	continue;
      to = emit_map (&rw->e, f->entry);
      if (f->end - f->entry < 16 || image_word (rw, f->entry + 12) == NULL)
	{
	  /* Two words (an empty function is `jr ra; nop'): `j' when the
	     copy is in the region of its delay slot.  t9 keeps the old
	     entry; code that short computes no gp from it.  */
	  if (((f->entry + 4) ^ to) & 0xf0000000)
	    continue;
	  patch_word (rw, f->entry, enc_j (to));
	  patch_word (rw, f->entry + 4, 0);
	  continue;
	}
      split_hi_lo (to, &hi, &lo);
      patch_word (rw, f->entry, itype (OP_LUI, 0, REG_T9, hi));
      patch_word (rw, f->entry + 4,
		  itype (OP_ADDIU, REG_T9, REG_T9, (uint32_t) lo));
      patch_word (rw, f->entry + 8, enc_jr (REG_T9));
      patch_word (rw, f->entry + 12, 0);
    }
}
