/* estimate.h -- how often each block is likely to run, without a
   profile or from one.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_ESTIMATE_H
#define PROFCOPY_ESTIMATE_H

#include <stdint.h>

#include "analysis.h"
#include "profile-read.h"

/* A malloc'd array of the estimated number of runs of every block of A
   per run of the object's code from outside (NULL when out of memory).
   COLD[i] says that block i surely runs seldom; ENTERS[i], when not 0,
   says that block i ends in a call or jump that enters function
   ENTERS[i] - 1 (a direct call, or an indirect one whose target is
   known); ENTERS may be NULL.  Only the order of the numbers means
   anything.  With TAKEN, also set TAKEN[i], for every block i that ends
   in a two-way branch, to the estimated share of its runs that take the
   branch (to succ[0]), else 0.  */
float *estimate_frequencies (const struct analysis *a,
			     const unsigned char *cold,
			     const uint32_t *enters, float *taken);

/* from-profile.c.  */

/* Per block of A, the sum of its counts in the N profiled objects OBJS
   (earlier runs of the same file), or -1 for a block they do not know,
   in a malloc'd array (NULL when out of memory); *HITS says how many
   blocks they know.  */
double *profile_block_counts (const struct analysis *a,
			      const struct prof_object *const *objs,
			      size_t n, size_t *hits);

/* Replace the estimates FREQ and TAKEN (as estimate_frequencies made
   them) of A's blocks by the counts COUNT (profile_block_counts): a
   block's frequency becomes its count, with the estimate breaking ties
   below one run (a block the profiles do not know counts 0 so); a
   branch's taken share comes from the counts of its two successors.
   False when out of memory.  */
bool estimate_from_counts (const struct analysis *a, const double *count,
			   float *freq, float *taken);

#endif /* PROFCOPY_ESTIMATE_H */
