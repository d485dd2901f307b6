/* saturate.h -- sums and products of counts that stop at UINT64_MAX
   instead of wrapping.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   Counts come from profiles, which a damaged or hostile file can fill
   with any value: a report adds and multiplies them without ever
   wrapping round to a small, plausible number.  */

#ifndef PROFCOPY_SATURATE_H
#define PROFCOPY_SATURATE_H

#include <stdint.h>

static inline uint64_t
sat_add (uint64_t a, uint64_t b)
{
  uint64_t sum;

  return __builtin_add_overflow (a, b, &sum) ? UINT64_MAX : sum;
}

static inline uint64_t
sat_mul (uint64_t a, uint64_t b)
{
  uint64_t prod;

  return __builtin_mul_overflow (a, b, &prod) ? UINT64_MAX : prod;
}

#endif /* PROFCOPY_SATURATE_H */
