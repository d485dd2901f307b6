/* increments.c -- writing counter increments: the output cursor, ll/sc
   and single increments, their carry paths and islands, loop exits.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   Every block that derive.c says needs a counter gets one 64-bit
   counter increment, made with ll/sc so that threads never lose a
   count:

   retry: ll    r2,lo(r1)
	  addiu r2,r2,1
	  beqz  r2,carry	the low word wraps: leave the pair
	   nop
	  sc    r2,lo(r1)
	  bnez  r2,done
	   nop
	  b     retry		another thread got there first
	   nop
   carry: sc    r2,lo(r1)	store the zero...
	  beqz  r2,retry
	   nop
   high:  ll ... sc on lo+4(r1)	...and carry into the high word
   done:

   r1 is the counter's 64 KiB chunk.  Position-independent code finds
   it in a new local GOT entry through gp (`lw r1,chunk(gp)'), so the
   increment goes at the first point of the block where gp is known to
   hold this object's gp: after the prologue of a function, after gp is
   reloaded following a call.  A block with no such point (a leaf
   function that never sets gp, a lazy-binding stub) finds the counter
   relative to its own address with `bal'.  Fixed-address executables
   use the counter's absolute address.  The scratch registers are ones
   that liveness proves dead at that point; what is missing is saved
   below a lowered sp, which is safe against signals.  */

#include <config.h>

#include <elf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "stages.h"

static bool branch_offset (struct cursor *c, uint32_t from, uint32_t to,
			   uint32_t *off);

/* An increment waiting for its carry path: where it starts (its ll,
   where the carry path goes back to retry), its registers and the
   offset of the counter's low word; with LEAVE, it is a single-thread
   increment that leaves by its carry test (put_llsc).  */
struct carry
{
  uint32_t retry;
  uint8_t r1, r2;
  bool leave;
  int32_t lo;
};

/* How far put_spill lowers sp for SN: 16 bytes when it saves
   registers in a frame, else 0.  */

static uint32_t
spill_frame (const struct snippet *sn)
{
  return sn->n_spill > 0 && sn->ra_keep == 0 ? 16 : 0;
}

/* Save the registers SN must spill below a lowered sp; lowering sp
   keeps them safe from signal handlers.  Or keep ra in SN's ra_keep.  */

void
put_spill (struct cursor *c, const struct snippet *sn)
{
  if (sn->n_spill == 0)
    return;
  if (sn->ra_keep != 0)
    {
      put (c, enc_addu (sn->ra_keep, REG_RA, 0));
      return;
    }
  put (c, itype (OP_ADDIU, REG_SP, REG_SP, -spill_frame (sn)));
  for (unsigned i = 0; i < sn->n_spill; i++)
    put (c, itype (OP_SW, REG_SP, sn->spill[i], 4 * i));
}

/* Restore what put_spill saved, but for register DONE (0: none),
   restored already.  */

void
put_unspill (struct cursor *c, const struct snippet *sn, unsigned done)
{
  if (sn->n_spill == 0)
    return;
  if (sn->ra_keep != 0)
    {
      if (done != REG_RA)
	put (c, enc_addu (REG_RA, sn->ra_keep, 0));
      return;
    }
  for (unsigned i = sn->n_spill; i-- > 0;)
    if (sn->spill[i] != done)
      put (c, itype (OP_LW, REG_SP, sn->spill[i], 4 * i));
  put (c, itype (OP_ADDIU, REG_SP, REG_SP, spill_frame (sn)));
}

/* Rewrite the word at PC, already written, to WORD.  */

static void
put_at (struct cursor *c, uint32_t pc, uint32_t word)
{
  uint32_t save = c->pc;

  if (c->sizing)
    return;
  c->pc = pc;
  put (c, word);
  c->pc = save;
}

/* The end of an atomic increment of the counter at LO(R1), scratch R2,
   whose ll is N words back: the branch back to retry after a failed
   store, with FILL or C's slot_word in its slot; with neither, a
   branch-likely back past the ll with the ll in its slot, which runs
   only when the store failed; with SKIP, a branch-likely out to SKIP_TO
   (or past this code, when 0) when the store succeeded, with FILL in
   its slot, then the branch back to retry (put_llsc).  */

static void
put_llsc_retry (struct cursor *c, unsigned r1, unsigned r2, int32_t lo,
		const struct insn *fill, bool skip, uint32_t skip_to,
		uint32_t n)
{
  uint32_t off;

  if (!skip && fill == NULL && c->slot_word == 0)
    {
      put (c, itype (OP_BEQL, r2, 0, -n));		/* to retry + 4 */
      put (c, itype (OP_LL, r1, r2, (uint32_t) lo));
      return;
    }
  if (!skip)
    put (c, itype (OP_BEQ, r2, 0, -(n + 1)));		/* to retry */
  else
    {
      if (skip_to == 0)
	skip_to = c->pc + 16;
      if (!branch_offset (c, c->pc, skip_to, &off))
	return;
      c->out_pc = c->pc;
      put (c, itype (OP_BNEL, r2, 0, off));		/* out */
    }
  if (fill == NULL)
    put (c, c->slot_word);
  else
    {
      char *msg = NULL;
      c->fill_pc = c->pc;
      if (!put_insn_body (c, fill, &msg))
	c->failed = true;
      free (msg);
    }
  if (skip)
    {
      put (c, itype (OP_BEQ, 0, 0, -(n + 3)));		/* to retry */
      put (c, 0);
    }
}

/* put_llsc's increment of a folded counter (struct emitter): the same
   forms without the carry test, one word and one instruction run
   fewer.  Single: lw, addiu, sw; leaving for SKIP_TO, lw, addiu, a
   branch to SKIP_TO with the store in its slot.  Atomic: ll, addiu, sc
   and the branch back to retry after a failed store, with FILL or C's
   slot_word in its slot, or a branch-likely back past the ll with the
   ll in its slot; with SKIP, a branch-likely out when the store
   succeeded, with FILL in its slot, then the branch back to retry.  */

static void
put_folded (struct cursor *c, unsigned r1, unsigned r2, int32_t lo,
	    const struct insn *fill, bool skip, uint32_t skip_to)
{
  uint32_t off;

  if (c->e->single)
    {
      put (c, itype (OP_LW, r1, r2, (uint32_t) lo));
      put (c, itype (OP_ADDIU, r2, r2, 1));
      if (skip_to != 0)
	{
	  if (!branch_offset (c, c->pc, skip_to, &off))
	    return;
	  c->out_pc = c->pc;
	  put (c, itype (OP_BEQ, 0, 0, off));		/* out */
	}
      put (c, itype (OP_SW, r1, r2, (uint32_t) lo));
      return;
    }
  put (c, itype (OP_LL, r1, r2, (uint32_t) lo));	/* retry: */
  put (c, itype (OP_ADDIU, r2, r2, 1));
  put (c, itype (OP_SC, r1, r2, (uint32_t) lo));
  put_llsc_retry (c, r1, r2, lo, fill, skip, skip_to, 3);
}

/* The ll/sc increment of the 64-bit counter at LO(R1), scratch R2.  The
   usual path runs 5 instructions: ll, addiu, the branch that tests for
   a carry out of the low word with the store-conditional in its delay
   slot, and the branch back to retry after a failed store, whose slot
   holds FILL, the program's own next instruction when hoistable allows
   it (then the increment costs 4), or C's slot_word; with neither, it
   is a branch-likely back past the ll, with the ll in its slot, run
   only when the store failed.  With SKIP, the branch
   after the store is instead a branch-likely taken when the store
   succeeded, with FILL in its slot, to SKIP_TO (or, when 0, to the word
   after the increment), followed by the branch back to retry: FILL runs
   once, only on the way out, so it need not be one that may run again
   (2 more words, never run).  A carry (once in 2^32 counts) goes out
   of line to the island put_island writes: it retries if the store of
   the zero failed, else increments the high word and comes back to
   the branch after the store, with R2 = 1 as after a store that
   succeeded.
   A single-thread increment (--counter-update=single) is lw, addiu,
   the carry test with the store in its slot (4 words, no FILL).  With
   SKIP_TO it leaves by that test instead, a branch taken to SKIP_TO
   when there was no carry, and a carry falls through to the jump to
   its carry path, which comes back to a jump to SKIP_TO after it (4
   more words, never run).  */

static void
put_llsc (struct cursor *c, unsigned r1, unsigned r2, int32_t lo,
	  const struct insn *fill, bool skip, uint32_t skip_to)
{
  struct carry *k, unrecorded;
  uint32_t off;

  if (c->e->folded)
    {
      put_folded (c, r1, r2, lo, fill, skip, skip_to);
      return;
    }
  if (c->sizing)
    k = &unrecorded;		/* A size only: no carry path waits.  */
  else if (!array_room (&c->carries, &c->max_carries, c->isl.n,
		   sizeof *c->carries, 256))
    {
      c->failed = true;
      return;
    }
  else
    k = &c->carries[c->isl.n];
  k->retry = c->pc;
  k->r1 = (uint8_t) r1;
  k->r2 = (uint8_t) r2;
  k->lo = lo;
  k->leave = c->e->single && skip_to != 0;
  if (k->leave)
    {
      if (!branch_offset (c, c->pc + 8, skip_to, &off))
	return;
      put (c, itype (OP_LW, r1, r2, (uint32_t) lo));
      put (c, itype (OP_ADDIU, r2, r2, 1));
      c->out_pc = c->pc;
      put (c, itype (OP_BNE, r2, 0, off));		/* out */
      put (c, itype (OP_SW, r1, r2, (uint32_t) lo));
      put (c, itype (OP_BEQ, 0, 0, 0));			/* to carry, later */
      put (c, 0);
      if (!branch_offset (c, c->pc, skip_to, &off))
	return;
      put (c, itype (OP_BEQ, 0, 0, off));		/* back: out */
      put (c, 0);
      return;
    }
  if (c->e->single)
    {
      put (c, itype (OP_LW, r1, r2, (uint32_t) lo));
      put (c, itype (OP_ADDIU, r2, r2, 1));
      put (c, itype (OP_BEQ, r2, 0, 0));		/* to carry, later */
      put (c, itype (OP_SW, r1, r2, (uint32_t) lo));
      return;
    }
  put (c, itype (OP_LL, r1, r2, (uint32_t) lo));	/* retry: */
  put (c, itype (OP_ADDIU, r2, r2, 1));
  put (c, itype (OP_BEQ, r2, 0, 0));			/* to carry, later */
  put (c, itype (OP_SC, r1, r2, (uint32_t) lo));
  put_llsc_retry (c, r1, r2, lo, fill, skip, skip_to, 4);
}							/* done: */

/* The offset field of a branch at FROM to TO, or false (and C failed)
   when it does not reach.  */

static bool
branch_offset (struct cursor *c, uint32_t from, uint32_t to, uint32_t *off)
{
  int64_t d = ((int64_t) to - (int64_t) (from + 4)) / 4;

  if (!cursor_reaches (c, d))
    {
      c->failed = true;
      return false;
    }
  *off = (uint32_t) d & 0xffff;
  return true;
}

/* Write the carry paths of the increments waiting in C, after a jump
   over them if OVER, and point their branches there.  */

void
put_island (struct cursor *c, bool over)
{
  uint32_t off;

  if (c->failed)
    return;
  if (over)
    {
      put (c, itype (OP_BEQ, 0, 0, CARRY_WORDS * (uint32_t) c->isl.n + 1));
      put (c, 0);
    }
  for (size_t i = 0; i < c->isl.n; i++)
    {
      /* Sizing, no carry is recorded: any gives the words.  */
      static const struct carry any;
      const struct carry *k = c->sizing ? &any : &c->carries[i];
      uint32_t r1 = k->r1, r2 = k->r2;
      int32_t hi_lo;

      if (k->leave)
	{
	  if (!branch_offset (c, k->retry + 16, c->pc, &off))
	    return;
	  put_at (c, k->retry + 16, itype (OP_BEQ, 0, 0, off));
	}
      else
	{
	  if (!branch_offset (c, k->retry + 8, c->pc, &off))
	    return;
	  put_at (c, k->retry + 8, itype (OP_BEQ, r2, 0, off));
	}
      if (!branch_offset (c, c->pc, k->retry, &off))	/* carry: */
	return;
      /* A single-thread increment's store cannot fail.  */
      put (c, c->e->single ? 0 : itype (OP_BEQ, r2, 0, off)); /* sc failed */
      put (c, 0);
      /* The high word through r1 + 4: LO + 4 may not fit 16 bits.  A
	 window counter is off gp, whose LO + 4 fits.  */
      hi_lo = k->lo;
      if (r1 == REG_GP)
	{
	  put (c, 0);
	  hi_lo += 4;
	}
      else
	put (c, itype (OP_ADDIU, r1, r1, 4));
      if (c->e->single)
	{
	  put (c, itype (OP_LW, r1, r2, (uint32_t) hi_lo));
	  put (c, itype (OP_ADDIU, r2, r2, 1));
	  put (c, itype (OP_SW, r1, r2, (uint32_t) hi_lo));
	  put (c, 0);
	  put (c, 0);
	}
      else
	{
	  put (c, itype (OP_LL, r1, r2, (uint32_t) hi_lo));	/* high: */
	  put (c, itype (OP_ADDIU, r2, r2, 1));
	  put (c, itype (OP_SC, r1, r2, (uint32_t) hi_lo));
	  put (c, itype (OP_BEQ, r2, 0, (uint32_t) -4));	/* to high */
	  put (c, 0);
	}
      /* Back to the branch after the store, R2 being 1: on past the
	 increment with its delay slot, as after any store that
	 succeeded (a single-thread increment ends there; one that
	 leaves by its carry test goes back to its jump out).  */
      if (!branch_offset (c, c->pc, k->retry + (k->leave ? 24 : 16),
			  &off))
	return;
      put (c, itype (OP_BEQ, 0, 0, off));
      put (c, 0);
    }
  c->isl.n = 0;
}

/* Load into R the gp that P's function saved in its frame, sp lowered
   by spill_frame (P).  */

static void
put_saved_gp (struct cursor *c, const struct snippet *p, unsigned r)
{
  put (c, itype (OP_LW, REG_SP, r, (uint32_t) p->saved_gp + spill_frame (p)));
}

/* Write the way to counter INDEX planned in P (for code of block
   BLOCK, whose function's entry t9 may hold) into P's base register,
   sp lowered by spill_frame (P); the counter's low word is
   then at *LO off it.  Not for the window's counters (COUNT_WINDOW,
   COUNT_SAVED_WINDOW), which are off gp.  */

static void
put_counter_base (struct cursor *c, size_t index, size_t block,
		  const struct snippet *p, int32_t *lo)
{
  const struct emitter *e = c->e;
  uint32_t counter = e->seg.counters + 8 * (uint32_t) index;
  uint32_t chunk = (8 * (uint32_t) index) >> 16;
  uint32_t slot = e->plan.got.n_old_local + chunk;
  unsigned r1 = snippet_base_reg (p);
  uint32_t hi;

  *lo = (int32_t) (8 * (uint32_t) index - (chunk << 16)) - 0x8000;
  switch (p->kind)
    {
    case COUNT_GP:
      put (c, itype (OP_LW, REG_GP, r1, 4 * slot - 0x7ff0));
      break;
    case COUNT_SAVED_GP:
      put_saved_gp (c, p, r1);
      put (c, itype (OP_LW, r1, r1, 4 * slot - 0x7ff0));
      break;
    case COUNT_T9:
      {
	const struct cfg *cfg = &e->a->cfg;
	const struct function *f = &cfg->funcs[cfg->blocks[block].func];
	split_hi_lo (counter - emit_map (e, f->entry), &hi, lo);
	put (c, itype (OP_LUI, 0, r1, hi));
	put (c, enc_addu (r1, r1, REG_T9));
      }
      break;
    case COUNT_ABS:
      split_hi_lo (counter, &hi, lo);
      put (c, itype (OP_LUI, 0, r1, hi));
      break;
    case COUNT_PC:
      /* bal lands on the addu, which is the counter's base.  */
      split_hi_lo (counter - (c->pc + 8), &hi, lo);
      put (c, enc_bal (1));
      put (c, itype (OP_LUI, 0, r1, hi));
      put (c, enc_addu (r1, r1, REG_RA));
      break;
    default:
      c->failed = true;
      break;
    }
}

/* Write the increment of counter INDEX planned in P, in the code of
   block BLOCK (whose function's entry t9 may hold), with HOIST in its
   delay slot (put_llsc's FILL; may be NULL); in P's skip form, or in
   that form going on to SKIP_TO when SKIP_TO is not 0.  */

void
put_snippet (struct cursor *c, size_t index, size_t block,
	     const struct snippet *p, const struct insn *hoist,
	     uint32_t skip_to)
{
  bool skip = p->skip || skip_to != 0;
  const struct emitter *e = c->e;
  unsigned done = 0;
  int32_t lo;

  put_spill (c, p);
  done = restore_in_slot (e, p);
  if (done != 0)
    {
      if (hoist != NULL || skip)
	c->failed = true;
      for (unsigned i = 0; i < p->n_spill; i++)
	if (p->spill[i] == done)
	  c->slot_word = p->ra_keep != 0 ? enc_addu (REG_RA, p->ra_keep, 0)
			 : itype (OP_LW, REG_SP, done, 4 * i);
    }
  if (p->kind == COUNT_WINDOW || p->kind == COUNT_SAVED_WINDOW)
    {
      /* Sizing, neither the slot nor gp is known yet.  */
      int32_t off = c->sizing ? 0
		    : (int32_t) (e->seg.window + emit_window_entry (e)
				 * (uint32_t) e->plan.window_slot[index]
				 - e->plan.got.gp);
      if (!c->sizing && (e->plan.window_slot[index] < 0 || off < -0x8000
			 || off > 0x7ff8 - 4))
	c->failed = true;
      else if (p->kind == COUNT_WINDOW)
	put_llsc (c, REG_GP, p->regs[0], off, hoist, skip, skip_to);
      else
	{
	  put_saved_gp (c, p, p->regs[0]);
	  put_llsc (c, p->regs[0], p->regs[1], off, hoist, skip, skip_to);
	}
    }
  else
    {
      put_counter_base (c, index, block, p, &lo);
      put_llsc (c, snippet_base_reg (p), snippet_data_reg (p), lo, hoist,
		skip, skip_to);
    }
  c->slot_word = 0;
  put_unspill (c, p, done);
  /* The layout notes the increment where the snippet ends.  */
  island_add (&c->isl, c->pc);
}

/* Write the way out of the loop of block BLOCK planned in P: the turns
   taken since the copy (the induction register's difference from it,
   shifted) added to the 64-bit counter BLOCK, atomically unless
   --counter-update=single; a carry out of the low word (sltu) goes
   into the high word.  The registers P's snippet saves are saved
   around it.  */

void
put_loop_exit (struct cursor *c, size_t block, const struct count_plan *p)
{
  const struct emitter *e = c->e;
  const struct snippet *sn = &p->s;
  unsigned r1 = snippet_base_reg (sn), r2 = snippet_data_reg (sn);
  unsigned carry = sn->regs[sn->kind == COUNT_PC ? 3 : 2];
  unsigned d = p->iv_save;
  uint32_t retry, high, off;
  int32_t lo;

  if (p->iv_stack)
    {
      d = sn->regs[3];
      if (sn->kind == COUNT_PC)
	carry = REG_RA;
    }
  put_spill (c, sn);
  put_counter_base (c, block, block, sn, &lo);
  if (c->failed)
    return;
  if (p->iv_stack)
    put (c, itype (OP_LW, REG_SP, d, spill_frame (sn)));
  if (p->iv_down)
    put (c, rtype (FUNCT_SUBU, d, p->iv_reg, d, 0));
  else
    put (c, rtype (FUNCT_SUBU, p->iv_reg, d, d, 0));
  if (p->iv_shift != 0)
    put (c, rtype (FUNCT_SRL, 0, d, d, p->iv_shift));
  if (p->iv_inverse != 0)
    {
      put (c, itype (OP_LUI, 0, r2, p->iv_inverse >> 16));
      put (c, itype (OP_ORI, r2, r2, p->iv_inverse & 0xffff));
      put (c, rtype (FUNCT_MULTU, d, r2, 0, 0));
      put (c, rtype (FUNCT_MFLO, 0, 0, d, 0));
    }
  retry = c->pc;
  put (c, itype (e->single ? OP_LW : OP_LL, r1, r2, (uint32_t) lo));
  put (c, enc_addu (r2, r2, d));
  if (!e->folded)
    put (c, rtype (FUNCT_SLTU, r2, d, carry, 0));
  put (c, itype (e->single ? OP_SW : OP_SC, r1, r2, (uint32_t) lo));
  if (!e->single && branch_offset (c, c->pc, retry, &off))
    {
      put (c, itype (OP_BEQ, r2, 0, off));
      put (c, 0);
    }
  if (!e->folded)
    {
      /* The high word through r1 + 4 (LO + 4 may not fit 16 bits).  */
      put (c, itype (OP_BEQ, carry, 0, e->single ? 4 : 6));
      put (c, itype (OP_ADDIU, r1, r1, 4));
      high = c->pc;
      put (c, itype (e->single ? OP_LW : OP_LL, r1, r2, (uint32_t) lo));
      put (c, itype (OP_ADDIU, r2, r2, 1));
      put (c, itype (e->single ? OP_SW : OP_SC, r1, r2, (uint32_t) lo));
      if (!e->single && branch_offset (c, c->pc, high, &off))
	{
	  put (c, itype (OP_BEQ, r2, 0, off));
	  put (c, 0);
	}
    }
  put_unspill (c, sn, 0);
  if (p->iv_stack)
    put (c, itype (OP_ADDIU, REG_SP, REG_SP, 8));
}

/* Words of the increment planned in SN (put_snippet).  */

uint32_t
snippet_words (const struct emitter *e, const struct snippet *sn)
{
  struct cursor c;

  cursor_sizing (&c, e);
  put_snippet (&c, 0, 0, sn, NULL, 0);
  return CURSOR_WORDS (&c);
}
