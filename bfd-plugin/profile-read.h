/* profile-read.h -- read and merge profcopy profiles.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   A profile_set holds the objects of one or more profiles.  Objects of
   different profiles with the same original path, checksum and file
   size are one object whose counts are the sums.  The file format is
   in include/profile-format.h and doc/profile-format.md.  */

#ifndef PROFCOPY_PROFILE_READ_H
#define PROFCOPY_PROFILE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile-format.h"

/* One basic block of an original object.  */
struct prof_block
{
  uint32_t start;		/* Link-time address.  */
  uint32_t size;		/* Bytes.  */
};

/* One profiled object, with the counts of every profile read so far.  */
struct prof_object
{
  char *path;			/* The original file, as recorded.  */
  const char *profile;		/* The first profile naming it.  */
  uint32_t flags;		/* PC_SEGMENT_F_*.  */
  uint32_t checksum, file_size;
  uint32_t build_id_len;
  unsigned char build_id[PCPROF_MAX_BUILD_ID_LEN];
  uint32_t n_blocks;
  struct prof_block *blocks;
  uint64_t *counts;		/* Saturating sums.  */
};

struct profile_copy;

struct profile_set
{
  struct prof_object *objects;
  size_t n_objects;
  /* A record of version 4 may leave its object's tables in the
     profiled copy that wrote it (copy-tables.h).  The copy is looked
     for as DIR/NAME in each of the N_COPY_DIRS directories COPY_DIRS
     (set by the caller), NAME its base name, then under the name the
     process loaded it from.  */
  const char *const *copy_dirs;
  size_t n_copy_dirs;
  /* The copies read so far (profile-read.c).  */
  struct profile_copy *copies;
  size_t n_copies;
};

/* Read the profile FILE and merge its objects into SET.  On failure
   return false, set *ERRMSG to a malloc'd reason (without the file
   name) and leave SET's objects unchanged (the copies read stay, for
   the next profile; profile_set_free frees them).  FILE must outlive
   SET.  */
bool profile_read (struct profile_set *set, const char *file,
		   char **errmsg);

/* Free everything SET owns.  */
void profile_set_free (struct profile_set *set);

#endif /* PROFCOPY_PROFILE_READ_H */
