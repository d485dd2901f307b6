/* array.h -- arrays that grow as elements are appended.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_ARRAY_H
#define PROFCOPY_ARRAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Make room for element N of the array that *BASE points to (BASE is
   the address of the pointer), of which *ALLOC elements of SIZE bytes
   are allocated: when N reaches *ALLOC, reallocate it to twice as many
   elements, or to FIRST while it has none.  False when out of memory
   (the array is then as it was).  */
bool array_room (void *base, size_t *alloc, size_t n, size_t size,
		 size_t first);

/* Order two uint32_t, for qsort and bsearch.  */
int array_compare_u32 (const void *a, const void *b);

/* Order two pairs of uint32_t (uint32_t[2]) by their first word, then
   their second.  */
int array_compare_u32_pairs (const void *a, const void *b);

/* The index of the first of the N elements of V, sorted, whose key
   (the element shifted right by SHIFT) is not below KEY, or N.  */
size_t array_lower_bound_u64 (const uint64_t *v, size_t n, uint64_t key,
			      unsigned shift);

#endif /* PROFCOPY_ARRAY_H */
