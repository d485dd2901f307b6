/* returns.h -- the calls that surely come back.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_RETURNS_H
#define PROFCOPY_RETURNS_H

#include <stdint.h>

#include "analysis.h"

/* What a call block's call enters, per block (struct call_sites'
   CALLEE): 0 when not known, else 1 + a function of the object, or one
   of these.  */
#define CALLEE_RETURNS UINT32_MAX	/* A function of another object that
					   surely returns (a C library
					   function that calls no code of
					   the program).  */
#define CALLEE_GUARD (UINT32_MAX - 1)	/* __stack_chk_fail: it ends a
					   process whose stack is already
					   broken, where no count matters;
					   the caller may still be sure.  */

/* A malloc'd array saying, per block of A, whether the block ends in a
   call that surely comes back to the block after it: the function it
   enters (CALLEE) returns by jr ra, with ra as the call left it or
   reloaded from its own frame, and every way out of it is such a
   return or a call that surely comes back (the greatest such set of
   functions).  No system call (exit, exec), no unconditional trap, no
   jump through a register but a switch table's, no longjmp or setjmp
   (ra stored anywhere but the frame), no way into another function but
   a call; a conditional trap (teq after a division) or a fault is a
   fatal signal, which may come anywhere.  NULL when out of memory.  */
unsigned char *returning_calls (const struct analysis *a,
				const uint32_t *callee);

#endif /* PROFCOPY_RETURNS_H */
