/* copy-tables.h -- the tables a profiled copy holds for its profiles.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   A profile record of version 4 may leave out the block table, the
   derivation table and the window's list of its object: they are in
   the profiled copy that wrote it, which the record names, and the
   CRC of the tables ties the two (include/segment.h, tables_crc).
   These functions find them in the file of a copy.  */

#ifndef PROFCOPY_COPY_TABLES_H
#define PROFCOPY_COPY_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a copy's segment header says of its original and its tables,
   with pointers into the copy's file; every field in the copy's byte
   order.  */
struct copy_tables
{
  bool big_endian;
  uint32_t checksum, file_size;	/* Of the original.  */
  uint32_t n_blocks;
  const unsigned char *blocks;	/* 8 * N_BLOCKS bytes.  */
  const unsigned char *derive;	/* DERIVE_SIZE bytes; NULL when 0.  */
  uint32_t derive_size;
  const unsigned char *window_blocks;	/* 4 * N_WINDOW bytes.  */
  uint32_t n_window;
  uint32_t tables_crc;		/* The header's, equal to the tables'.  */
};

/* Find the tables of the profiled copy whose file is the SIZE bytes at
   DATA: its profcopy segment (a PT_LOAD that starts with a segment
   header of this version), and the tables the header names, each
   checked to lie in the file, with a CRC equal to the header's.
   Return false, with *ERRMSG a malloc'd reason, if the file is not
   such a copy or is damaged.  */
bool copy_tables_find (const unsigned char *data, size_t size,
		       struct copy_tables *t, char **errmsg);

#endif /* PROFCOPY_COPY_TABLES_H */
