/* union-find.h -- the find of a union-find forest.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_UNION_FIND_H
#define PROFCOPY_UNION_FIND_H

#include <stdint.h>

/* The root of V in the forest PARENT (a root is its own parent),
   halving the path on the way.  */

static inline uint32_t
uf_find (uint32_t *parent, uint32_t v)
{
  while (parent[v] != v)
    {
      parent[v] = parent[parent[v]];
      v = parent[v];
    }
  return v;
}

#endif /* PROFCOPY_UNION_FIND_H */
