/* placement.c -- where each block's counter increment goes and with
   which registers (a window counter's too, plan_window); window.c
   chooses the counters of the window after the new GOT.

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

/* Choose NEED scratch registers from the dead set DEAD (MUST: a
   register that has to be one of them, or 0), saving live ones.  */

void
choose_regs (struct snippet *p, uint64_t dead, unsigned need,
	     unsigned must, uint64_t avoid)
{
  unsigned k = 0;

  dead &= ~avoid;
  p->n_spill = 0;
  if (must != 0)
    {
      p->regs[k++] = (uint8_t) must;
      if (!(dead & R (must)))
	p->spill[p->n_spill++] = (uint8_t) must;
      dead &= ~R (must);
    }
  for (size_t i = 0; k < need && i < sizeof scratch_order; i++)
    if (scratch_order[i] != must && (dead & R (scratch_order[i])))
      p->regs[k++] = scratch_order[i];
  for (size_t i = 0; k < need && i < sizeof scratch_order; i++)
    {
      unsigned r = scratch_order[i];
      bool used = r == must || (avoid & R (r));
      for (unsigned j = 0; j < k; j++)
	used |= p->regs[j] == r;
      if (!used && r != REG_RA)
	{
	  p->regs[k++] = (uint8_t) r;
	  p->spill[p->n_spill++] = (uint8_t) r;
	}
    }
}

/* True if the point before the word at AT of block B (or after B's
   last word, AT being B's end) lies inside an ll/sc sequence.  */

static bool
point_in_llsc (const struct emitter *e, const struct block *b, uint32_t at)
{
  const struct insn *last;

  if (at < b->end)
    return e->facts.in_llsc[emit_word_index (e, at)];
  last = code_insn_at (&e->a->code, at - 4);
  return e->facts.in_llsc[emit_word_index (e, at - 4)] && last != NULL
	 && last->op != OP_SC;
}

/* R (REG_T9) if t9 holds the function's entry at AT of a
   position-independent object: a counter later on may count through
   it, so no code added there may take t9 as scratch; else 0.  */

uint64_t
keep_t9 (const struct emitter *e, uint32_t at)
{
  long w = emit_word_index (e, at);

  return !e->fixed_address && w >= 0 && e->facts.t9_valid[w] ? R (REG_T9) : 0;
}

/* The registers that code added at AT may use as scratch, LIVE being
   the program's live registers there: the dead scratch registers, less
   t9 where keep_t9 keeps it.  */

uint64_t
free_scratch (const struct emitter *e, uint64_t live, uint32_t at)
{
  return ~live & SCRATCH_MASK & ~keep_t9 (e, at);
}

/* Let the pc-relative increment planned in P keep ra in a register
   instead of a frame below sp (two words fewer) when ra is the only
   register it saves and a register DEAD there is left that it does
   not use: not t9, which a later increment may count through.  */

static void
keep_ra (struct snippet *p, uint64_t dead)
{
  p->ra_keep = 0;
  if (p->kind != COUNT_PC || p->n_spill != 1 || p->spill[0] != REG_RA)
    return;
  dead &= ~(R (REG_RA) | R (REG_T9));
  for (unsigned i = 0; i < sizeof p->regs; i++)
    dead &= ~R (p->regs[i]);
  for (size_t i = 0; i < sizeof scratch_order && p->ra_keep == 0; i++)
    if (dead & R (scratch_order[i]))
      p->ra_keep = scratch_order[i];
}

/* Plan the increment of SNIPPET on the way into the block at TARGET,
   with gp valid or not (GP), with EXTRA more scratch registers than an
   increment's, none of them in AVOID.  */

void
plan_edge_snippet (struct emitter *e, struct snippet *sn, uint32_t target,
		   bool gp, unsigned extra, uint64_t avoid)
{
  const struct block *t = cfg_block_at (&e->a->cfg, target);
  uint64_t dead = t != NULL ? free_scratch (e, t->live_in, target) : 0;
  unsigned need = LLSC_REGS + extra;

  dead &= ~avoid;
  if (e->fixed_address)
    {
      sn->kind = COUNT_ABS;
      choose_regs (sn, dead, need, 0, avoid);
    }
  else if (gp)
    {
      sn->kind = COUNT_GP;
      choose_regs (sn, dead, need, 0, avoid);
    }
  else if (keep_t9 (e, target) != 0 && (unsigned) popcount64 (dead) >= need)
    {
      sn->kind = COUNT_T9;
      choose_regs (sn, dead, need, 0, avoid | R (REG_T9));
    }
  else if (t != NULL && e->facts.gp_saved[emit_word_index (e, t->start)] >= 0)
    {
      sn->kind = COUNT_SAVED_GP;
      sn->saved_gp = e->facts.gp_saved[emit_word_index (e, t->start)];
      choose_regs (sn, dead, need, 0, avoid);
    }
  else
    {
      sn->kind = COUNT_PC;
      choose_regs (sn, dead, need + 1, REG_RA, avoid);
      keep_ra (sn, dead & ~avoid);
    }
}

/* Plan block B, all of whose points lie inside an ll/sc sequence, to be
   counted on its outgoing edges, which must leave the sequence.  */

static bool
plan_edges (struct emitter *e, const struct block *b, struct count_plan *p,
	    char **errmsg)
{
  const struct code *code = &e->a->code;
  const struct insn *slot;
  const struct insn *ctl = cfg_block_control (code, b, &slot);
  bool gp;

  if (ctl == NULL || slot == NULL || point_in_llsc (e, b, b->end)
      || (ctl->kind != INSN_BRANCH && ctl->kind != INSN_JUMP)
      || emit_word_index (e, ctl->target) < 0
      || e->facts.in_llsc[emit_word_index (e, ctl->target)])
    {
      if (asprintf (errmsg, "0x%08x: a block inside an ll/sc sequence "
		    "cannot be counted", b->start) < 0)
	*errmsg = NULL;
      return false;
    }
  gp = gp_at_transfer (e, b, e->facts.gp_valid[emit_word_index (e, b->start)],
		       ctl);
  p->edge = true;
  p->at = b->end;
  p->has_fall = ctl->kind == INSN_BRANCH;
  p->has_taken = true;
  if (p->has_fall)
    plan_edge_snippet (e, &p->s, b->end, gp, 0, 0);
  plan_edge_snippet (e, &p->taken, ctl->target, gp, 0, 0);
  return true;
}

/* True if the instruction INSN, a copy of which may run twice, gives
   the same result the second time: a plain integer operation or load
   that reads nothing it writes.  */

static bool
rerunnable (const struct insn *insn)
{
  static const uint8_t special[] = {
    0x00, 0x02, 0x03, 0x04, 0x06, 0x07,		/* shifts */
    0x10, 0x12,					/* mfhi, mflo */
    0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2a, 0x2b	/* addu ... sltu */
  };
  bool ok = false;

  if (insn->kind != INSN_OTHER || insn->freads != 0 || insn->fwrites != 0
      || (insn->reads & insn->writes) != 0 || (insn->flags & INSN_F_STORE))
    return false;
  switch (insn->op)
    {
    case 0x00:
      for (size_t i = 0; i < sizeof special; i++)
	ok |= (insn->word & 0x3f) == special[i];
      break;
    case 0x09: case 0x0a: case 0x0b: case 0x0c: case 0x0d: case 0x0e:
    case 0x0f:					/* addiu ... lui */
    case 0x20: case 0x21: case 0x23: case 0x24: case 0x25:	/* loads */
      ok = true;
      break;
    default:
      break;
    }
  return ok;
}

/* True if INSN may run in the delay slot of a branch-likely, once, in
   place of where it stands: an integer instruction that transfers no
   control and that neither traps on purpose, nor calls the system, nor
   takes part in an ll/sc sequence or a cache operation, nor is one the
   kernel may have to emulate (rdhwr, floating point without an FPU).  */

bool
movable (const struct insn *insn)
{
  unsigned funct = insn->word & 0x3f;

  if (insn->kind != INSN_OTHER || insn->freads != 0 || insn->fwrites != 0
      || (insn->flags & INSN_F_TRAP))
    return false;
  switch (insn->op)
    {
    case 0x00:			/* SPECIAL, but for movf/movt, syscall,
				   break, sync and the traps */
      return funct != 0x01 && funct != 0x0c && funct != 0x0d
	     && funct != 0x0f && !(funct >= 0x30 && funct <= 0x36);
    case 0x09: case 0x0a: case 0x0b: case 0x0c: case 0x0d: case 0x0e:
    case 0x0f:			/* addiu ... lui */
    case 0x1c:			/* SPECIAL2: mul, madd, clz ..., not sdbbp */
      return funct != 0x3f;
    case 0x1f:			/* SPECIAL3: ext, ins, seb ..., not rdhwr,
				   which the kernel may emulate */
      return funct != 0x3b;
    case 0x20: case 0x21: case 0x22: case 0x23: case 0x24: case 0x25:
    case 0x26:			/* lb ... lwr */
    case 0x28: case 0x29: case 0x2a: case 0x2b: case 0x2e: /* stores */
      return true;
    default:
      return false;
    }
}

/* True if the instruction at AT of block B could go into the delay slot
   of the increment S planned just before it (see put_llsc): no register
   saved around it, an instruction that may run again after a failed
   store-conditional without harm (AGAIN: the slot of the retry branch)
   or that may run in the slot of a branch-likely (else), that writes
   neither the increment's registers nor sp, fp, gp or ra (nor, as a
   load, a callee-saved register: the unwind tables may restore it
   there), that is no half of a gp prologue's pair (LLVM's writes any
   register; put_prologue_part writes it), and that no probe goes in
   front of.  */

static bool
slot_fits (const struct emitter *e, const struct block *b, uint32_t at,
	   const struct snippet *s, bool again)
{
  const struct code *code = &e->a->code;
  const struct insn *slot;
  const struct insn *ctl = cfg_block_control (code, b, &slot);
  const struct insn *insn;
  uint64_t avoid = R (REG_SP) | R (REG_FP) | R (REG_GP) | R (REG_RA);
  long w;

  if (s->n_spill > 0 || at >= b->end || (ctl != NULL && at >= ctl->addr))
    return false;
  w = emit_word_index (e, at);
  insn = code_insn_at (code, at);
  if (w < 0 || insn == NULL || e->plan.probe[w] != 0 || e->facts.in_llsc[w]
      || (e->plan.gotref_slot[w] != 0 && e->plan.gotref_form[w] != GOTREF_GP)
      || gotref_before (e, w)
      || !(again ? rerunnable (insn) : movable (insn)))
    return false;
  if ((insn->op == OP_LUI && prologue_at (&e->a->relocs, at) != NULL)
      || (insn->op == OP_ADDIU && prologue_at (&e->a->relocs, at - 4) != NULL))
    return false;
  for (unsigned k = 0; k < 3; k++)
    avoid |= R (s->regs[k]);
  if (insn->flags & INSN_F_LOAD)
    avoid |= R (16) | R (17) | R (18) | R (19) | R (20) | R (21) | R (22)
	     | R (23);
  return (insn->writes & avoid) == 0;
}

/* slot_fits for the slot of the retry branch.  */

static bool
hoist_fits (const struct emitter *e, const struct block *b, uint32_t at,
	    const struct snippet *s)
{
  return slot_fits (e, b, at, s, true);
}

/* True if gp is valid at the point before the word at AT of block B
   (or after B's last word, AT being B's end).  */

static bool
gp_at_point (const struct emitter *e, const struct block *b, uint32_t at)
{
  const struct insn *last;

  if (at < b->end)
    return e->facts.gp_valid[emit_word_index (e, at)];
  last = code_insn_at (&e->a->code, at - 4);
  return last != NULL
	 && gp_step (e, e->facts.gp_valid[emit_word_index (e, at - 4)], last);
}

/* The last point of block B over CODE where a count may go: its
   control instruction (the count goes before it), its end when it has
   none, its start when the control's delay slot is not in it.  */

static uint32_t
scan_limit (const struct code *code, const struct block *b)
{
  const struct insn *slot;
  const struct insn *ctl = cfg_block_control (code, b, &slot);

  if (ctl == NULL)
    return b->end;
  return slot == NULL ? b->start : ctl->addr;
}

/* True if the count may not move past the instruction at AT of CODE:
   one that may not come back (a system call such as exit, a trap).  */

static bool
ends_count_scan (const struct code *code, uint32_t at)
{
  const struct insn *insn = code_insn_at (code, at);

  return insn == NULL || insn->kind == INSN_INVALID
	 || (insn->flags & INSN_F_TRAP)
	 || (insn->op == 0 && (insn->word & 0x3f) == FUNCT_SYSCALL);
}

/* DEAD without the registers the instruction at AT of block B writes
   (hoistable's condition), when that leaves NEED of them.  */

static uint64_t
spare_next (const struct emitter *e, const struct block *b, uint32_t at,
	    uint64_t dead, unsigned need)
{
  const struct insn *insn = at < b->end ? code_insn_at (&e->a->code, at)
			    : NULL;

  if (insn != NULL && popcount64 (dead & ~insn->writes) >= (int) need)
    dead &= ~insn->writes;
  return dead;
}

/* Plan P's increment at AT of block B through KIND, with two registers
   of DEAD (LLSC_REGS of them at least): true when the next instruction
   fits its delay slot.  Else the first point so planned is kept in
   *FIT and *FIT_AT unless *HAVE_FIT says one is already.  */

static bool
plan_point (const struct emitter *e, const struct block *b, uint32_t at,
	    uint64_t dead, enum count_kind kind, struct count_plan *p,
	    bool *have_fit, struct snippet *fit, uint32_t *fit_at)
{
  p->at = at;
  p->s.kind = kind;
  choose_regs (&p->s, spare_next (e, b, at, dead, LLSC_REGS), LLSC_REGS, 0,
	       0);
  if (hoist_fits (e, b, at, &p->s))
    return true;
  if (!*have_fit)
    {
      *have_fit = true;
      *fit = p->s;
      *fit_at = at;
    }
  return false;
}

/* Plan the counter increment of block B.  */

bool
plan_block (struct emitter *e, const struct block *b, struct count_plan *p,
	    char **errmsg)
{
  const struct code *code = &e->a->code;
  const struct cfg *cfg = &e->a->cfg;
  uint32_t limit = scan_limit (code, b);
  uint32_t first_gp = 0, first_t9 = 0, t9_free = 0;
  bool have_gp = false, have_t9 = false, have_t9_free = false;
  bool have_t9_fit = false;
  bool have_saved = false;	/* A point with gp saved in the frame and
				   enough free registers.  */
  uint32_t saved_at = 0;
  struct snippet fit;		/* The first point with enough registers,
				   used if none lets the next instruction
				   into the delay slot.  */
  uint32_t fit_at = 0;
  bool have_fit = false;

  for (uint32_t at = b->start; at <= limit; at += 4)
    {
      bool gp;
      uint64_t dead;

      if (point_in_llsc (e, b, at))
	continue;
      gp = gp_at_point (e, b, at);
      if (!e->fixed_address && gp)
	{
	  dead = free_scratch (e, cfg_live_at (code, cfg, b, at), at);
	  if (!have_gp)
	    {
	      have_gp = true;
	      first_gp = at;
	    }
	  if (popcount64 (dead) >= LLSC_REGS
	      && plan_point (e, b, at, dead, COUNT_GP, p, &have_fit, &fit,
			     &fit_at))
	    return true;
	}
      if (!e->fixed_address && !gp && at < b->end && !have_saved
	  && e->facts.gp_saved[emit_word_index (e, at)] >= 0)
	{
	  dead = free_scratch (e, cfg_live_at (code, cfg, b, at), at);
	  if (popcount64 (dead) >= LLSC_REGS)
	    {
	      have_saved = true;
	      saved_at = at;
	    }
	}
      if (!e->fixed_address && !gp && at < b->end
	  && e->facts.t9_valid[emit_word_index (e, at)])
	{
	  dead = free_scratch (e, cfg_live_at (code, cfg, b, at), at);
	  if (!have_t9)
	    {
	      have_t9 = true;
	      first_t9 = at;
	    }
	  if (!have_t9_fit && popcount64 (dead & ~R (REG_T9)) >= LLSC_REGS)
	    {
	      struct snippet t;
	      memset (&t, 0, sizeof t);
	      choose_regs (&t, spare_next (e, b, at, dead & ~R (REG_T9),
					   LLSC_REGS),
			   LLSC_REGS, 0, R (REG_T9));
	      if (!have_t9_free || hoist_fits (e, b, at, &t))
		t9_free = at;
	      have_t9_free = true;
	      have_t9_fit = hoist_fits (e, b, at, &t);
	    }
	}
      if (e->fixed_address)
	{
	  dead = free_scratch (e, cfg_live_at (code, cfg, b, at), at);
	  if (popcount64 (dead) >= LLSC_REGS
	      && plan_point (e, b, at, dead, COUNT_ABS, p, &have_fit, &fit,
			     &fit_at))
	    return true;
	}
      if (at < limit && ends_count_scan (code, at))
	break;
    }

  if (have_fit)
    {
      p->at = fit_at;
      p->s = fit;
      return true;
    }

  /* t9-relative without saving registers beats gp-relative with.  */
  if (have_t9_free || (have_t9 && !have_gp))
    {
      p->at = have_t9_free ? t9_free : first_t9;
      p->s.kind = COUNT_T9;
      choose_regs (&p->s,
		   spare_next (e, b, p->at,
			       free_scratch (e, cfg_live_at (code, cfg, b, p->at),
					     p->at) & ~R (REG_T9), LLSC_REGS),
		   LLSC_REGS, 0, R (REG_T9));
      return true;
    }
  /* gp reloaded from the frame beats a saved ra or registers.  */
  if (have_saved)
    {
      p->at = saved_at;
      p->s.kind = COUNT_SAVED_GP;
      p->s.saved_gp = e->facts.gp_saved[emit_word_index (e, saved_at)];
      choose_regs (&p->s,
		   spare_next (e, b, saved_at,
			       free_scratch (e, cfg_live_at (code, cfg, b,
							     saved_at),
					     saved_at), LLSC_REGS),
		   LLSC_REGS, 0, 0);
      return true;
    }
  if (have_gp)
    {
      p->at = first_gp;
      p->s.kind = COUNT_GP;
      choose_regs (&p->s,
		   spare_next (e, b, first_gp,
			       free_scratch (e, cfg_live_at (code, cfg, b,
							     first_gp),
					     first_gp), LLSC_REGS),
		   LLSC_REGS, 0, 0);
      return true;
    }
  if (point_in_llsc (e, b, b->start))
    return plan_edges (e, b, p, errmsg);
  p->at = b->start;
  if (e->fixed_address)
    {
      p->s.kind = COUNT_ABS;
      choose_regs (&p->s,
		   spare_next (e, b, b->start, ~b->live_in & SCRATCH_MASK,
			       LLSC_REGS),
		   LLSC_REGS, 0, 0);
    }
  else
    {
      uint64_t dead = free_scratch (e, b->live_in, b->start);

      p->s.kind = COUNT_PC;
      choose_regs (&p->s,
		   spare_next (e, b, b->start, dead & ~R (REG_RA), LLSC_REGS)
		   | (dead & R (REG_RA)),
		   LLSC_REGS + 1, REG_RA, 0);
      keep_ra (&p->s, dead);
    }
  return true;
}

/* True if the increment planned in P for block B takes the instruction
   it precedes into its delay slot (slot_fits, AGAIN as there), which
   nothing else (a translation, a long branch form) writes in its own
   way.  */

bool
hoistable (const struct emitter *e, const struct block *b,
	   const struct count_plan *p, bool again)
{
  long w;

  if (p->edge || p->derived)
    return false;
  w = emit_word_index (e, p->at);
  return w >= 0 && p->at < b->end && e->plan.xlate[w].kind == 0xff
	 && e->layout.long_kind[w] == LONG_NONE
	 && slot_fits (e, b, p->at, &p->s, again);
}

/* Plan the increment of block B (planned in P) as a window counter:
   at a point of B where gp is valid, with one scratch register (one
   the next instruction can go into the delay slot with, preferably).
   False, P unchanged, when gp is valid nowhere before B's control.  */

bool
plan_window (struct emitter *e, const struct block *b, struct count_plan *p)
{
  const struct code *code = &e->a->code;
  const struct cfg *cfg = &e->a->cfg;
  uint32_t limit = scan_limit (code, b);
  struct snippet fit, s;
  uint32_t fit_at = 0;
  bool have_fit = false;

  for (uint32_t at = b->start; at <= limit; at += 4)
    {
      bool gp;
      uint64_t dead;

      if (point_in_llsc (e, b, at))
	continue;
      gp = gp_at_point (e, b, at);
      if (gp)
	{
	  dead = free_scratch (e, cfg_live_at (code, cfg, b, at), at);
	  memset (&s, 0, sizeof s);
	  s.kind = COUNT_WINDOW;
	  choose_regs (&s, spare_next (e, b, at, dead, 1), 1, 0, 0);
	  if (s.n_spill == 0 && hoist_fits (e, b, at, &s))
	    {
	      p->at = at;
	      p->s = s;
	      return true;
	    }
	  if (!have_fit || (fit.n_spill > 0 && s.n_spill == 0))
	    {
	      fit = s;
	      fit_at = at;
	      have_fit = true;
	    }
	}
      if (at < limit && ends_count_scan (code, at))
	break;
    }
  if (!have_fit)
    return false;
  p->at = fit_at;
  p->s = fit;
  return true;
}

/* The increment planned for the counted branch edge K.  */

struct snippet *
edge_snippet (struct emitter *e, size_t k)
{
  struct count_plan *p = &e->plan.blocks[e->plan.edge_owner[k] / 2];

  return e->plan.edge_owner[k] & 1 ? &p->fall_s : &p->taken_s;
}

/* The register the increment planned in P loads and stores (put_llsc's
   R2).  */

unsigned
snippet_data_reg (const struct snippet *p)
{
  return (p->kind == COUNT_PC ? p->regs[2]
	  : p->kind == COUNT_WINDOW ? p->regs[0] : p->regs[1]);
}

/* The register that holds the counter's base address in the increment
   planned in P (put_llsc's R1).  */

unsigned
snippet_base_reg (const struct snippet *p)
{
  return (p->kind == COUNT_PC ? p->regs[1]
	  : p->kind == COUNT_WINDOW ? REG_GP : p->regs[0]);
}

/* The register that the increment planned in P for E restores from
   its spill in the delay slot of its retry branch instead of a nop
   (put_snippet), or 0: an ll/sc increment that has nothing else for
   the slot restores a saved register that its loop does not read (not
   the counter's base): its data register, which a retry loads again,
   else another (ra, which bal wrote before the loop).  */

unsigned
restore_in_slot (const struct emitter *e, const struct snippet *p)
{
  unsigned base = snippet_base_reg (p);
  unsigned reg = 0;

  if (e->single || p->n_spill == 0 || p->hoist || p->skip)
    return 0;
  for (unsigned i = 0; i < p->n_spill; i++)
    if (p->spill[i] == snippet_data_reg (p))
      return p->spill[i];
    else if (p->spill[i] != base && reg == 0)
      reg = p->spill[i];
  return reg;
}
