/* segment.h -- the header of a profiled object's profcopy segment.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   profcopy adds one PT_LOAD segment to every object it rewrites.  The
   segment starts with this header; the runtime finds it with
   dl_iterate_phdr (a PT_LOAD whose first bytes are the magic) and
   writes the counters it points to into the profile.  Every field is in
   the object's byte order; every address is a link-time address, to
   which the runtime adds the object's load bias (dlpi_addr).  This
   header is shared by the rewriter (host) and the runtime (target), so
   it uses fixed-width types only.  */

#ifndef PROFCOPY_SEGMENT_H
#define PROFCOPY_SEGMENT_H

#include <stdint.h>

#define PC_SEGMENT_MAGIC "PROFCPY"	/* 8 bytes with the NUL.  */
#define PC_SEGMENT_VERSION 9

struct pc_segment_header
{
  char magic[8];		/* PC_SEGMENT_MAGIC.  */
  uint32_t version;		/* PC_SEGMENT_VERSION.  */
  uint32_t header_size;		/* sizeof (struct pc_segment_header).  */
  uint32_t n_blocks;
  uint32_t blocks;		/* struct pc_block[n_blocks].  */
  uint32_t counters;		/* struct pc_counter[n_blocks], zero at start,
				   then those of the derivation's edges.  */
  uint32_t map;			/* uint32_t new address per original word.  */
  uint32_t text_start;		/* Original code range the map covers.  */
  uint32_t text_end;
  uint32_t checksum;		/* CRC-32 (IEEE) of the whole original file.  */
  uint32_t file_size;		/* Size of the original file.  */
  uint32_t path;		/* NUL-terminated path of the original file.  */
  uint32_t build_id;		/* NT_GNU_BUILD_ID bytes, or 0.  */
  uint32_t build_id_len;
  uint32_t flags;		/* PC_SEGMENT_F_*.  */
  uint32_t derive;		/* struct pc_derive, or 0: every block
				   has a counter.  */
  /* With PC_SEGMENT_F_CALLS: the probe routines (run-time addresses of
     profcopy_trace_enter and profcopy_trace_exit), which the runtime
     writes here when it starts; the probes do nothing while they are
     0.  */
  uint32_t probe_enter;
  uint32_t probe_exit;
  /* The window: N_WINDOW more counters (struct pc_counter, zero at
     start) right after the GOT, within gp's reach, for the counters
     WINDOW_BLOCKS lists (uint32_t, ascending: a block index, or
     N_BLOCKS + k for the derivation's counted edge k); a block or edge
     counted there leaves its own counter at zero, and its count is the
     sum of the two.  With PC_SEGMENT_F_FOLDED the window holds the low
     words only (uint32_t each), and the runtime carries their wraps
     into the high word of the block's or edge's own counter.  */
  uint32_t window;
  uint32_t n_window;
  uint32_t window_blocks;
  /* The run-time address of the runtime's syscall hook (hook.S), which
     the runtime writes here when it starts; the calls that profcopy
     put before the object's system calls that may end the process or
     replace its image (exit_group, execve, execveat, fork, clone) skip
     it while it is 0.  */
  uint32_t syscall_hook;
  /* With PC_SEGMENT_F_POISONED: the run-time address of two words
     (struct pc_jump_note) to which every indirect jump, call and
     return of the object writes where it is before it jumps; the
     runtime writes it here when it starts, and the jumps skip the
     note while it is 0.  */
  uint32_t jump_note;
  /* The CRC-32 (IEEE) of the copy's tables as they are in the file:
     the N_BLOCKS entries at BLOCKS, then the derivation table at
     DERIVE with the tables after it, then the N_WINDOW words at
     WINDOW_BLOCKS.  A profile that leaves the tables out gives it with
     the copy's name as it was loaded (the runtime's), and profreport
     reads the tables there and checks them with it.  */
  uint32_t tables_crc;
};

/* The last jump noted: the run-time address of its note in the
   profiled code, and the link-time address of the jump in the
   original.  */
struct pc_jump_note
{
  uint32_t at;
  uint32_t jump;
};

/* The object is the main program.  */
#define PC_SEGMENT_F_MAIN	0x1
/* Its functions call the probe routines at entry and exit (--calls).  */
#define PC_SEGMENT_F_CALLS	0x2
/* Its increments add to the low words of the counters only, with no
   carry into the high words, which the runtime keeps: it folds every
   wrap of a low word into its high word (runtime/fold.c).  */
#define PC_SEGMENT_F_FOLDED	0x4
/* Its code makes the exit_group system call through the syscall hook
   (libc's _exit): the runtime writes the profile there, after
   everything else the process runs.  */
#define PC_SEGMENT_F_EXIT_HOOK	0x8
/* Its original code is filled with traps (--poison-original), and its
   jumps note themselves (jump_note).  */
#define PC_SEGMENT_F_POISONED	0x10

/* How the counts of the blocks without a counter follow from the
   others (profcopy/plan/derive.c explains why this is exact).  Vertex 2i is
   the entry of block i, 2i+1 its exit.  With ACC[v] zero for every
   vertex, a counted block i (RULE[i] == 0) with count C adds C to
   ACC[2i] and subtracts it from ACC[2i+1], and a counted edge k, from
   vertex EDGES[2k] to vertex EDGES[2k + 1], whose count C is the
   counter n_blocks + k, adds C to ACC[EDGES[2k]] and subtracts it from
   ACC[EDGES[2k + 1]]; then, for each (child, parent) pair of LINKS in
   order, ACC[parent] += ACC[child]; then a block with RULE[i] == 1 + 2v
   counts ACC[v], one with RULE[i] == 2 + 2v counts -ACC[v], all modulo
   2^64.  The header is followed by uint32_t rule[n_blocks], then
   uint32_t links[2 * n_links], then uint32_t edges[2 * n_edges].  */
struct pc_derive
{
  uint32_t n_vertices;
  uint32_t n_links;
  uint32_t n_edges;
};

/* One basic block of the original object.  */
struct pc_block
{
  uint32_t start;		/* Link-time address of its first word.  */
  uint32_t size;		/* Bytes, delay slot included.  */
};

/* One 64-bit count, as two words so that the low word can be
   incremented with ll/sc on any byte order; the carry goes to HIGH.  */
struct pc_counter
{
  uint32_t low;
  uint32_t high;
};

#endif /* PROFCOPY_SEGMENT_H */
