/* insn.h -- compact records of decoded MIPS instructions.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   Every word of every executable section is decoded once into a
   struct insn.  The kind of the instruction (branch, call, return...)
   comes from libopcodes through dis-asm.h; the operand fields and the
   registers read and written come from the instruction word.  Every
   later pass works on these records, never on raw bytes.  */

#ifndef PROFCOPY_INSN_H
#define PROFCOPY_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mips_object;
struct object_section;

enum insn_kind
{
  INSN_OTHER,			/* Falls through to the next word.  */
  INSN_BRANCH,			/* Conditional PC-relative branch.  */
  INSN_JUMP,			/* Unconditional direct jump: j, b.  */
  INSN_CALL,			/* Direct call: jal, bal, bgezal...  */
  INSN_IJUMP,			/* Indirect jump: jr rs, rs != ra.  */
  INSN_ICALL,			/* Indirect call: jalr.  */
  INSN_RETURN,			/* jr ra.  */
  INSN_INVALID			/* Not an instruction (data, padding).  */
};

/* Flags of struct insn.  */
#define INSN_F_DELAY	0x01	/* Followed by a delay slot.  */
#define INSN_F_LIKELY	0x02	/* Branch-likely: slot annulled if not taken.  */
#define INSN_F_COND	0x04	/* A conditional call (bltzal, bgezal).  */
#define INSN_F_LOAD	0x08	/* Reads memory.  */
#define INSN_F_STORE	0x10	/* Writes memory.  */
#define INSN_F_TRAP	0x20	/* break, trap, or sdbbp: may not fall through.  */
#define INSN_F_SLOT	0x40	/* This word sits in a delay slot.  */

/* Register numbers in the read/write masks.  0..31 are the GPRs.  */
#define REG_HI		32
#define REG_LO		33
#define REG_FCSR	34	/* FP condition codes and control.  */
#define REG_BIT(r)	((uint64_t) 1 << (r))

/* GPR numbers used by name.  */
#define REG_ZERO 0
#define REG_AT	1
#define REG_V0	2
#define REG_V1	3
#define REG_A0	4
#define REG_S0	16
#define REG_S7	23
#define REG_T9	25
#define REG_GP	28
#define REG_SP	29
#define REG_FP	30
#define REG_RA	31

/* The registers that a function keeps for its caller (o32: s0-s7 and
   s8/fp); a compiler keeps values in them across calls.  */
#define REGS_CALLEE_SAVED						\
  (REG_BIT (16) | REG_BIT (17) | REG_BIT (18) | REG_BIT (19)		\
   | REG_BIT (20) | REG_BIT (21) | REG_BIT (22) | REG_BIT (REG_S7)	\
   | REG_BIT (REG_FP))

struct insn
{
  uint64_t reads, writes;	/* GPR/HI/LO/FCSR masks (REG_BIT).  */
  uint32_t addr;		/* Link-time address of the word.  */
  uint32_t word;		/* The instruction word, host order.  */
  uint32_t target;		/* Target of a direct branch, jump or call.  */
  uint32_t freads, fwrites;	/* FP register masks.  */
  int32_t imm;			/* Sign-extended 16-bit immediate, if any.  */
  uint8_t kind;			/* enum insn_kind.  */
  uint8_t flags;		/* INSN_F_*.  */
  uint8_t op;			/* Major opcode, bits 31..26.  */
  uint8_t rs, rt, rd;		/* Raw register fields.  */
};

/* The decoded words of one executable section.  */
struct insn_section
{
  const struct object_section *section;
  uint32_t start, end;		/* [start, end) addresses.  */
  struct insn *insns;		/* (end - start) / 4 records.  */
  size_t n_insns;
  size_t base;			/* The code word index (code_word_index)
				   of its first word.  */
};

/* All executable sections of an object, sorted by address.  */
struct code
{
  struct insn_section *sections;
  size_t n_sections;
  size_t n_words;		/* Words of all of them.  */

  /* Statistics of code_decode: how often libopcodes was asked (the rest
     came from its memo), and how often it disagreed with the word's own
     fields: about the target of a direct branch, about the kind of a
     valid instruction, and about whether the word is an instruction at
     all.  libopcodes' kind is kept in every case.  */
  size_t n_opcodes_calls;
  size_t n_target_mismatch, n_kind_mismatch, n_valid_mismatch;
};

/* Decode every executable section of OBJ into *CODE.  On failure return
   false with a malloc'd reason in *ERRMSG.  */
bool code_decode (const struct mips_object *obj, struct code *code,
		  char **errmsg);

/* Take the words [START, END) out of CODE (they stop being code words
   for code_insn_at and code_word_index); a range inside a section
   splits it.  False when out of memory or when the range is not
   word-aligned and inside one section (CODE is unchanged then).  */
bool code_exclude (struct code *code, uint32_t start, uint32_t end);

void code_free (struct code *code);

/* The record for ADDR, or NULL when ADDR is not a word of an executable
   section.  */
const struct insn *code_insn_at_search (const struct code *code,
					uint32_t addr);

/* The record of the word at ADDR in CODE, or NULL when ADDR is not a
   word of an executable section.  Inline: analysis asks millions of
   times, mostly of the first section.  */

static inline const struct insn *
code_insn_at (const struct code *code, uint32_t addr)
{
  if (code->n_sections > 0 && addr >= code->sections[0].start
      && addr < code->sections[0].end && addr % 4 == 0)
    return &code->sections[0].insns[(addr - code->sections[0].start) / 4];
  return code_insn_at_search (code, addr);
}

/* The section of CODE that holds the word at ADDR, or NULL when ADDR
   is not a word of an executable section: the one search behind
   code_insn_at and code_word_index.  Code sections are few (.text,
   .init, .fini, .MIPS.stubs; an island splits one).  */

static inline const struct insn_section *
code_section_at (const struct code *code, uint32_t addr)
{
  if (addr & 3)
    return NULL;
  for (size_t i = 0; i < code->n_sections; i++)
    {
      const struct insn_section *s = &code->sections[i];
      if (addr >= s->start && addr < s->end)
	return s;
    }
  return NULL;
}

/* The index of the code word at ADDR among all the words of CODE's
   sections in order (those before it in earlier sections, then its
   own), or -1 when ADDR is not a code word: what the per-word arrays of
   analysis, planning and emission are indexed by.  */

static inline long
code_word_index (const struct code *code, uint32_t addr)
{
  const struct insn_section *s = code_section_at (code, addr);

  return s != NULL ? (long) (s->base + (addr - s->start) / 4) : -1;
}

/* True if INSN traps whatever the registers hold: break, sdbbp, and a
   trap on a condition that compares a register with itself and holds
   (GCC's __builtin_trap is `teq $0,$0'); not the other traps.
   Control never reaches the next word: a handler that returns runs
   the trap again.  */

static inline bool
insn_always_traps (const struct insn *insn)
{
  unsigned funct = insn->word & 0x3f;

  if ((insn->flags & INSN_F_TRAP) == 0 || insn->op == 0x01)
    return false;		/* REGIMM: tgei..tnei.  */
  if (insn->op != 0x00 || funct < 0x30 || funct > 0x36)
    return true;		/* break, sdbbp.  */
  /* SPECIAL's tge, tgeu and teq (0x30, 0x31, 0x34) hold when rs is
     rt.  */
  return insn->rs == insn->rt
	 && (funct == 0x30 || funct == 0x31 || funct == 0x34);
}

/* Decode one word (used by code_decode and by tests): fill everything but
   the libopcodes classification, which code_decode adds.  */
void insn_fields (uint32_t word, uint32_t addr, struct insn *insn);

/* A short name for KIND ("branch", "call"...).  */
const char *insn_kind_name (enum insn_kind kind);

#endif /* PROFCOPY_INSN_H */
