/* returns.c -- the calls that surely come back.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   derive.c takes a call as a way out of the object and its return
   point as a way in, since a call may never come back: exit, longjmp,
   an exception or a thread's end leave it for good, and the profile is
   written while the calls that led to exit are still open.  That costs
   a counter on each side of every call that runs in a loop.  A call of
   a function that can reach none of these is an edge from the call to
   its return point instead, like a fall-through.

   The profile of a process that a signal kills is written from the
   handler, wherever the signal came; that it cannot be exact there is
   the same with or without this.  */

#include <config.h>

#include <stdbool.h>
#include <stdlib.h>

#include "mips-ops.h"
#include "returns.h"


/* Whether INSN keeps its function from surely returning.  */

static bool
may_leave (const struct insn *insn)
{
  unsigned funct = insn->word & 0x3f;

  if (insn->kind == INSN_INVALID)
    return true;
  if (insn->op == OP_SPECIAL && funct == FUNCT_SYSCALL)
    return true;
  if (insn_always_traps (insn))
    return true;
  /* ra written but by a call or from the frame (longjmp), or stored
     but into the frame (setjmp, which returns twice).  */
  if ((insn->writes & REG_BIT (REG_RA)) && insn->kind != INSN_CALL
      && insn->kind != INSN_ICALL
      && !(insn->op == OP_LW && insn->rs == REG_SP))
    return true;
  return (insn->flags & INSN_F_STORE) && insn->rt == REG_RA
	 && insn->rs != REG_SP;
}

/* Whether function F of A, but for its calls and tail calls, surely
   returns to its caller (CALLEE, as for returning_calls).  Set TAIL[i]
   to 1 + the function whose entry block i of F jumps or branches to (a
   tail call, which returns to F's caller).  */

static bool
returns_itself (const struct analysis *a, const uint32_t *callee, size_t f,
		uint32_t *tail)
{
  const struct cfg *cfg = &a->cfg;
  const struct function *fn = &cfg->funcs[f];
  bool ret = false;

  for (uint32_t i = fn->first_block; i < fn->first_block + fn->n_blocks;
       i++)
    {
      const struct block *b = &cfg->blocks[i];
      const struct insn *slot;
      const struct insn *ctl = cfg_block_control (&a->code, b, &slot);
      long j;

      if ((b->flags & (BLOCK_F_FALLTHRU_EXIT | BLOCK_F_INVALID
		       | BLOCK_F_SLOT_ENTRY))
	  || ((b->flags & BLOCK_F_INDIRECT) && !(b->flags & BLOCK_F_TABLE))
	  || ((b->flags & BLOCK_F_CALL) && callee[i] == 0)
	  || (ctl != NULL && slot == NULL))
	return false;
      for (uint32_t at = b->start; at < b->end; at += 4)
	{
	  const struct insn *insn = code_insn_at (&a->code, at);
	  if (insn == NULL || may_leave (insn))
	    return false;
	}
      if (b->flags & BLOCK_F_RETURN)
	ret = true;
      if (b->flags & (BLOCK_F_CALL | BLOCK_F_RETURN | BLOCK_F_INDIRECT))
	continue;
      /* Falls, branches and jumps stay in the function.  */
      if ((ctl == NULL || ctl->kind == INSN_BRANCH)
	  && ((j = cfg_block_starting (cfg, b->end)) < 0
	      || cfg->blocks[j].func != f))
	return false;
      if (ctl != NULL && (ctl->kind == INSN_BRANCH || ctl->kind == INSN_JUMP)
	  && ((j = cfg_block_starting (cfg, ctl->target)) < 0
	      || cfg->blocks[j].func != f))
	{
	  if (j < 0 || cfg->funcs[cfg->blocks[j].func].entry != ctl->target)
	    return false;
	  tail[i] = 1 + cfg->blocks[j].func;
	  ret = true;
	}
    }
  return ret;
}

/* The function that block I's call or tail call enters (CALLEE, TAIL),
   or -1: none, or another object's.  */

static long
entered (const uint32_t *callee, const uint32_t *tail, size_t i)
{
  if (tail[i] != 0)
    return (long) tail[i] - 1;
  if (callee[i] == 0 || callee[i] == CALLEE_RETURNS
      || callee[i] == CALLEE_GUARD)
    return -1;
  return (long) callee[i] - 1;
}

unsigned char *
returning_calls (const struct analysis *a, const uint32_t *callee)
{
  const struct cfg *cfg = &a->cfg;
  size_t nf = cfg->n_funcs, nb = cfg->n_blocks, sp = 0;
  unsigned char *sure = malloc (nf + 1);
  unsigned char *returning = calloc (nb + 1, 1);
  uint32_t *tail = calloc (nb + 1, sizeof *tail);
  /* The blocks that enter each function, and a stack of the functions
     found unsure whose callers are still to see.  */
  uint32_t *first = calloc (nf + 2, sizeof *first);
  uint32_t *site = malloc ((nb + 1) * sizeof *site);
  uint32_t *stack = malloc ((nf + 1) * sizeof *stack);
  long g;

  if (sure == NULL || returning == NULL || tail == NULL || first == NULL
      || site == NULL || stack == NULL)
    {
      free (returning);
      returning = NULL;
      goto done;
    }
  for (size_t f = 0; f < nf; f++)
    {
      sure[f] = returns_itself (a, callee, f, tail);
      if (!sure[f])
	stack[sp++] = (uint32_t) f;
    }
  for (size_t i = 0; i < nb; i++)
    if ((g = entered (callee, tail, i)) >= 0)
      first[g + 1]++;
  for (size_t f = 0; f < nf; f++)
    first[f + 1] += first[f];
  for (size_t i = 0; i < nb; i++)
    if ((g = entered (callee, tail, i)) >= 0)
      site[first[g]++] = (uint32_t) i;
  for (size_t f = nf; f > 0; f--)
    first[f] = first[f - 1];
  first[0] = 0;
  /* Down to the greatest set closed under the calls.  */
  while (sp > 0)
    {
      uint32_t f = stack[--sp];
      for (uint32_t k = first[f]; k < first[f + 1]; k++)
	{
	  uint32_t caller = cfg->blocks[site[k]].func;
	  if (sure[caller])
	    {
	      sure[caller] = 0;
	      stack[sp++] = caller;
	    }
	}
    }
  for (size_t i = 0; i < nb; i++)
    {
      const struct block *b = &cfg->blocks[i];
      long r;
      if ((b->flags & BLOCK_F_CALL) && callee[i] != 0
	  && callee[i] != CALLEE_GUARD
	  && (callee[i] == CALLEE_RETURNS || sure[callee[i] - 1])
	  && (r = cfg_block_starting (cfg, b->end)) >= 0
	  && cfg->blocks[r].func == b->func)
	returning[i] = 1;
    }
 done:
  free (sure);
  free (tail);
  free (first);
  free (site);
  free (stack);
  return returning;
}
