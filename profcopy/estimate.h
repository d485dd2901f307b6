/* estimate.h -- how often each block is likely to run, without a
   profile.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_ESTIMATE_H
#define PROFCOPY_ESTIMATE_H

#include <stdint.h>

#include "analysis.h"

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

#endif /* PROFCOPY_ESTIMATE_H */
