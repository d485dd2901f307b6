/* ehframe-enc.c -- the buffers, cursors, DWARF values and pointers of
   the unwind table writer.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "object-int.h"
#include "dwarf-read.h"
#include "ehframe-int.h"

/* Output helpers.  */

static void
eh_buf_room (struct buf *b, size_t n)
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

void
eh_buf_put (struct buf *b, const void *data, size_t n)
{
  if (n == 0)
    return;
  eh_buf_room (b, n);
  if (b->oom)
    return;
  memcpy (b->p + b->len, data, n);
  b->len += n;
}

void
eh_buf_u8 (struct buf *b, unsigned v)
{
  unsigned char c = (unsigned char) v;
  eh_buf_put (b, &c, 1);
}

/* Store the N-byte value V at P in the byte order BE.  */

void
eh_store (unsigned char *p, uint64_t v, unsigned n, bool be)
{
  for (unsigned i = 0; i < n; i++)
    p[be ? n - 1 - i : i] = (unsigned char) (v >> (8 * i));
}

void
eh_buf_fixed (struct buf *b, uint64_t v, unsigned n, bool be)
{
  unsigned char tmp[8];
  eh_store (tmp, v, n, be);
  eh_buf_put (b, tmp, n);
}

/* Append V as an unsigned LEB128 number of at least MIN_LEN bytes.  */

void
eh_buf_uleb (struct buf *b, uint64_t v, unsigned min_len)
{
  unsigned n = 0;

  do
    {
      unsigned byte = v & 0x7f;
      v >>= 7;
      n++;
      if (v != 0 || n < min_len)
	byte |= 0x80;
      eh_buf_u8 (b, byte);
    }
  while (v != 0 || n < min_len);
}

void
eh_buf_sleb (struct buf *b, int64_t v)
{
  bool more;

  do
    {
      unsigned byte = (unsigned) v & 0x7f;
      v >>= 7;
      more = !((v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40)));
      eh_buf_u8 (b, more ? byte | 0x80 : byte);
    }
  while (more);
}

unsigned
eh_uleb_size (uint64_t v)
{
  unsigned n = 1;
  while (v >>= 7)
    n++;
  return n;
}

/* Pad B with zeros to a multiple of 4 bytes.  */

void
eh_buf_align4 (struct buf *b)
{
  while (b->len % 4 != 0 && !b->oom)
    eh_buf_u8 (b, 0);
}

/* Input helpers.  */

bool
eh_get_u8 (struct cursor *c, unsigned *v)
{
  if (c->pos >= c->end)
    return false;
  *v = c->base[c->pos++];
  return true;
}

bool
eh_get_fixed (const struct builder *bd, struct cursor *c, unsigned n,
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

bool
eh_get_uleb (struct cursor *c, uint64_t *v)
{
  return dwarf_read_uleb (c->base, &c->pos, c->end, v);
}

bool
eh_get_sleb (struct cursor *c, int64_t *v)
{
  return dwarf_read_sleb (c->base, &c->pos, c->end, v);
}

/* The size of a value in format ENC, 0 for the variable ones.  */

unsigned
eh_format_size (unsigned enc)
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

bool
eh_get_value (const struct builder *bd, struct cursor *c, unsigned enc,
	      uint64_t *v)
{
  int64_t s;

  switch (enc & 0x0f)
    {
    case PE_ULEB128:
      return eh_get_uleb (c, v);
    case PE_SLEB128:
      if (!eh_get_sleb (c, &s))
	return false;
      *v = (uint64_t) s;
      return true;
    case PE_SDATA2:
    case PE_SDATA4:
    case PE_SDATA8:
      {
	unsigned n = eh_format_size (enc);
	if (!eh_get_fixed (bd, c, n, v))
	  return false;
	if (n < 8 && (*v >> (8 * n - 1)) & 1)
	  *v |= ~(uint64_t) 0 << (8 * n);
	return true;
      }
    default:
      if (eh_format_size (enc) == 0)
	return false;
      return eh_get_fixed (bd, c, eh_format_size (enc), v);
    }
}

/* Append V in format ENC & 0x0f; false if it does not fit.  */

bool
eh_put_value (struct builder *bd, struct buf *b, unsigned enc, uint64_t v)
{
  unsigned n = eh_format_size (enc);

  switch (enc & 0x0f)
    {
    case PE_ULEB128:
      eh_buf_uleb (b, v, 1);
      return true;
    case PE_SLEB128:
      eh_buf_sleb (b, (int64_t) v);
      return true;
    default:
      if (n == 0 || (n < 8 && v >> (8 * n) != 0))
	return false;
      eh_buf_fixed (b, v, n, bd->obj->big_endian);
      return true;
    }
}

/* The dynamic relocation at ADDR: 0 for none, 1 for a plain one, 2 for
   one against a symbol.  */

int
eh_reloc_at (const struct builder *bd, uint32_t addr)
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
eh_resolve (struct builder *bd, uint32_t field, unsigned enc, uint64_t raw,
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
      if (eh_reloc_at (bd, field) == 2)
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

bool
eh_get_pointer (struct builder *bd, struct cursor *c, unsigned enc,
		uint32_t *target, bool *indirect, bool *nul)
{
  uint32_t field;
  uint64_t raw;

  if ((enc & 0x70) == PE_ALIGNED)
    while ((c->addr + c->pos) % 4 != 0)
      c->pos++;
  field = c->addr + (uint32_t) c->pos;
  if (c->pos > c->end || !eh_get_value (bd, c, enc, &raw))
    return object_error (bd->errmsg, "bad pointer (encoding 0x%02x) at 0x%x",
			 enc, field);
  *nul = (uint32_t) raw == 0 && eh_reloc_at (bd, field) == 0;
  *target = 0;
  *indirect = false;
  return *nul || eh_resolve (bd, field, enc, raw, target, indirect);
}

/* Append a pc-relative 4-byte pointer to TARGET at the end of B, whose
   start is at address BASE; NUL writes 0.  */

void
eh_put_pcrel (struct builder *bd, struct buf *b, uint32_t base,
	      uint32_t target, bool nul)
{
  uint32_t field = base + (uint32_t) b->len;
  eh_buf_fixed (b, nul ? 0 : target - field, 4, bd->obj->big_endian);
}
