/* rewrite.h -- write the profiled copy of one object.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_REWRITE_H
#define PROFCOPY_REWRITE_H

#include <stdbool.h>

struct profile_set;

struct rewrite_options
{
  bool poison_original;		/* Fill the original code with traps.  */
  bool all_blocks;		/* A counter in every block, none derived.  */
  bool calls;			/* Entry and exit probes (call traces).  */
  bool single_update;		/* Increments without ll/sc: faster, but a
				   count may be lost when threads run the
				   same block at once.  */
  /* The object is loaded at start-up (it is one of a --whole-program
     closure), where the runtime's watcher carries its counters' low
     words into their high words: increments without a carry test.  */
  bool folded;
  bool verbose;
  /* For a main program: the runtime's soname, added as its first
     DT_NEEDED, with DT_RPATH $ORIGIN so that the profiled objects
     beside it are loaded.  NULL: leave the dynamic section.  */
  const char *runtime_soname;
  /* For a main program: the path its PT_INTERP names instead of its
     own (the copy of musl's dynamic linker), or NULL.  */
  const char *interp;
  /* The --runtime option, or NULL: the copy of a static executable
     takes the static runtime from its directory
     (static_runtime_path).  */
  const char *runtime;
  /* Profiles of earlier runs (--use-profile), or NULL: an object that
     one of them counted (same checksum and size) gets its counters
     placed by those counts.  */
  const struct profile_set *use_profile;
  /* The --whole-program closure, which the object is the SCOPE_INDEX-th
     of, or NULL: which definitions its calls bind to.  */
  const struct symbol_scope *scope;
  size_t scope_index;
};

/* Rewrite the object IN_PATH into OUT_PATH (which may equal IN_PATH)
   with a counter on every basic block.  False with a malloc'd reason in
   *ERRMSG; nothing is written then.  */
bool rewrite_object (const char *in_path, const char *out_path,
		     const struct rewrite_options *opts, char **errmsg);

#endif /* PROFCOPY_REWRITE_H */
