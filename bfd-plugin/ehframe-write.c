/* ehframe-write.c -- unwind tables for the profiled copy of the code.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The original .eh_frame is read entry by entry, and each entry is
   written anew: CIEs with their pointers re-encoded, FDEs with their
   ranges mapped and their CFA programs copied opcode by opcode (so that
   an opcode of unknown length is an error, never a desynchronised
   copy), every location advance recomputed in the new code.  The LSDA
   of each FDE is written again by ehframe-lsda.c, and the values and
   pointers of both are read and written by ehframe-enc.c.  Finally the
   header's search table is sorted by new start address, as GNU ld
   writes it.

   One builder does the work for both entry points, into growable
   buffers, so that the sizes and the contents can never disagree.  */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>

#include "array.h"
#include "object-int.h"
#include "dwarf-read.h"
#include "ehframe-int.h"

/* The new location of the old code location LOC in the FDE whose old
   range is [BEGIN, END).  */

static uint32_t
map_loc (const struct eh_map *m, uint32_t loc, uint32_t end)
{
  if (loc >= end)
    return m->end (m->ctx, loc);
  return m->insn (m->ctx, loc & ~3u) + (loc & 3);
}

/* Emit the advance from *NEW_LOC to NEW (in code alignment units of
   CAF) to OUT.  */

static bool
emit_advance (struct builder *bd, struct buf *out, uint64_t caf,
	      uint32_t *new_loc, uint32_t new)
{
  uint64_t d;

  if (new < *new_loc)
    return object_error (bd->errmsg, "the map moves the CFA row at new "
			 "address 0x%x before the previous one at 0x%x", new,
			 *new_loc);
  if ((new - *new_loc) % caf != 0)
    return object_error (bd->errmsg, "new CFA advance 0x%x is not a "
			 "multiple of the code alignment factor",
			 new - *new_loc);
  d = (new - *new_loc) / caf;
  *new_loc = new;
  if (d == 0)
    return true;
  if (d < 0x40)
    eh_buf_u8 (out, 0x40 | (unsigned) d);
  else if (d < 0x100)
    {
      eh_buf_u8 (out, CFA_ADVANCE_LOC1);
      eh_buf_u8 (out, (unsigned) d);
    }
  else if (d < 0x10000)
    {
      eh_buf_u8 (out, CFA_ADVANCE_LOC2);
      eh_buf_fixed (out, d, 2, bd->obj->big_endian);
    }
  else
    {
      eh_buf_u8 (out, CFA_ADVANCE_LOC4);
      eh_buf_fixed (out, d, 4, bd->obj->big_endian);
    }
  return true;
}

/* Skip the operands of the call frame instruction OP at C.  */

static bool
skip_operands (struct cursor *c, unsigned op)
{
  uint64_t u;
  int64_t s;

  switch (op)
    {
    case 0x0a:			/* remember_state */
    case 0x0b:			/* restore_state */
    case 0x2d:			/* GNU_window_save */
      return true;
    case 0x06:			/* restore_extended */
    case 0x07:			/* undefined */
    case 0x08:			/* same_value */
    case 0x0d:			/* def_cfa_register */
    case 0x0e:			/* def_cfa_offset */
    case 0x2e:			/* GNU_args_size */
      return eh_get_uleb (c, &u);
    case 0x13:			/* def_cfa_offset_sf */
      return eh_get_sleb (c, &s);
    case 0x05:			/* offset_extended */
    case 0x09:			/* register */
    case 0x0c:			/* def_cfa */
    case 0x14:			/* val_offset */
    case 0x2f:			/* GNU_negative_offset_extended */
      return eh_get_uleb (c, &u) && eh_get_uleb (c, &u);
    case 0x11:			/* offset_extended_sf */
    case 0x12:			/* def_cfa_sf */
    case 0x15:			/* val_offset_sf */
      return eh_get_uleb (c, &u) && eh_get_sleb (c, &s);
    case 0x0f:			/* def_cfa_expression */
      if (!eh_get_uleb (c, &u) || u > c->end - c->pos)
	return false;
      c->pos += u;
      return true;
    case 0x10:			/* expression */
    case 0x16:			/* val_expression */
      if (!eh_get_uleb (c, &u) || !eh_get_uleb (c, &u) || u > c->end - c->pos)
	return false;
      c->pos += u;
      return true;
    default:
      return false;
    }
}

/* Copy the call frame instructions at C (up to C->end), under the CIE
   CIE, to OUT.  In an FDE whose old range is [OLD_BEGIN, OLD_END) and
   whose new start is NEW_BEGIN every advance is recomputed; in a CIE
   (IN_CIE) an advance is an error.  DW_CFA_nop is dropped (the caller
   pads).  */

static bool
copy_cfa (struct builder *bd, struct cursor *c, const struct cie *cie,
	  bool in_cie, uint32_t old_begin, uint32_t old_end,
	  uint32_t new_begin, struct buf *out)
{
  uint32_t old_loc = old_begin, new_loc = new_begin;

  while (c->pos < c->end)
    {
      size_t start = c->pos;
      unsigned op;
      uint64_t delta = 0, u;
      bool advance = true;
      uint32_t target = 0;
      bool ind, nul, absolute = false;

      eh_get_u8 (c, &op);
      if ((op & 0xc0) == 0x40)
	delta = op & 0x3f;
      else if ((op & 0xc0) == 0x80)
	{
	  advance = false;
	  if (!eh_get_uleb (c, &u))
	    goto bad;
	}
      else if ((op & 0xc0) == 0xc0)
	advance = false;
      else
	switch (op)
	  {
	  case CFA_NOP:
	    continue;
	  case CFA_SET_LOC:
	    if (!eh_get_pointer (bd, c, cie->r_enc & 0x7f, &target, &ind, &nul))
	      return false;
	    absolute = true;
	    break;
	  case CFA_ADVANCE_LOC1:
	    if (!eh_get_fixed (bd, c, 1, &delta))
	      goto bad;
	    break;
	  case CFA_ADVANCE_LOC2:
	    if (!eh_get_fixed (bd, c, 2, &delta))
	      goto bad;
	    break;
	  case CFA_ADVANCE_LOC4:
	    if (!eh_get_fixed (bd, c, 4, &delta))
	      goto bad;
	    break;
	  case CFA_MIPS_ADVANCE_LOC8:
	    if (!eh_get_fixed (bd, c, 8, &delta))
	      goto bad;
	    break;
	  default:
	    advance = false;
	    if (!skip_operands (c, op))
	      return object_error (bd->errmsg, "unknown or truncated call "
				   "frame instruction 0x%02x at 0x%x", op,
				   c->addr + (uint32_t) start);
	    break;
	  }

      if (!advance)
	{
	  eh_buf_put (out, c->base + start, c->pos - start);
	  continue;
	}
      if (in_cie)
	return object_error (bd->errmsg, "location advance in the CIE at "
			     "0x%x", c->addr + (uint32_t) start);
      if (!absolute)
	{
	  if (delta > UINT32_MAX / cie->caf
	      || delta * cie->caf > UINT32_MAX - old_loc)
	    goto bad;
	  target = old_loc + (uint32_t) (delta * cie->caf);
	}
      if (target < old_loc)
	return object_error (bd->errmsg, "DW_CFA_set_loc at 0x%x goes back",
			     c->addr + (uint32_t) start);
      old_loc = target;
      if (!emit_advance (bd, out, cie->caf, &new_loc,
			 map_loc (bd->m, old_loc, old_end)))
	return false;
    }
  return true;

 bad:
  return object_error (bd->errmsg, "truncated call frame instructions at "
		       "0x%x", c->addr + (uint32_t) c->pos);
}

/* The CIE copied from old offset OFF, or NULL.  */

static const struct cie *
find_cie (const struct builder *bd, size_t off)
{
  size_t lo = 0, hi = bd->n_cies;

  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (bd->cies[mid].old_off == off)
	return &bd->cies[mid];
      if (bd->cies[mid].old_off < off)
	lo = mid + 1;
      else
	hi = mid;
    }
  return NULL;
}

/* Pad the entry that starts at offset START of the new .eh_frame with
   DW_CFA_nop to a multiple of 4 bytes and fill in its length.  */

static void
close_entry (struct builder *bd, size_t start)
{
  while ((bd->eh.len - start) % 4 != 0 && !bd->eh.oom)
    eh_buf_u8 (&bd->eh, CFA_NOP);
  if (!bd->eh.oom)
    eh_store (bd->eh.p + start, bd->eh.len - start - 4, 4,
	      bd->obj->big_endian);
}

/* Copy the CIE at offset OFF of the old .eh_frame; C is at its version
   byte.  */

static bool
write_cie (struct builder *bd, size_t off, struct cursor *c)
{
  struct cie *cie;
  const unsigned char *nul;
  const char *aug;
  char new_aug[16];
  uint64_t caf, ra = 0, u;
  int64_t daf;
  unsigned version, byte, p_enc = PE_OMIT;
  uint32_t p_target = 0;
  bool p_ind = false, p_nul = false, has_r = false;
  size_t start, v4 = 0;

  if (!array_room (&bd->cies, &bd->cap_cies, bd->n_cies, sizeof *bd->cies,
		   16))
    return object_error (bd->errmsg, "out of memory");
  cie = &bd->cies[bd->n_cies];
  memset (cie, 0, sizeof *cie);
  cie->old_off = off;
  cie->r_enc = PE_ABSPTR;
  cie->l_enc = PE_OMIT;

  if (!eh_get_u8 (c, &version)
      || (version != 1 && version != 3 && version != 4))
    return object_error (bd->errmsg, "CIE at .eh_frame+0x%zx has an "
			 "unsupported version", off);
  nul = memchr (c->base + c->pos, '\0', c->end - c->pos);
  aug = (const char *) c->base + c->pos;
  if (nul == NULL || nul - (c->base + c->pos) > 8
      || (aug[0] != 'z' && aug[0] != '\0'))
    return object_error (bd->errmsg, "CIE at .eh_frame+0x%zx has an "
			 "unsupported augmentation", off);
  c->pos = (size_t) (nul - c->base) + 1;
  if (version == 4)
    {
      v4 = c->pos;
      c->pos += 2;
    }
  if (c->pos > c->end || !eh_get_uleb (c, &caf) || caf == 0
      || !eh_get_sleb (c, &daf)
      || (version == 1 ? !eh_get_u8 (c, &byte) : !eh_get_uleb (c, &ra)))
    goto bad;
  if (version == 1)
    ra = byte;
  cie->version = version;
  cie->caf = caf;
  cie->z = aug[0] == 'z';
  if (cie->z)
    {
      struct cursor a = *c;
      if (!eh_get_uleb (c, &u) || u > c->end - c->pos)
	goto bad;
      a.pos = c->pos;
      a.end = c->pos + u;
      c->pos = a.end;
      for (const char *l = aug + 1; *l != '\0'; l++)
	switch (*l)
	  {
	  case 'P':
	    if (!eh_get_u8 (&a, &p_enc)
		|| !eh_get_pointer (bd, &a, p_enc, &p_target, &p_ind, &p_nul))
	      goto bad;
	    break;
	  case 'L':
	    if (!eh_get_u8 (&a, &cie->l_enc))
	      goto bad;
	    break;
	  case 'R':
	    if (!eh_get_u8 (&a, &cie->r_enc))
	      goto bad;
	    has_r = true;
	    break;
	  case 'S':
	  case 'B':
	    break;
	  default:
	    return object_error (bd->errmsg, "CIE at .eh_frame+0x%zx has an "
				 "unknown augmentation \"%s\"", off, aug);
	  }
    }

  /* The copy always has 'z' and 'R', so that every FDE address is
     written pc-relative.  */
  snprintf (new_aug, sizeof new_aug, "%s%s%s", cie->z ? "" : "z", aug,
	    has_r ? "" : "R");
  start = bd->eh.len;
  cie->new_off = start;
  eh_buf_fixed (&bd->eh, 0, 4, false);
  eh_buf_fixed (&bd->eh, 0, 4, false);
  eh_buf_u8 (&bd->eh, version);
  eh_buf_put (&bd->eh, new_aug, strlen (new_aug) + 1);
  if (version == 4)
    eh_buf_put (&bd->eh, c->base + v4, 2);
  eh_buf_uleb (&bd->eh, caf, 1);
  eh_buf_sleb (&bd->eh, daf);
  if (version == 1)
    eh_buf_u8 (&bd->eh, (unsigned) ra);
  else
    eh_buf_uleb (&bd->eh, ra, 1);
  u = 0;
  for (const char *l = new_aug + 1; *l != '\0'; l++)
    u += *l == 'P' ? 5 : *l == 'L' || *l == 'R' ? 1 : 0;
  eh_buf_uleb (&bd->eh, u, 1);
  for (const char *l = new_aug + 1; *l != '\0'; l++)
    switch (*l)
      {
      case 'P':
	eh_buf_u8 (&bd->eh, PE_OUT | (p_ind ? PE_INDIRECT : 0));
	eh_put_pcrel (bd, &bd->eh, bd->eh_vaddr, p_target, p_nul);
	break;
      case 'L':
	eh_buf_u8 (&bd->eh, cie->l_enc == PE_OMIT ? PE_OMIT : PE_OUT);
	break;
      case 'R':
	eh_buf_u8 (&bd->eh, PE_OUT);
	break;
      default:
	break;
      }
  if (!copy_cfa (bd, c, cie, true, 0, 0, 0, &bd->eh))
    return false;
  close_entry (bd, start);
  bd->n_cies++;
  return true;

 bad:
  return object_error (bd->errmsg, "malformed CIE at .eh_frame+0x%zx", off);
}

/* Write the FDE at offset OFF of the old .eh_frame, whose CIE pointer
   is ID; C is at the CIE pointer.  An FDE whose start is null (a
   discarded function) is dropped.  */

static bool
write_fde (struct builder *bd, size_t off, struct cursor *c, uint32_t id)
{
  const struct eh_map *m = bd->m;
  const struct cie *cie;
  uint32_t begin, lsda = 0, new_begin, new_end, new_lsda = 0;
  uint64_t range;
  bool ind, nul, lsda_nul = true;
  size_t start;

  if (id > c->pos || (cie = find_cie (bd, c->pos - id)) == NULL)
    return object_error (bd->errmsg, "FDE at .eh_frame+0x%zx has no CIE",
			 off);
  c->pos += 4;
  if (!eh_get_pointer (bd, c, cie->r_enc, &begin, &ind, &nul))
    return false;
  if (!eh_get_value (bd, c, cie->r_enc, &range))
    goto bad;
  if (nul)
    return true;
  if (ind || range > UINT32_MAX - begin)
    return object_error (bd->errmsg, "FDE at .eh_frame+0x%zx has a bad "
			 "range", off);
  if (cie->z)
    {
      struct cursor a = *c;
      uint64_t len;
      if (!eh_get_uleb (c, &len) || len > c->end - c->pos)
	goto bad;
      a.pos = c->pos;
      a.end = c->pos + len;
      c->pos = a.end;
      if (cie->l_enc != PE_OMIT)
	{
	  if (!eh_get_pointer (bd, &a, cie->l_enc, &lsda, &ind, &lsda_nul))
	    return false;
	  if (!lsda_nul && ind && !object_read_word (bd->obj, lsda, &lsda))
	    return object_error (bd->errmsg, "FDE at .eh_frame+0x%zx has an "
				 "unreadable LSDA pointer", off);
	}
    }

  new_begin = m->entry (m->ctx, begin);
  new_end = range == 0 ? new_begin
	    : m->end (m->ctx, begin + (uint32_t) range);
  if (new_end < new_begin)
    return object_error (bd->errmsg, "FDE for 0x%x-0x%x maps to a negative "
			 "range", begin, begin + (uint32_t) range);
  if (!lsda_nul && !eh_rewrite_lsda (bd, lsda, begin, new_begin, &new_lsda))
    return false;

  start = bd->eh.len;
  eh_buf_fixed (&bd->eh, 0, 4, false);
  eh_buf_fixed (&bd->eh, start + 4 - cie->new_off, 4, bd->obj->big_endian);
  eh_put_pcrel (bd, &bd->eh, bd->eh_vaddr, new_begin, false);
  eh_buf_fixed (&bd->eh, new_end - new_begin, 4, bd->obj->big_endian);
  eh_buf_uleb (&bd->eh, cie->l_enc != PE_OMIT ? 4 : 0, 1);
  if (cie->l_enc != PE_OMIT)
    eh_put_pcrel (bd, &bd->eh, bd->eh_vaddr, new_lsda, lsda_nul);
  if (!copy_cfa (bd, c, cie, false, begin, begin + (uint32_t) range,
		 new_begin, &bd->eh))
    return false;
  close_entry (bd, start);

  if (bd->n_table == bd->cap_table)
    {
      size_t cap = bd->cap_table ? 2 * bd->cap_table : 256;
      struct hdr_entry *grown = realloc (bd->table, cap * sizeof *grown);
      if (grown == NULL)
	return object_error (bd->errmsg, "out of memory");
      bd->table = grown;
      bd->cap_table = cap;
    }
  bd->table[bd->n_table].loc = new_begin;
  bd->table[bd->n_table].fde = bd->eh_vaddr + (uint32_t) start;
  bd->n_table++;
  return true;

 bad:
  return object_error (bd->errmsg, "malformed FDE at .eh_frame+0x%zx", off);
}

static int
compare_reloc (const void *a, const void *b)
{
  const struct reloc_mark *x = a, *y = b;

  if (x->addr != y->addr)
    return x->addr < y->addr ? -1 : 1;
  return (int) y->sym - (int) x->sym;
}

static int
compare_hdr (const void *a, const void *b)
{
  const struct hdr_entry *x = a, *y = b;

  if (x->loc != y->loc)
    return x->loc < y->loc ? -1 : 1;
  return x->fde < y->fde ? -1 : x->fde > y->fde;
}

/* Note the dynamic relocations of BD's object, sorted, a symbolic one
   first where several share an address.  */

static bool
collect_relocs (struct builder *bd)
{
  const struct mips_object *obj = bd->obj;

  if (obj->n_dynrelocs == 0)
    return true;
  bd->relocs = malloc (obj->n_dynrelocs * sizeof *bd->relocs);
  if (bd->relocs == NULL)
    return object_error (bd->errmsg, "out of memory");
  for (size_t i = 0; i < obj->n_dynrelocs; i++)
    {
      bd->relocs[i].addr = obj->dynrelocs[i].offset;
      bd->relocs[i].sym = obj->dynrelocs[i].sym != 0;
    }
  qsort (bd->relocs, obj->n_dynrelocs, sizeof *bd->relocs, compare_reloc);
  for (size_t i = 0; i < obj->n_dynrelocs; i++)
    if (bd->n_relocs == 0 || bd->relocs[bd->n_relocs - 1].addr
	!= bd->relocs[i].addr)
      bd->relocs[bd->n_relocs++] = bd->relocs[i];
  return true;
}

/* Write the new .eh_frame, LSDAs and header into BD's buffers.  */

static bool
build (struct builder *bd)
{
  const struct mips_object *obj = bd->obj;
  const struct object_section *sec = object_section_named (obj, ".eh_frame");
  bool be = obj->big_endian;
  size_t off;

  if (sec == NULL || sec->type == SHT_NOBITS || sec->size == 0)
    return true;
  if (!object_range_ok (obj, sec->offset, sec->size))
    return object_error (bd->errmsg, ".eh_frame lies outside the file");
  if (!collect_relocs (bd))
    return false;
  bd->sec.base = obj->image + sec->offset;
  bd->sec.addr = sec->addr;

  for (off = 0; off < sec->size; off = bd->sec.end)
    {
      struct cursor c = bd->sec;
      uint32_t len, id;

      if (sec->size - off < 4)
	return object_error (bd->errmsg, "truncated .eh_frame entry at "
			     "offset 0x%zx", off);
      len = object_get32 (obj, c.base + off);
      if (len == 0)
	break;
      if (len == 0xffffffff || len < 4 || len > sec->size - off - 4)
	return object_error (bd->errmsg, "bad .eh_frame entry length at "
			     "offset 0x%zx", off);
      c.pos = off + 4;
      c.end = off + 4 + len;
      bd->sec.end = c.end;
      id = object_get32 (obj, c.base + c.pos);
      if (id == 0)
	{
	  c.pos += 4;
	  if (!write_cie (bd, off, &c))
	    return false;
	}
      else if (!write_fde (bd, off, &c, id))
	return false;
    }
  eh_buf_fixed (&bd->eh, 0, 4, false);

  if (bd->n_table > 1)
    qsort (bd->table, bd->n_table, sizeof *bd->table, compare_hdr);
  eh_buf_u8 (&bd->hdr, 1);
  eh_buf_u8 (&bd->hdr, PE_OUT);
  eh_buf_u8 (&bd->hdr, PE_UDATA4);
  eh_buf_u8 (&bd->hdr, PE_DATAREL | PE_SDATA4);
  eh_put_pcrel (bd, &bd->hdr, bd->hdr_vaddr, bd->eh_vaddr, false);
  eh_buf_fixed (&bd->hdr, bd->n_table, 4, be);
  for (size_t i = 0; i < bd->n_table; i++)
    {
      eh_buf_fixed (&bd->hdr, bd->table[i].loc - bd->hdr_vaddr, 4, be);
      eh_buf_fixed (&bd->hdr, bd->table[i].fde - bd->hdr_vaddr, 4, be);
    }
  if (bd->eh.oom || bd->hdr.oom || bd->lsda.oom)
    return object_error (bd->errmsg, "out of memory");
  return true;
}

static void
builder_free (struct builder *bd)
{
  free (bd->eh.p);
  free (bd->hdr.p);
  free (bd->lsda.p);
  free (bd->cies);
  free (bd->table);
  free (bd->relocs);
  free (bd->pads);
}

static void
builder_init (struct builder *bd, const struct mips_object *obj,
	      const struct eh_map *m, char **errmsg)
{
  memset (bd, 0, sizeof *bd);
  bd->obj = obj;
  bd->m = m;
  bd->errmsg = errmsg;
}

bool
eh_rewrite_size (const struct mips_object *obj, const struct eh_map *m,
		 size_t *eh_frame_size, size_t *hdr_size, size_t *lsda_size,
		 bool *catches, char **errmsg)
{
  struct builder bd;
  bool ok;

  builder_init (&bd, obj, m, errmsg);
  ok = build (&bd);
  *eh_frame_size = ok ? bd.eh.len : 0;
  *hdr_size = ok ? bd.hdr.len : 0;
  *lsda_size = ok ? bd.lsda.len : 0;
  *catches = ok && bd.catches;
  builder_free (&bd);
  return ok;
}

bool
eh_rewrite (const struct mips_object *obj, const struct eh_map *m,
	    uint32_t eh_frame_vaddr, unsigned char *eh_frame_out,
	    uint32_t hdr_vaddr, unsigned char *hdr_out,
	    uint32_t lsda_vaddr, unsigned char *lsda_out, char **errmsg)
{
  struct builder bd;
  bool ok;

  if (eh_frame_vaddr % 4 != 0 || hdr_vaddr % 4 != 0 || lsda_vaddr % 4 != 0)
    return object_error (errmsg, "the new unwind tables must be 4-byte "
			 "aligned");
  builder_init (&bd, obj, m, errmsg);
  bd.eh_vaddr = eh_frame_vaddr;
  bd.hdr_vaddr = hdr_vaddr;
  bd.lsda_vaddr = lsda_vaddr;
  ok = build (&bd);
  if (ok)
    {
      if (bd.eh.len > 0)
	memcpy (eh_frame_out, bd.eh.p, bd.eh.len);
      if (bd.hdr.len > 0)
	memcpy (hdr_out, bd.hdr.p, bd.hdr.len);
      if (bd.lsda.len > 0)
	memcpy (lsda_out, bd.lsda.p, bd.lsda.len);
    }
  builder_free (&bd);
  return ok;
}

/* The identity map, for eh_landing_pads.  */

static uint32_t
identity (void *ctx, uint32_t old)
{
  (void) ctx;
  return old;
}

bool
eh_landing_pads (const struct mips_object *obj, uint32_t **pads,
		 size_t *n_pads, char **errmsg)
{
  struct eh_map id = { identity, identity, identity, NULL };
  struct builder bd;
  size_t n = 0;

  *pads = NULL;
  *n_pads = 0;
  builder_init (&bd, obj, &id, errmsg);
  if (!build (&bd))
    {
      builder_free (&bd);
      return false;
    }
  if (bd.n_pads > 1)
    qsort (bd.pads, bd.n_pads, sizeof *bd.pads, array_compare_u32);
  for (size_t i = 0; i < bd.n_pads; i++)
    if (n == 0 || bd.pads[n - 1] != bd.pads[i])
      bd.pads[n++] = bd.pads[i];
  *pads = bd.pads;
  *n_pads = n;
  bd.pads = NULL;
  builder_free (&bd);
  return true;
}
