/* crc32.c -- the CRC-32 that identifies an original object.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The reflected polynomial 0xedb88320, initial value and final xor all
   ones: the checksum profcopy stores in the segment header.  A byte-wise
   table keeps it fast enough for a 1.5 MB libc.  */

#include "crc32.h"

/* Fill TABLE with the CRC of every byte value.  */

static void
make_table (uint32_t table[256])
{
  for (uint32_t n = 0; n < 256; n++)
    {
      uint32_t c = n;
      for (int k = 0; k < 8; k++)
	c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
      table[n] = c;
    }
}

uint32_t
crc32_ieee (const unsigned char *data, size_t len)
{
  static uint32_t table[256];
  static int have_table;
  uint32_t crc = 0xffffffffu;

  if (!have_table)
    {
      make_table (table);
      have_table = 1;
    }
  for (size_t i = 0; i < len; i++)
    crc = table[(crc ^ data[i]) & 0xff] ^ (crc >> 8);
  return crc ^ 0xffffffffu;
}
