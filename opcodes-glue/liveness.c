/* liveness.c -- conservative register liveness per basic block.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The result chooses scratch registers for instrumentation, so it must
   never call a register dead when it could be read: every doubt makes
   a register live.  The rules of the dataflow (returns, calls, indirect
   jumps, branch-likely slots, -fipa-ra) are in doc/internals.md,
   "Register liveness".  */

#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "cfg-int.h"
#include "liveness-int.h"

/* Prepend the effect of INSN to T: going backward, INSN runs first.  If
   NO_KILL, INSN's writes are not certain (an annulled slot).  */

static void
prepend (struct transfer *t, const struct insn *insn, bool no_kill)
{
  uint64_t writes = no_kill ? 0 : insn->writes & LIVE_ALL;

  t->keep &= ~writes;
  t->gen = (t->gen & ~writes) | (insn->reads & LIVE_ALL);
}

/* Prepend a call's transfer to the callee and back to T.  KILL is the
   set of result registers that the call certainly writes.  */

static void
prepend_call (struct transfer *t, uint64_t kill)
{
  t->keep &= ~kill;
  t->gen = (t->gen & ~kill) | LIVE_CALL_READS | LIVE_CALLEE_SAVED;
}

/* The index of the function of CFG that starts at ADDR, or -1.  */

static long
function_entered_at (const struct cfg *cfg, uint32_t addr)
{
  const struct function *f = cfg_function_at (cfg, addr);

  return f != NULL && f->entry == addr ? f - cfg->funcs : -1;
}

/* The calls and jumps between functions: function I reaches
   to[from[I]] ... to[from[I + 1] - 1] (duplicates allowed).  */
struct reach
{
  uint32_t *from;
  uint32_t *to;
  size_t n, max;
};

/* Record in R that the current function reaches function G.  */

static bool
reach_add (struct reach *r, uint32_t g)
{
  if (r->n == r->max)
    {
      size_t n = r->max ? 2 * r->max : 1024;
      uint32_t *p = realloc (r->to, n * sizeof *p);

      if (p == NULL)
	return false;
      r->to = p;
      r->max = n;
    }
  r->to[r->n++] = g;
  return true;
}

/* The registers that the instructions of each block of CFG over CODE
   may write, malloc'd (NULL when out of memory).  */

uint64_t *
live_block_writes (const struct code *code, const struct cfg *cfg)
{
  uint64_t *bw = malloc ((cfg->n_blocks + 1) * sizeof *bw);

  for (size_t i = 0; bw != NULL && i < cfg->n_blocks; i++)
    {
      const struct block *b = &cfg->blocks[i];
      bw[i] = 0;
      for (uint32_t a = b->start; a < b->end; a += 4)
	{
	  const struct insn *insn = code_insn_at (code, a);

	  bw[i] |= insn->writes & LIVE_ALL;
	  /* The kernel may write v0, v1 and a3, which the record of a
	     syscall leaves out (they are not certain writes).  */
	  if (insn->op == 0 && (insn->word & 0x3f) == 12)
	    bw[i] |= CALL_RESULTS | R (7);
	}
    }
  return bw;
}

/* Set *MW to the registers that function F of CFG over CODE may write
   by its own instructions (BLOCK_WRITES, per block), or to everything when it may reach code
   whose writes are unknown, and record in R the other functions that it
   calls, jumps or falls to: an over-approximation.  With OWN (per
   block: reached from its function's entry), to the registers that
   its compiler knows it writes instead, an under-approximation of what
   GCC's -fipa-ra takes a call to it to clobber: those that the
   instructions of the blocks OWN marks write, all that a call or a
   tail call through a register may write, and, in R, what the
   functions it calls or jumps to at their entries write; not what
   jumps into the middle of other code, the code after a call that
   does not return, or after a trap, which only the CFG falls into, or
   the code of a function that nothing announced and the CFG took for
   part of this one.  With OWN, ICALL_FUNC (per block, or NULL) gives
   the function that a block's call through a register is known to
   enter, or -1: such a call counts as a direct call of that function,
   any other as writing nothing but ra.  GCC may have known the target
   of a call through t9 that the relocations do not show (a recursive
   call whose t9 went through the stack), and then takes the call to
   clobber only what that function writes: a caller of this function
   may keep a temporary across.  False on allocation failure.  */

static bool
function_writes (const struct code *code, const struct cfg *cfg,
		 const struct function *f, const uint64_t *block_writes,
		 const unsigned char *own, const int32_t *icall_func,
		 uint64_t *mw, struct reach *r)
{
  *mw = 0;
  for (uint32_t k = 0; k < f->n_blocks; k++)
    {
      const struct block *b = &cfg->blocks[f->first_block + k];
      const struct insn *slot;
      const struct insn *ctl = cfg_block_control (code, b, &slot);
      long g;

      if (own != NULL && !own[f->first_block + k])
	continue;
      *mw |= block_writes[f->first_block + k];
      if ((b->flags & (BLOCK_F_INVALID | BLOCK_F_FALLTHRU_EXIT)) && !own)
	*mw = LIVE_ALL;
      for (uint32_t s = 0; own == NULL && s < b->n_succ; s++)
	if (cfg->blocks[b->succ[s]].func != b->func
	    && !reach_add (r, cfg->blocks[b->succ[s]].func))
	  return false;
      if (ctl == NULL)
	continue;
      switch (ctl->kind)
	{
	case INSN_ICALL:
	  g = (own != NULL && icall_func != NULL
	       ? icall_func[f->first_block + k] : -1);
	  if (g < 0 && own == NULL)
	    *mw = LIVE_ALL;
	  else if (g >= 0 && &cfg->funcs[g] != f
		   && !reach_add (r, (uint32_t) g))
	    return false;
	  break;
	case INSN_IJUMP:
	  /* A tail call goes through t9; a jump table stays inside.  */
	  if (ctl->rs == REG_T9)
	    *mw = LIVE_ALL;
	  break;
	case INSN_CALL:
	case INSN_JUMP:
	case INSN_BRANCH:
	  if ((ctl->kind == INSN_CALL && ctl->target == ctl->addr + 8)
	      || cfg_function_at (cfg, ctl->target) == f)
	    break;
	  g = function_entered_at (cfg, ctl->target);
	  if (g < 0 && own == NULL)
	    *mw = LIVE_ALL;
	  else if (g >= 0 && !reach_add (r, (uint32_t) g))
	    return false;
	  break;
	default:
	  break;
	}
    }
  return true;
}

/* Set WRITES[f] for every function f of CFG over CODE to what it may
   write (function_writes, with BLOCK_WRITES and, when not NULL, OWN
   and ICALL_FUNC) when called, itself or through what it reaches.
   False on allocation failure.  */

bool
live_set_writes (const struct code *code, const struct cfg *cfg,
		 const uint64_t *block_writes, const unsigned char *own,
		 const int32_t *icall_func, uint64_t *writes)
{
  struct reach r = { NULL, NULL, 0, 0 };
  bool changed = true;
  bool ok = false;

  r.from = calloc (cfg->n_funcs + 1, sizeof *r.from);
  if (r.from == NULL)
    goto done;
  for (size_t i = 0; i < cfg->n_funcs; i++)
    {
      r.from[i] = (uint32_t) r.n;
      if (!function_writes (code, cfg, &cfg->funcs[i], block_writes, own,
			    icall_func, &writes[i], &r))
	goto done;
    }
  r.from[cfg->n_funcs] = (uint32_t) r.n;
  while (changed)
    {
      changed = false;
      for (size_t i = 0; i < cfg->n_funcs; i++)
	for (uint32_t e = r.from[i]; e < r.from[i + 1]; e++)
	  if ((writes[i] | writes[r.to[e]]) != writes[i])
	    {
	      writes[i] |= writes[r.to[e]];
	      changed = true;
	    }
    }
  ok = true;

 done:
  free (r.from);
  free (r.to);
  return ok;
}

/* Set the may_write set of every function of CFG over CODE, whose
   blocks write BLOCK_WRITES.  False on allocation failure.  */

bool
live_set_may_write (const struct code *code, struct cfg *cfg,
		    const uint64_t *block_writes)
{
  uint64_t *writes = malloc ((cfg->n_funcs + 1) * sizeof *writes);
  bool ok = writes != NULL && live_set_writes (code, cfg, block_writes, NULL,
					       NULL, writes);

  for (size_t i = 0; ok && i < cfg->n_funcs; i++)
    cfg->funcs[i].may_write = writes[i];
  free (writes);
  return ok;
}

/* The result registers that the call CTL of CFG certainly writes.  */

static uint64_t
call_kills (const struct cfg *cfg, const struct insn *ctl)
{
  long g;

  if (ctl->flags & INSN_F_COND)
    return 0;
  if (ctl->kind != INSN_CALL)
    return CALL_RESULTS;
  g = function_entered_at (cfg, ctl->target);
  return g < 0 ? CALL_RESULTS : cfg->funcs[g].may_write & CALL_RESULTS;
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

/* True if block B of CFG over CODE is padding after its function's
   last instruction: only nops, falling into the next function.  GCC
   ends a function with a call that does not return (abort,
   __stack_chk_fail) and the linker pads to the next function, so no
   run of the program goes on from there: nothing is live.  */

static bool
padding_into_next (const struct code *code, const struct cfg *cfg,
		   const struct block *b)
{
  if (b->n_succ != 1 || cfg->blocks[b->succ[0]].func == b->func)
    return false;
  for (uint32_t a = b->start; a < b->end; a += 4)
    {
      const struct insn *insn = code_insn_at (code, a);
      if (insn == NULL || insn->word != 0)
	return false;
    }
  return true;
}

/* Compute the transfer function T of the part of block B of CFG over
   CODE that starts at address FROM (B's start for the whole block; at
   most the address of B's control instruction).  */

void
live_block_transfer (const struct code *code, const struct cfg *cfg,
		     const struct block *b, uint32_t from, struct transfer *t)
{
  const struct insn *slot;
  const struct insn *ctl = cfg_block_control (code, b, &slot);
  uint32_t stop = b->end;

  t->keep = ~(uint64_t) 0;
  t->gen = 0;
  t->out_kind = OUT_SUCC;
  t->out = 0;

  if ((b->flags & (BLOCK_F_INDIRECT | BLOCK_F_TABLE | BLOCK_F_INVALID))
      == (BLOCK_F_INDIRECT | BLOCK_F_TABLE) && ctl != NULL && slot != NULL)
    t->out_kind = OUT_TABLE;
  else if ((b->flags & (BLOCK_F_INDIRECT | BLOCK_F_TAIL_CALL
			| BLOCK_F_INVALID))
	   == (BLOCK_F_INDIRECT | BLOCK_F_TAIL_CALL)
	   && ctl != NULL && slot != NULL)
    t->out_kind = OUT_TAIL;	/* Its tail is set by cfg_liveness_narrow.  */
  else if ((b->flags & (BLOCK_F_INVALID | BLOCK_F_INDIRECT))
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
      t->out = cfg->funcs[b->func].ret_live;
    }
  else if (ctl == NULL && padding_into_next (code, cfg, b))
    {
      t->out_kind = OUT_FIXED;
      t->out = 0;
    }
  else if (ctl != NULL && (ctl->kind == INSN_JUMP || ctl->kind == INSN_BRANCH)
	   && !target_inside (cfg, b, ctl) && b->n_succ == 0)
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
	prepend_call (t, call_kills (cfg, ctl));
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

bool
live_solve_function (struct cfg *cfg, const struct function *f,
		     const struct transfer *t, const struct cfg_edge *tables,
		     const size_t *table_from)
{
  bool changed = true, any = false;

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

		/* Into another function: what is live there, once the
		   whole object is solved (cfg_liveness_narrow); else
		   everything.  */
		out |= succ->func == b->func || table_from != NULL
		       ? succ->live_in : LIVE_ALL;
	      }
	  else if (t[i].out_kind == OUT_TAIL)
	    out = table_from != NULL ? cfg->blocks[t[i].tail].live_in
				     : LIVE_ALL;
	  else if (t[i].out_kind == OUT_TABLE && table_from == NULL)
	    out = LIVE_ALL;
	  else if (t[i].out_kind == OUT_TABLE)
	    for (size_t k = table_from[i]; k < table_from[i + 1]; k++)
	      out |= cfg->blocks[tables[k].to].live_in;
	  in = (out & t[i].keep) | t[i].gen;
	  if (out != b->live_out || in != b->live_in)
	    {
	      b->live_out = out;
	      b->live_in = in;
	      changed = true;
	      any = true;
	    }
	}
    }
  return any;
}

/* Compute live_in and live_out of every block of CFG over CODE.  False
   on allocation failure.  */

bool
cfg_liveness (const struct code *code, struct cfg *cfg)
{
  struct transfer *t;
  uint64_t *bw = live_block_writes (code, cfg);
  bool ok = bw != NULL && live_set_may_write (code, cfg, bw);

  free (bw);
  if (!ok)
    return false;
  for (size_t f = 0; f < cfg->n_funcs; f++)
    cfg->funcs[f].ret_live = LIVE_ALL;
  t = calloc (cfg->n_blocks + 1, sizeof *t);
  if (t == NULL)
    return false;
  for (size_t i = 0; i < cfg->n_blocks; i++)
    {
      live_block_transfer (code, cfg, &cfg->blocks[i], cfg->blocks[i].start,
			   &t[i]);
      cfg->blocks[i].live_in = cfg->blocks[i].live_out = 0;
    }
  for (size_t f = 0; f < cfg->n_funcs; f++)
    live_solve_function (cfg, &cfg->funcs[f], t, NULL, NULL);
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
  live_block_transfer (code, cfg, b, addr, &t);
  out = t.out_kind == OUT_FIXED ? t.out : b->live_out;
  if (t.out_kind == OUT_SUCC)
    out |= b->live_out;
  return ((out & t.keep) | t.gen) | (addr == b->start ? b->live_in : 0);
}
