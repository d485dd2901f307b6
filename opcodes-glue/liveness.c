/* liveness.c -- conservative register liveness per basic block.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The result chooses scratch registers for instrumentation, so it must
   never call a register dead when it could be read: every doubt makes
   a register live.  The registers are the GPRs (without $zero), HI and
   LO.  live_in and live_out of every block come from a backward
   dataflow to a fixpoint, separately within each function, by these
   rules:

   - An instruction makes live what it may read and dead what it
     certainly writes (see fields.c).  The delay slot runs after its
     branch and before the target.  The slot of a branch-likely runs
     only when the branch is taken, so its writes kill nothing.

   - Everything is live after a return (jr ra).  The o32 ABI would let
     the temporaries die there, but GCC's interprocedural register
     allocation (-fipa-ra, on at -O2) lets a caller keep values in t0-t9
     and the other temporaries across a call to a function of its own
     object that it knows leaves them alone.

   - A call (direct or indirect) returns to the block's successor, whose
     live_in is LIVE.  Just before control reaches the callee (after the
     slot), the live set is (LIVE minus v0, v1) plus the argument
     registers a0-a3, t9, gp and sp, plus the callee-saved s0-s7 and fp.
     A conditional call may not be taken, so it removes nothing.  The
     `bal 1f' that only reads the PC is an ordinary instruction writing
     ra, not a call.

   - Everything is live after an indirect jump that is not a return
     (jump tables and tail calls through t9), a jump to another function
     (a tail call) or out of the code, a block that contains an invalid
     word, a block that falls off its section, a block whose branch is
     separated from its slot, and any edge to a block of another
     function.

   - A branch into a delay slot (BLOCK_F_SLOT_ENTRY) makes its block
     kill nothing, so that live_in also covers the path that enters at
     the slot and falls through.  */

#include <config.h>

#include <stdlib.h>

#include "cfg-int.h"

#define R(r)		REG_BIT (r)
#define LIVE_ALL	((((uint64_t) 1 << (REG_LO + 1)) - 1) & ~R (REG_ZERO))
#define LIVE_CALLEE_SAVED						\
  (R (16) | R (17) | R (18) | R (19) | R (20) | R (21) | R (22) | R (23)	\
   | R (REG_FP))
#define LIVE_CALL_READS							\
  (R (4) | R (5) | R (6) | R (7) | R (REG_T9) | R (REG_GP) | R (REG_SP))
#define CALL_RESULTS	(R (REG_V0) | R (REG_V0 + 1))

/* The transfer function of one block, IN = (OUT & KEEP) | GEN, and how
   its OUT is found.  */
struct transfer
{
  uint64_t keep, gen;
  enum { OUT_SUCC, OUT_FIXED } out_kind;
  uint64_t out;			/* For OUT_FIXED.  */
};

/* Prepend the effect of INSN to T: going backward, INSN runs first.  If
   NO_KILL, INSN's writes are not certain (an annulled slot).  */

static void
prepend (struct transfer *t, const struct insn *insn, bool no_kill)
{
  uint64_t writes = no_kill ? 0 : insn->writes & LIVE_ALL;

  t->keep &= ~writes;
  t->gen = (t->gen & ~writes) | (insn->reads & LIVE_ALL);
}

/* Prepend a call's transfer to the callee and back to T.  COND says the
   call may not be taken.  */

static void
prepend_call (struct transfer *t, bool cond)
{
  uint64_t call_live = LIVE_CALL_READS | LIVE_CALLEE_SAVED;

  if (!cond)
    t->keep &= ~CALL_RESULTS;
  t->gen = (t->gen & (cond ? ~(uint64_t) 0 : ~CALL_RESULTS)) | call_live;
}

/* True if the target of CTL, the last control instruction of block B,
   is a successor of B inside B's function.  */

static bool
target_inside (const struct cfg *cfg, const struct block *b,
	       const struct insn *ctl)
{
  const struct block *t = cfg_block_at (cfg, ctl->target);

  return t != NULL && t->func == b->func;
}

/* Compute the transfer function T of the part of block B of CFG over
   CODE that starts at address FROM (B's start for the whole block; at
   most the address of B's control instruction).  */

static void
block_transfer (const struct code *code, const struct cfg *cfg,
		const struct block *b, uint32_t from, struct transfer *t)
{
  const struct insn *slot;
  const struct insn *ctl = cfg_block_control (code, b, &slot);
  uint32_t stop = b->end;

  t->keep = ~(uint64_t) 0;
  t->gen = 0;
  t->out_kind = OUT_SUCC;
  t->out = 0;

  if ((b->flags & (BLOCK_F_INVALID | BLOCK_F_INDIRECT))
      || (ctl != NULL && slot == NULL)
      || (!(b->flags & (BLOCK_F_RETURN | BLOCK_F_CALL)) && b->n_succ == 0)
      || (b->flags & BLOCK_F_FALLTHRU_EXIT))
    {
      t->out_kind = OUT_FIXED;
      t->out = LIVE_ALL;
    }
  else if (b->flags & BLOCK_F_RETURN)
    {
      t->out_kind = OUT_FIXED;
      t->out = LIVE_ALL;
    }
  else if (ctl != NULL && (ctl->kind == INSN_JUMP || ctl->kind == INSN_BRANCH)
	   && !target_inside (cfg, b, ctl))
    {
      t->out_kind = OUT_FIXED;
      t->out = LIVE_ALL;
    }

  if (ctl != NULL && slot != NULL)
    {
      bool is_call = ((ctl->kind == INSN_CALL
		       && ctl->target != ctl->addr + 8)
		      || ctl->kind == INSN_ICALL);

      if (is_call)
	prepend_call (t, (ctl->flags & INSN_F_COND) != 0);
      prepend (t, slot, (ctl->flags & INSN_F_LIKELY) != 0);
      prepend (t, ctl, false);
      stop = ctl->addr;
    }
  for (uint32_t a = stop; a > from; a -= 4)
    {
      const struct insn *insn = code_insn_at (code, a - 4);

      /* A control transfer inside a block only comes from a branch in a
	 delay slot, which is UNPREDICTABLE: give up on the block.  */
      if (insn_kind_is_control (insn->kind))
	{
	  t->keep = 0;
	  t->gen = LIVE_ALL;
	}
      prepend (t, insn, false);
    }

  /* A branch into the delay slot runs the slot and falls through: the
     block's live_in must cover that path too, so nothing is killed.  */
  if ((b->flags & BLOCK_F_SLOT_ENTRY) && from == b->start)
    t->keep = ~(uint64_t) 0;
}

/* Iterate the blocks of function F of CFG to a fixpoint, with the
   transfer functions T (indexed by block).  */

static void
solve_function (struct cfg *cfg, const struct function *f,
		const struct transfer *t)
{
  bool changed = true;

  while (changed)
    {
      changed = false;
      for (uint32_t k = f->n_blocks; k-- > 0;)
	{
	  uint32_t i = f->first_block + k;
	  struct block *b = &cfg->blocks[i];
	  uint64_t out = t[i].out;
	  uint64_t in;

	  if (t[i].out_kind == OUT_SUCC)
	    for (uint32_t s = 0; s < b->n_succ; s++)
	      {
		const struct block *succ = &cfg->blocks[b->succ[s]];

		out |= succ->func == b->func ? succ->live_in : LIVE_ALL;
	      }
	  in = (out & t[i].keep) | t[i].gen;
	  if (out != b->live_out || in != b->live_in)
	    {
	      b->live_out = out;
	      b->live_in = in;
	      changed = true;
	    }
	}
    }
}

/* Compute live_in and live_out of every block of CFG over CODE.  False
   on allocation failure.  */

bool
cfg_liveness (const struct code *code, struct cfg *cfg)
{
  struct transfer *t = calloc (cfg->n_blocks + 1, sizeof *t);

  if (t == NULL)
    return false;
  for (size_t i = 0; i < cfg->n_blocks; i++)
    {
      block_transfer (code, cfg, &cfg->blocks[i], cfg->blocks[i].start,
		      &t[i]);
      cfg->blocks[i].live_in = cfg->blocks[i].live_out = 0;
    }
  for (size_t f = 0; f < cfg->n_funcs; f++)
    solve_function (cfg, &cfg->funcs[f], t);
  free (t);
  return true;
}

/* The registers that may be read after control reaches ADDR, an
   address inside block B of CFG over CODE, before the instruction there
   runs.  ADDR may be B's end for a block without a control transfer;
   inside a block ending in a branch it must not be past the branch.
   Only meaningful after cfg_liveness.  */

uint64_t
cfg_live_at (const struct code *code, const struct cfg *cfg,
	     const struct block *b, uint32_t addr)
{
  struct transfer t;
  uint64_t out;

  if (addr <= b->start)
    return b->live_in;
  block_transfer (code, cfg, b, addr, &t);
  out = t.out_kind == OUT_FIXED ? t.out : b->live_out;
  if (t.out_kind == OUT_SUCC)
    out |= b->live_out;
  return ((out & t.keep) | t.gen) | (addr == b->start ? b->live_in : 0);
}
