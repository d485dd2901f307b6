/* layout.c -- the layout of the new text: the words of every original
   instruction and increment, long branches, carry islands, probe sites.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#include <config.h>

#include <elf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stages.h"

uint32_t
emit_map (const struct emitter *e, uint32_t old)
{
  long w = emit_word_index (e, old);

  return w < 0 ? old : e->layout.map[w];
}

/* True if INSN is a branch-likely.  */

bool
is_likely (const struct insn *insn)
{
  return (insn->flags & INSN_F_LIKELY) != 0;
}
/* True if the long form KIND writes the branch's delay slot itself,
   so that the slot's own word is written as nothing.  */

bool
long_takes_slot (unsigned kind)
{
  return kind == LONG_JUMP_GP || kind == LONG_JUMP_PC || kind == LONG_COND_GP
	 || kind == LONG_COND_PC || kind == LONG_JUMP_PAD
	 || kind == LONG_COND_PAD || kind == LONG_DATA_BAL;
}

/* The non-likely branch with the opposite condition of the conditional
   branch WORD, with a zero offset; 0 if there is none.  */

uint32_t
invert_branch (uint32_t word)
{
  uint32_t op = word >> 26, base = word & 0x03ff0000;

  switch (op)
    {
    case OP_BEQ: case OP_BEQL: return (uint32_t) OP_BNE << 26 | base;
    case OP_BNE: case OP_BNEL: return (uint32_t) OP_BEQ << 26 | base;
    case OP_BLEZ: case OP_BLEZL: return (uint32_t) OP_BGTZ << 26 | base;
    case OP_BGTZ: case OP_BGTZL: return (uint32_t) OP_BLEZ << 26 | base;
    case OP_REGIMM:
      switch ((word >> 16) & 0x1f)
	{
	case REGIMM_BLTZ: case REGIMM_BLTZL:
	  return (word & 0xffe00000) | (uint32_t) REGIMM_BGEZ << 16;
	case REGIMM_BGEZ: case REGIMM_BGEZL:
	  return (word & 0xffe00000) | (uint32_t) REGIMM_BLTZ << 16;
	default:
	  return 0;
	}
    case OP_COP1:
      /* bc1f/bc1t(l): flip tf, clear nd.  */
      if (((word >> 21) & 0x1f) == COP1_BC)
	return (word & 0xfffc0000) ^ 0x00010000;
      return 0;
    default:
      return 0;
    }
}

/* One layout pass: fill map and insn_new and set text_size.  */

/* Send the branches of a function to its own entry past the entry
   probe: a loop back to the entry is not a call.  */

static void
retarget_entry_branches (struct emitter *e)
{
  const struct cfg *cfg = &e->a->cfg;
  const struct code *code = &e->a->code;

  for (size_t i = 0; i < cfg->n_blocks; i++)
    {
      const struct block *b = &cfg->blocks[i];
      const struct insn *slot;
      const struct insn *ctl = cfg_block_control (code, b, &slot);
      long t, w;

      if (ctl == NULL || (ctl->kind != INSN_BRANCH && ctl->kind != INSN_JUMP)
	  || ctl->op == OP_J)
	continue;
      t = emit_word_index (e, ctl->target);
      w = emit_word_index (e, ctl->addr);
      if (t < 0 || !(e->plan.probe[t] & PROBE_ENTRY) || e->plan.blocks[i].edge
	  || cfg_function_at (cfg, ctl->target) != &cfg->funcs[b->func])
	continue;
      e->layout.retarget[w] = e->layout.past_probe[t];
    }
}

/* Send the bals that plan_t9_trampolines chose to their callee's t9
   trampoline.  */

static void
retarget_t9_calls (struct emitter *e)
{
  const struct code *code = &e->a->code;

  for (size_t s = 0; s < code->n_sections; s++)
    for (size_t k = 0; k < code->sections[s].n_insns; k++)
      {
	const struct insn *insn = &code->sections[s].insns[k];
	long w = emit_word_index (e, insn->addr);
	if (w >= 0 && e->plan.t9_call[w])
	  e->layout.retarget[w]
	    = e->layout.tramp[emit_word_index (e, insn->target)];
      }
}

/* Note an increment at PC in ISL.  */

void
island_add (struct island *isl, uint32_t pc)
{
  if (isl->off)
    return;
  if (isl->n++ == 0)
    isl->first = pc;
}

/* True if the island ISL must be written after block B (planned in P,
   the last block if LAST), the text having reached PC: after code that
   never falls through, after the last block, or when the first waiting
   increment is about to lose reach.  *OVER is set when control may
   fall into the island, which then starts with a jump over it.  */

bool
island_due (const struct emitter *e, const struct block *b,
	    const struct count_plan *p, bool last, uint32_t pc,
	    const struct island *isl, bool *over)
{
  const struct insn *slot;
  const struct insn *ctl;

  if (isl->n == 0)
    return false;
  ctl = cfg_block_control (&e->a->code, b, &slot);
  *over = !p->edge
	  && ((b->flags & BLOCK_F_SLOT_ENTRY)
	      || (!(b->flags & (BLOCK_F_RETURN | BLOCK_F_INDIRECT))
		  && (ctl == NULL || slot == NULL
		      || ctl->kind != INSN_JUMP)));
  return !*over || last || pc - isl->first >= ISLAND_REACH;
}

/* One layout of the new text (walk_text on a counting cursor), and
   with --calls the branches to a function's own entry sent past its
   probe.  False with *ERRMSG when the walk finds the plan inconsistent.  */

static bool
layout_pass (struct emitter *e, char **errmsg)
{
  struct cursor c;

  cursor_sizing (&c, e);
  if (!walk_text (e, &c, errmsg))
    return false;
  if (e->plan.calls)
    retarget_entry_branches (e);
  if (e->plan.t9_call != NULL)
    retarget_t9_calls (e);
  return true;
}

/* A register other than ra, dead in DEAD, or 0.  */

unsigned
dead_reg (uint64_t dead)
{
  for (size_t i = 0; i < sizeof scratch_order; i++)
    if (scratch_order[i] != REG_RA && (dead & R (scratch_order[i])))
      return scratch_order[i];
  return 0;
}

/* Choose the long form of the direct branch INSN (word W), which cannot
   reach its target.  The target is reached through a register R that
   is dead where it is written: loaded from a new GOT entry when gp is
   valid, else built relative to a `bal', which also needs ra dead (a
   call overwrites ra anyway).  False with *ERRMSG when nothing fits.  */

static bool
choose_long (struct emitter *e, const struct insn *insn, long w,
	     char **errmsg)
{
  const struct code *code = &e->a->code;
  const struct cfg *cfg = &e->a->cfg;
  const struct block *b = cfg_block_at (cfg, insn->addr);
  const struct block *t = cfg_block_at (cfg, insn->target);
  const struct reloc_entry *pro = prologue_at (&e->a->relocs, insn->target);
  const struct insn *slot = code_insn_at (code, insn->addr + 4);
  bool call = insn->kind == INSN_CALL && !(insn->flags & INSN_F_COND);
  bool jump = insn->kind == INSN_JUMP;
  bool cond = insn->kind == INSN_BRANCH && invert_branch (insn->word) != 0;
  bool gp, save_ra;
  uint64_t dead, moved = 0;
  unsigned reg;
  uint32_t k;
  bool t9_entry;

  if (b == NULL || t == NULL || slot == NULL || !(call || jump || cond))
    goto none;
  /* A got-ref addiu of the slot that runs before the branch
     (GOTREF_F_BEFORE) has written its register already.  */
  if (gotref_before (e, w))
    moved = R (slot->rt) | R (slot->rs)
	    | (GOTREF_KIND (e->plan.gotref_form[w + 1]) == GOTREF_TMP
	       ? R (GOTREF_REG (e->plan.gotref_form[w + 1])) : 0)
	    | (GOTREF_KIND (e->plan.gotref_form[w + 1]) == GOTREF_T9
	       ? R (REG_T9) : 0)
	    | (GOTREF_KIND (e->plan.gotref_form[w + 1]) == GOTREF_PC
	       ? R (REG_RA) : 0);
  /* t9 holds the target, and it is live where the branch goes (as at
     every call), so no counting code on the way took it for scratch.
     Where a jump's target does not read t9, an increment may have
     taken it; another form then serves as well.  */
  if ((call || jump) && !(moved & R (REG_T9))
      && t9_holds (e, insn, insn->target)
      && (call || ((t->live_in | keep_t9 (e, insn->target)) & R (REG_T9))))
    {
      e->layout.long_kind[w] = LONG_T9;
      return true;
    }
  /* The target computes its gp from t9, which the original must have
     set to it, though no GOT load or got-ref shows that here (clang's
     code moves it from a register that got a GOT page plus %lo the
     analysis did not follow): t9 gets the target's new address, as the
     target expects, not the old one it may hold.  So does a bal sent
     to its callee's t9 trampoline (plan_t9_trampolines) that does not
     reach it: the long call sets t9 as the trampoline would.  */
  t9_entry = (call || jump) && !(moved & R (REG_T9))
	     && ((pro != NULL && pro->via == VIA_T9
		  && pro->target == insn->target)
		 || (e->plan.t9_call != NULL && e->plan.t9_call[w]))
	     && !((slot->reads | slot->writes) & R (REG_T9));

  /* For a call, R is written before the slot runs, so it must be dead
     at the branch; for a jump or branch the slot runs first (it is
     moved before R is written), and R must be dead at the target.  */
  /* A call or jump loads R before its slot runs; an inverted branch
     after (the slot may be the reload of gp after a call).  */
  if (!call && (slot->writes & R (REG_GP)))
    gp = slot->op == OP_LW && slot->rs == REG_SP;
  else
    gp = e->facts.gp_valid[w];
  /* A GOT that cannot take another entry leaves the bal form, and so
     do GOTs that stay in place, whose gp is never the new one.  */
  if (gp && (e->plan.got.in_place
	     || !got_has_room (&e->plan.got, insn->target)))
    gp = false;
  if (call)
    dead = ~cfg_live_at (code, cfg, b, insn->addr);
  else
    dead = ~t->live_in;
  /* A tail jump to another function's entry: the o32 ABI passes
     nothing in at, so at is dead there whatever liveness, which gives
     up at function boundaries, says.  */
  if (jump && gp && t->func != b->func
      && cfg->funcs[t->func].entry == insn->target
      && !(slot->reads & R (REG_AT)))
    dead |= R (REG_AT);
  dead &= SCRATCH_MASK & ~moved;
  /* A jump's register reaches the target, where t9 may still count.  */
  if (!call)
    dead &= ~keep_t9 (e, insn->target);
  reg = t9_entry ? REG_T9 : dead_reg (dead);
  if (reg == 0 && !call && t->start == insn->target)
    {
      /* Nothing is free at the target: save at and ra, and land on a
	 pad before the target that puts them back.  */
      e->layout.needs_pad[emit_word_index (e, insn->target)] = 1;
      e->layout.long_kind[w] = jump ? LONG_JUMP_PAD : LONG_COND_PAD;
      return true;
    }
  if (reg == 0)
    goto none;
  /* Without gp, a bal finds the target and clobbers ra, which a jump
     must then save unless it is dead at the target.  */
  save_ra = !gp && !call && !(dead & R (REG_RA));
  if (gp)
    {
      k = got_target_entry (&e->plan.got, insn->target);
      if (k == (uint32_t) -1)
	{
	  *errmsg = strdup ("out of memory");
	  return false;
	}
      e->layout.long_slot[w] = k;
    }
  e->layout.long_reg[w] = (uint8_t) (reg | (save_ra ? LONG_SAVE_RA : 0));
  e->layout.long_kind[w] = call ? (gp ? LONG_CALL_GP : LONG_CALL_PC)
		    : jump ? (gp ? LONG_JUMP_GP : LONG_JUMP_PC)
		    : (gp ? LONG_COND_GP : LONG_COND_PC);
  return true;

 none:
  if (asprintf (errmsg, "0x%08x: branch out of range in the profiled code, "
		"and no long form applies", insn->addr) < 0)
    *errmsg = NULL;
  return false;
}

/* Whether INSN, word W, is a direct call or jump to a function that
   computes its gp from t9 (struct reloc_entry, VIA_T9) while nothing
   shows that t9 holds that function's address there (t9_holds): the
   copy may then hold the old one, from which the function would
   compute a wrong gp, and the long form sets t9 (choose_long).  Only
   where the GOTs stay in place (struct new_got): GCC's code, which
   these are most of elsewhere, sets t9 with the call's own got-ref,
   and libc would pay 463 long calls more for nothing.  */

static bool
t9_unproven (const struct emitter *e, const struct insn *insn, long w)
{
  const struct reloc_entry *pro;
  const struct insn *slot = code_insn_at (&e->a->code, insn->addr + 4);

  if ((insn->kind != INSN_CALL && insn->kind != INSN_JUMP)
      || (insn->flags & INSN_F_COND) || !e->plan.got.in_place
      || gotref_before (e, w) || slot == NULL
      || ((slot->reads | slot->writes) & R (REG_T9)))
    return false;
  pro = prologue_at (&e->a->relocs, insn->target);
  return pro != NULL && pro->via == VIA_T9 && pro->target == insn->target
	 && !t9_holds (e, insn, insn->target);
}

/* The plan whose increment leaves by the branch INSN, or NULL.  */

static struct count_plan *
jump_plan (struct emitter *e, const struct insn *insn)
{
  const struct block *b = cfg_block_at (&e->a->cfg, insn->addr);
  struct count_plan *p;

  if (b == NULL)
    return NULL;
  p = &e->plan.blocks[b - e->a->cfg.blocks];
  return p->s.jump && !p->derived && !p->edge && p->at == insn->addr
	 ? p : NULL;
}

bool
emit_layout (struct emitter *e, uint32_t text_addr, char **errmsg)
{
  const struct code *code = &e->a->code;

  e->layout.text_addr = text_addr;
  /* What t9 holds where a long call may go through it (t9_holds), now
     that the got-ref forms are known.  */
  if (!e->fixed_address && e->layout.t9_const == NULL)
    {
      e->layout.t9_const = malloc ((e->a->cfg.n_blocks + 1)
				   * sizeof *e->layout.t9_const);
      if (e->layout.t9_const == NULL)
	{
	  *errmsg = strdup ("out of memory");
	  return false;
	}
      t9_constants (e, e->layout.t9_const);
    }
  for (int pass = 0; pass < 32; pass++)
    {
      bool changed = false;

      if (!layout_pass (e, errmsg))
	return false;
      for (size_t s = 0; s < code->n_sections; s++)
	for (size_t i = 0; i < code->sections[s].n_insns; i++)
	  {
	    const struct insn *insn = &code->sections[s].insns[i];
	    long w = (long) (code->sections[s].base + i);
	    int64_t off;
	    struct count_plan *jp;

	    if (e->layout.long_kind[w] != LONG_NONE
		|| (insn->kind != INSN_BRANCH && insn->kind != INSN_JUMP
		    && insn->kind != INSN_CALL)
		|| emit_word_index (e, insn->target) < 0
		|| (insn->kind == INSN_CALL && insn->target == insn->addr + 8))
	      continue;
	    /* A j or jal reaches its 256 MiB region only: pandoc's copy
	       of 236 MB of code crosses two boundaries.  */
	    if (insn->op == OP_J || insn->op == OP_JAL)
	      {
		if ((((e->layout.insn_new[w] + 4) ^ emit_map (e, insn->target))
		     & 0xf0000000) == 0)
		  continue;
	      }
	    else
	      {
		off = ((int64_t) (e->layout.retarget[w] != 0
				  ? e->layout.retarget[w]
				  : emit_map (e, insn->target))
		       - (int64_t) (e->layout.insn_new[w] + 4)) / 4;
		if (off >= -32768 && off <= 32767
		    && !t9_unproven (e, insn, w))
		  continue;
	      }
	    if ((jp = jump_plan (e, insn)) != NULL)
	      {
		/* The increment's branch-likely does not reach: the
		   branch stays, and gets a long form if it needs one.  */
		jp->s.jump = jp->s.skip = false;
		e->stats.n_jumps--;
		changed = true;
		continue;
	      }
	    if (!choose_long (e, insn, w, errmsg))
	      return false;
	    if (e->layout.long_kind[w] != LONG_T9)
	      changed = true;
	    e->stats.n_long_calls++;
	  }
      if (!changed)
	return finish_got (e, errmsg);
    }
  *errmsg = strdup ("the layout of long branches does not settle");
  return false;
}
