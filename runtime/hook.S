/* hook.S -- the entry that profiled code calls before a system call
   that may end the process or replace its image.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   profcopy puts a call of this entry, through the syscall_hook word of
   the object's segment header (segment.h), before each system call
   whose number may be exit_group, execve, execveat, fork or clone: the
   syscall instruction then runs as it would have.  The call site saved
   ra and t9; this entry saves every other register that C code may
   change (at, v0, v1, a0-a3, t0-t8, gp, HI and LO), calls
   pcrt_syscall_hook (profile.c) with the system call's number and
   first three arguments, and restores them, so that the system call
   sees the registers the program set.  The runtime's C code uses no
   floating-point register.  */

#if defined __mips__ && _MIPS_SIM == _ABIO32

	.abicalls
	.option	pic2
	.set	noreorder
	.set	nomacro
	.set	noat
	.text

#define FRAME 96

	.hidden	pcrt_syscall_hook

	.align	2
	.globl	profcopy_syscall_hook
	.hidden	profcopy_syscall_hook
	.ent	profcopy_syscall_hook
	.type	profcopy_syscall_hook, @function
profcopy_syscall_hook:
	addiu	$sp, $sp, -FRAME
	sw	$1, 20($sp)
	sw	$2, 24($sp)
	sw	$3, 28($sp)
	sw	$4, 32($sp)
	sw	$5, 36($sp)
	sw	$6, 40($sp)
	sw	$7, 44($sp)
	sw	$8, 48($sp)
	sw	$9, 52($sp)
	sw	$10, 56($sp)
	sw	$11, 60($sp)
	sw	$12, 64($sp)
	sw	$13, 68($sp)
	sw	$14, 72($sp)
	sw	$15, 76($sp)
	sw	$24, 80($sp)
	sw	$28, 84($sp)
	sw	$31, 88($sp)
	mfhi	$8
	mflo	$9
	sw	$8, 16($sp)
	sw	$9, 92($sp)
	/* gp from t9, which holds this entry: _gp_disp is relative to
	   the lui, which is not the entry's first instruction.  */
.Lgp:	lui	$28, %hi(_gp_disp)
	addiu	$28, $28, %lo(_gp_disp)
	addu	$28, $28, $25
	addiu	$28, $28, .Lgp - profcopy_syscall_hook
	move	$7, $6
	move	$6, $5
	move	$5, $4
	move	$4, $2
	lw	$25, %got(pcrt_syscall_hook)($28)
	jalr	$25
	nop
	lw	$8, 16($sp)
	lw	$9, 92($sp)
	mthi	$8
	mtlo	$9
	lw	$1, 20($sp)
	lw	$2, 24($sp)
	lw	$3, 28($sp)
	lw	$4, 32($sp)
	lw	$5, 36($sp)
	lw	$6, 40($sp)
	lw	$7, 44($sp)
	lw	$8, 48($sp)
	lw	$9, 52($sp)
	lw	$10, 56($sp)
	lw	$11, 60($sp)
	lw	$12, 64($sp)
	lw	$13, 68($sp)
	lw	$14, 72($sp)
	lw	$15, 76($sp)
	lw	$24, 80($sp)
	lw	$28, 84($sp)
	lw	$31, 88($sp)
	jr	$31
	addiu	$sp, $sp, FRAME
	.end	profcopy_syscall_hook
	.size	profcopy_syscall_hook, .-profcopy_syscall_hook

#endif

	.section .note.GNU-stack,"",%progbits
