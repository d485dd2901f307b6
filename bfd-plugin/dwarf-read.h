/* dwarf-read.h -- pointer encodings, LEB128 readers and a bounded
   reader of DWARF sections, shared by the .eh_frame reader and writer
   and the readers of .debug_line and .debug_info.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_DWARF_READ_H
#define PROFCOPY_DWARF_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* DWARF pointer encodings (DW_EH_PE_*), from the LSB and DWARF specs.  */
#define PE_ABSPTR	0x00
#define PE_ULEB128	0x01
#define PE_UDATA2	0x02
#define PE_UDATA4	0x03
#define PE_UDATA8	0x04
#define PE_SLEB128	0x09
#define PE_SDATA2	0x0a
#define PE_SDATA4	0x0b
#define PE_SDATA8	0x0c
#define PE_PCREL	0x10
#define PE_TEXTREL	0x20
#define PE_DATAREL	0x30
#define PE_FUNCREL	0x40
#define PE_ALIGNED	0x50
#define PE_INDIRECT	0x80
#define PE_OMIT		0xff

/* Read an unsigned LEB128 number from BASE at *POS (below END) into
   *VAL and advance *POS; false if it runs past END or does not fit in
   64 bits.  */

static inline bool
dwarf_read_uleb (const unsigned char *base, size_t *pos, size_t end,
		 uint64_t *val)
{
  unsigned shift = 0, byte;

  *val = 0;
  do
    {
      if (*pos >= end)
	return false;
      byte = base[(*pos)++];
      if (shift < 64)
	*val |= (uint64_t) (byte & 0x7f) << shift;
      else if (byte & 0x7f)
	return false;
      shift += 7;
    }
  while (byte & 0x80);
  return true;
}

/* Likewise for a signed LEB128 number.  */

static inline bool
dwarf_read_sleb (const unsigned char *base, size_t *pos, size_t end,
		 int64_t *val)
{
  unsigned shift = 0, byte;
  uint64_t u = 0;

  do
    {
      if (*pos >= end)
	return false;
      byte = base[(*pos)++];
      if (shift < 64)
	u |= (uint64_t) (byte & 0x7f) << shift;
      shift += 7;
    }
  while (byte & 0x80);
  if (shift < 64 && (byte & 0x40))
    u |= ~(uint64_t) 0 << shift;
  *val = (int64_t) u;
  return true;
}

/* The bytes of an object's DWARF sections that profcopy reads; any may
   be absent (NULL, 0).  */
struct dwarf_sections
{
  const unsigned char *line, *line_str, *str, *info, *abbrev, *str_offsets;
  size_t line_size, line_str_size, str_size, info_size, abbrev_size;
  size_t str_offsets_size;
  bool big_endian;
};

/* A reader of one unit of a section: BASE[POS..END), with the
   section's byte order.  Every read checks END.  */
struct dwarf_cursor
{
  const unsigned char *base;
  size_t pos, end;
  bool big_endian;
};

/* Read an N-byte number (N at most 8) at C into *VAL.  */

static inline bool
dwarf_get_bytes (struct dwarf_cursor *c, size_t n, uint64_t *val)
{
  uint64_t v = 0;

  if (c->end - c->pos < n || n > 8)
    return false;
  for (size_t i = 0; i < n; i++)
    {
      unsigned b = c->base[c->pos + (c->big_endian ? i : n - 1 - i)];
      v = v << 8 | b;
    }
  c->pos += n;
  *val = v;
  return true;
}

static inline bool
dwarf_get_uleb (struct dwarf_cursor *c, uint64_t *val)
{
  return dwarf_read_uleb (c->base, &c->pos, c->end, val);
}

static inline bool
dwarf_get_sleb (struct dwarf_cursor *c, int64_t *val)
{
  return dwarf_read_sleb (c->base, &c->pos, c->end, val);
}

/* Skip N bytes at C.  */

static inline bool
dwarf_skip (struct dwarf_cursor *c, uint64_t n)
{
  if (n > c->end - c->pos)
    return false;
  c->pos += (size_t) n;
  return true;
}

/* A NUL-terminated string at C, or NULL.  */

static inline const char *
dwarf_get_string (struct dwarf_cursor *c)
{
  const char *s = (const char *) c->base + c->pos;
  const void *nul = memchr (s, 0, c->end - c->pos);

  if (nul == NULL)
    return NULL;
  c->pos = (size_t) ((const char *) nul - (const char *) c->base) + 1;
  return s;
}

/* The string at OFFSET of a string section SEC of SIZE bytes, or
   NULL.  */

static inline const char *
dwarf_section_string (const unsigned char *sec, size_t size,
		      uint64_t offset)
{
  if (sec == NULL || offset >= size
      || memchr (sec + offset, 0, size - offset) == NULL)
    return NULL;
  return (const char *) sec + offset;
}

#endif /* PROFCOPY_DWARF_READ_H */
