/* derive.h -- which blocks get a counter, and how the others' counts
   follow from them.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_DERIVE_H
#define PROFCOPY_DERIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis.h"

/* The counting plan of one object.  Vertex 2i is the entry of block i,
   vertex 2i+1 its exit, vertex 2n the outside world (n blocks).  The
   runtime computes, for every vertex v listed in LINKS (child, parent
   pairs in post-order), the net flow of the measured blocks and counted
   edges out of v's subtree, ACC[v], and sends it up to the parent;
   block i's count is
   then its counter (RULE[i] == 0), or ACC[v] (RULE[i] == 1 + 2v), or
   -ACC[v] (RULE[i] == 2 + 2v).  */
struct derive
{
  size_t n_blocks;
  uint32_t n_vertices;
  uint8_t *measured;		/* Per block: has a counter.  */
  uint32_t *rule;		/* Per block, as above.  */
  uint32_t *links;		/* 2 * N_LINKS words: child, parent.  */
  size_t n_links;
  size_t n_measured;
  uint32_t *weight;		/* Per counter (the blocks', then the counted
				   edges'): how hot it is likely to be
				   (estimated frequency, then cost); NULL
				   with every block measured.  */
  /* Counted branch edges: edge k runs from vertex EDGES[2k] (a block's
     exit) to EDGES[2k + 1] (a block's entry), and its counter is the
     (N_BLOCKS + k)-th.  Per block, TAKEN_EDGE and FALL_EDGE are 1 + the
     edge index of its counted branch and fall-through edges, or 0.  */
  uint32_t *edges;
  size_t n_edges;
  uint32_t *taken_edge, *fall_edge;
};

/* Choose the blocks of A that need a counter: those whose count does
   not follow from the others' by flow conservation.  COST[i] is what a
   counter in block i would cost (instructions), COLD[i] says that block
   i surely runs seldom (it leads only to a call that never returns);
   the blocks that run most often by FREQ and TAKEN (what
   estimate_frequencies says of each block and of its branch), then the
   costly counters, are derived first, cold blocks last.  INTO[i], when
   not 0, says that block i ends in a call that enters the block
   INTO[i] - 1, the entry of a function that nothing else enters: the
   call is then an edge, not a way out (from emit_narrow_liveness; may
   be NULL).  RETURNING[i] (or NULL) says that block i ends in a call
   that surely comes back to the block after it (returns.c): an edge
   from the call to the return point, unless INTO makes the call one.
   EDGE_OK[i] (or NULL) says that block i ends in a two-way branch whose
   edges may have counters of their own; the counted ones go in D's
   EDGES.  With ALL, every block is measured, and FREQ and
   TAKEN may be NULL.  False with *ERRMSG when out of memory.  */
bool derive_plan (const struct analysis *a, const uint32_t *cost,
		  const unsigned char *cold, const uint32_t *into,
		  const unsigned char *returning, const float *freq, const float *taken,
		  const unsigned char *edge_ok, bool all, struct derive *d,
		  char **errmsg);

void derive_free (struct derive *d);

#endif /* PROFCOPY_DERIVE_H */
