/* array.c -- arrays that grow as elements are appended.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"

int
array_compare_u32 (const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;

  return x < y ? -1 : x > y;
}

int
array_compare_u32_pairs (const void *pa, const void *pb)
{
  const uint32_t *a = pa, *b = pb;

  if (a[0] != b[0])
    return a[0] < b[0] ? -1 : 1;
  return a[1] < b[1] ? -1 : a[1] > b[1];
}

bool
array_room (void *base, size_t *alloc, size_t n, size_t size, size_t first)
{
  void *p;
  size_t want;

  if (n < *alloc)
    return true;
  want = *alloc != 0 ? 2 * *alloc : first;
  if (want <= n || want > SIZE_MAX / size)
    return false;
  /* BASE holds a pointer of some type: copied in and out as bytes.  */
  memcpy (&p, base, sizeof p);
  p = realloc (p, want * size);
  if (p == NULL)
    return false;
  memcpy (base, &p, sizeof p);
  *alloc = want;
  return true;
}

size_t
array_lower_bound_u64 (const uint64_t *v, size_t n, uint64_t key,
		       unsigned shift)
{
  size_t lo = 0, hi = n;

  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (v[mid] >> shift < key)
	lo = mid + 1;
      else
	hi = mid;
    }
  return lo;
}
