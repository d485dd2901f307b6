/* static-runtime.h -- the runtime inside the copy of a static
   executable (static-runtime.c).

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_STATIC_RUNTIME_H
#define PROFCOPY_STATIC_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>

#include "elf-write.h"
#include "object.h"

/* The file name of the static runtime, beside libprofcopy.so.  */
#define STATIC_RUNTIME_NAME "libprofcopy-static.so"

#include "static-entry.h"

/* The static runtime, relocated for its place in one copy.  */
struct static_runtime
{
  struct mips_object obj;	/* The runtime's file.  */
  bool loaded;			/* OBJ is open.  */
  unsigned char *image;		/* Its relocated bytes.  */
  struct extra_load loads[2];	/* Its code and data segments, into
				   IMAGE.  */
  uint32_t entry;		/* Its entry, the copy's.  */
};

/* The static runtime's path (malloc'd, NULL when out of memory): the
   file RUNTIME (the --runtime option) if it is named
   libprofcopy-static.so, else libprofcopy-static.so in RUNTIME's
   directory, or without RUNTIME, in the installed runtimes' directory
   for BIG_ENDIAN programs.  */
char *static_runtime_path (const char *runtime, bool big_endian);

/* Read the static runtime at PATH into SRT, relocated to load at the
   first 64 KiB boundary from VADDR, in the file from the first 64 KiB
   boundary from OFFSET, for a copy of the byte order BIG_ENDIAN, its
   entry going on to NEXT_ENTRY and giving the program the PHNUM
   program headers at PHDR (none if PHNUM is 0), also through the ELF
   header at EHDR (none if UINT32_MAX), moving the PROG_GOT_N words at
   PROG_GOT by a static PIE's load bias.  False with a malloc'd reason in
   *ERRMSG (static_runtime_free is still to be called).  */
bool static_runtime_load (struct static_runtime *srt, const char *path,
			  bool big_endian, uint32_t vaddr, uint32_t offset,
			  uint32_t next_entry, uint32_t phdr, uint32_t phnum,
			  uint32_t ehdr, uint32_t prog_got,
			  uint32_t prog_got_n, char **errmsg);

void static_runtime_free (struct static_runtime *srt);

#endif /* PROFCOPY_STATIC_RUNTIME_H */
