/* crc32.c -- the CRC-32 that identifies an original object.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The reflected polynomial 0xedb88320, initial value and final xor all
   ones: the checksum profcopy stores in the segment header.  Four
   tables take four bytes a step: TABLE[k][n] is the CRC of byte value n
   followed by k zero bytes, so the CRC of a word's four bytes is the
   XOR of one entry of each.  */

#include "crc32.h"

/* Fill TABLE.  */

static void
make_tables (uint32_t table[4][256])
{
  for (uint32_t n = 0; n < 256; n++)
    {
      uint32_t c = n;
      for (int k = 0; k < 8; k++)
	c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
      table[0][n] = c;
    }
  for (uint32_t n = 0; n < 256; n++)
    for (int k = 1; k < 4; k++)
      table[k][n] = (table[k - 1][n] >> 8)
		    ^ table[0][table[k - 1][n] & 0xff];
}

uint32_t
crc32_ieee (const unsigned char *data, size_t len)
{
  return crc32_ieee_add (0, data, len);
}

uint32_t
crc32_ieee_add (uint32_t crc, const unsigned char *data, size_t len)
{
  static uint32_t table[4][256];
  static int have_table;

  if (!have_table)
    {
      make_tables (table);
      have_table = 1;
    }
  crc ^= 0xffffffffu;
  for (; len >= 4; len -= 4, data += 4)
    {
      crc ^= (uint32_t) data[0] | (uint32_t) data[1] << 8
	     | (uint32_t) data[2] << 16 | (uint32_t) data[3] << 24;
      crc = table[3][crc & 0xff] ^ table[2][(crc >> 8) & 0xff]
	    ^ table[1][(crc >> 16) & 0xff] ^ table[0][crc >> 24];
    }
  for (; len > 0; len--, data++)
    crc = table[0][(crc ^ *data) & 0xff] ^ (crc >> 8);
  return crc ^ 0xffffffffu;
}
