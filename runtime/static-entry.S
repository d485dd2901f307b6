/* static-entry.S -- the entry of a static executable's profiled copy.
   Part of libprofcopy-static.so.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   profcopy makes this the copy's entry point (e_entry) and fills the
   words after the first two instructions (profcopy/static-runtime.c;
   their offsets are include/static-entry.h's): where the program's own
   entry starts in the copy, the program header table to show the
   program and its number of entries, the ELF header in memory, this
   runtime's gp, the first of its local GOT entries to move and their
   number, the first of the copy's new GOT entries and their number (a
   static PIE's), the number of this runtime's
   words that hold addresses (R_MIPS_REL32) and their addresses.

   profcopy has moved the runtime's GOT entries and those words to where
   it placed the runtime.  A static PIE is loaded elsewhere, by its load
   bias: the gp the code computes less the gp as placed.  It moves its
   own local GOT entries but not the ones its copy has more, which its
   code uses from the start (the counters' addresses).  Before any C
   code runs, the entry adds the bias to the runtime's GOT entries and
   words and to the copy's new GOT entries, as a dynamic linker would;
   then it calls pcrt_static_start (static.c) with the initial sp, the
   table, its size, the header and the bias, and goes on to the
   program's entry with sp, v0, s0, s1 and ra as the kernel left them
   (every register zero but sp and v0, which the program's entry may
   take for a function to register with atexit: a dynamic linker's,
   none here).  */

#include "static-entry.h"

#if defined __mips__ && _MIPS_SIM == _ABIO32

	.abicalls
	.option	pic2
	.set	noreorder
	.set	nomacro
	.set	noat

	.text

#define FRAME 40

	.hidden	pcrt_static_start
	.align	2
	.globl	pcrt_static_entry
	.hidden	pcrt_static_entry
	.ent	pcrt_static_entry
	.type	pcrt_static_entry, @function
pcrt_static_entry:
	b	1f
	nop
	.space	STATIC_ENTRY_SIZE - 8
1:	addiu	$sp, $sp, -FRAME
	sw	$2, 20($sp)
	sw	$16, 24($sp)
	sw	$31, 28($sp)
	sw	$17, 32($sp)
	/* This entry's address into t9, then gp from it.  */
	bal	2f
	nop
2:	addiu	$25, $31, pcrt_static_entry - 2b
.Lgp:	lui	$28, %hi(_gp_disp)
	addiu	$28, $28, %lo(_gp_disp)
	addu	$28, $28, $25
	addiu	$28, $28, .Lgp - pcrt_static_entry
	move	$16, $25
	/* s1: the load bias.  */
	lw	$8, STATIC_GP($16)
	subu	$17, $28, $8
	beqz	$17, 5f
	nop
	/* The two runs of GOT entries: address as placed and number of
	   words each, this runtime's then the program's.  */
	addiu	$12, $16, STATIC_GOT
	addiu	$13, $16, STATIC_GOT + 16
3:	lw	$9, 0($12)
	lw	$10, 4($12)
	beqz	$10, 4f
	addu	$9, $9, $17
8:	lw	$11, 0($9)
	addu	$11, $11, $17
	sw	$11, 0($9)
	addiu	$10, $10, -1
	bnez	$10, 8b
	addiu	$9, $9, 4
4:	addiu	$12, $12, 8
	bne	$12, $13, 3b
	nop
	/* The words that hold addresses.  */
	lw	$9, STATIC_N_REL($16)
	beqz	$9, 5f
	addiu	$10, $16, STATIC_REL
6:	lw	$11, 0($10)
	addu	$11, $11, $17
	lw	$12, 0($11)
	addu	$12, $12, $17
	sw	$12, 0($11)
	addiu	$9, $9, -1
	bnez	$9, 6b
	addiu	$10, $10, 4
5:	addiu	$4, $sp, FRAME
	lw	$5, STATIC_PHDR($16)
	lw	$6, STATIC_PHNUM($16)
	lw	$7, STATIC_EHDR($16)
	sw	$17, 16($sp)
	lw	$25, %got(pcrt_static_start)($28)
	jalr	$25
	nop
	lw	$25, STATIC_NEXT_ENTRY($16)
	addu	$25, $25, $17
	lw	$2, 20($sp)
	lw	$16, 24($sp)
	lw	$31, 28($sp)
	lw	$17, 32($sp)
	move	$28, $0
	jr	$25
	addiu	$sp, $sp, FRAME
	.end	pcrt_static_entry
	.size	pcrt_static_entry, .-pcrt_static_entry

#endif

	.section .note.GNU-stack,"",%progbits
