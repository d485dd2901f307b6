/* profile-format.h -- the layout of a profcopy profile file.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The runtime (libprofcopy.so, on the target) writes these files and
   profreport (on the host) reads them.  Every multi-byte field is in
   the byte order of the program that wrote it: the program writes its
   counters and tables as they are in memory, and the reader tells the
   order by the byte order mark.  doc/profile-format.md describes the
   format in prose; this header gives the numbers.

   A file is one file header followed by N_OBJECTS object records:

     file header (PCPROF_HEADER_SIZE bytes)
     object record 0
     ...

   An object record (version 4) is a record header (PCPROF_RECORD_SIZE
   bytes) followed by, each padded with zeros to a multiple of 8 bytes:
   the original path (PATH_LEN bytes and a NUL); the build-id
   (BUILD_ID_LEN bytes); the profiled copy's path (COPY_PATH_LEN bytes
   and a NUL); when TABLES says PCPROF_TABLES_HERE, the tables: the
   block table (N_BLOCKS pairs of 32-bit start and size), the
   derivation table (DERIVE_SIZE bytes, as segment.h's struct
   pc_derive and the tables after it) and the window's list (N_WINDOW
   32-bit words, as segment.h's window_blocks), which are otherwise
   read from the copy (segment.h's tables_crc is their CRC); then the
   counters, N_BLOCKS + N_EDGES + N_WINDOW 64-bit counts: the blocks',
   the derivation's counted edges', the window's, each as two 32-bit
   words, the low one first, as segment.h's struct pc_counter; or,
   when TABLES has PCPROF_COUNTS_RUNS (version 5), only some of them:
   a 32-bit number of runs R and a zero word, R pairs of 32-bit first
   counter and number of counters, in increasing order and apart, then
   the counters of each run, one run after the other; every counter
   outside the runs is 0.  RECORD_SIZE is the size of all of that.  A
   version 4 record is version 5 without runs.  A version 3 record has a
   48-byte header and always the tables, and no copy path; version 2
   is version 3 with 64-bit counts (the same bytes little-endian).  A
   version 1 file is little-endian and its records have a 32-byte
   header, the block table and N_BLOCKS counts (nothing derived).  */

#ifndef PROFCOPY_PROFILE_FORMAT_H
#define PROFCOPY_PROFILE_FORMAT_H

/* The eight bytes a profile starts with.  */
#define PCPROF_MAGIC "PCPROF\0\0"
#define PCPROF_MAGIC_LEN 8

/* The version this header describes.  A reader rejects other versions.  */
#define PCPROF_VERSION 5
#define PCPROF_VERSION_5 5

/* The older versions a reader still reads.  */
#define PCPROF_VERSION_4 4

#define PCPROF_VERSION_3 3
#define PCPROF_VERSION_2 2
#define PCPROF_VERSION_1 1

/* The byte order mark: this value, in the file's byte order (bytes
   04 03 02 01 little-endian, 01 02 03 04 big-endian).  */
#define PCPROF_BOM 0x01020304u

/* Byte offsets of the fields of the file header.  */
#define PCPROF_H_MAGIC		0	/* char[8] PCPROF_MAGIC.  */
#define PCPROF_H_VERSION	8	/* PCPROF_VERSION.  */
#define PCPROF_H_BOM		12	/* PCPROF_BOM.  */
#define PCPROF_H_HEADER_SIZE	16	/* PCPROF_HEADER_SIZE.  */
#define PCPROF_H_PID		20	/* Process id of the writer.  */
#define PCPROF_H_N_OBJECTS	24	/* Number of object records.  */
#define PCPROF_H_REASON		28	/* PCPROF_REASON_*.  */
#define PCPROF_H_SIGNAL		32	/* Signal number, for REASON_SIGNAL.  */
#define PCPROF_H_FLAGS		36	/* PCPROF_F_*.  */
#define PCPROF_HEADER_SIZE	40

/* Why the profile was written.  */
#define PCPROF_REASON_EXIT	1	/* exit, or return from main.  */
#define PCPROF_REASON_EXEC	2	/* One of the exec functions.  */
#define PCPROF_REASON_SIGNAL	3	/* A fatal signal.  */

/* The program that wrote the profile is big-endian.  */
#define PCPROF_F_BIG_ENDIAN	0x1

/* Byte offsets of the fields of an object record header.  */
#define PCPROF_R_RECORD_SIZE	0	/* Bytes of the whole record.  */
#define PCPROF_R_FLAGS		4	/* The segment's PC_SEGMENT_F_*.  */
#define PCPROF_R_CHECKSUM	8	/* CRC-32 of the original file.  */
#define PCPROF_R_FILE_SIZE	12	/* Size of the original file.  */
#define PCPROF_R_N_BLOCKS	16
#define PCPROF_R_PATH_LEN	20	/* Without the NUL.  */
#define PCPROF_R_BUILD_ID_LEN	24
#define PCPROF_R_LOAD_BIAS	28	/* dlpi_addr at run time (information).  */
#define PCPROF_R_DERIVE_SIZE	32	/* Bytes; 0: every block is counted.  */
#define PCPROF_R_N_EDGES	36	/* Counted edges of the derivation.  */
#define PCPROF_R_N_WINDOW	40	/* Window counters.  */
#define PCPROF_R_TABLES_CRC	44	/* segment.h's tables_crc (version 4).  */
#define PCPROF_R_COPY_PATH_LEN	48	/* Without the NUL (version 4).  */
#define PCPROF_R_TABLES		52	/* PCPROF_TABLES_* (version 4), and
					   PCPROF_COUNTS_RUNS (5).  */
#define PCPROF_RECORD_SIZE	56
#define PCPROF_RECORD_SIZE_3	48	/* Of versions 2 and 3.  */
#define PCPROF_RECORD_SIZE_1	32	/* Of version 1.  */

/* Where an object's tables are (PCPROF_R_TABLES), and whether its
   counters are in runs (version 5).  */
#define PCPROF_TABLES_IN_COPY	0	/* Only in the profiled copy.  */
#define PCPROF_TABLES_HERE	1	/* In the record too.  */
#define PCPROF_COUNTS_RUNS	2	/* Only the runs of counters that
					   may not be 0.  */

/* The bytes before the runs' pairs, and of one pair.  */
#define PCPROF_RUNS_HEADER_SIZE	8
#define PCPROF_RUN_SIZE		8

/* Bytes of one block table entry and of one count.  */
#define PCPROF_BLOCK_SIZE	8
#define PCPROF_COUNT_SIZE	8

/* Limits a writer keeps to and a reader enforces.  */
#define PCPROF_MAX_PATH_LEN	4095
#define PCPROF_MAX_BUILD_ID_LEN	64

/* N rounded up to a multiple of 8.  */
#define PCPROF_PAD8(n) (((n) + 7) / 8 * 8)

#endif /* PROFCOPY_PROFILE_FORMAT_H */
