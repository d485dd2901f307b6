/* fields.c -- operand fields and register effects of MIPS32 words.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   insn_fields decodes one instruction word of the MIPS32 release 2
   ISA, as gcc emits it for o32 and as glibc's hand-written assembly
   uses it, into a struct insn: the raw fields, the immediate, the
   target of a direct branch or jump, the flags, and the registers the
   instruction reads and writes.  It also makes its own guess at the
   kind, which code_decode compares with libopcodes' classification.

   The register masks follow two rules that the later passes rely on:

   - READS is every register the instruction may read.  A register
     that an instruction keeps unless a condition holds (the destination
     of movz, movn, movf, movt; the target of lwl and lwr; HI and LO of
     madd) is read as well as written.

   - WRITES is every register the instruction certainly writes.  $zero
     never appears in either mask.  A syscall reads v0, a0-a3 and sp (the
     stack holds arguments five to eight) and is taken to write nothing,
     because the kernel keeps most registers for most calls.  mul leaves
     HI and LO unpredictable, which is not a certain write either.

   A word this decoder does not know gets kind INSN_INVALID and reads
   and writes every register, which is safe for every pass.  */

#include <config.h>

#include <string.h>

#include "insn.h"

/* Major opcodes (bits 31..26).  */
enum
{
  OP_SPECIAL = 0, OP_REGIMM = 1, OP_J = 2, OP_JAL = 3, OP_BEQ = 4,
  OP_BNE = 5, OP_BLEZ = 6, OP_BGTZ = 7, OP_ADDI = 8, OP_XORI = 14,
  OP_LUI = 15, OP_COP0 = 16, OP_COP1 = 17, OP_COP2 = 18, OP_COP1X = 19,
  OP_BEQL = 20, OP_BNEL = 21, OP_BLEZL = 22, OP_BGTZL = 23,
  OP_SPECIAL2 = 28, OP_JALX = 29, OP_SPECIAL3 = 31
};

/* The GPR bit of R, none for $zero.  */
#define GPR(r)		((r) == 0 ? (uint64_t) 0 : REG_BIT (r))
#define HILO		(REG_BIT (REG_HI) | REG_BIT (REG_LO))
#define ALL_REGS	(((uint64_t) 1 << (REG_FCSR + 1)) - 2)
#define ALL_FPRS	0xffffffffu

/* The FP register bit of single-precision register R, and the bits of
   the even/odd pair that holds a double in R (both halves, so that the
   mask is right whatever the FR mode).  */
#define FPR(r)		((uint32_t) 1 << ((r) & 31))
#define FPR_D(r)	(FPR ((r) & ~1u) | FPR ((r) | 1u))

/* The fields of WORD.  */
#define F_RS(w)		(((w) >> 21) & 31)
#define F_RT(w)		(((w) >> 16) & 31)
#define F_RD(w)		(((w) >> 11) & 31)
#define F_SA(w)		(((w) >> 6) & 31)
#define F_FUNCT(w)	((w) & 63)

/* Mark INSN as a word this decoder does not know.  */

static void
unknown (struct insn *insn)
{
  insn->kind = INSN_INVALID;
  insn->reads = insn->writes = ALL_REGS;
  insn->freads = insn->fwrites = ALL_FPRS;
  insn->flags &= ~(INSN_F_LOAD | INSN_F_STORE);
}

/* Make INSN a PC-relative branch of kind KIND; LIKELY says whether the
   delay slot is annulled when the branch is not taken.  */

static void
pcrel_branch (struct insn *insn, enum insn_kind kind, bool likely)
{
  insn->kind = kind;
  insn->flags |= INSN_F_DELAY | (likely ? INSN_F_LIKELY : 0);
  insn->target = insn->addr + 4 + ((uint32_t) insn->imm << 2);
}

/* Decode a SPECIAL (major opcode 0) word W into INSN.  */

static void
decode_special (uint32_t w, struct insn *insn)
{
  unsigned rs = F_RS (w), rt = F_RT (w), rd = F_RD (w), sa = F_SA (w);
  unsigned funct = F_FUNCT (w);

  switch (funct)
    {
    case 0:			/* sll (nop, ssnop, ehb) */
    case 3:			/* sra */
      if (rs != 0)
	goto bad;
      insn->reads = GPR (rt);
      insn->writes = GPR (rd);
      return;
    case 2:			/* srl, rotr */
      if (rs > 1)
	goto bad;
      insn->reads = GPR (rt);
      insn->writes = GPR (rd);
      return;
    case 1:			/* movf, movt */
      if ((rt & 2) != 0 || sa != 0)
	goto bad;
      insn->reads = GPR (rs) | GPR (rd) | REG_BIT (REG_FCSR);
      insn->writes = GPR (rd);
      return;
    case 4: case 7:		/* sllv, srav */
    case 6:			/* srlv, rotrv */
      if (sa > (funct == 6 ? 1u : 0u))
	goto bad;
      insn->reads = GPR (rs) | GPR (rt);
      insn->writes = GPR (rd);
      return;
    case 8:			/* jr, jr.hb */
      if (rt != 0 || rd != 0 || (sa & 15) != 0)
	goto bad;
      insn->kind = rs == REG_RA ? INSN_RETURN : INSN_IJUMP;
      insn->flags |= INSN_F_DELAY;
      insn->reads = GPR (rs);
      return;
    case 9:			/* jalr, jalr.hb */
      if (rt != 0 || (sa & 15) != 0)
	goto bad;
      insn->kind = INSN_ICALL;
      insn->flags |= INSN_F_DELAY;
      insn->reads = GPR (rs);
      insn->writes = GPR (rd);
      return;
    case 10: case 11:		/* movz, movn */
      if (sa != 0)
	goto bad;
      insn->reads = GPR (rs) | GPR (rt) | GPR (rd);
      insn->writes = GPR (rd);
      return;
    case 12:			/* syscall */
      insn->reads = (GPR (REG_V0) | GPR (4) | GPR (5) | GPR (6) | GPR (7)
		     | GPR (REG_SP));
      return;
    case 13:			/* break */
      insn->flags |= INSN_F_TRAP;
      return;
    case 15:			/* sync */
      if (rs != 0 || rt != 0 || rd != 0)
	goto bad;
      return;
    case 16: case 18:		/* mfhi, mflo */
      if (rs != 0 || rt != 0 || sa != 0)
	goto bad;
      insn->reads = REG_BIT (funct == 16 ? REG_HI : REG_LO);
      insn->writes = GPR (rd);
      return;
    case 17: case 19:		/* mthi, mtlo */
      if (rt != 0 || rd != 0 || sa != 0)
	goto bad;
      insn->reads = GPR (rs);
      insn->writes = REG_BIT (funct == 17 ? REG_HI : REG_LO);
      return;
    case 24: case 25: case 26: case 27: /* mult, multu, div, divu */
      if (rd != 0 || sa != 0)
	goto bad;
      insn->reads = GPR (rs) | GPR (rt);
      insn->writes = HILO;
      return;
    case 32: case 33: case 34: case 35: /* add, addu, sub, subu */
    case 36: case 37: case 38: case 39: /* and, or, xor, nor */
    case 42: case 43:		/* slt, sltu */
      if (sa != 0)
	goto bad;
      insn->reads = GPR (rs) | GPR (rt);
      insn->writes = GPR (rd);
      return;
    case 48: case 49: case 50: case 51: case 52: case 54: /* tge..tne */
      insn->reads = GPR (rs) | GPR (rt);
      insn->flags |= INSN_F_TRAP;
      return;
    default:
      break;
    }
 bad:
  unknown (insn);
}

/* Decode a REGIMM (major opcode 1) word W into INSN.  */

static void
decode_regimm (uint32_t w, struct insn *insn)
{
  unsigned rs = F_RS (w), rt = F_RT (w);

  insn->reads = GPR (rs);
  switch (rt)
    {
    case 0: case 2:		/* bltz, bltzl */
      pcrel_branch (insn, INSN_BRANCH, rt == 2);
      return;
    case 1:			/* bgez, b */
      pcrel_branch (insn, rs == 0 ? INSN_JUMP : INSN_BRANCH, false);
      return;
    case 3:			/* bgezl */
      pcrel_branch (insn, INSN_BRANCH, true);
      return;
    case 16: case 17: case 18: case 19: /* bltzal, bgezal (bal), ...l */
      pcrel_branch (insn, INSN_CALL, rt >= 18);
      if (!(rt == 17 && rs == 0))
	insn->flags |= INSN_F_COND;
      insn->writes = GPR (REG_RA);
      return;
    case 8: case 9: case 10: case 11: case 12: case 14: /* tgei..tnei */
      insn->flags |= INSN_F_TRAP;
      return;
    case 31:			/* synci */
      return;
    default:
      unknown (insn);
      return;
    }
}

/* Decode the COP1 arithmetic word W of format FMT (16 .s, 17 .d, 20 .w,
   21 .l) into INSN.  */

static void
decode_cop1_arith (uint32_t w, unsigned fmt, struct insn *insn)
{
  unsigned ft = F_RT (w), fs = F_RD (w), fd = F_SA (w), funct = F_FUNCT (w);
  bool src_double = fmt == 17 || fmt == 21;
  bool dst_double = src_double;
  bool unary = false, reads_fd = false;

  if (fmt == 20 || fmt == 21)
    {
      /* Only cvt.s.w, cvt.d.w, cvt.s.l and cvt.d.l exist.  */
      if (funct != 32 && funct != 33)
	goto bad;
    }
  if (funct <= 3)		/* add, sub, mul, div */
    ;
  else if (funct <= 15 || funct == 21 || funct == 22
	   || funct == 32 || funct == 33 || funct == 36 || funct == 37)
    {
      /* sqrt, abs, mov, neg, round/trunc/ceil/floor, recip, rsqrt, cvt.  */
      if (ft != 0 || (funct == 32 && fmt == 16) || (funct == 33 && fmt == 17))
	goto bad;
      unary = true;
      if ((funct >= 8 && funct <= 11) || funct == 37)
	dst_double = true;
      else if ((funct >= 12 && funct <= 15) || funct == 32 || funct == 36)
	dst_double = false;
      else if (funct == 33)
	dst_double = true;
    }
  else if (funct == 17)		/* movf.fmt, movt.fmt */
    {
      if ((ft & 2) != 0)
	goto bad;
      insn->reads |= REG_BIT (REG_FCSR);
      unary = reads_fd = true;
    }
  else if (funct == 18 || funct == 19) /* movz.fmt, movn.fmt */
    {
      insn->reads |= GPR (ft);
      unary = reads_fd = true;
    }
  else if (funct >= 48)		/* c.cond.fmt */
    {
      if ((fd & 3) != 0)
	goto bad;
      insn->reads |= REG_BIT (REG_FCSR);
      insn->writes |= REG_BIT (REG_FCSR);
      insn->freads = (src_double ? FPR_D (fs) | FPR_D (ft)
		      : FPR (fs) | FPR (ft));
      return;
    }
  else
    goto bad;

  insn->reads |= REG_BIT (REG_FCSR);
  insn->freads = src_double ? FPR_D (fs) : FPR (fs);
  if (!unary)
    insn->freads |= src_double ? FPR_D (ft) : FPR (ft);
  insn->fwrites = dst_double ? FPR_D (fd) : FPR (fd);
  if (reads_fd)
    insn->freads |= insn->fwrites;
  return;

 bad:
  unknown (insn);
}

/* Decode a COP1 (major opcode 17) word W into INSN.  */

static void
decode_cop1 (uint32_t w, struct insn *insn)
{
  unsigned fmt = F_RS (w), rt = F_RT (w), fs = F_RD (w);
  bool low_zero = (w & 0x7ff) == 0;

  switch (fmt)
    {
    case 0: case 3:		/* mfc1, mfhc1 */
      if (!low_zero)
	break;
      insn->freads = fmt == 3 ? FPR_D (fs) : FPR (fs);
      insn->writes = GPR (rt);
      return;
    case 2:			/* cfc1 */
      if (!low_zero)
	break;
      insn->reads = REG_BIT (REG_FCSR);
      insn->writes = GPR (rt);
      return;
    case 4:			/* mtc1 */
      if (!low_zero)
	break;
      insn->reads = GPR (rt);
      insn->fwrites = FPR (fs);
      return;
    case 6:			/* ctc1 */
      if (!low_zero)
	break;
      insn->reads = GPR (rt);
      insn->writes = REG_BIT (REG_FCSR);
      return;
    case 7:			/* mthc1 */
      if (!low_zero)
	break;
      insn->reads = GPR (rt);
      insn->freads = insn->fwrites = FPR_D (fs);
      return;
    case 8:			/* bc1f, bc1t, bc1fl, bc1tl */
      insn->reads = REG_BIT (REG_FCSR);
      pcrel_branch (insn, INSN_BRANCH, (rt & 2) != 0);
      return;
    case 16: case 17: case 20: case 21:
      decode_cop1_arith (w, fmt, insn);
      return;
    default:
      break;
    }
  unknown (insn);
}

/* Decode a COP1X (major opcode 19) word W into INSN.  */

static void
decode_cop1x (uint32_t w, struct insn *insn)
{
  unsigned base = F_RS (w), index = F_RT (w), fs = F_RD (w), fd = F_SA (w);
  unsigned funct = F_FUNCT (w);

  switch (funct)
    {
    case 0: case 1: case 5:	/* lwxc1, ldxc1, luxc1 */
      if (fs != 0)
	break;
      insn->flags |= INSN_F_LOAD;
      insn->reads = GPR (base) | GPR (index);
      insn->fwrites = funct == 0 ? FPR (fd) : FPR_D (fd);
      return;
    case 8: case 9: case 13:	/* swxc1, sdxc1, suxc1 */
      if (fd != 0)
	break;
      insn->flags |= INSN_F_STORE;
      insn->reads = GPR (base) | GPR (index);
      insn->freads = funct == 8 ? FPR (fs) : FPR_D (fs);
      return;
    case 15:			/* prefx */
      if (fd != 0)
	break;
      insn->reads = GPR (base) | GPR (index);
      return;
    case 32: case 40: case 48: case 56: /* madd.s, msub.s, nmadd.s, nmsub.s */
      insn->reads = REG_BIT (REG_FCSR);
      insn->freads = FPR (base) | FPR (index) | FPR (fs);
      insn->fwrites = FPR (fd);
      return;
    case 33: case 41: case 49: case 57: /* The same, .d.  */
      insn->reads = REG_BIT (REG_FCSR);
      insn->freads = FPR_D (base) | FPR_D (index) | FPR_D (fs);
      insn->fwrites = FPR_D (fd);
      return;
    default:
      break;
    }
  unknown (insn);
}

/* Decode a COP0 (16) or COP2 (18) word W into INSN.  */

static void
decode_cop0_cop2 (uint32_t w, struct insn *insn)
{
  unsigned op = w >> 26, rs = F_RS (w), rt = F_RT (w);

  if (rs >= 16)			/* Coprocessor operation: eret, wait...  */
    return;
  if (op == OP_COP0)
    switch (rs)
      {
      case 0:			/* mfc0 */
      case 11:			/* di, ei */
	insn->writes = GPR (rt);
	return;
      case 4:			/* mtc0 */
	insn->reads = GPR (rt);
	return;
      default:
	break;
      }
  else
    switch (rs)
      {
      case 0: case 2: case 3:	/* mfc2, cfc2, mfhc2 */
	insn->writes = GPR (rt);
	return;
      case 4: case 6: case 7:	/* mtc2, ctc2, mthc2 */
	insn->reads = GPR (rt);
	return;
      case 8:			/* bc2f, bc2t, bc2fl, bc2tl */
	pcrel_branch (insn, INSN_BRANCH, (rt & 2) != 0);
	return;
      default:
	break;
      }
  unknown (insn);
}

/* Decode a SPECIAL2 (28) word W into INSN.  */

static void
decode_special2 (uint32_t w, struct insn *insn)
{
  unsigned rs = F_RS (w), rt = F_RT (w), rd = F_RD (w), sa = F_SA (w);

  switch (F_FUNCT (w))
    {
    case 0: case 1: case 4: case 5: /* madd, maddu, msub, msubu */
      if (rd != 0 || sa != 0)
	break;
      insn->reads = GPR (rs) | GPR (rt) | HILO;
      insn->writes = HILO;
      return;
    case 2:			/* mul */
      if (sa != 0)
	break;
      insn->reads = GPR (rs) | GPR (rt);
      insn->writes = GPR (rd);
      return;
    case 32: case 33:		/* clz, clo */
      if (sa != 0)
	break;
      insn->reads = GPR (rs);
      insn->writes = GPR (rd);
      return;
    case 63:			/* sdbbp */
      insn->flags |= INSN_F_TRAP;
      return;
    default:
      break;
    }
  unknown (insn);
}

/* Decode a SPECIAL3 (31) word W into INSN.  */

static void
decode_special3 (uint32_t w, struct insn *insn)
{
  unsigned rs = F_RS (w), rt = F_RT (w), rd = F_RD (w), sa = F_SA (w);

  switch (F_FUNCT (w))
    {
    case 0:			/* ext */
      insn->reads = GPR (rs);
      insn->writes = GPR (rt);
      return;
    case 4:			/* ins */
      insn->reads = GPR (rs) | GPR (rt);
      insn->writes = GPR (rt);
      return;
    case 32:			/* wsbh, seb, seh */
      if (rs != 0 || (sa != 2 && sa != 16 && sa != 24))
	break;
      insn->reads = GPR (rt);
      insn->writes = GPR (rd);
      return;
    case 59:			/* rdhwr */
      if (rs != 0 || (sa & ~7u) != 0)
	break;
      insn->writes = GPR (rt);
      return;
    default:
      break;
    }
  unknown (insn);
}

/* Decode a load or store (major opcode 32..63) word W into INSN.  */

static void
decode_memory (uint32_t w, struct insn *insn)
{
  unsigned op = w >> 26, base = F_RS (w), rt = F_RT (w);

  insn->reads = GPR (base);
  switch (op)
    {
    case 32: case 33: case 35: case 36: case 37: /* lb lh lw lbu lhu */
    case 48:			/* ll */
      insn->flags |= INSN_F_LOAD;
      insn->writes = GPR (rt);
      return;
    case 34: case 38:		/* lwl, lwr */
      insn->flags |= INSN_F_LOAD;
      insn->reads |= GPR (rt);
      insn->writes = GPR (rt);
      return;
    case 40: case 41: case 42: case 43: case 46: /* sb sh swl sw swr */
      insn->flags |= INSN_F_STORE;
      insn->reads |= GPR (rt);
      return;
    case 56:			/* sc */
      insn->flags |= INSN_F_STORE;
      insn->reads |= GPR (rt);
      insn->writes = GPR (rt);
      return;
    case 47: case 51:		/* cache, pref */
      return;
    case 49: case 53:		/* lwc1, ldc1 */
      insn->flags |= INSN_F_LOAD;
      insn->fwrites = op == 49 ? FPR (rt) : FPR_D (rt);
      return;
    case 57: case 61:		/* swc1, sdc1 */
      insn->flags |= INSN_F_STORE;
      insn->freads = op == 57 ? FPR (rt) : FPR_D (rt);
      return;
    case 50: case 54:		/* lwc2, ldc2 */
      insn->flags |= INSN_F_LOAD;
      return;
    case 58: case 62:		/* swc2, sdc2 */
      insn->flags |= INSN_F_STORE;
      return;
    default:
      unknown (insn);
      return;
    }
}

/* Decode WORD, found at ADDR, into INSN.  Everything is filled in; KIND
   is this decoder's own guess, which code_decode replaces with
   libopcodes' classification.  The immediate is the low 16 bits
   sign-extended for every I-type instruction (including andi, ori and
   xori, whose users must take IMM & 0xffff) and 0 otherwise.  */

void
insn_fields (uint32_t word, uint32_t addr, struct insn *insn)
{
  unsigned op = word >> 26;

  memset (insn, 0, sizeof *insn);
  insn->addr = addr;
  insn->word = word;
  insn->op = op;
  insn->rs = F_RS (word);
  insn->rt = F_RT (word);
  insn->rd = F_RD (word);
  insn->kind = INSN_OTHER;
  if (op == OP_REGIMM || (op >= OP_BEQ && op <= OP_LUI)
      || (op >= OP_BEQL && op <= OP_BGTZL) || op >= 32
      || ((op == OP_COP1 || op == OP_COP2) && insn->rs == 8))
    insn->imm = (int16_t) (word & 0xffff);

  switch (op)
    {
    case OP_SPECIAL:
      decode_special (word, insn);
      break;
    case OP_REGIMM:
      decode_regimm (word, insn);
      break;
    case OP_J: case OP_JAL: case OP_JALX:
      insn->kind = op == OP_J ? INSN_JUMP : INSN_CALL;
      insn->flags |= INSN_F_DELAY;
      insn->target = ((addr + 4) & 0xf0000000u) | ((word & 0x03ffffffu) << 2);
      if (op != OP_J)
	insn->writes = GPR (REG_RA);
      break;
    case OP_BEQ: case OP_BNE: case OP_BEQL: case OP_BNEL:
      insn->reads = GPR (insn->rs) | GPR (insn->rt);
      pcrel_branch (insn,
		    (op == OP_BEQ && insn->rs == 0 && insn->rt == 0
		     ? INSN_JUMP : INSN_BRANCH),
		    op >= OP_BEQL);
      break;
    case OP_BLEZ: case OP_BGTZ: case OP_BLEZL: case OP_BGTZL:
      if (insn->rt != 0)
	unknown (insn);
      else
	{
	  insn->reads = GPR (insn->rs);
	  pcrel_branch (insn, INSN_BRANCH, op >= OP_BEQL);
	}
      break;
    case OP_LUI:
      if (insn->rs != 0)
	unknown (insn);
      else
	insn->writes = GPR (insn->rt);
      break;
    case OP_COP0: case OP_COP2:
      decode_cop0_cop2 (word, insn);
      break;
    case OP_COP1:
      decode_cop1 (word, insn);
      break;
    case OP_COP1X:
      decode_cop1x (word, insn);
      break;
    case OP_SPECIAL2:
      decode_special2 (word, insn);
      break;
    case OP_SPECIAL3:
      decode_special3 (word, insn);
      break;
    default:
      if (op >= OP_ADDI && op <= OP_XORI)
	{
	  /* addi, addiu, slti, sltiu, andi, ori, xori.  */
	  insn->reads = GPR (insn->rs);
	  insn->writes = GPR (insn->rt);
	}
      else if (op >= 32)
	decode_memory (word, insn);
      else
	unknown (insn);
      break;
    }
}
