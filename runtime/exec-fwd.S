/* exec-fwd.S -- the exec functions that libprofcopy.so exports.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   Each jumps, with the caller's arguments, return address and stack
   as they are (the list forms' variable arguments included), to
   libc's definition when exec.c found one (pcrt_real_exec: libc is
   profiled and its system call writes the profile), else to exec.c's
   own, which writes the profile itself.  The first call of any of
   them has exec.c look for libc's (pcrt_exec_resolve), its arguments
   kept meanwhile: a process that never execs does not pay for the
   search.  The callee computes its gp from t9, as every o32 function
   called through a register does.  */

#if defined __mips__ && _MIPS_SIM == _ABIO32

	.abicalls
	.option	pic2
	.set	noreorder
	.set	nomacro
	.set	noat
	.text

	.hidden	pcrt_real_exec
	.hidden	pcrt_exec_resolve

#define FORWARD(name, index)					\
	.hidden	pcrt_own_##name;				\
	.align	2;						\
	.globl	name;						\
	.ent	name;						\
	.type	name, @function;				\
name:								\
	lui	$28, %hi(_gp_disp);				\
	addiu	$28, $28, %lo(_gp_disp);			\
	addu	$28, $28, $25;					\
	lw	$1, %got(pcrt_real_exec)($28);			\
	lw	$25, 4 * index($1);				\
	beq	$25, $0, 1f;					\
	nop;							\
	jr	$25;						\
	nop;							\
1:	addiu	$sp, $sp, -40;					\
	sw	$31, 36($sp);					\
	sw	$7, 32($sp);					\
	sw	$6, 28($sp);					\
	sw	$5, 24($sp);					\
	sw	$4, 20($sp);					\
	sw	$28, 16($sp);					\
	lw	$25, %got(pcrt_exec_resolve)($28);		\
	jalr	$25;						\
	nop;							\
	lw	$28, 16($sp);					\
	lw	$4, 20($sp);					\
	lw	$5, 24($sp);					\
	lw	$6, 28($sp);					\
	lw	$7, 32($sp);					\
	lw	$31, 36($sp);					\
	addiu	$sp, $sp, 40;					\
	lw	$1, %got(pcrt_real_exec)($28);			\
	lw	$25, 4 * index($1);				\
	beq	$25, $0, 2f;					\
	nop;							\
	jr	$25;						\
	nop;							\
2:	lw	$25, %got(pcrt_own_##name)($28);		\
	jr	$25;						\
	nop;							\
	.end	name;						\
	.size	name, .-name

FORWARD (execve, 0)
FORWARD (execv, 1)
FORWARD (execvpe, 2)
FORWARD (execvp, 3)
FORWARD (fexecve, 4)
FORWARD (execl, 5)
FORWARD (execlp, 6)
FORWARD (execle, 7)

#endif

	.section .note.GNU-stack,"",%progbits
