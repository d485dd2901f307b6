/* trace-format.h -- the layout of a profcopy call trace file.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The runtime (runtime/trace-file.c, on the target) writes these files
   and profreport (report/trace-read.c, on the host) reads them.
   doc/trace-format.md describes both forms in prose; this header gives
   the numbers of the binary form.  Every multi-byte field is
   little-endian, whatever the byte order of the program.

   A binary trace is a file header followed by records.  Every record
   starts with a type and its own size (a multiple of 8, the record
   header included), so that a reader skips the types it does not know:

     file header (PCTRACE_HEADER_SIZE bytes)
     record
     record
     ...

   An object record says where one object of the process was loaded; an
   event record holds the events of one thread, in the order that
   thread made them.  Threads write their event records as their
   buffers fill, so records of different threads interleave.  */

#ifndef PROFCOPY_TRACE_FORMAT_H
#define PROFCOPY_TRACE_FORMAT_H

/* The eight bytes a binary trace starts with.  */
#define PCTRACE_MAGIC "PCTRACE\0"
#define PCTRACE_MAGIC_LEN 8

/* The version this header describes.  A reader rejects other versions.  */
#define PCTRACE_VERSION 1

/* Byte offsets of the fields of the file header.  */
#define PCTRACE_H_MAGIC		0	/* char[8] PCTRACE_MAGIC.  */
#define PCTRACE_H_VERSION	8	/* PCTRACE_VERSION.  */
#define PCTRACE_H_HEADER_SIZE	12	/* PCTRACE_HEADER_SIZE.  */
#define PCTRACE_H_FLAGS		16	/* PCTRACE_F_*.  */
#define PCTRACE_H_PID		20	/* Process that created the file.  */
#define PCTRACE_H_CLOCK		24	/* PCTRACE_CLOCK_*.  */
#define PCTRACE_H_RESERVED	28	/* Zero.  */
#define PCTRACE_HEADER_SIZE	32

/* The program that wrote the trace is big-endian.  */
#define PCTRACE_F_BIG_ENDIAN	0x1

/* The clock of the time stamps: CLOCK_MONOTONIC, in nanoseconds.  */
#define PCTRACE_CLOCK_MONOTONIC_NS 1

/* Byte offsets of the record header.  */
#define PCTRACE_R_TYPE		0	/* PCTRACE_REC_*.  */
#define PCTRACE_R_SIZE		4	/* Bytes of the record, header included.  */
#define PCTRACE_RECORD_SIZE	8

/* Record types.  */
#define PCTRACE_REC_OBJECT	1
#define PCTRACE_REC_EVENTS	2

/* An object record, after the record header: the load bias (dlpi_addr),
   the lowest and the end run-time address of its PT_LOAD segments, and
   the length of its path, which follows with a NUL, padded with zeros
   to a multiple of 8.  A later record for the same range replaces an
   earlier one (dlopen after dlclose).  */
#define PCTRACE_O_BIAS		8
#define PCTRACE_O_LOW		12
#define PCTRACE_O_HIGH		16
#define PCTRACE_O_PATH_LEN	20	/* Without the NUL.  */
#define PCTRACE_O_SIZE		24	/* Where the path starts.  */

/* An event record, after the record header: the process and thread
   that made the events, their number, the number of events that were
   lost just before the first of them (a full buffer in a signal
   handler), then N_EVENTS events.  */
#define PCTRACE_E_PID		8
#define PCTRACE_E_TID		12
#define PCTRACE_E_N_EVENTS	16
#define PCTRACE_E_N_LOST	20
#define PCTRACE_E_SIZE		24	/* Where the events start.  */

/* One event: the function's run-time entry address, the call site (the
   return address into the caller; 0 if not known), and a 64-bit stamp
   whose low bit is the kind and whose upper 63 bits are the time in
   nanoseconds.  */
#define PCTRACE_V_FUNC		0
#define PCTRACE_V_SITE		4
#define PCTRACE_V_STAMP		8
#define PCTRACE_EVENT_SIZE	16

/* Event kinds.  */
#define PCTRACE_ENTER		0
#define PCTRACE_EXIT		1

/* Limits a writer keeps to and a reader enforces.  */
#define PCTRACE_MAX_PATH_LEN	4095

/* N rounded up to a multiple of 8.  */
#define PCTRACE_PAD8(n) (((n) + 7) / 8 * 8)

#endif /* PROFCOPY_TRACE_FORMAT_H */
