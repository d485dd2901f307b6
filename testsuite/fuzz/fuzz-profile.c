/* fuzz-profile.c -- fuzz target: profreport's (and --use-profile's)
   profile reader, profile_read.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The input is a profile, read by name.  It is read twice into the
   same set, as profreport merges the profiles of several runs: the
   second read must find every object of the first and add its counts.
   A refusal must say why and leave the set as it was.  */

#include <config.h>

#include <stdlib.h>

#include "fuzz.h"
#include "profile-read.h"

/* Fail if the set S does not hold N_OBJECTS objects.  */

static void
check_objects (const struct profile_set *s, size_t n_objects)
{
  if (s->n_objects != n_objects)
    abort ();
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct profile_set set = { NULL, 0 };
  const char *file = fuzz_input_file (data, size);
  char *err = NULL;
  size_t n;

  if (!profile_read (&set, file, &err))
    {
      /* Every refusal says why.  */
      if (err == NULL)
	abort ();
      free (err);
      check_objects (&set, 0);
      /* The copies it read stay in the set.  */
      profile_set_free (&set);
      return 0;
    }
  n = set.n_objects;
  if (!profile_read (&set, file, &err))
    abort ();
  check_objects (&set, n);
  profile_set_free (&set);
  return 0;
}
