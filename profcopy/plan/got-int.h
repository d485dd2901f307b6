/* got-int.h -- what plan/got.c shares with plan/translate.c.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_PLAN_GOT_INT_H
#define PROFCOPY_PLAN_GOT_INT_H

#include "stages.h"

/* The blocks that lead into each block of a CFG, for got_on_all_paths:
   those whose branch, jump or fall goes there (FIRST[i] ... FIRST[i +
   1] - 1 in FROM), and whether anything else can enter it (OUTSIDE: a
   function entry, a code address of the relocation table, a landing
   pad).  */
struct preds
{
  uint32_t *first, *from;
  unsigned char *outside;
};

/* Free P's arrays.  */
void preds_free (struct preds *p);

/* Fill P for E's CFG.  False when out of memory.  */
bool preds_build (const struct emitter *e, struct preds *p);

/* What preds_all_paths asks of the blocks on the ways back.  */
enum path_verdict
{
  PATH_FAILS,			/* The property does not hold here.  */
  PATH_HOLDS,			/* It holds from here on.  */
  PATH_GOES_ON			/* Nothing decides it here: ask the block's
				   predecessors.  */
};

struct path_test
{
  /* Look at the words of block BI before address AT, the last first.  */
  enum path_verdict (*block) (const struct emitter *e, size_t bi,
			      uint32_t at, void *arg);
  /* Or NULL: whether the way back through the call block FROM is no
     way (the call never returns).  */
  bool (*no_way) (const struct emitter *e, const struct block *from,
		  void *arg);
  void *arg;
};

/* Whether TEST's property holds on every way control reaches address
   AT of block BI, following P back; at most *BUDGET blocks are looked
   at (got.c).  */
bool preds_all_paths (const struct emitter *e, const struct preds *p,
		      size_t bi, uint32_t at, const struct path_test *test,
		      int *budget);

/* The instruction that last writes REG before INSN runs, searching back
   through straight code and into a block that falls through to it;
   NULL if not found (got.c).  */
const struct insn *last_writer (const struct emitter *e,
				const struct insn *insn, unsigned reg);

/* A register that holds gp at the word AT of block B though it is not
   gp (LLVM's code), or 0 (got.c).  */
unsigned gp_holder_before (const struct emitter *e, const struct block *b,
			   uint32_t at);

#endif /* PROFCOPY_PLAN_GOT_INT_H */
