/* dwarf-read.h -- pointer encodings and LEB128 readers shared by the
   .eh_frame reader and writer.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_DWARF_READ_H
#define PROFCOPY_DWARF_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

#endif /* PROFCOPY_DWARF_READ_H */
