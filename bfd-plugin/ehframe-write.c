/* ehframe-write.c -- unwind tables for the profiled copy of the code.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The original .eh_frame is read entry by entry, and each entry is
   written anew: CIEs with their pointers re-encoded, FDEs with their
   ranges mapped and their CFA programs copied opcode by opcode (so that
   an opcode of unknown length is an error, never a desynchronised
   copy), every location advance recomputed in the new code.  The LSDA
   of each FDE is parsed (the GCC layout: LPStart, TType and call-site
   encodings, the call-site table, then the action, type and exception
   specification tables) and written again with its call-site table
   mapped; the rest is copied with the type table entries re-encoded to
   keep their targets.  Finally the header's search table is sorted by
   new start address, as GNU ld writes it.

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
#include "ehframe-write.h"

/* What every pointer of the output is written as.  */
#define PE_OUT		(PE_PCREL | PE_SDATA4)

/* Call frame instructions (DW_CFA_*) whose operands need more than a
   copy.  */
#define CFA_NOP			0x00
#define CFA_SET_LOC		0x01
#define CFA_ADVANCE_LOC1	0x02
#define CFA_ADVANCE_LOC2	0x03
#define CFA_ADVANCE_LOC4	0x04
#define CFA_MIPS_ADVANCE_LOC8	0x1d

/* A growable output area.  */
struct buf
{
  unsigned char *p;
  size_t len, cap;
  bool oom;
};

/* A cursor over part of the object's image.  ADDR is the address of
   BASE[0]; reads stay below END.  */
struct cursor
{
  const unsigned char *base;
  uint32_t addr;
  size_t pos, end;
};

/* A CIE as read, and where its copy went.  */
struct cie
{
  size_t old_off, new_off;
  unsigned version;
  uint64_t caf;			/* Code alignment factor.  */
  unsigned r_enc;		/* FDE address encoding.  */
  unsigned l_enc;		/* LSDA pointer encoding, PE_OMIT for none.  */
  bool z;			/* Augmentation data present.  */
};

/* A dynamic relocation's address, and whether it is against a
   symbol.  */
struct reloc_mark
{
  uint32_t addr;
  bool sym;
};

/* One entry of the header's search table.  */
struct hdr_entry
{
  uint32_t loc, fde;
};

/* Everything one build works with.  */
struct builder
{
  const struct mips_object *obj;
  const struct eh_map *m;
  uint32_t eh_vaddr, hdr_vaddr, lsda_vaddr;
  struct cursor sec;		/* The old .eh_frame.  */
  struct buf eh, hdr, lsda;
  struct cie *cies;
  size_t n_cies, cap_cies;
  struct hdr_entry *table;
  size_t n_table, cap_table;
  struct reloc_mark *relocs;	/* Sorted by address.  */
  size_t n_relocs;
  uint32_t *pads;		/* Old landing pads, for eh_landing_pads.  */
  size_t n_pads, cap_pads;
  char **errmsg;
};

/* Output helpers.  */

static void
buf_room (struct buf *b, size_t n)
{
  unsigned char *p;
  size_t cap;

  if (b->oom || n <= b->cap - b->len)
    return;
  cap = b->cap ? b->cap : 4096;
  while (cap - b->len < n)
    cap *= 2;
  p = realloc (b->p, cap);
  if (p == NULL)
    {
      b->oom = true;
      return;
    }
  memset (p + b->cap, 0, cap - b->cap);
  b->p = p;
  b->cap = cap;
}

static void
buf_put (struct buf *b, const void *data, size_t n)
{
  if (n == 0)
    return;
  buf_room (b, n);
  if (b->oom)
    return;
  memcpy (b->p + b->len, data, n);
  b->len += n;
}

static void
buf_u8 (struct buf *b, unsigned v)
{
  unsigned char c = (unsigned char) v;
  buf_put (b, &c, 1);
}

/* Store the N-byte value V at P in the byte order BE.  */

static void
store (unsigned char *p, uint64_t v, unsigned n, bool be)
{
  for (unsigned i = 0; i < n; i++)
    p[be ? n - 1 - i : i] = (unsigned char) (v >> (8 * i));
}

static void
buf_fixed (struct buf *b, uint64_t v, unsigned n, bool be)
{
  unsigned char tmp[8];
  store (tmp, v, n, be);
  buf_put (b, tmp, n);
}

/* Append V as an unsigned LEB128 number of at least MIN_LEN bytes.  */

static void
buf_uleb (struct buf *b, uint64_t v, unsigned min_len)
{
  unsigned n = 0;

  do
    {
      unsigned byte = v & 0x7f;
      v >>= 7;
      n++;
      if (v != 0 || n < min_len)
	byte |= 0x80;
      buf_u8 (b, byte);
    }
  while (v != 0 || n < min_len);
}

static void
buf_sleb (struct buf *b, int64_t v)
{
  bool more;

  do
    {
      unsigned byte = (unsigned) v & 0x7f;
      v >>= 7;
      more = !((v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40)));
      buf_u8 (b, more ? byte | 0x80 : byte);
    }
  while (more);
}

static unsigned
uleb_size (uint64_t v)
{
  unsigned n = 1;
  while (v >>= 7)
    n++;
  return n;
}

/* Pad B with zeros to a multiple of 4 bytes.  */

static void
buf_align4 (struct buf *b)
{
  while (b->len % 4 != 0 && !b->oom)
    buf_u8 (b, 0);
}

/* Input helpers.  */

static bool
get_u8 (struct cursor *c, unsigned *v)
{
  if (c->pos >= c->end)
    return false;
  *v = c->base[c->pos++];
  return true;
}

static bool
get_fixed (const struct builder *bd, struct cursor *c, unsigned n,
	   uint64_t *v)
{
  bool be = bd->obj->big_endian;

  if (c->end - c->pos < n || c->pos > c->end)
    return false;
  *v = 0;
  for (unsigned i = 0; i < n; i++)
    *v |= (uint64_t) c->base[c->pos + (be ? n - 1 - i : i)] << (8 * i);
  c->pos += n;
  return true;
}

static bool
get_uleb (struct cursor *c, uint64_t *v)
{
  return dwarf_read_uleb (c->base, &c->pos, c->end, v);
}

static bool
get_sleb (struct cursor *c, int64_t *v)
{
  return dwarf_read_sleb (c->base, &c->pos, c->end, v);
}

/* The size of a value in format ENC, 0 for the variable ones.  */

static unsigned
format_size (unsigned enc)
{
  switch (enc & 0x0f)
    {
    case PE_ABSPTR:
    case PE_UDATA4:
    case PE_SDATA4:
      return 4;
    case PE_UDATA2:
    case PE_SDATA2:
      return 2;
    case PE_UDATA8:
    case PE_SDATA8:
      return 8;
    default:
      return 0;
    }
}

/* Read a value in format ENC & 0x0f at C, as 64 bits (sign-extended for
   the signed formats).  */

static bool
get_value (const struct builder *bd, struct cursor *c, unsigned enc,
	   uint64_t *v)
{
  int64_t s;

  switch (enc & 0x0f)
    {
    case PE_ULEB128:
      return get_uleb (c, v);
    case PE_SLEB128:
      if (!get_sleb (c, &s))
	return false;
      *v = (uint64_t) s;
      return true;
    case PE_SDATA2:
    case PE_SDATA4:
    case PE_SDATA8:
      {
	unsigned n = format_size (enc);
	if (!get_fixed (bd, c, n, v))
	  return false;
	if (n < 8 && (*v >> (8 * n - 1)) & 1)
	  *v |= ~(uint64_t) 0 << (8 * n);
	return true;
      }
    default:
      if (format_size (enc) == 0)
	return false;
      return get_fixed (bd, c, format_size (enc), v);
    }
}

/* Append V in format ENC & 0x0f; false if it does not fit.  */

static bool
put_value (struct builder *bd, struct buf *b, unsigned enc, uint64_t v)
{
  unsigned n = format_size (enc);

  switch (enc & 0x0f)
    {
    case PE_ULEB128:
      buf_uleb (b, v, 1);
      return true;
    case PE_SLEB128:
      buf_sleb (b, (int64_t) v);
      return true;
    default:
      if (n == 0 || (n < 8 && v >> (8 * n) != 0))
	return false;
      buf_fixed (b, v, n, bd->obj->big_endian);
      return true;
    }
}

/* The dynamic relocation at ADDR: 0 for none, 1 for a plain one, 2 for
   one against a symbol.  */

static int
reloc_at (const struct builder *bd, uint32_t addr)
{
  size_t lo = 0, hi = bd->n_relocs;

  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      uint32_t a = bd->relocs[mid].addr;
      if (a == addr)
	return bd->relocs[mid].sym ? 2 : 1;
      if (a < addr)
	lo = mid + 1;
      else
	hi = mid;
    }
  return 0;
}

/* Resolve the pointer in encoding ENC whose field is at FIELD and whose
   raw value is RAW: set *TARGET and *INDIRECT so that writing TARGET
   pc-relatively (through memory when *INDIRECT) means the same thing.
   An absolute pointer that the dynamic linker relocates against a
   symbol is replaced by an indirect one through its original field.  */

static bool
resolve (struct builder *bd, uint32_t field, unsigned enc, uint64_t raw,
	 uint32_t *target, bool *indirect)
{
  uint32_t v = (uint32_t) raw;
  const struct object_section *text;

  *indirect = (enc & PE_INDIRECT) != 0;
  switch (enc & 0x70)
    {
    case PE_PCREL:
      *target = v + field;
      return true;
    case PE_ABSPTR:
    case PE_ALIGNED:
      if (reloc_at (bd, field) == 2)
	{
	  if (*indirect)
	    return object_error (bd->errmsg, "indirect pointer at 0x%x is "
				 "relocated against a symbol", field);
	  *target = field;
	  *indirect = true;
	  return true;
	}
      *target = v;
      return true;
    case PE_DATAREL:
      *target = v + bd->obj->gp;
      return true;
    case PE_TEXTREL:
      text = object_section_named (bd->obj, ".text");
      if (text == NULL)
	return object_error (bd->errmsg, "text-relative pointer at 0x%x "
			     "without .text", field);
      *target = v + text->addr;
      return true;
    default:
      return object_error (bd->errmsg, "unsupported pointer encoding 0x%02x "
			   "at 0x%x", enc, field);
    }
}

/* Read a whole pointer in encoding ENC at C: its field address, raw
   value and (when not null) resolved target.  *NUL is set when the raw
   value is 0 and nothing relocates it: a null pointer.  */

static bool
get_pointer (struct builder *bd, struct cursor *c, unsigned enc,
	     uint32_t *target, bool *indirect, bool *nul)
{
  uint32_t field;
  uint64_t raw;

  if ((enc & 0x70) == PE_ALIGNED)
    while ((c->addr + c->pos) % 4 != 0)
      c->pos++;
  field = c->addr + (uint32_t) c->pos;
  if (c->pos > c->end || !get_value (bd, c, enc, &raw))
    return object_error (bd->errmsg, "bad pointer (encoding 0x%02x) at 0x%x",
			 enc, field);
  *nul = (uint32_t) raw == 0 && reloc_at (bd, field) == 0;
  *target = 0;
  *indirect = false;
  return *nul || resolve (bd, field, enc, raw, target, indirect);
}

/* Append a pc-relative 4-byte pointer to TARGET at the end of B, whose
   start is at address BASE; NUL writes 0.  */

static void
put_pcrel (struct builder *bd, struct buf *b, uint32_t base, uint32_t target,
	   bool nul)
{
  uint32_t field = base + (uint32_t) b->len;
  buf_fixed (b, nul ? 0 : target - field, 4, bd->obj->big_endian);
}

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
    buf_u8 (out, 0x40 | (unsigned) d);
  else if (d < 0x100)
    {
      buf_u8 (out, CFA_ADVANCE_LOC1);
      buf_u8 (out, (unsigned) d);
    }
  else if (d < 0x10000)
    {
      buf_u8 (out, CFA_ADVANCE_LOC2);
      buf_fixed (out, d, 2, bd->obj->big_endian);
    }
  else
    {
      buf_u8 (out, CFA_ADVANCE_LOC4);
      buf_fixed (out, d, 4, bd->obj->big_endian);
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
      return get_uleb (c, &u);
    case 0x13:			/* def_cfa_offset_sf */
      return get_sleb (c, &s);
    case 0x05:			/* offset_extended */
    case 0x09:			/* register */
    case 0x0c:			/* def_cfa */
    case 0x14:			/* val_offset */
    case 0x2f:			/* GNU_negative_offset_extended */
      return get_uleb (c, &u) && get_uleb (c, &u);
    case 0x11:			/* offset_extended_sf */
    case 0x12:			/* def_cfa_sf */
    case 0x15:			/* val_offset_sf */
      return get_uleb (c, &u) && get_sleb (c, &s);
    case 0x0f:			/* def_cfa_expression */
      if (!get_uleb (c, &u) || u > c->end - c->pos)
	return false;
      c->pos += u;
      return true;
    case 0x10:			/* expression */
    case 0x16:			/* val_expression */
      if (!get_uleb (c, &u) || !get_uleb (c, &u) || u > c->end - c->pos)
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

      get_u8 (c, &op);
      if ((op & 0xc0) == 0x40)
	delta = op & 0x3f;
      else if ((op & 0xc0) == 0x80)
	{
	  advance = false;
	  if (!get_uleb (c, &u))
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
	    if (!get_pointer (bd, c, cie->r_enc & 0x7f, &target, &ind, &nul))
	      return false;
	    absolute = true;
	    break;
	  case CFA_ADVANCE_LOC1:
	    if (!get_fixed (bd, c, 1, &delta))
	      goto bad;
	    break;
	  case CFA_ADVANCE_LOC2:
	    if (!get_fixed (bd, c, 2, &delta))
	      goto bad;
	    break;
	  case CFA_ADVANCE_LOC4:
	    if (!get_fixed (bd, c, 4, &delta))
	      goto bad;
	    break;
	  case CFA_MIPS_ADVANCE_LOC8:
	    if (!get_fixed (bd, c, 8, &delta))
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
	  buf_put (out, c->base + start, c->pos - start);
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

/* Follow the action chain that starts at offset APOS of the LSDA's
   section C (the action table starts at ACTIONS; the type table, if
   HAVE_TT, ends at TT_BASE): raise *MAX_FILTER to the largest type
   index used and *REST_END to the end of every record read.  */

static bool
walk_actions (struct builder *bd, const struct cursor *c, size_t actions,
	      size_t apos, bool have_tt, size_t tt_base,
	      uint64_t *max_filter, size_t *rest_end)
{
  for (unsigned steps = 0; ; steps++)
    {
      struct cursor a = *c;
      int64_t filter, disp;
      size_t dpos;

      if (steps > 10000 || apos < actions || apos >= c->end)
	return object_error (bd->errmsg, "bad action chain in the LSDA at "
			     "0x%x", c->addr + (uint32_t) apos);
      a.pos = apos;
      if (!get_sleb (&a, &filter))
	return object_error (bd->errmsg, "truncated action table at 0x%x",
			     c->addr + (uint32_t) apos);
      dpos = a.pos;
      if (!get_sleb (&a, &disp))
	return object_error (bd->errmsg, "truncated action table at 0x%x",
			     c->addr + (uint32_t) apos);
      if (a.pos > *rest_end)
	*rest_end = a.pos;
      if (filter > 0 && (uint64_t) filter > *max_filter)
	*max_filter = (uint64_t) filter;
      else if (filter < 0 && have_tt)
	{
	  /* An exception specification: a list of type indices after the
	     type table's base, ending with 0.  */
	  struct cursor spec = *c;
	  uint64_t idx;
	  if ((uint64_t) -(filter + 1) >= c->end - tt_base)
	    return object_error (bd->errmsg, "bad exception specification "
				 "in the LSDA at 0x%x", c->addr
				 + (uint32_t) apos);
	  spec.pos = tt_base + (size_t) -(filter + 1);
	  do
	    {
	      if (!get_uleb (&spec, &idx))
		return object_error (bd->errmsg, "truncated exception "
				     "specification at 0x%x", c->addr
				     + (uint32_t) spec.pos);
	      if (idx > *max_filter)
		*max_filter = idx;
	    }
	  while (idx != 0);
	  if (spec.pos > *rest_end)
	    *rest_end = spec.pos;
	}
      if (disp == 0)
	return true;
      if ((disp < 0 && (uint64_t) -disp > dpos)
	  || (disp > 0 && (uint64_t) disp > c->end - dpos))
	return object_error (bd->errmsg, "bad action chain in the LSDA at "
			     "0x%x", c->addr + (uint32_t) apos);
      apos = (size_t) ((int64_t) dpos + disp);
    }
}

/* Re-encode the type table of the LSDA just copied: entries 1 to
   MAX_FILTER below OLD_BASE (offset in C) in encoding TT_ENC, copied
   to the LSDA area at offset NEW_BASE.  */

static bool
retarget_types (struct builder *bd, const struct cursor *c, unsigned tt_enc,
		size_t old_base, size_t new_base, uint64_t max_filter)
{
  bool be = bd->obj->big_endian;

  if (bd->lsda.oom)
    return true;
  for (uint64_t k = 1; k <= max_filter; k++)
    {
      size_t old_pos = old_base - 4 * k, new_pos = new_base - 4 * k;
      uint32_t old_field = c->addr + (uint32_t) old_pos;
      uint32_t new_field = bd->lsda_vaddr + (uint32_t) new_pos;
      struct cursor e = *c;
      uint64_t raw;
      uint32_t target;
      int r = reloc_at (bd, old_field);

      e.pos = old_pos;
      if (!get_fixed (bd, &e, 4, &raw))
	return false;
      if ((uint32_t) raw == 0 && r == 0)
	target = new_field;
      else if ((tt_enc & 0x70) == PE_PCREL)
	target = old_field + (uint32_t) raw;
      else if (!(tt_enc & PE_INDIRECT))
	/* The new entry goes through the old one, which the dynamic
	   linker relocates.  */
	target = old_field;
      else if (r == 2)
	return object_error (bd->errmsg, "type table entry at 0x%x is "
			     "relocated against a symbol", old_field);
      else
	target = (uint32_t) raw;
      store (bd->lsda.p + new_pos, target - new_field, 4, be);
    }
  return true;
}

/* Write a new LSDA for the old one at OLD, of the FDE whose old start
   is OLD_START and new start NEW_START, to the LSDA area; set *NEW_ADDR
   to its address.  */

static bool
rewrite_lsda (struct builder *bd, uint32_t old, uint32_t old_start,
	      uint32_t new_start, uint32_t *new_addr)
{
  const struct mips_object *obj = bd->obj;
  const struct eh_map *m = bd->m;
  const struct object_section *s = object_section_at (obj, old);
  struct cursor c, t;
  unsigned lp_enc, tt_enc, cs_enc, new_tt_enc = PE_OMIT;
  uint32_t old_lp = old_start, new_lp = new_start;
  bool ind, lp_nul = false, have_tt;
  uint64_t tt_off = 0, cs_len, max_filter = 0;
  size_t tt_base = 0, cs_end, rest_end, rest_new;
  struct buf cs = { NULL, 0, 0, false };
  bool ok = false;

  if (s == NULL || s->type == SHT_NOBITS
      || !object_range_ok (obj, s->offset, s->size))
    return object_error (bd->errmsg, "the LSDA at 0x%x is not in the file",
			 old);
  c.base = obj->image + s->offset;
  c.addr = s->addr;
  c.pos = old - s->addr;
  c.end = s->size;

  if (!get_u8 (&c, &lp_enc))
    goto bad;
  if (lp_enc != PE_OMIT)
    {
      if (!get_pointer (bd, &c, lp_enc, &old_lp, &ind, &lp_nul))
	goto done;
      if (ind)
	{
	  object_error (bd->errmsg, "indirect LPStart in the LSDA at 0x%x",
			old);
	  goto done;
	}
      new_lp = lp_nul ? 0 : m->entry (m->ctx, old_lp);
    }
  if (!get_u8 (&c, &tt_enc))
    goto bad;
  have_tt = tt_enc != PE_OMIT;
  if (have_tt)
    {
      if (!get_uleb (&c, &tt_off) || tt_off > c.end - c.pos)
	goto bad;
      tt_base = c.pos + tt_off;
      if (format_size (tt_enc) != 4
	  || ((tt_enc & 0x70) != PE_ABSPTR && (tt_enc & 0x70) != PE_PCREL))
	{
	  object_error (bd->errmsg, "unsupported type table encoding 0x%02x "
			"in the LSDA at 0x%x", tt_enc, old);
	  goto done;
	}
      new_tt_enc = (tt_enc & 0x70) == PE_PCREL ? tt_enc
		   : PE_OUT | PE_INDIRECT;
    }
  if (!get_u8 (&c, &cs_enc) || !get_uleb (&c, &cs_len)
      || cs_len > c.end - c.pos)
    goto bad;
  if (cs_enc == PE_OMIT || (cs_enc & 0x70) != 0)
    {
      object_error (bd->errmsg, "unsupported call-site encoding 0x%02x in "
		    "the LSDA at 0x%x", cs_enc, old);
      goto done;
    }
  cs_end = c.pos + cs_len;
  rest_end = cs_end;
  if (have_tt && tt_base < cs_end)
    goto bad;

  /* The call-site table: starts and lengths relative to the function's
     start, landing pads relative to LPStart, both mapped.  */
  t = c;
  t.end = cs_end;
  while (t.pos < t.end)
    {
      uint64_t start, len, lp, action;
      uint32_t a, na, ne, nlp = 0;
      size_t z = t.pos;

      /* Zero bytes to the table's end pad it (GCC's C++ objects, as in
	 Debian's 7za and cmake; fewer than an entry, maybe): no call
	 site, no landing pad.  The copy keeps them, so that a
	 personality routine reads the same entries.  */
      while (z < t.end && t.base[z] == 0)
	z++;
      if (z == t.end)
	{
	  for (; t.pos < t.end; t.pos++)
	    buf_u8 (&cs, 0);
	  break;
	}

      if (!get_value (bd, &t, cs_enc, &start)
	  || !get_value (bd, &t, cs_enc, &len)
	  || !get_value (bd, &t, cs_enc, &lp) || !get_uleb (&t, &action)
	  || start > UINT32_MAX - old_start
	  || len > UINT32_MAX - old_start - start)
	goto bad;
      a = old_start + (uint32_t) start;
      na = m->insn (m->ctx, a);
      ne = len == 0 ? na : m->end (m->ctx, a + (uint32_t) len);
      if (lp != 0 && !array_room (&bd->pads, &bd->cap_pads, bd->n_pads,
				  sizeof *bd->pads, 64))
	{
	  object_error (bd->errmsg, "out of memory");
	  goto done;
	}
      if (lp != 0)
	{
	  uint32_t e = m->entry (m->ctx, old_lp + (uint32_t) lp);
	  bd->pads[bd->n_pads++] = old_lp + (uint32_t) lp;
	  nlp = e - new_lp;
	  if (e <= new_lp)
	    {
	      object_error (bd->errmsg, "landing pad 0x%x maps before "
			    "LPStart in the LSDA at 0x%x",
			    old_lp + (uint32_t) lp, old);
	      goto done;
	    }
	}
      if (na < new_start || ne < na)
	{
	  object_error (bd->errmsg, "call site 0x%x maps out of order in "
			"the LSDA at 0x%x", a, old);
	  goto done;
	}
      if (!put_value (bd, &cs, cs_enc, na - new_start)
	  || !put_value (bd, &cs, cs_enc, ne - na)
	  || !put_value (bd, &cs, cs_enc, nlp))
	{
	  object_error (bd->errmsg, "mapped call site 0x%x does not fit its "
			"encoding in the LSDA at 0x%x", a, old);
	  goto done;
	}
      buf_uleb (&cs, action, 1);
      if (action != 0
	  && (action - 1 >= c.end - cs_end
	      || !walk_actions (bd, &c, cs_end, cs_end + (size_t) (action - 1),
				have_tt, tt_base, &max_filter, &rest_end)))
	{
	  object_error (bd->errmsg, "bad action %llu in the LSDA at 0x%x",
			(unsigned long long) action, old);
	  goto done;
	}
    }
  if (have_tt)
    {
      if (max_filter > (tt_base - cs_end) / 4)
	goto bad;
      if (tt_base > rest_end)
	rest_end = tt_base;
    }

  /* The new header, call-site table, and a copy of the rest.  */
  buf_align4 (&bd->lsda);
  *new_addr = bd->lsda_vaddr + (uint32_t) bd->lsda.len;
  buf_u8 (&bd->lsda, lp_enc == PE_OMIT ? PE_OMIT : PE_OUT);
  if (lp_enc != PE_OMIT)
    put_pcrel (bd, &bd->lsda, bd->lsda_vaddr, new_lp, lp_nul);
  buf_u8 (&bd->lsda, new_tt_enc);
  if (have_tt)
    {
      /* The offset counts from the end of its own field, so its length
	 is free: pad it to keep the type table 4-byte aligned.  */
      uint64_t value = 1 + uleb_size (cs.len) + cs.len + (tt_base - cs_end);
      unsigned n = uleb_size (value);
      while ((bd->lsda_vaddr + bd->lsda.len + n + value) % 4 != 0)
	n++;
      buf_uleb (&bd->lsda, value, n);
    }
  buf_u8 (&bd->lsda, cs_enc);
  buf_uleb (&bd->lsda, cs.len, 1);
  buf_put (&bd->lsda, cs.p, cs.len);
  rest_new = bd->lsda.len;
  buf_put (&bd->lsda, c.base + cs_end, rest_end - cs_end);
  ok = !have_tt || retarget_types (bd, &c, tt_enc, tt_base,
				   rest_new + (tt_base - cs_end), max_filter);
  goto done;

 bad:
  object_error (bd->errmsg, "malformed LSDA at 0x%x", old);
 done:
  free (cs.p);
  return ok;
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
    buf_u8 (&bd->eh, CFA_NOP);
  if (!bd->eh.oom)
    store (bd->eh.p + start, bd->eh.len - start - 4, 4,
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

  if (!get_u8 (c, &version) || (version != 1 && version != 3 && version != 4))
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
  if (c->pos > c->end || !get_uleb (c, &caf) || caf == 0
      || !get_sleb (c, &daf)
      || (version == 1 ? !get_u8 (c, &byte) : !get_uleb (c, &ra)))
    goto bad;
  if (version == 1)
    ra = byte;
  cie->version = version;
  cie->caf = caf;
  cie->z = aug[0] == 'z';
  if (cie->z)
    {
      struct cursor a = *c;
      if (!get_uleb (c, &u) || u > c->end - c->pos)
	goto bad;
      a.pos = c->pos;
      a.end = c->pos + u;
      c->pos = a.end;
      for (const char *l = aug + 1; *l != '\0'; l++)
	switch (*l)
	  {
	  case 'P':
	    if (!get_u8 (&a, &p_enc)
		|| !get_pointer (bd, &a, p_enc, &p_target, &p_ind, &p_nul))
	      goto bad;
	    break;
	  case 'L':
	    if (!get_u8 (&a, &cie->l_enc))
	      goto bad;
	    break;
	  case 'R':
	    if (!get_u8 (&a, &cie->r_enc))
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
  buf_fixed (&bd->eh, 0, 4, false);
  buf_fixed (&bd->eh, 0, 4, false);
  buf_u8 (&bd->eh, version);
  buf_put (&bd->eh, new_aug, strlen (new_aug) + 1);
  if (version == 4)
    buf_put (&bd->eh, c->base + v4, 2);
  buf_uleb (&bd->eh, caf, 1);
  buf_sleb (&bd->eh, daf);
  if (version == 1)
    buf_u8 (&bd->eh, (unsigned) ra);
  else
    buf_uleb (&bd->eh, ra, 1);
  u = 0;
  for (const char *l = new_aug + 1; *l != '\0'; l++)
    u += *l == 'P' ? 5 : *l == 'L' || *l == 'R' ? 1 : 0;
  buf_uleb (&bd->eh, u, 1);
  for (const char *l = new_aug + 1; *l != '\0'; l++)
    switch (*l)
      {
      case 'P':
	buf_u8 (&bd->eh, PE_OUT | (p_ind ? PE_INDIRECT : 0));
	put_pcrel (bd, &bd->eh, bd->eh_vaddr, p_target, p_nul);
	break;
      case 'L':
	buf_u8 (&bd->eh, cie->l_enc == PE_OMIT ? PE_OMIT : PE_OUT);
	break;
      case 'R':
	buf_u8 (&bd->eh, PE_OUT);
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
  if (!get_pointer (bd, c, cie->r_enc, &begin, &ind, &nul))
    return false;
  if (!get_value (bd, c, cie->r_enc, &range))
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
      if (!get_uleb (c, &len) || len > c->end - c->pos)
	goto bad;
      a.pos = c->pos;
      a.end = c->pos + len;
      c->pos = a.end;
      if (cie->l_enc != PE_OMIT)
	{
	  if (!get_pointer (bd, &a, cie->l_enc, &lsda, &ind, &lsda_nul))
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
  if (!lsda_nul && !rewrite_lsda (bd, lsda, begin, new_begin, &new_lsda))
    return false;

  start = bd->eh.len;
  buf_fixed (&bd->eh, 0, 4, false);
  buf_fixed (&bd->eh, start + 4 - cie->new_off, 4, bd->obj->big_endian);
  put_pcrel (bd, &bd->eh, bd->eh_vaddr, new_begin, false);
  buf_fixed (&bd->eh, new_end - new_begin, 4, bd->obj->big_endian);
  buf_uleb (&bd->eh, cie->l_enc != PE_OMIT ? 4 : 0, 1);
  if (cie->l_enc != PE_OMIT)
    put_pcrel (bd, &bd->eh, bd->eh_vaddr, new_lsda, lsda_nul);
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
  buf_fixed (&bd->eh, 0, 4, false);

  if (bd->n_table > 1)
    qsort (bd->table, bd->n_table, sizeof *bd->table, compare_hdr);
  buf_u8 (&bd->hdr, 1);
  buf_u8 (&bd->hdr, PE_OUT);
  buf_u8 (&bd->hdr, PE_UDATA4);
  buf_u8 (&bd->hdr, PE_DATAREL | PE_SDATA4);
  put_pcrel (bd, &bd->hdr, bd->hdr_vaddr, bd->eh_vaddr, false);
  buf_fixed (&bd->hdr, bd->n_table, 4, be);
  for (size_t i = 0; i < bd->n_table; i++)
    {
      buf_fixed (&bd->hdr, bd->table[i].loc - bd->hdr_vaddr, 4, be);
      buf_fixed (&bd->hdr, bd->table[i].fde - bd->hdr_vaddr, 4, be);
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
		 char **errmsg)
{
  struct builder bd;
  bool ok;

  builder_init (&bd, obj, m, errmsg);
  ok = build (&bd);
  *eh_frame_size = ok ? bd.eh.len : 0;
  *hdr_size = ok ? bd.hdr.len : 0;
  *lsda_size = ok ? bd.lsda.len : 0;
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
