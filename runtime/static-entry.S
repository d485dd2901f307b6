/* static-entry.S -- the entry of a static executable's profiled copy.
   Part of libprofcopy-static.so.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   profcopy makes this the copy's entry point (e_entry) and writes the
   address where the program's own entry starts in the copy into the
   word at pcrt_static_entry + 8, the address and number of the
   original's program headers into the two after it, and the address
   of the ELF header in memory into the next.  The kernel starts the program with
   sp at argc and every other register zero, but for v0, which the
   program's entry may take for a function to register with atexit (a
   dynamic linker's, none here).  This entry calls pcrt_static_start
   (static.c) with the initial sp, then goes on with sp, v0, s0 and ra
   as the kernel left them.  */

#if defined __mips__ && _MIPS_SIM == _ABIO32

	.abicalls
	.option	pic2
	.set	noreorder
	.set	nomacro
	.set	noat
	.text

#define FRAME 32

	.hidden	pcrt_static_start

	.align	2
	.globl	pcrt_static_entry
	.hidden	pcrt_static_entry
	.ent	pcrt_static_entry
	.type	pcrt_static_entry, @function
pcrt_static_entry:
	b	1f
	nop
	/* pcrt_static_entry + 8: the copy of the program's entry; + 12
	   and + 16: the address and number of the original's program
	   headers (pcrt_static_start).  */
	.word	0
	.word	0
	.word	0
	.word	0
1:	addiu	$sp, $sp, -FRAME
	sw	$2, 16($sp)
	sw	$16, 20($sp)
	sw	$31, 24($sp)
	/* This entry's address into t9, then gp from it.  */
	bal	2f
	nop
2:	addiu	$25, $31, pcrt_static_entry - 2b
.Lgp:	lui	$28, %hi(_gp_disp)
	addiu	$28, $28, %lo(_gp_disp)
	addu	$28, $28, $25
	addiu	$28, $28, .Lgp - pcrt_static_entry
	move	$16, $25
	addiu	$4, $sp, FRAME
	lw	$5, 12($16)
	lw	$6, 16($16)
	lw	$7, 20($16)
	lw	$25, %got(pcrt_static_start)($28)
	jalr	$25
	nop
	lw	$25, 8($16)
	lw	$2, 16($sp)
	lw	$16, 20($sp)
	lw	$31, 24($sp)
	move	$28, $0
	jr	$25
	addiu	$sp, $sp, FRAME
	.end	pcrt_static_entry
	.size	pcrt_static_entry, .-pcrt_static_entry

#endif

	.section .note.GNU-stack,"",%progbits
