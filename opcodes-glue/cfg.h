/* cfg.h -- functions, basic blocks and register liveness.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The caller gathers function entries and code addresses from every
   source it knows (symbols, FDEs, prologues, relocation table) and
   hands them to cfg_build, which adds the targets of direct calls,
   splits the code into functions and blocks, and computes liveness.  */

#ifndef PROFCOPY_CFG_H
#define PROFCOPY_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "insn.h"

/* Where a function entry was learned from (bit set).  */
#define FUNC_FROM_SYMTAB	0x01
#define FUNC_FROM_DYNSYM	0x02
#define FUNC_FROM_FDE		0x04
#define FUNC_FROM_PROLOGUE	0x08
#define FUNC_FROM_CALL		0x10	/* Target of a direct call.  */
#define FUNC_FROM_RELOC		0x20	/* A code address in data or GOT.  */
#define FUNC_FROM_ENTRY		0x40	/* e_entry, DT_INIT, DT_FINI.  */
#define FUNC_FROM_SECTION	0x80	/* Start of an executable section.  */

/* One address handed to cfg_build.  */
struct code_addr
{
  uint32_t addr;
  unsigned func_from;		/* FUNC_FROM_* if it starts a function, else 0
				   (a block leader only: jump table target...).  */
};

struct block
{
  uint32_t start, end;		/* [start, end), delay slot included.  */
  uint32_t func;		/* Index of its function.  */
  uint32_t n_succ;
  uint32_t succ[2];		/* Successor blocks (indices); see flags.  */
  unsigned flags;		/* BLOCK_F_*.  */
  uint64_t live_in, live_out;	/* GPR/HI/LO masks (REG_BIT).  */
};

#define BLOCK_F_FALLTHRU_EXIT	0x01	/* Falls off its section or into data.  */
#define BLOCK_F_INDIRECT	0x02	/* Ends in an indirect jump (non-return).  */
#define BLOCK_F_CALL		0x04	/* Ends in a call.  */
#define BLOCK_F_RETURN		0x08	/* Ends in jr ra.  */
#define BLOCK_F_INVALID		0x10	/* Contains an invalid word.  */
#define BLOCK_F_SLOT_ENTRY	0x20	/* A leader (branch target...) falls in
					   its delay slot; kept with its
					   branch, and the block's fallthrough
					   is a successor.  */
#define BLOCK_F_TABLE		0x40	/* Its indirect jump goes through a
					   switch table whose targets are
					   known (cfg_liveness_narrow).  */
#define BLOCK_F_PADDING		0x80	/* Alignment nops that nothing reaches
					   (set by profcopy's
					   emit_narrow_liveness): they fall
					   into the next function but never
					   run.  */
#define BLOCK_F_TAIL_CALL	0x100	/* Its jump through t9 enters a
					   function of this object at its
					   entry (cfg_liveness_narrow).  */

struct function
{
  uint32_t entry, end;		/* [entry, end): up to the next entry.  */
  unsigned from;		/* FUNC_FROM_* bits.  */
  const char *name;		/* Best symbol name, or NULL.  */
  uint32_t first_block, n_blocks; /* Its blocks: blocks[first_block...].  */
  uint64_t may_write;		/* Registers a call to it may write, through
				   the functions it calls too (REG_BIT);
				   set with liveness.  */
  uint64_t ret_live;		/* Registers live after its returns: all,
				   unless cfg_liveness_narrow knew better.  */
};

struct cfg
{
  struct function *funcs;	/* Sorted by entry.  */
  size_t n_funcs;
  struct block *blocks;		/* Sorted by start; every word of every
				   executable section is in exactly one.  */
  size_t n_blocks;

  /* Statistics of cfg_build.  N_SLOT_LEADERS counts the leaders that
     fell in a delay slot and were dropped to keep the slot with its
     branch; N_SLOT_SPLITS the function entries that fell in a delay slot
     and did split the slot from its branch.  */
  size_t n_slot_leaders, n_slot_splits;

  /* For cfg_block_at: PAGE_FIRST[p] is the first block that ends after
     PAGE_BASE + 64 p, for N_PAGES granules of 64 bytes.  */
  uint32_t page_base;
  uint32_t *page_first;
  size_t n_pages;
};

/* Build functions and blocks over CODE from the N_ADDRS addresses ADDRS
   (any order, duplicates allowed, addresses outside code ignored).
   NAME_OF, if not NULL, names a function entry (or returns NULL).
   Returns false with *ERRMSG on allocation failure.  The blocks' live
   sets are those of cfg_liveness or cfg_liveness_narrow, once called.  */
bool cfg_build (const struct code *code, const struct code_addr *addrs,
		size_t n_addrs,
		const char *(*name_of) (void *ctx, uint32_t addr), void *ctx,
		struct cfg *cfg, char **errmsg);

void cfg_free (struct cfg *cfg);

/* The block containing ADDR, or NULL.  */
const struct block *cfg_block_at (const struct cfg *cfg, uint32_t addr);

/* The index of the block that starts at ADDR, or -1.  */
long cfg_block_starting (const struct cfg *cfg, uint32_t addr);

/* The function containing ADDR, or NULL.  */
const struct function *cfg_function_at (const struct cfg *cfg, uint32_t addr);

/* Find the control instruction that ends BLOCK over CODE, and set *SLOT
   to its delay slot when the slot is in the block (else NULL).  Return
   NULL when the block just falls through.  Inline: every pass asks it
   of every block.  */

static inline const struct insn *
cfg_block_control (const struct code *code, const struct block *block,
		   const struct insn **slot)
{
  const struct insn *last = code_insn_at (code, block->end - 4);

  *slot = NULL;
  if (last == NULL)
    return NULL;
  if (block->end - block->start >= 8)
    {
      const struct insn *before = last - 1;
      if (before->kind != INSN_OTHER && before->kind != INSN_INVALID
	  && (before->flags & INSN_F_DELAY))
	{
	  *slot = last;
	  return before;
	}
    }
  return last->kind != INSN_OTHER && last->kind != INSN_INVALID ? last : NULL;
}

/* Compute live_in and live_out of every block of CFG over CODE, with
   everything live after every return.  False on allocation failure.  */
bool cfg_liveness (const struct code *code, struct cfg *cfg);

/* A block that enters a function: by a call (direct, or an indirect
   one whose target is known), which returns to the block's successor,
   or by a jump or branch from another function (a tail call), which
   returns where that function returns.  */
struct cfg_entrant
{
  uint32_t block;		/* Index of the block whose control enters.  */
  uint32_t func;		/* Index of the function entered.  */
};

/* An edge between blocks that the block table does not hold: the jump
   of block FROM through a switch table to block TO.  */
struct cfg_edge
{
  uint32_t from, to;
};

/* Compute liveness like cfg_liveness, with fewer registers live after the returns
   of the functions that NARROW marks (indexed by function): functions
   that only the N_IN blocks IN enter, apart from callers that follow
   the calling convention (through a function pointer, from another
   object).  After a return of such a function only these can be read:
   what is live where the calls of IN return, what is live after the
   returns of the functions whose jumps are in IN, the result registers
   v0 and v1, and the registers a call preserves (s0-s7, fp, sp, gp).
   The N_TABLES edges TABLES are the jumps through switch tables: a
   jump that cfg_mark_jumps marked BLOCK_F_TABLE has only its targets'
   registers live after it (not all of them).  The N_TAILS edges TAILS
   go from blocks that end in a jump through t9 (a tail call) to the
   entry blocks of the functions they enter: one marked
   BLOCK_F_TAIL_CALL has what is live at that entry live after it (not
   everything).  cfg_mark_jumps must have marked them with the same
   edges.  It writes the blocks' live sets and the functions' may_write
   and ret_live, nothing else of CFG.  False on allocation failure.  */
bool cfg_liveness_narrow (const struct code *code, struct cfg *cfg,
			  const unsigned char *narrow,
			  const struct cfg_entrant *in, size_t n_in,
			  const struct cfg_edge *tables, size_t n_tables,
			  const struct cfg_edge *tails, size_t n_tails);

/* Mark BLOCK_F_TABLE the blocks of CFG whose indirect jumps the
   N_TABLES switch-table edges TABLES all lead to blocks of the same
   function, and BLOCK_F_TAIL_CALL the origins of the N_TAILS edges
   TAILS that end in an indirect jump of no such table (a tail call
   through t9 into the entry of a function of the object), for
   cfg_liveness_narrow and the users of these flags.  False on
   allocation failure.  */
bool cfg_mark_jumps (struct cfg *cfg, const struct cfg_edge *tables,
		     size_t n_tables, const struct cfg_edge *tails,
		     size_t n_tails);

/* The registers that may be read once control is at ADDR, inside block
   B, before the instruction there runs (ADDR at most the address of
   B's control instruction, or B's end when it has none).  */
uint64_t cfg_live_at (const struct code *code, const struct cfg *cfg,
		      const struct block *b, uint32_t addr);

/* Format the GPRs of MASK as "v0,a0,s1,hi" into BUF of SIZE bytes.  */
void reg_mask_string (uint64_t mask, char *buf, size_t size);

/* The conventional name of GPR R ("zero", "at", "v0"...).  */
const char *reg_name (unsigned r);

#endif /* PROFCOPY_CFG_H */
