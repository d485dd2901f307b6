/* regnames.c -- conventional names of the MIPS o32 registers.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#include <config.h>

#include <stdio.h>
#include <string.h>

#include "cfg.h"

static const char *const gpr_names[32] =
{
  "zero", "at", "v0", "v1", "a0", "a1", "a2", "a3",
  "t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7",
  "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7",
  "t8", "t9", "k0", "k1", "gp", "sp", "fp", "ra"
};

/* Return the conventional name of register R: a GPR, or "hi", "lo" or
   "fcsr" for REG_HI, REG_LO and REG_FCSR; "?" for anything else.  */

const char *
reg_name (unsigned r)
{
  if (r < 32)
    return gpr_names[r];
  switch (r)
    {
    case REG_HI:
      return "hi";
    case REG_LO:
      return "lo";
    case REG_FCSR:
      return "fcsr";
    default:
      return "?";
    }
}

/* True if register R + 1 continues the family of register R (a0 to a3,
   t0 to t7, s0 to s7, t8 and t9), so that a run of them can be written
   as a range.  t7 and t8 are not neighbours.  */

static bool
same_family (unsigned r)
{
  return ((r >= 4 && r < 7) || (r >= 8 && r < 15) || (r >= 16 && r < 23)
	  || r == 24);
}

/* Format the registers of MASK into BUF of SIZE bytes, in number order
   and separated by commas: "v0,a0,s1,hi".  A run of three or more
   registers of one family is written as a range: "a0-a3", "s0-s7".  The
   result is truncated (but still terminated) when BUF is too small; an
   empty MASK gives "".  */

void
reg_mask_string (uint64_t mask, char *buf, size_t size)
{
  size_t len = 0;

  if (size == 0)
    return;
  buf[0] = '\0';
  for (unsigned r = 0; r <= REG_FCSR; r++)
    {
      unsigned last = r;
      int n;

      if (!(mask & REG_BIT (r)))
	continue;
      while (last < 32 && same_family (last) && (mask & REG_BIT (last + 1)))
	last++;
      if (last - r >= 2)
	n = snprintf (buf + len, size - len, "%s%s-%s", len ? "," : "",
		      reg_name (r), reg_name (last));
      else
	{
	  last = r;
	  n = snprintf (buf + len, size - len, "%s%s", len ? "," : "",
			reg_name (r));
	}
      if (n < 0 || (size_t) n >= size - len)
	return;
      len += (size_t) n;
      r = last;
    }
}
