/* regflow.h -- follow the value of one register through the code.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The compiler schedules the instructions that use a loaded address
   wherever it likes: later in the block, in another block, or in a
   branch delay slot.  regflow_follow walks every path from the
   instruction that defines a register, through branches, delay slots
   (annulled ones included) and, for callee-saved registers, over calls,
   and collects every instruction that reads the register before it is
   written again.  The same walk follows a value spilled to the stack
   from the store to its reloads.  */

#ifndef PROFCOPY_REGFLOW_H
#define PROFCOPY_REGFLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "insn.h"

struct regflow
{
  const struct code *code;
  uint32_t *stamp;		/* Per word: the walk that last visited it.  */
  uint32_t generation;
  uint32_t *worklist;		/* Addresses still to visit.  */
  size_t n_work, alloc_work;
  const struct insn **uses;	/* The readers found by the last walk.  */
  size_t n_uses, alloc_uses;
  bool truncated;		/* The last walk hit the step limit.  */
  bool blind;			/* The last walk met an indirect jump while
				   no targets were known (JUMP_EDGES NULL).  */
  /* Known targets of indirect jumps (switch tables): pairs of (jr
     address, target) sorted by jr address, or NULL.  */
  const uint32_t (*jump_edges)[2];
  size_t n_jump_edges;
  /* Walks already made (the same register from the same instruction is
     often followed again): an open-addressed table of N_MEMO entries
     (a power of two) and the pool their readers are kept in.  */
  struct regflow_memo *memo;
  size_t n_memo, used_memo;
  const struct insn **pool;
  size_t n_pool, alloc_pool;
};

/* Prepare RF to walk CODE.  False on allocation failure.  */
bool regflow_init (struct regflow *rf, const struct code *code);

/* Give RF the targets of the indirect jumps, EDGES (N pairs; see
   struct regflow): the walks made without them that met an indirect
   jump are made again when asked for, the others are kept.  */
void regflow_set_jump_edges (struct regflow *rf,
			     const uint32_t (*edges)[2], size_t n);

void regflow_free (struct regflow *rf);

/* Collect in RF->uses every instruction that reads REG on some path
   from the instruction DEF (which sets REG) before REG is set again.
   A reader that also writes REG is collected and ends its path.  False
   on allocation failure.  */
bool regflow_follow (struct regflow *rf, const struct insn *def, unsigned reg);

/* Likewise, but a call ends the walk of every register that the o32
   ABI lets a callee change (regflow_follow lets all but v0 and v1
   live on, for callers that keep more across calls to functions they
   know, gcc's -fipa-ra): the readers that surely see DEF's value.  */
bool regflow_follow_abi (struct regflow *rf, const struct insn *def,
			 unsigned reg);

/* Likewise for the stack slot that the store STORE (`sw r,off(sp)`)
   writes: collect every reload `lw x,off(sp)` that can see the stored
   value, up to a store over the slot or a change of sp.  */
bool regflow_follow_slot (struct regflow *rf, const struct insn *store);

#endif /* PROFCOPY_REGFLOW_H */
