/* crc32.h -- the CRC-32 that identifies an original object.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_CRC32_H
#define PROFCOPY_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* Return the CRC-32 (IEEE 802.3, the one of zlib and gzip) of the LEN
   bytes at DATA.  */
uint32_t crc32_ieee (const unsigned char *data, size_t len);

/* Return the CRC-32 of the bytes CRC was the CRC-32 of (0 for none)
   followed by the LEN bytes at DATA, as zlib's crc32 does.  */
uint32_t crc32_ieee_add (uint32_t crc, const unsigned char *data,
			 size_t len);

#endif /* PROFCOPY_CRC32_H */
