/* hello.c -- the shortest process worth measuring: the fixed cost of a
   profiled process (start-up, the runtime, the profile written at exit)
   for bench/run-all.sh.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#include <stdio.h>

int
main (void)
{
  puts ("hello, world");
  return 0;
}
