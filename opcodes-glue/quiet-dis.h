/* quiet-dis.h -- libopcodes' MIPS disassembler, asked only to classify.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_QUIET_DIS_H
#define PROFCOPY_QUIET_DIS_H

#include <stdbool.h>
#include <bfd.h>
#include <dis-asm.h>

/* Prepare INFO for libopcodes' MIPS disassembler of machine MACH in byte
   order BIG (ABFD may be NULL), with printers that print nothing: only
   what it sets in INFO (insn_info_valid, insn_type, branch_delay_insns,
   target) is wanted.  Return the disassembler, or NULL if libopcodes
   has none.  The caller points INFO's buffer at the words and frees
   INFO with disassemble_free_target.  */
disassembler_ftype code_quiet_disassembler (struct disassemble_info *info,
					    bool big, unsigned long mach,
					    bfd *abfd);

#endif /* PROFCOPY_QUIET_DIS_H */
