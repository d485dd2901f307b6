/* byte-order.h -- fields of a file in either byte order.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_BYTE_ORDER_H
#define PROFCOPY_BYTE_ORDER_H

#include <stdbool.h>
#include <stdint.h>

/* The 32-bit field at P of a file of byte order BE (true: big-endian).  */

static inline uint32_t
get32 (bool be, const unsigned char *p)
{
  if (be)
    return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16
	   | (uint32_t) p[2] << 8 | (uint32_t) p[3];
  return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16
	 | (uint32_t) p[3] << 24;
}

/* The 16-bit field at P.  */

static inline uint16_t
get16 (bool be, const unsigned char *p)
{
  return be ? (uint16_t) (p[0] << 8 | p[1]) : (uint16_t) (p[1] << 8 | p[0]);
}

#endif
