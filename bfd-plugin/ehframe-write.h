/* ehframe-write.h -- unwind tables for the profiled copy of the code.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The original .eh_frame describes the original code.  These functions
   write a new .eh_frame, a new .eh_frame_hdr and new LSDAs (the
   .gcc_except_table entries of C++ functions) that describe the copy of
   the code instead, given how original code addresses map to new ones.
   The caller places the three areas in its new segment and points
   PT_GNU_EH_FRAME at the new header, so that the unwinder (libgcc's
   dl_iterate_phdr lookup, glibc's backtrace) finds the new FDEs for
   PCs in the new code.

   What changes: every FDE's range, every location advance of every CFA
   program (each row that held from old location L holds from the copy
   of the instruction at L), and every call-site entry of every LSDA.
   What stays: the CIEs' rules, the register rules of every row, the
   personality routine, the action, type and exception specification
   tables.  Every pointer in the output is written pc-relative, signed 4
   bytes (DW_EH_PE_pcrel | DW_EH_PE_sdata4, with DW_EH_PE_indirect where
   the original went through memory), whatever encoding the original
   used, so that the output needs no dynamic relocation; pointers keep
   their absolute targets (data such as DW.ref.__gxx_personality_v0 and
   the typeinfo slots stays where it was).  */

#ifndef PROFCOPY_EHFRAME_WRITE_H
#define PROFCOPY_EHFRAME_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "object.h"

/* How original code addresses map to the new code.  Each function gets
   CTX and an original address; all three must be non-decreasing in
   their argument over the code, and INSN (A) >= ENTRY (A),
   END (A) <= ENTRY (A) (END (A) is where the copy of whatever lies
   before A stops; ENTRY (A) may add counting code after that).  */
struct eh_map
{
  /* The new address of the copy of the instruction at OLD.  */
  uint32_t (*insn) (void *ctx, uint32_t old);
  /* Where control lands when it goes to OLD: the counting code placed
     before the copy when OLD starts a block.  Used for FDE starts and
     landing pads.  */
  uint32_t (*entry) (void *ctx, uint32_t old);
  /* The new address just past the copy of the last instruction before
     OLD_END (OLD_END may be the end of a section).  Used for FDE and
     call-site ends.  */
  uint32_t (*end) (void *ctx, uint32_t old_end);
  void *ctx;
};

/* Compute the sizes of the new .eh_frame (*EH_FRAME_SIZE, with its
   zero terminator), .eh_frame_hdr (*HDR_SIZE) and LSDA area
   (*LSDA_SIZE) of OBJ under the map M.  All three are 0 when OBJ has no
   .eh_frame.  The sizes do not depend on where the areas go, as long as
   each starts 4-byte aligned.  *CATCHES tells whether a call site of
   an LSDA has an action (a catch clause or an exception specification:
   C++ that catches, not only C's cleanups).  False with a malloc'd
   *ERRMSG when the original tables cannot be parsed or mapped.  */
bool eh_rewrite_size (const struct mips_object *obj, const struct eh_map *m,
		      size_t *eh_frame_size, size_t *hdr_size,
		      size_t *lsda_size, bool *catches, char **errmsg);

/* Write the three areas, in OBJ's byte order: the new .eh_frame to
   EH_FRAME_OUT, which will be at address EH_FRAME_VADDR; the new
   .eh_frame_hdr to HDR_OUT at HDR_VADDR; the new LSDAs to LSDA_OUT at
   LSDA_VADDR.  Each buffer must hold the size eh_rewrite_size gave for
   the same OBJ and M, and each address must be a multiple of 4.  False
   with a malloc'd *ERRMSG on failure.  */
bool eh_rewrite (const struct mips_object *obj, const struct eh_map *m,
		 uint32_t eh_frame_vaddr, unsigned char *eh_frame_out,
		 uint32_t hdr_vaddr, unsigned char *hdr_out,
		 uint32_t lsda_vaddr, unsigned char *lsda_out, char **errmsg);

/* Set *PADS to a malloc'd, sorted list of the *N_PADS distinct landing
   pads that OBJ's LSDAs name (original addresses).  The unwinder enters
   them from outside with the thrower's gp, so the analysis must treat
   each as a block start entered from outside (gp unknown).  */
bool eh_landing_pads (const struct mips_object *obj, uint32_t **pads,
		      size_t *n_pads, char **errmsg);

#endif /* PROFCOPY_EHFRAME_WRITE_H */
