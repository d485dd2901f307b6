/* ehframe.c -- the code ranges of the .eh_frame FDEs of an object.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   Each FDE names the start and length of one function's code; the
   start is a pointer encoded as its CIE's 'R' augmentation says
   (usually pc-relative, signed 4 bytes).  We decode only what is needed
   to find and rewrite those pointers: the CIE header up to its
   augmentation data, and the first two fields of every FDE.  */

#include <config.h>

#include <stdlib.h>
#include <string.h>
#include <elf.h>

#include "object-int.h"
#include "dwarf-read.h"

/* A cursor over the bytes of one .eh_frame entry.  */
struct cursor
{
  const struct mips_object *obj;
  const unsigned char *base;	/* The section's contents.  */
  uint32_t addr;		/* The section's address.  */
  size_t pos, end;		/* Offsets within the section.  */
};

/* Read one byte at C into *VAL.  */

static bool
read_u8 (struct cursor *c, unsigned *val)
{
  if (c->pos >= c->end)
    return false;
  *val = c->base[c->pos++];
  return true;
}

/* Read an unsigned LEB128 number; false if it runs off the entry or
   does not fit in 64 bits.  */

static bool
read_uleb (struct cursor *c, uint64_t *val)
{
  return dwarf_read_uleb (c->base, &c->pos, c->end, val);
}

/* Read a signed LEB128 number at C into *VAL.  */

static bool
read_sleb (struct cursor *c, int64_t *val)
{
  return dwarf_read_sleb (c->base, &c->pos, c->end, val);
}

/* Read the value part of a pointer in format ENC & 0x0f, without its
   application, as a 32-bit address.  */

static bool
read_value (struct cursor *c, unsigned enc, uint32_t *val)
{
  const unsigned char *p = c->base + c->pos;
  size_t left = c->end - c->pos;
  uint64_t u;
  int64_t s;

  switch (enc & 0x0f)
    {
    case PE_ABSPTR:
    case PE_UDATA4:
    case PE_SDATA4:
      if (left < 4)
	return false;
      *val = object_get32 (c->obj, p);
      c->pos += 4;
      return true;
    case PE_UDATA2:
    case PE_SDATA2:
      if (left < 2)
	return false;
      *val = object_get16 (c->obj, p);
      if ((enc & 0x0f) == PE_SDATA2 && (*val & 0x8000))
	*val |= 0xffff0000u;
      c->pos += 2;
      return true;
    case PE_UDATA8:
    case PE_SDATA8:
      if (left < 8)
	return false;
      /* Keep the low word; an ELF32 address fits in it.  */
      *val = object_get32 (c->obj, c->obj->big_endian ? p + 4 : p);
      c->pos += 8;
      return true;
    case PE_ULEB128:
      if (!read_uleb (c, &u))
	return false;
      *val = (uint32_t) u;
      return true;
    case PE_SLEB128:
      if (!read_sleb (c, &s))
	return false;
      *val = (uint32_t) s;
      return true;
    default:
      return false;
    }
}

/* Read a pointer encoded as ENC: set *FIELD to the address of its
   field and *VAL to the address it designates.  */

static bool
read_pointer (struct cursor *c, unsigned enc, uint32_t *field, uint32_t *val,
	      char **errmsg)
{
  if (enc == PE_OMIT)
    return object_error (errmsg, "malformed .eh_frame: an FDE has an "
			 "omitted start address");
  if ((enc & 0x70) == PE_ALIGNED)
    while ((c->addr + c->pos) % 4 != 0)
      c->pos++;
  *field = c->addr + (uint32_t) c->pos;
  if (c->pos > c->end || !read_value (c, enc, val))
    return object_error (errmsg, "malformed .eh_frame: bad pointer "
			 "(encoding 0x%02x) at 0x%x", enc, *field);
  switch (enc & 0x70)
    {
    case PE_ABSPTR:
    case PE_ALIGNED:
      break;
    case PE_PCREL:
      *val += *field;
      break;
    case PE_DATAREL:
      *val += c->obj->gp;
      break;
    case PE_TEXTREL:
      {
	const struct object_section *text
	  = object_section_named (c->obj, ".text");
	if (text == NULL)
	  return object_error (errmsg, "malformed .eh_frame: text-relative "
			       "pointer without .text");
	*val += text->addr;
	break;
      }
    default:
      return object_error (errmsg, "malformed .eh_frame: unsupported "
			   "pointer encoding 0x%02x at 0x%x", enc, *field);
    }
  if ((enc & PE_INDIRECT) && !object_read_word (c->obj, *val, val))
    return object_error (errmsg, "malformed .eh_frame: indirect pointer "
			 "at 0x%x leads outside the file", *field);
  return true;
}

/* Open the entry at offset OFF of the SIZE-byte section in C: set
   C->end past it and C->pos to its CIE id field.  *LEN is 0 for the
   terminator.  */

static bool
open_entry (struct cursor *c, size_t off, size_t size, uint32_t *len,
	    char **errmsg)
{
  if (size - off < 4)
    return object_error (errmsg, "malformed .eh_frame: truncated entry "
			 "at offset 0x%zx", off);
  *len = object_get32 (c->obj, c->base + off);
  if (*len == 0xffffffff)
    return object_error (errmsg, "malformed .eh_frame: 64-bit DWARF entry "
			 "at offset 0x%zx is not supported", off);
  if (*len > size - off - 4 || (*len != 0 && *len < 4))
    return object_error (errmsg, "malformed .eh_frame: entry at offset "
			 "0x%zx overruns the section", off);
  c->pos = off + 4;
  c->end = off + 4 + *len;
  return true;
}

/* Find the FDE pointer encoding of the CIE at offset OFF.  */

static bool
cie_encoding (struct cursor c, size_t off, size_t size, unsigned *enc,
	      char **errmsg)
{
  const char *aug;
  const unsigned char *nul;
  uint32_t len;
  unsigned version = 0, byte;
  uint64_t u;
  int64_t s;
  size_t i;

  if (!open_entry (&c, off, size, &len, errmsg))
    return false;
  if (len == 0 || object_get32 (c.obj, c.base + c.pos) != 0)
    return object_error (errmsg, "malformed .eh_frame: an FDE points to "
			 "offset 0x%zx, which is not a CIE", off);
  c.pos += 4;
  if (!read_u8 (&c, &version) || (version != 1 && version != 3
				   && version != 4))
    return object_error (errmsg, "malformed .eh_frame: CIE at offset "
			 "0x%zx has unsupported version %u", off, version);
  nul = memchr (c.base + c.pos, '\0', c.end - c.pos);
  if (nul == NULL)
    return object_error (errmsg, "malformed .eh_frame: CIE at offset "
			 "0x%zx has an unterminated augmentation", off);
  aug = (const char *) c.base + c.pos;
  c.pos = (size_t) (nul - c.base) + 1;
  if (strcmp (aug, "eh") == 0)
    c.pos += 4;
  if (version == 4)
    c.pos += 2;
  if (c.pos > c.end || !read_uleb (&c, &u) || !read_sleb (&c, &s)
      || (version == 1 ? !read_u8 (&c, &byte) : !read_uleb (&c, &u)))
    return object_error (errmsg, "malformed .eh_frame: truncated CIE at "
			 "offset 0x%zx", off);

  *enc = PE_ABSPTR;
  if (aug[0] != 'z')
    {
      if (aug[0] != '\0' && strcmp (aug, "eh") != 0)
	return object_error (errmsg, "malformed .eh_frame: CIE at offset "
			     "0x%zx has unknown augmentation \"%s\"", off, aug);
      return true;
    }
  if (!read_uleb (&c, &u) || u > c.end - c.pos)
    return object_error (errmsg, "malformed .eh_frame: truncated CIE at "
			 "offset 0x%zx", off);
  c.end = c.pos + u;
  for (i = 1; aug[i] != '\0'; i++)
    {
      uint32_t field, val;
      switch (aug[i])
	{
	case 'R':
	  if (!read_u8 (&c, &byte))
	    return object_error (errmsg, "malformed .eh_frame: truncated "
				 "CIE at offset 0x%zx", off);
	  *enc = byte;
	  return true;
	case 'L':
	  if (!read_u8 (&c, &byte))
	    return object_error (errmsg, "malformed .eh_frame: truncated "
				 "CIE at offset 0x%zx", off);
	  break;
	case 'P':
	  /* Skip the personality routine's pointer.  */
	  if (!read_u8 (&c, &byte))
	    return object_error (errmsg, "malformed .eh_frame: truncated "
				 "CIE at offset 0x%zx", off);
	  if (!read_pointer (&c, byte & 0x7f, &field, &val, errmsg))
	    return false;
	  break;
	case 'S':
	case 'B':
	  break;
	default:
	  return object_error (errmsg, "malformed .eh_frame: CIE at offset "
			       "0x%zx has unknown augmentation \"%s\"", off,
			       aug);
	}
    }
  return true;
}

/* Order FDEs by address for qsort.  */

static int
compare_fde (const void *a, const void *b)
{
  const struct object_fde *x = a, *y = b;

  if (x->pc_begin != y->pc_begin)
    return x->pc_begin < y->pc_begin ? -1 : 1;
  if (x->pc_end != y->pc_end)
    return x->pc_end < y->pc_end ? -1 : 1;
  return x->field_addr < y->field_addr ? -1 : x->field_addr > y->field_addr;
}

/* Read the FDEs of OBJ's .eh_frame into OBJ->fdes, sorted.  */

bool
object_read_eh_frame (struct mips_object *obj, char **errmsg)
{
  const struct object_section *sec = object_section_named (obj, ".eh_frame");
  struct cursor c;
  size_t off, size, cap = 0;
  size_t last_cie = (size_t) -1;
  unsigned enc = PE_ABSPTR;

  if (sec == NULL || sec->type == SHT_NOBITS || sec->size == 0)
    return true;
  c.obj = obj;
  c.base = obj->image + sec->offset;
  c.addr = sec->addr;
  size = sec->size;

  for (off = 0; off < size; off = c.end)
    {
      uint32_t len, id, range;
      size_t cie;
      struct object_fde *fde;

      if (!open_entry (&c, off, size, &len, errmsg))
	return false;
      if (len == 0)
	break;
      id = object_get32 (obj, c.base + c.pos);
      if (id == 0)
	continue;
      if (id > c.pos)
	return object_error (errmsg, "malformed .eh_frame: FDE at offset "
			     "0x%zx points before the section", off);
      cie = c.pos - id;
      if (cie != last_cie)
	{
	  if (!cie_encoding (c, cie, size, &enc, errmsg))
	    return false;
	  last_cie = cie;
	}
      c.pos += 4;

      if (obj->n_fdes == cap)
	{
	  struct object_fde *grown;
	  cap = cap ? 2 * cap : 64;
	  grown = realloc (obj->fdes, cap * sizeof *obj->fdes);
	  if (grown == NULL)
	    return object_error (errmsg, "out of memory");
	  obj->fdes = grown;
	}
      fde = &obj->fdes[obj->n_fdes];
      if (!read_pointer (&c, enc, &fde->field_addr, &fde->pc_begin, errmsg))
	return false;
      if (!read_value (&c, enc, &range))
	return object_error (errmsg, "malformed .eh_frame: truncated FDE "
			     "at offset 0x%zx", off);
      if (range > UINT32_MAX - fde->pc_begin)
	return object_error (errmsg, "malformed .eh_frame: FDE at offset "
			     "0x%zx wraps around the address space", off);
      fde->pc_end = fde->pc_begin + range;
      fde->encoding = (unsigned char) enc;
      obj->n_fdes++;
    }
  if (obj->n_fdes > 1)
    qsort (obj->fdes, obj->n_fdes, sizeof *obj->fdes, compare_fde);
  return true;
}
