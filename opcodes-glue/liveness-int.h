/* liveness-int.h -- what the two files of the liveness analysis share
   (liveness.c: the blocks' transfers and one function's solution;
   liveness-narrow.c: the whole object's, with the callers that
   analysis knows).

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_LIVENESS_INT_H
#define PROFCOPY_LIVENESS_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "cfg.h"

#define R(r)		REG_BIT (r)
#define LIVE_ALL	((((uint64_t) 1 << (REG_LO + 1)) - 1) & ~R (REG_ZERO))
#define LIVE_CALLEE_SAVED	REGS_CALLEE_SAVED
#define LIVE_CALL_READS							\
  (R (4) | R (5) | R (6) | R (7) | R (REG_T9) | R (REG_GP) | R (REG_SP))
#define CALL_RESULTS	(R (REG_V0) | R (REG_V1))
/* The registers that no caller may keep a value in across a call to a
   function that writes them: all but the results and the ones a call
   preserves (REG_BIT numbering: 1 at, 4-7 a0-a3, 8-15 t0-t7, 24-25
   t8-t9, 31 ra, then hi and lo).  */
#define LIVE_CLOBBERED							\
  (R (1) | R (4) | R (5) | R (6) | R (7) | R (8) | R (9) | R (10)	\
   | R (11) | R (12) | R (13) | R (14) | R (15) | R (24) | R (25)	\
   | R (REG_RA) | R (REG_HI) | R (REG_LO))

/* The transfer function of one block, IN = (OUT & KEEP) | GEN, and how
   its OUT is found.  */
struct transfer
{
  uint64_t keep, gen;
  enum { OUT_SUCC, OUT_FIXED, OUT_TABLE, OUT_TAIL } out_kind;
  uint64_t out;			/* For OUT_FIXED.  */
  uint32_t tail;		/* For OUT_TAIL: the entry block entered.  */
};

/* The registers that the instructions of each block of CFG over CODE
   may write, malloc'd (NULL when out of memory).  */
uint64_t *live_block_writes (const struct code *code, const struct cfg *cfg);

/* Set WRITES[f] for every function f of CFG over CODE to what it may
   write when called, itself or through what it reaches (with
   BLOCK_WRITES and, when not NULL, OWN and ICALL_FUNC; see liveness.c).
   False on allocation failure.  */
bool live_set_writes (const struct code *code, const struct cfg *cfg,
		      const uint64_t *block_writes, const unsigned char *own,
		      const int32_t *icall_func, uint64_t *writes);

/* Set the may_write set of every function of CFG over CODE, whose
   blocks write BLOCK_WRITES.  False on allocation failure.  */
bool live_set_may_write (const struct code *code, struct cfg *cfg,
			 const uint64_t *block_writes);

/* Compute the transfer function T of the part of block B of CFG over
   CODE that starts at address FROM.  */
void live_block_transfer (const struct code *code, const struct cfg *cfg,
			  const struct block *b, uint32_t from,
			  struct transfer *t);

/* Iterate the blocks of function F of CFG to a fixpoint, with the
   transfers T; TABLES and TABLE_FROM, when not NULL, give the switch
   tables' edges, and edges into other functions then read what is
   live there.  Whether any set changed.  */
bool live_solve_function (struct cfg *cfg, const struct function *f,
			  const struct transfer *t,
			  const struct cfg_edge *tables,
			  const size_t *table_from);

#endif /* PROFCOPY_LIVENESS_INT_H */
