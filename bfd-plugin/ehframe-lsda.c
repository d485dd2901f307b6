/* ehframe-lsda.c -- the C++ exception tables (LSDAs) of the copy.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The LSDA of each FDE is parsed (the GCC layout: LPStart, TType and
   call-site encodings, the call-site table, then the action, type and
   exception specification tables) and written again with its call-site
   table mapped; the rest is copied with the type table entries
   re-encoded to keep their targets.  */

#include <config.h>

#include <stdlib.h>
#include <string.h>
#include <elf.h>

#include "array.h"
#include "object-int.h"
#include "dwarf-read.h"
#include "ehframe-int.h"

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
      if (!eh_get_sleb (&a, &filter))
	return object_error (bd->errmsg, "truncated action table at 0x%x",
			     c->addr + (uint32_t) apos);
      dpos = a.pos;
      if (!eh_get_sleb (&a, &disp))
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
	      if (!eh_get_uleb (&spec, &idx))
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
      int r = eh_reloc_at (bd, old_field);

      e.pos = old_pos;
      if (!eh_get_fixed (bd, &e, 4, &raw))
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
      eh_store (bd->lsda.p + new_pos, target - new_field, 4, be);
    }
  return true;
}

/* Write a new LSDA for the old one at OLD, of the FDE whose old start
   is OLD_START and new start NEW_START, to the LSDA area; set *NEW_ADDR
   to its address.  */

bool
eh_rewrite_lsda (struct builder *bd, uint32_t old, uint32_t old_start,
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

  if (!eh_get_u8 (&c, &lp_enc))
    goto bad;
  if (lp_enc != PE_OMIT)
    {
      if (!eh_get_pointer (bd, &c, lp_enc, &old_lp, &ind, &lp_nul))
	goto done;
      if (ind)
	{
	  object_error (bd->errmsg, "indirect LPStart in the LSDA at 0x%x",
			old);
	  goto done;
	}
      new_lp = lp_nul ? 0 : m->entry (m->ctx, old_lp);
    }
  if (!eh_get_u8 (&c, &tt_enc))
    goto bad;
  have_tt = tt_enc != PE_OMIT;
  if (have_tt)
    {
      if (!eh_get_uleb (&c, &tt_off) || tt_off > c.end - c.pos)
	goto bad;
      tt_base = c.pos + tt_off;
      if (eh_format_size (tt_enc) != 4
	  || ((tt_enc & 0x70) != PE_ABSPTR && (tt_enc & 0x70) != PE_PCREL))
	{
	  object_error (bd->errmsg, "unsupported type table encoding 0x%02x "
			"in the LSDA at 0x%x", tt_enc, old);
	  goto done;
	}
      new_tt_enc = (tt_enc & 0x70) == PE_PCREL ? tt_enc
		   : PE_OUT | PE_INDIRECT;
    }
  if (!eh_get_u8 (&c, &cs_enc) || !eh_get_uleb (&c, &cs_len)
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
	    eh_buf_u8 (&cs, 0);
	  break;
	}

      if (!eh_get_value (bd, &t, cs_enc, &start)
	  || !eh_get_value (bd, &t, cs_enc, &len)
	  || !eh_get_value (bd, &t, cs_enc, &lp) || !eh_get_uleb (&t, &action)
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
      if (!eh_put_value (bd, &cs, cs_enc, na - new_start)
	  || !eh_put_value (bd, &cs, cs_enc, ne - na)
	  || !eh_put_value (bd, &cs, cs_enc, nlp))
	{
	  object_error (bd->errmsg, "mapped call site 0x%x does not fit its "
			"encoding in the LSDA at 0x%x", a, old);
	  goto done;
	}
      eh_buf_uleb (&cs, action, 1);
      if (action != 0)
	bd->catches = true;
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
  eh_buf_align4 (&bd->lsda);
  *new_addr = bd->lsda_vaddr + (uint32_t) bd->lsda.len;
  eh_buf_u8 (&bd->lsda, lp_enc == PE_OMIT ? PE_OMIT : PE_OUT);
  if (lp_enc != PE_OMIT)
    eh_put_pcrel (bd, &bd->lsda, bd->lsda_vaddr, new_lp, lp_nul);
  eh_buf_u8 (&bd->lsda, new_tt_enc);
  if (have_tt)
    {
      /* The offset counts from the end of its own field, so its length
	 is free: pad it to keep the type table 4-byte aligned.  */
      uint64_t value = 1 + eh_uleb_size (cs.len) + cs.len + (tt_base - cs_end);
      unsigned n = eh_uleb_size (value);
      while ((bd->lsda_vaddr + bd->lsda.len + n + value) % 4 != 0)
	n++;
      eh_buf_uleb (&bd->lsda, value, n);
    }
  eh_buf_u8 (&bd->lsda, cs_enc);
  eh_buf_uleb (&bd->lsda, cs.len, 1);
  eh_buf_put (&bd->lsda, cs.p, cs.len);
  rest_new = bd->lsda.len;
  eh_buf_put (&bd->lsda, c.base + cs_end, rest_end - cs_end);
  ok = !have_tt || retarget_types (bd, &c, tt_enc, tt_base,
				   rest_new + (tt_base - cs_end), max_filter);
  goto done;

 bad:
  object_error (bd->errmsg, "malformed LSDA at 0x%x", old);
 done:
  free (cs.p);
  return ok;
}
