/* inclusive.h -- inclusive costs of a block profile, estimated from its
   exact call counts as gprof does.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   A block profile has each function's own instructions and the count
   of each call site whose callee is known (calls.h), not the time each
   call took.  A callee's cost is shared among its callers in proportion
   to the calls each made: a call that is K of the N calls into a
   function is given K/N of that function's inclusive cost, as gprof
   shares time.  N is the count of the function's entry less the calls
   that may come from inside its unit (the calls of unknown callee that
   its unit makes count as such: PIC code often recurses through a
   `jalr t9' whose t9 another block set), and at least the known calls
   from outside.  Functions that call each other (a cycle, or a
   recursive function) are one unit: the calls inside it cost nothing,
   and the unit's inclusive cost is its members' own instructions plus
   what its calls out of it cost.  So a function's inclusive cost never
   counts an instruction twice and never exceeds the total.  It is an
   estimate: the calls of one caller may have been dearer or cheaper
   than the average, and calls through pointers whose callee is unknown
   give their callee's cost to no one.  */

#ifndef PROFCOPY_INCLUSIVE_H
#define PROFCOPY_INCLUSIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "report.h"

struct report_inclusive
{
  size_t *unit;			/* Function -> its unit (cycle).  */
  uint64_t *unit_cost;		/* Unit -> inclusive instructions.  */
  uint64_t *unit_calls;		/* Unit -> calls into it from outside
				   (at least 1).  */
  uint64_t *cost;		/* Function -> its own instructions plus
				   what its calls out of its unit
				   cost.  */
  size_t n_units;
};

/* Estimate the inclusive costs of R's functions into *INC.  False when
   out of memory.  */
bool report_inclusive_estimate (const struct report *r,
				struct report_inclusive *inc);

/* The cost of COUNT calls from function CALLER to function CALLEE: 0
   inside one unit.  */
uint64_t report_inclusive_call (const struct report_inclusive *inc,
				size_t caller, size_t callee, uint64_t count);

void report_inclusive_free (struct report_inclusive *inc);

/* Make R->inclusive, once, for the views that show inclusive costs
   (--calls, --dot, --callgrind): computed per view, it was computed
   three times when they were asked for together.  False when out of
   memory.  */
bool report_prepare_inclusive (struct report *r);

#endif /* PROFCOPY_INCLUSIVE_H */
