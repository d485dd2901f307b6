/* scope.h -- which object's definition a dynamic symbol names.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_SCOPE_H
#define PROFCOPY_SCOPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The objects of a --whole-program closure in the order the dynamic
   linker searches them for a symbol (the program, the runtime, then
   the needed libraries breadth first), and for every name that one of
   them defines, the first that does: the definition every reference
   binds to.  */
struct symbol_scope
{
  struct scope_name
  {
    char *name;
    uint32_t object;		/* Index of its first definer.  */
  } *names;			/* Sorted by name.  */
  size_t n_names;
  bool *c_library;		/* Per object: the C or math library.  */
  size_t n_objects;
};

/* Fill *SCOPE from the N_PATHS objects PATHS, in search order.  False
   with a malloc'd reason in *ERRMSG and the path of the object at fault
   in *BAD.  */
bool scope_build (struct symbol_scope *scope, const char *const *paths,
		  size_t n_paths, const char **bad, char **errmsg);

/* The index of the object whose definition of NAME references bind
   to, or -1 when none defines it.  */
long scope_definer (const struct symbol_scope *scope, const char *name);

void scope_free (struct symbol_scope *scope);

#endif /* PROFCOPY_SCOPE_H */
