/* branches.c -- writing the branches of the new text: the long forms
   of branches, jumps and calls that no longer reach, and the counts on
   branch edges with the stubs they go through.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#include <config.h>

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stages.h"

/* Put into R the run-time address of the new code's TARGET (a
   link-time address of the copy), relative to a bal: 4 words, ra
   clobbered.  */

void
put_bal_address (struct cursor *c, unsigned r, uint32_t target)
{
  uint32_t hi;
  int32_t lo;

  split_hi_lo (target - (c->pc + 8), &hi, &lo);
  put (c, enc_bal (1));
  put (c, itype (OP_LUI, 0, r, hi));
  put (c, enc_addu (r, r, REG_RA));
  put (c, itype (OP_ADDIU, r, r, (uint32_t) lo));
}

/* put_bal_address with ra kept: ra is stored below a lowered sp and
   loaded again after the bal (7 words).  The caller writes the
   `addiu sp,sp,8' that raises sp again, in a delay slot if it has
   one.  */

void
put_bal_address_keep_ra (struct cursor *c, unsigned r, uint32_t target)
{
  put (c, itype (OP_ADDIU, REG_SP, REG_SP, (uint32_t) -8));
  put (c, itype (OP_SW, REG_SP, REG_RA, 0));
  put_bal_address (c, r, target);
  put (c, itype (OP_LW, REG_SP, REG_RA, 0));
}

/* Write the jump (CALL: jalr) to the new address of the original code
   address TARGET through register R: from the new GOT entry K when
   USE_GP, else relative to a bal, which clobbers ra: with SAVE_RA, ra is
   kept below a lowered sp meanwhile.  Unless CALL (whose slot is the
   original one that follows), the jump's delay slot is written too.  */

static void
put_far (struct cursor *c, unsigned r, uint32_t target, uint32_t k,
	 bool use_gp, bool call, bool save_ra)
{
  const struct emitter *e = c->e;
  uint32_t jump = call ? enc_jalr (REG_RA, r) : enc_jr (r);

  if (use_gp)
    put (c, itype (OP_LW, REG_GP, r,
		   4 * (e->plan.got.n_old_local + k) - 0x7ff0));
  else if (save_ra)
    put_bal_address_keep_ra (c, r, emit_map (e, target));
  else
    put_bal_address (c, r, emit_map (e, target));
  put (c, jump);
  if (!call)
    put (c, save_ra ? itype (OP_ADDIU, REG_SP, REG_SP, 8) : 0);
}

/* Write the far jump to the restore pad before the block at the
   original address TARGET: at and ra are saved below a lowered sp, at
   gets the pad's address relative to a bal, and the pad restores both
   and sp.  */

static void
put_pad_jump (struct cursor *c, uint32_t target)
{
  const struct emitter *e = c->e;

  put (c, itype (OP_ADDIU, REG_SP, REG_SP, (uint32_t) -8));
  put (c, itype (OP_SW, REG_SP, REG_AT, 0));
  put (c, itype (OP_SW, REG_SP, REG_RA, 4));
  put_bal_address (c, REG_AT, e->layout.pad[emit_word_index (e, target)]);
  put (c, enc_jr (REG_AT));
  put (c, 0);
}

/* Words put_far writes, its delay slot included unless CALL.  */

uint32_t
far_words (const struct emitter *e, bool use_gp, bool call, bool save_ra)
{
  struct cursor c;

  cursor_sizing (&c, e);
  put_far (&c, REG_AT, 0, 0, use_gp, call, save_ra);
  return CURSOR_WORDS (&c);
}

/* Words of put_pad_jump to TARGET.  */

uint32_t
pad_jump_words (const struct emitter *e, uint32_t target)
{
  struct cursor c;

  cursor_sizing (&c, e);
  put_pad_jump (&c, target);
  return CURSOR_WORDS (&c);
}

/* Write LONG_DATA_BAL (emit.h) for the bal INSN, word W, with its
   delay slot DSLOT: the bal, the slot, the words it jumps over (data
   that its target reads through ra) as they would be in the copy, and
   a branch to the copy of the target.  A word read as .gpword (the
   distance from the object's gp to an address) is made to name the
   copy of the address: a word of the data itself, or code.  */

static bool
put_data_bal (struct cursor *c, const struct insn *insn, long w,
	      const struct insn *dslot, char **errmsg)
{
  const struct emitter *e = c->e;
  uint32_t gp = e->a->obj.gp;
  uint32_t first = insn->addr + 8, n = (insn->target - first) / 4;
  uint32_t t = e->layout.retarget[w] != 0 ? e->layout.retarget[w]
	       : emit_map (e, insn->target);
  uint32_t data;
  int64_t off;

  if (dslot == NULL)
    return false;
  put (c, enc_bal ((int32_t) n + 1));
  if (!put_insn_body (c, dslot, errmsg))
    return false;
  data = c->pc;
  for (uint32_t k = 0; k < n; k++)
    {
      const struct insn *word = code_insn_at (&e->a->code, first + 4 * k);
      uint32_t v = word != NULL ? word->word : 0, x = v + gp;
      if (x >= first && x < insn->target && (x & 3) == 0)
	v = data + (x - first) - gp;
      else if (emit_word_index (e, x) >= 0
	       && code_insn_at (&e->a->code, x) != NULL)
	v = emit_map (e, x) - gp;
      put (c, v);
    }
  off = ((int64_t) t - (int64_t) (c->pc + 4)) / 4;
  if (!cursor_reaches (c, off))
    {
      if (asprintf (errmsg, "0x%08x: the bal over data cannot reach the"
		    " copy of its target", insn->addr) < 0)
	*errmsg = NULL;
      return false;
    }
  put (c, itype (OP_BEQ, 0, 0, (uint32_t) off));
  put (c, 0);
  return true;
}

/* Write the long form of the branch INSN, word W.  */

bool
put_long (struct cursor *c, const struct insn *insn, long w, char **errmsg)
{
  const struct emitter *e = c->e;
  unsigned kind = e->layout.long_kind[w];
  unsigned r = e->layout.long_reg[w] & ~LONG_SAVE_RA;
  bool save_ra = (e->layout.long_reg[w] & LONG_SAVE_RA) != 0;
  uint32_t k = e->layout.long_slot[w];
  const struct insn *dslot = code_insn_at (&e->a->code, insn->addr + 4);
  bool use_gp = kind == LONG_CALL_GP || kind == LONG_JUMP_GP
		|| kind == LONG_COND_GP;

  switch (kind)
    {
    case LONG_T9:
      put (c, insn->kind == INSN_CALL ? enc_jalr (REG_RA, REG_T9)
	      : enc_jr (REG_T9));
      return true;
    case LONG_CALL_GP:
    case LONG_CALL_PC:
      put_far (c, r, insn->target, k, use_gp, true, false);
      return true;
    case LONG_JUMP_PAD:
      if (dslot == NULL || !put_insn_body (c, dslot, errmsg))
	return false;
      put_pad_jump (c, insn->target);
      return true;
    case LONG_COND_PAD:
      if (dslot == NULL)
	return false;
      put (c, invert_branch (insn->word)
	      | (1 + pad_jump_words (e, insn->target)
		 + (is_likely (insn) ? 1 : 0)));
      if (is_likely (insn))
	put (c, 0);
      if (!put_insn_body (c, dslot, errmsg))
	return false;
      put_pad_jump (c, insn->target);
      return true;
    case LONG_DATA_BAL:
      return put_data_bal (c, insn, w, dslot, errmsg);
    case LONG_JUMP_GP:
    case LONG_JUMP_PC:
      /* The slot first, so that R need only be dead at the target.  */
      if (dslot == NULL || !put_insn_body (c, dslot, errmsg))
	return false;
      put_far (c, r, insn->target, k, use_gp, false, save_ra);
      return true;
    default:
      if (dslot == NULL)
	return false;
      {
	/* Skip over the far jump: branch-likely runs its slot only when
	   taken, so it goes after a nop, on the far jump's side.  */
	uint32_t skip = 1 + far_words (e, use_gp, false, save_ra)
			+ (is_likely (insn) ? 1 : 0);
	put (c, invert_branch (insn->word) | skip);
	if (is_likely (insn))
	  put (c, 0);
	if (!put_insn_body (c, dslot, errmsg))
	  return false;
	put_far (c, r, insn->target, k, use_gp, false, save_ra);
      }
      return true;
    }
}

/* Set *ERRMSG to "ADDR: WHAT cannot reach WHERE", ADDR being CTL's, and
   return false.  */

bool
reach_error (char **errmsg, const struct insn *ctl, const char *what,
	     const char *where)
{
  if (asprintf (errmsg, "0x%08x: %s cannot reach %s", ctl->addr, what,
		where) < 0)
    *errmsg = NULL;
  return false;
}

/* Write the jump from a counting stub on to TO, for the branch CTL, with
   FILL in its delay slot (a nop when NULL); false with *ERRMSG, naming
   the stub WHAT, when it cannot reach.  */

static bool
put_jump_back (struct cursor *c, const struct insn *ctl, uint32_t to,
	       const struct insn *fill, const char *what, char **errmsg)
{
  int64_t off = ((int64_t) to - (int64_t) (c->pc + 4)) / 4;

  if (!cursor_reaches (c, off))
    return reach_error (errmsg, ctl, what, "its target");
  put (c, itype (OP_BEQ, 0, 0, (uint32_t) off));
  if (fill == NULL)
    {
      put (c, 0);
      return true;
    }
  return put_insn_body (c, fill, errmsg);
}

/* Write the counts of block INDEX (B), planned in P to go on its
   outgoing edges: after its fall-through, then the stub its branch
   goes to, which counts and jumps on to the branch's real target.
   Laying out LAY (else NULL), note where the stub is.  */

bool
put_edge_counts (struct cursor *c, size_t index, const struct block *b,
		 const struct count_plan *p, struct emitter *lay,
		 char **errmsg)
{
  const struct emitter *e = c->e;
  const struct insn *slot;
  const struct insn *ctl = cfg_block_control (&e->a->code, b, &slot);

  if (p->has_fall)
    {
      /* b to the next block, over the stub and the carry island that
	 the walk may put after it.  */
      int64_t off;
      put_snippet (c, index, index, &p->s, NULL, 0);
      off = ((int64_t) emit_map (e, b->end) - (int64_t) (c->pc + 4)) / 4;
      if (!c->sizing && (off < 0 || off > 32767))
	return reach_error (errmsg, ctl, "the counting stub of an ll/sc block",
			    "the next block");
      put (c, itype (OP_BEQ, 0, 0, (uint32_t) off));
      put (c, 0);
    }
  if (lay != NULL)
    {
      lay->plan.blocks[index].stub = c->pc;
      lay->layout.retarget[emit_word_index (e, ctl->addr)] = c->pc;
    }
  put_snippet (c, index, index, &p->taken, NULL, 0);
  return put_jump_back (c, ctl, emit_map (e, ctl->target), NULL,
			"the counting stub of an ll/sc block", errmsg);
}

/* The first instruction of the block at TARGET when a jump there may
   run a copy of it in its delay slot and go on past it: an instruction
   that transfers no control, traps in no way, is neither a system call
   nor part of a gp prologue or an ll/sc sequence, is written as one word
   like any other (no GOT reference or translation to rewrite), and
   has no increment, probe or pad before it in the new code (but for a
   pad, with PAD_OK: the pads are placed while the layout is made,
   after whoever must know the answer before; jumping past the first
   instruction also jumps past any pad).  Else NULL.  */

const struct insn *
slot_fill (const struct emitter *e, uint32_t target, bool pad_ok)
{
  const struct cfg *cfg = &e->a->cfg;
  const struct block *t = cfg_block_at (cfg, target);
  const struct insn *insn = code_insn_at (&e->a->code, target);
  const struct count_plan *p;
  long w = emit_word_index (e, target);

  if (t == NULL || t->start != target || insn == NULL || w < 0
      || insn->kind != INSN_OTHER
      || (insn->flags & (INSN_F_TRAP | INSN_F_SLOT))
      || (insn->op == 0 && (insn->word & 0x3f) == FUNCT_SYSCALL)
      || (insn->writes & R (REG_GP)) || e->facts.in_llsc[w]
      || e->plan.gotref_slot[w] != 0 || e->plan.xlate[w].kind != 0xff
      || e->plan.probe[w] != 0 || (e->layout.needs_pad[w] && !pad_ok)
      || insn_words (e, insn) != 1)
    return NULL;
  p = &e->plan.blocks[t - cfg->blocks];
  if (p->edge || (!p->derived && p->at <= target))
    return NULL;
  return insn;
}

/* With --counter-update=single, the first instruction of the target of
   the branch CTL of a block whose taken edge is counted by SN, when it
   may run before the increment instead of in the delay slot of a jump
   after it, so that the increment leaves by its carry test (put_llsc's
   SKIP_TO) and costs no more than a block's: slot_fill's instruction,
   which must not write a register the increment uses.  Else NULL.  */

const struct insn *
single_leave_fill (const struct emitter *e, const struct insn *ctl,
		   const struct snippet *sn)
{
  const struct insn *fill;

  if (!e->single || sn->n_spill > 0)
    return NULL;
  fill = slot_fill (e, ctl->target, false);
  if (fill == NULL || (fill->writes & snippet_uses (sn)) != 0)
    return NULL;
  return fill;
}

/* Write the counters of the branch edges of block B planned in P: the
   taken edge's increment and the jump to the target (the inverted branch
   skips them), then the fall-through edge's increment.  Laying out LAY
   (else NULL), note where the inverted branch goes.  */

bool
put_branch_edge_counts (struct cursor *c, const struct block *b,
			const struct count_plan *p, struct emitter *lay,
			char **errmsg)
{
  const struct emitter *e = c->e;
  const struct insn *slot;
  const struct insn *ctl = cfg_block_control (&e->a->code, b, &slot);

  if (p->count_taken)
    {
      const struct insn *fill = slot_fill (e, ctl->target, false);
      size_t block = (size_t) (b - e->a->cfg.blocks);
      uint32_t past = e->layout.insn_new[emit_word_index (e, ctl->target)] + 4;
      if (fill == NULL && !e->single && p->taken_s.n_spill == 0)
	{
	  /* The increment leaves by a branch-likely to the target, with
	     nothing in its slot: as many words as the increment and a
	     jump back, one instruction fewer run.  */
	  put_snippet (c, p->taken_counter, block, &p->taken_s, NULL,
		       skip_target (c, ctl->target));
	  if (c->failed)
	    return reach_error (errmsg, ctl, "the counter of a branch edge",
				"its target");
	}
      else if (fill == NULL)
	{
	  put_snippet (c, p->taken_counter, block, &p->taken_s, NULL, 0);
	  if (!put_jump_back (c, ctl, emit_map (e, ctl->target), NULL,
			      "the counter of a branch edge", errmsg))
	    return false;
	}
      else if (single_leave_fill (e, ctl, &p->taken_s) != NULL)
	{
	  /* The target's first instruction, then the increment that
	     leaves past the copy of it there.  */
	  if (!put_insn_body (c, fill, errmsg))
	    return false;
	  put_snippet (c, p->taken_counter, block, &p->taken_s, NULL, past);
	  if (c->failed)
	    return reach_error (errmsg, ctl, "the counter of a branch edge",
				"its target");
	}
      else if (p->taken_s.n_spill > 0 || e->single)
	{
	  /* b past the copy of the target's first instruction, with
	     another copy in its delay slot.  */
	  put_snippet (c, p->taken_counter, block, &p->taken_s, NULL, 0);
	  if (!put_jump_back (c, ctl, past, fill,
			      "the counter of a branch edge", errmsg))
	    return false;
	}
      else
	{
	  /* The increment leaves by a branch-likely past the copy of the
	     target's first instruction, with another copy in its delay
	     slot: as many words as the increment and a jump back.  */
	  put_snippet (c, p->taken_counter, block, &p->taken_s, fill, past);
	  if (c->failed)
	    return reach_error (errmsg, ctl, "the counter of a branch edge",
				"its target");
	}
      if (lay != NULL)
	lay->layout.retarget[emit_word_index (e, ctl->addr)] = c->pc;
      else if (c->pc != e->layout.retarget[emit_word_index (e, ctl->addr)])
	{
	  *errmsg = strdup ("internal error: layout and emission disagree "
			    "on a branch edge");
	  return false;
	}
    }
  if (p->count_fall && p->fall_s.skip)
    {
      long w = emit_word_index (e, b->end);
      put_snippet (c, p->fall_counter, (size_t) (b - e->a->cfg.blocks),
		   &p->fall_s, code_insn_at (&e->a->code, b->end),
		   e->layout.insn_new[w] + 4);
      if (c->failed)
	return reach_error (errmsg, ctl, "the counter of a fall-through edge",
			    "past its target");
    }
  else if (p->count_fall)
    put_snippet (c, p->fall_counter, (size_t) (b - e->a->cfg.blocks),
		 &p->fall_s, NULL, 0);
  return true;
}
