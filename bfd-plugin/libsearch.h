/* libsearch.h -- find the shared objects a program needs, as ld.so would.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_LIBSEARCH_H
#define PROFCOPY_LIBSEARCH_H

#include <stdbool.h>
#include <stddef.h>

/* Where to look.  SYSROOT may be NULL or "" for the host root; every
   directory the search derives (RPATH, RUNPATH, ld.so.conf, defaults)
   is taken inside it.  LIBRARY_PATH is the -L list, searched where
   ld.so searches LD_LIBRARY_PATH (after RPATH, before RUNPATH); its
   directories are host paths, used as given.  */
struct lib_search
{
  const char *sysroot;
  const char **library_path;
  size_t n_library_path;
  bool big_endian;		/* Only objects of this byte order match.  */
};

/* One object of the closure.  PATH is NULL when it was not found.  */
struct needed_lib
{
  char *soname;			/* The DT_NEEDED name that asked for it.  */
  char *path;			/* Host path of the file found, or NULL.  */
  char *requested_by;		/* Path of the first object that needs it.  */
};

struct needed_closure
{
  struct needed_lib *libs;	/* Breadth-first order, without duplicates.  */
  size_t n_libs;
  size_t n_missing;
  /* The dynamic linker, when it is profiled with the program: musl's,
     which is also its C library.  Its SONAME is the PT_INTERP's file
     name (ld-musl-mipsel.so.1), its PATH NULL when the sysroot has no
     such object (counted in N_MISSING).  LOADER_AT is where the
     dynamic linker's search order puts it: after that many of LIBS
     (where the closure first asks for the C library).  */
  bool has_loader;
  struct needed_lib loader;
  size_t loader_at;
};

/* Compute the closure of shared objects needed by the executable at
   EXE_PATH, recursively, skipping the dynamic linker (the executable's
   PT_INTERP, and any ld.so/ld-linux name) but for musl's, which is
   OUT->loader.  Objects that cannot be found
   are recorded with a NULL path.  Returns false (with *ERRMSG set) only
   when EXE_PATH itself cannot be opened as a MIPS object.  */
bool lib_search_closure (const struct lib_search *search, const char *exe_path,
			 struct needed_closure *out, char **errmsg);

void needed_closure_free (struct needed_closure *closure);

#endif /* PROFCOPY_LIBSEARCH_H */
