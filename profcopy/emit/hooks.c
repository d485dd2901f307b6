/* hooks.c -- the new code that reaches the runtime or translates
   addresses while the copy runs: the syscall hook's call, the note of
   an indirect jump (--poison-original), the probe stubs and sites of
   --calls, and the translation of an indirect jump's target through
   the map, with its gp guard.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#include <config.h>

#include <stdint.h>

#include "stages.h"

/* Words of put_got_value_at.  */

static uint32_t
got_value_words (const struct emitter *e)
{
  return e->fixed_address ? 2 : e->plan.got.in_place ? 3 : 1;
}

/* Put into REG the run-time value of the new GOT entry K: loaded off
   BASE, which holds gp; in a fixed-address object, its value as a
   constant; where the GOT stays in place (struct new_got), its value's
   distance from gp added to BASE, as ld.so would have added the load
   bias to the entry.  */

static void
put_got_value_at (struct cursor *c, unsigned base, unsigned reg, uint32_t k)
{
  const struct new_got *g = &c->e->plan.got;
  /* The values are known once the layout is: not while sizing.  */
  uint32_t value = c->sizing ? 0 : g->new_values[k];
  uint32_t hi;
  int32_t lo;

  if (c->e->fixed_address)
    {
      split_hi_lo (value, &hi, &lo);
      put (c, itype (OP_LUI, 0, reg, hi));
      put (c, itype (OP_ADDIU, reg, reg, (uint32_t) lo));
      return;
    }
  if (g->in_place)
    {
      split_hi_lo (value - g->gp, &hi, &lo);
      put (c, itype (OP_LUI, 0, reg, hi));
      put (c, itype (OP_ADDIU, reg, reg, (uint32_t) lo));
      put (c, enc_addu (reg, reg, base));
      return;
    }
  put (c, itype (OP_LW, base, reg, 4 * (g->n_old_local + k) - 0x7ff0));
}

/* The start that the syscall hook's call and the jump note share: sp
   goes down by 16 with ra kept at 12(sp) (and t9 at 8(sp) with
   KEEP_T9), a bal whose delay slot keeps at below sp (at 4(sp) with
   KEEP_T9, else at 8(sp)), then at = ra plus the high half of the
   distance to the segment word at SLOT, and REG = that word: no valid
   gp is needed.  7 words, 8 with KEEP_T9.  */

static void
put_slot_load (struct cursor *c, uint32_t slot, unsigned reg, bool keep_t9)
{
  uint32_t anchor = c->pc + (keep_t9 ? 20 : 16), hi;
  int32_t lo;

  split_hi_lo (slot - anchor, &hi, &lo);
  put (c, itype (OP_ADDIU, REG_SP, REG_SP, (uint32_t) -16));
  put (c, itype (OP_SW, REG_SP, REG_RA, 12));
  if (keep_t9)
    put (c, itype (OP_SW, REG_SP, REG_T9, 8));
  put (c, enc_bal (1));				/* bal anchor */
  put (c, itype (OP_SW, REG_SP, REG_AT, keep_t9 ? 4 : 8));
  /* anchor: */
  put (c, itype (OP_LUI, 0, REG_AT, hi));
  put (c, enc_addu (REG_AT, REG_AT, REG_RA));
  put (c, itype (OP_LW, REG_AT, reg, (uint32_t) lo));
}

/* Write the call of the runtime's syscall hook that goes before a
   system call (mark_syscall_hooks): through the syscall_hook word of
   the segment header, which the runtime fills when it starts (0 until
   then: no call), found relative to a bal, so that no valid gp is
   needed.  ra and t9 are kept below sp, at and every other register by
   the hook itself; the system call then runs with the registers the
   program set.  */

void
put_syscall_hook (struct cursor *c)
{
  put_slot_load (c, c->e->seg.syscall_hook_slot, REG_T9, true);
  /* at = the slot's address; t9 = the hook.  */
  put (c, itype (OP_BEQ, REG_T9, 0, 3));	/* beqz t9, over the call */
  put (c, itype (OP_LW, REG_SP, REG_AT, 4));
  put (c, enc_jalr (REG_RA, REG_T9));
  put (c, 0);
  put (c, itype (OP_LW, REG_SP, REG_T9, 8));
  put (c, itype (OP_LW, REG_SP, REG_RA, 12));
  put (c, itype (OP_ADDIU, REG_SP, REG_SP, 16));
}

/* Write the note of the indirect jump, call or return at ADDR that
   goes before it with --poison-original: the run-time address of the
   note and ADDR go to the two words at the address that the segment
   header's jump_note word holds (the runtime fills it when it starts;
   0 until then: no note), found relative to a bal, so that no valid gp
   is needed.  ra and at are kept below sp.  When a jump reaches the
   poisoned original code or data, the runtime's message names the last
   jump noted.  */

void
put_jump_note (struct cursor *c, uint32_t addr)
{
  put_slot_load (c, c->e->seg.jump_note_slot, REG_AT, false);
  /* at = the note's address.  */
  put (c, itype (OP_BEQ, REG_AT, 0, 5));	/* beqz at, over the note */
  put (c, 0);
  put (c, itype (OP_SW, REG_AT, REG_RA, 0));
  put (c, itype (OP_LUI, 0, REG_RA, addr >> 16));
  put (c, itype (OP_ORI, REG_RA, REG_RA, addr & 0xffff));
  put (c, itype (OP_SW, REG_AT, REG_RA, 4));
  put (c, itype (OP_LW, REG_SP, REG_AT, 8));
  put (c, itype (OP_LW, REG_SP, REG_RA, 12));
  put (c, itype (OP_ADDIU, REG_SP, REG_SP, 16));
}

/* Write the gp guard of a translation of register X with the scratch
   registers R1 and R2: a switch table's word that no one rewrote is an
   offset from the original gp, so X holds the case's original address
   plus the distance DELTA that gp moved by (the new GOT's from the
   old).  If X - DELTA is an address of the original code, X becomes
   that, which the translation then maps.  build() keeps the range that
   such values fall in, [start + DELTA, end + DELTA), clear of any code,
   so no pointer to real code is taken for one.  */

static void
put_gp_guard (struct cursor *c, unsigned base, unsigned x, unsigned r1,
	      unsigned r2)
{
  const struct emitter *e = c->e;
  const struct new_got *g = &e->plan.got;
  uint32_t hi, start_words = got_value_words (e);
  int32_t lo;

  split_hi_lo (e->a->obj.gp - g->gp, &hi, &lo);
  put (c, itype (OP_LUI, 0, r1, hi));
  put (c, itype (OP_ADDIU, r1, r1, (uint32_t) lo));
  put (c, enc_addu (r1, x, r1));
  /* if r1 < end && !(r1 < start), x = r1.  */
  put_got_value_at (c, base, r2, GOT_OLD_END (g));
  put (c, rtype (FUNCT_SLTU, r1, r2, r2, 0));
  put (c, itype (OP_BEQ, r2, 0, start_words + 4));	/* beqz */
  put_got_value_at (c, base, r2, GOT_OLD_START (g));
  put (c, rtype (FUNCT_SLTU, r1, r2, r2, 0));
  put (c, itype (OP_BNE, r2, 0, 2));			/* bnez */
  put (c, 0);
  put (c, rtype (FUNCT_OR, r1, 0, x, 0));
}

/* Write the run-time translation of the register of the indirect jump
   INSN with the scratch registers of SN: if it holds an address of the
   original code, replace it by the new address from the map.  The
   original code's end and start and the map come from new GOT entries,
   so that ld.so's relocation gives their run-time addresses; a
   fixed-address object has them as constants, and needs no valid gp.
   The end is compared first: a pointer into this object's new code,
   which lies above the original (the common case: code pointers in
   data were mapped by the rewriter), costs four instructions.  */

void
put_xlate (struct cursor *c, const struct insn *insn, const struct snippet *sn)
{
  const struct emitter *e = c->e;
  const struct new_got *g = &e->plan.got;
  unsigned x = insn->rs, r1 = sn->regs[0], r2 = sn->regs[1];
  unsigned base = sn->gp_reg != 0 ? sn->gp_reg : REG_GP;
  /* The words from the first branch's slot and the second's to the
     end.  */
  uint32_t vw = got_value_words (e), tail = e->fixed_address ? 1 : 4;
  uint32_t hi;
  int32_t lo;

  put_spill (c, sn);
  if (sn->gp_from_pc)
    {
      /* base = the new gp, relative to a bal, ra kept below sp unless
	 the call sets it anyway.  */
      base = sn->regs[2];
      if (sn->ra_dead)
	put_bal_address (c, base, g->gp);
      else
	{
	  put_bal_address_keep_ra (c, base, g->gp);
	  put (c, itype (OP_ADDIU, REG_SP, REG_SP, 8));
	}
    }
  if (sn->guard)
    put_gp_guard (c, base, x, r1, r2);
  /* r1 = end; if x >= end, done; r2 = start; if x < start, done;
     r1 = x - start.  */
  put_got_value_at (c, base, r1, GOT_OLD_END (g));
  put (c, rtype (FUNCT_SLTU, x, r1, r1, 0));
  put (c, itype (OP_BEQ, r1, 0, 2 * vw + 5 + tail));	/* beqz */
  put_got_value_at (c, base, r2, GOT_OLD_START (g));
  put (c, rtype (FUNCT_SLTU, x, r2, r1, 0));
  put (c, itype (OP_BNE, r1, 0, vw + 3 + tail));	/* bnez */
  put (c, rtype (FUNCT_SUBU, x, r2, r1, 0));
  /* x = the map's entry: the new address at link time, to which a
     loaded object adds its bias, start - the link-time start.  */
  put_got_value_at (c, base, x, GOT_MAP (g));
  put (c, enc_addu (x, x, r1));
  put (c, itype (OP_LW, x, x, 0));
  if (e->fixed_address)
    put (c, 0);
  else
    {
      split_hi_lo (-e->old_start, &hi, &lo);
      put (c, enc_addu (x, x, r2));
      put (c, itype (OP_LUI, 0, r1, hi));
      put (c, itype (OP_ADDIU, r1, r1, (uint32_t) lo));
      put (c, enc_addu (x, x, r1));
    }
  put_unspill (c, sn, 0);
}

/* Write the t9 trampoline of the function whose copy starts at ENTRY
   (plan_t9_trampolines), keeping ra in register R: t9 becomes ENTRY,
   relative to a bal, and control goes on there.  */

void
put_t9_tramp (struct cursor *c, uint32_t entry, unsigned r)
{
  uint32_t here = c->pc;

  put (c, enc_addu (r, REG_RA, 0));			/* move r, ra */
  put (c, enc_bal (1));					/* ra = here + 12 */
  put (c, itype (OP_ADDIU, REG_RA, REG_T9, entry - (here + 12)));
  put (c, itype (OP_BEQ, 0, 0, (entry - (here + 16)) / 4)); /* b entry */
  put (c, enc_addu (REG_RA, r, 0));			/* move ra, r */
}

/* The probe stub: save every register the runtime's probe routines may
   write (at, v0-v1, a0-a3, t0-t9, gp, ra, HI, LO; they use no FP
   register), call the routine the runtime put in the slot the site's
   word selects, with the run-time address of the original function and
   the function's return address, restore, and return past the site's
   word.  On entry ra points at that word and the site has saved the
   function's own ra at 4(sp).  */

static void
put_probe_stub (struct cursor *c)
{
  const struct emitter *e = c->e;
  uint32_t anchor = c->pc + 4 * 26;
  uint32_t hi;
  int32_t lo;
  unsigned k;
  static const uint8_t saved[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
				   13, 14, 15, 24, 25, 28, 31 };

  split_hi_lo (e->seg.probe_slots - anchor, &hi, &lo);
  put (c, itype (OP_ADDIU, REG_SP, REG_SP, (uint32_t) -112));
  for (k = 0; k < sizeof saved; k++)
    put (c, itype (OP_SW, REG_SP, saved[k], 16 + 4 * k));
  put (c, enc_mfhi (8));
  put (c, itype (OP_SW, REG_SP, 8, 92));
  put (c, enc_mflo (8));
  put (c, itype (OP_SW, REG_SP, 8, 96));
  put (c, enc_bal (1));				/* bal anchor */
  put (c, 0);
  put (c, itype (OP_LUI, 0, 8, hi));			/* anchor: */
  put (c, enc_addu (8, 8, REG_RA));
  put (c, itype (OP_LW, REG_SP, 9, 88));		/* t1: the word */
  put (c, itype (OP_LW, 9, 4, 0));
  put (c, enc_andi (10, 4, 1));
  put (c, enc_sll (10, 10, 2));
  put (c, enc_addu (8, 8, 10));
  put (c, itype (OP_LW, 8, REG_T9, (uint32_t) lo));
  put (c, itype (OP_BEQ, REG_T9, 0, 6));		/* no routine yet */
  put (c, itype (OP_ADDIU, 0, 10, (uint32_t) -2));
  put (c, enc_and (4, 4, 10));
  put (c, enc_addu (4, 4, 9));
  put (c, itype (OP_LW, REG_SP, 5, 116));
  put (c, enc_jalr (REG_RA, REG_T9));
  put (c, 0);
  put (c, itype (OP_LW, REG_SP, 8, 92));
  put (c, enc_mthi (8));
  put (c, itype (OP_LW, REG_SP, 8, 96));
  put (c, enc_mtlo (8));
  for (k = 0; k < sizeof saved; k++)
    put (c, itype (OP_LW, REG_SP, saved[k], 16 + 4 * k));
  put (c, itype (OP_ADDIU, REG_SP, REG_SP, 112));
  put (c, itype (OP_ADDIU, REG_RA, REG_RA, 4));
  put (c, enc_jr (REG_RA));
  put (c, 0);
}

/* The probe site of KIND (PROBE_ENTRY or PROBE_EXIT) at word W, in the
   function that starts at FUNC (original address), with the stub copy
   before it when the layout put one there (NEW_STUB).  */

void
put_probe_site (struct cursor *c, long w, unsigned kind, uint32_t func,
		bool new_stub)
{
  const struct emitter *e = c->e;
  uint32_t word_addr;
  int64_t off;

  if (new_stub)
    {
      put (c, itype (OP_BEQ, 0, 0, 1 + PROBE_STUB_WORDS));	/* b over */
      put (c, 0);
      put_probe_stub (c);
    }
  put (c, itype (OP_ADDIU, REG_SP, REG_SP, (uint32_t) -8));
  put (c, itype (OP_SW, REG_SP, REG_RA, 4));
  off = ((int64_t) e->layout.probe_stub[w] - (int64_t) (c->pc + 4)) / 4;
  put (c, enc_bal (off));
  put (c, 0);
  word_addr = c->pc;
  put (c, (func - word_addr) | (kind == PROBE_EXIT ? 1 : 0));
  put (c, itype (OP_LW, REG_SP, REG_RA, 4));
  put (c, itype (OP_ADDIU, REG_SP, REG_SP, 8));
}
