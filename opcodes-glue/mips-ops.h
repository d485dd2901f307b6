/* mips-ops.h -- the MIPS32 opcode and function numbers that profcopy
   tests and writes, and the encoders of its instruction formats.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   libopcodes decodes (decode.c); what profcopy matches in a decoded
   instruction's op and funct fields, and the words it writes, use these
   numbers, kept in this one place.  */

#ifndef PROFCOPY_MIPS_OPS_H
#define PROFCOPY_MIPS_OPS_H

#include <stdint.h>

/* The major opcode, bits 31..26.  */
#define OP_SPECIAL	0x00
#define OP_REGIMM	0x01
#define OP_J		0x02
#define OP_JAL		0x03
#define OP_BEQ		0x04
#define OP_BNE		0x05
#define OP_BLEZ		0x06
#define OP_BGTZ		0x07
#define OP_ADDIU	0x09
#define OP_SLTI		0x0a
#define OP_SLTIU	0x0b
#define OP_ANDI		0x0c
#define OP_ORI		0x0d
#define OP_LUI		0x0f
#define OP_COP1		0x11
#define OP_BEQL		0x14
#define OP_BNEL		0x15
#define OP_BLEZL	0x16
#define OP_BGTZL	0x17
#define OP_LB		0x20
#define OP_LH		0x21
#define OP_LW		0x23
#define OP_LBU		0x24
#define OP_LHU		0x25
#define OP_SB		0x28
#define OP_SH		0x29
#define OP_SWL		0x2a
#define OP_SW		0x2b
#define OP_SWR		0x2e
#define OP_LL		0x30
#define OP_SC		0x38

/* The rt field of OP_REGIMM.  */
#define REGIMM_BLTZ	0x00
#define REGIMM_BGEZ	0x01
#define REGIMM_BLTZL	0x02
#define REGIMM_BGEZL	0x03
#define REGIMM_BLTZAL	0x10
#define REGIMM_BGEZAL	0x11
#define REGIMM_BGEZALL	0x13

/* The rs field of OP_COP1 for its branches, bc1f and bc1t.  */
#define COP1_BC		0x08

/* The function field of OP_SPECIAL, bits 5..0.  */
#define FUNCT_SLL	0x00
#define FUNCT_SRL	0x02
#define FUNCT_JR	0x08
#define FUNCT_JALR	0x09
#define FUNCT_SYSCALL	0x0c
#define FUNCT_MFHI	0x10
#define FUNCT_MTHI	0x11
#define FUNCT_MFLO	0x12
#define FUNCT_MTLO	0x13
#define FUNCT_MULTU	0x19
#define FUNCT_ADDU	0x21
#define FUNCT_SUBU	0x23
#define FUNCT_AND	0x24
#define FUNCT_OR	0x25
#define FUNCT_SLT	0x2a
#define FUNCT_SLTU	0x2b
#define FUNCT_TGE	0x30	/* tge ... tne: conditional traps.  */
#define FUNCT_TNE	0x36

/* Whole words that profcopy matches or writes: the gp set-ups of
   o32 prologues (lui gp,IMM and addiu gp,gp,IMM under LUI_GP_MASK;
   addu gp,gp,t9 and addu gp,gp,ra), and the break that poisons a word
   of the original code.  */
#define LUI_GP_MASK	0xffff0000u
#define LUI_GP		0x3c1c0000u
#define ADDIU_GP_GP	0x279c0000u
#define ADDU_GP_GP_T9	0x0399e021u
#define ADDU_GP_GP_RA	0x039fe021u
#define BREAK_INSN	0x0000000du

/* Encode the I-type instruction OP with RS, RT and the low 16 bits of
   IMM.  */

static inline uint32_t
itype (unsigned op, unsigned rs, unsigned rt, uint32_t imm)
{
  return (op << 26) | (rs << 21) | (rt << 16) | (imm & 0xffff);
}

/* Encode the R-type instruction FUNCT with RS, RT, RD and shift SA.  */

static inline uint32_t
rtype (unsigned funct, unsigned rs, unsigned rt, unsigned rd, unsigned sa)
{
  return (rs << 21) | (rt << 16) | (rd << 11) | (sa << 6) | funct;
}

/* Named encoders of the instructions that profcopy's own code sequences
   (stubs, hooks, far jumps) are made of, in assembler operand order.  */

static inline uint32_t
enc_addu (unsigned rd, unsigned rs, unsigned rt)
{
  return rtype (FUNCT_ADDU, rs, rt, rd, 0);
}

static inline uint32_t
enc_and (unsigned rd, unsigned rs, unsigned rt)
{
  return rtype (FUNCT_AND, rs, rt, rd, 0);
}

static inline uint32_t
enc_sll (unsigned rd, unsigned rt, unsigned sa)
{
  return rtype (FUNCT_SLL, 0, rt, rd, sa);
}

/* `j TARGET', which reaches the 256 MiB region of its delay slot.  */

static inline uint32_t
enc_j (uint32_t target)
{
  return (uint32_t) OP_J << 26 | ((target >> 2) & 0x03ffffff);
}

static inline uint32_t
enc_jr (unsigned rs)
{
  return rtype (FUNCT_JR, rs, 0, 0, 0);
}

static inline uint32_t
enc_jalr (unsigned rd, unsigned rs)
{
  return rtype (FUNCT_JALR, rs, 0, rd, 0);
}

static inline uint32_t
enc_mfhi (unsigned rd)
{
  return rtype (FUNCT_MFHI, 0, 0, rd, 0);
}

static inline uint32_t
enc_mflo (unsigned rd)
{
  return rtype (FUNCT_MFLO, 0, 0, rd, 0);
}

static inline uint32_t
enc_mthi (unsigned rs)
{
  return rtype (FUNCT_MTHI, rs, 0, 0, 0);
}

static inline uint32_t
enc_mtlo (unsigned rs)
{
  return rtype (FUNCT_MTLO, rs, 0, 0, 0);
}

/* bal with the word offset OFF (from the delay slot).  */

static inline uint32_t
enc_bal (int32_t off)
{
  return itype (OP_REGIMM, 0, REGIMM_BGEZAL, (uint32_t) off);
}

static inline uint32_t
enc_andi (unsigned rt, unsigned rs, uint32_t imm)
{
  return itype (OP_ANDI, rs, rt, imm);
}

#endif /* PROFCOPY_MIPS_OPS_H */
