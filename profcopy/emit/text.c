/* text.c -- writing the new text: the original instructions with
   branches re-aimed, GOT references and prologues updated, and the
   counting code, hooks and translations placed among them; branches.c
   writes the long branches and the edge counts, hooks.c the code that
   reaches the runtime or translates at run time.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#include <config.h>

#include <elf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "stages.h"

/* The prologue entry whose lui is at ADDR, or NULL.  Prologue entries
   come first in the sorted table, by address.  */

const struct reloc_entry *
prologue_at (const struct reloc_table *t, uint32_t addr)
{
  size_t lo = 0, hi = t->n_by_type[RELOC_PROLOGUE];

  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (t->entries[mid].addr < addr)
	lo = mid + 1;
      else
	hi = mid;
    }
  if (lo < t->n_by_type[RELOC_PROLOGUE] && t->entries[lo].addr == addr)
    return &t->entries[lo];
  return NULL;
}

/* True if INSN is an I-type instruction whose rs is a base register.  */

bool
has_base (const struct insn *insn)
{
  return insn->op == OP_ADDIU || (insn->op >= 0x20 && insn->op <= 0x3f);
}

/* Write the copy of INSN, unless it is the delay slot of a long
   conditional branch, which that branch wrote.  */

static bool
put_insn (struct cursor *c, const struct insn *insn, char **errmsg)
{
  long w = emit_word_index (c->e, insn->addr);

  if (w > 0 && long_takes_slot (c->e->layout.long_kind[w - 1]))
    return true;
  return put_insn_body (c, insn, errmsg);
}

/* How far apart the two words of an absolute gp set-up may be.  */
#define ABS_GP_REACH 8

/* True if INSN is one word of an absolute gp set-up of a fixed-address
   object, `lui gp,%hi(_gp)' and, a few words on with nothing between
   that writes gp or transfers control, `addiu gp,gp,%lo(_gp)': the
   abicalls code of a non-PIE executable (main, the start-up code) sets
   gp so, with no prologue from t9.  *HI says which word it is.  Every
   gp-relative word of the copy means the new GOT (the global part moved
   up, the local code addresses are the new ones, a prologue computes
   the new gp), so the pair must set the new gp too: left as it is, it
   kept the old GOT, whose local entries hold the old addresses.  */

static bool
absolute_gp_half (const struct emitter *e, const struct insn *insn, bool *hi)
{
  const struct code *code = &e->a->code;
  const struct insn *lui = NULL, *addiu = NULL;
  bool is_lui = insn->op == OP_LUI && insn->rt == REG_GP;
  int step = is_lui ? 4 : -4;

  if (!e->fixed_address
      || !(is_lui || (insn->op == OP_ADDIU && insn->rs == REG_GP
		      && insn->rt == REG_GP)))
    return false;
  for (int k = 1; k <= ABS_GP_REACH; k++)
    {
      const struct insn *x = code_insn_at (code, insn->addr + step * k);

      if (x == NULL || x->kind == INSN_INVALID || (x->flags & INSN_F_DELAY))
	break;
      if (!(x->writes & R (REG_GP)))
	continue;
      if (is_lui && x->op == OP_ADDIU && x->rs == REG_GP && x->rt == REG_GP)
	lui = insn, addiu = x;
      else if (!is_lui && x->op == OP_LUI && x->rt == REG_GP)
	lui = x, addiu = insn;
      break;
    }
  *hi = is_lui;
  /* A half alone: GCC puts `lui gp,%hi(_gp)' into a branch's delay slot
     and the branch goes to the addiu after another one (cc1: `bne
     a0,v0,L; lui gp' and `lui gp; L: lui a0; addiu gp,gp'), so that a
     lui pairs with an addiu it does not precede, or an addiu with a lui
     behind a delay slot.  In abicalls code nothing else loads gp's
     upper half or adds _gp's lower half to it: each half of the old gp
     becomes the new gp's, so that every pairing the code runs gives
     the new gp.  */
  if (lui == NULL)
    return is_lui ? (insn->word & 0xffff) == ((e->a->obj.gp + 0x8000) >> 16
					       & 0xffff)
		  : (insn->word & 0xffff) == (e->a->obj.gp & 0xffff);
  return ((lui->word & 0xffff) << 16)
	 + (uint32_t) (int16_t) (addiu->word & 0xffff) == e->a->obj.gp;
}

/* Write the sequence that the got-ref addiu INSN, word W, becomes
   (enum gotref_form).  */

void
put_gotref (struct cursor *c, const struct insn *insn, long w)
{
  const struct emitter *e = c->e;
  const struct new_got *g = &e->plan.got;
  uint32_t k = e->plan.gotref_slot[w] - 1;
  uint32_t slot = g->n_old_local + k;
  unsigned form = e->plan.gotref_form[w];
  uint32_t f, d, hi, page;
  int32_t lo;
  unsigned r;

  switch (GOTREF_KIND (form))
    {
    case GOTREF_ADD:
    case GOTREF_TMP:
      /* y = x + (new f - page), the page being f - %lo(f): no gp.  */
      r = GOTREF_KIND (form) == GOTREF_ADD ? insn->rt : GOTREF_REG (form);
      f = g->target_of[k - g->n_fixed];
      page = f - (uint32_t) insn->imm;
      /* The copy may have made the page's entry the new address of the
	 function that starts the page.  */
      if (bsearch (&page, g->moved_pages, g->n_moved_pages,
		   sizeof *g->moved_pages, array_compare_u32) != NULL)
	d = emit_map (e, f) - emit_map (e, page);
      else
	d = emit_map (e, f) - page;
      split_hi_lo (d, &hi, &lo);
      put (c, itype (OP_LUI, 0, r, hi));
      put (c, itype (OP_ADDIU, r, r, (uint32_t) lo));
      put (c, enc_addu (insn->rt, insn->rs, r));
      break;
    case GOTREF_T9:
      {
	const struct cfg *cfg = &e->a->cfg;
	const struct block *b = cfg_block_at (cfg, insn->addr);
	f = g->target_of[k - g->n_fixed];
	d = emit_map (e, f) - emit_map (e, cfg->funcs[b->func].entry);
	split_hi_lo (d, &hi, &lo);
	put (c, itype (OP_LUI, 0, insn->rt, hi));
	put (c, itype (OP_ADDIU, insn->rt, insn->rt, (uint32_t) lo));
	put (c, enc_addu (insn->rt, insn->rt, REG_T9));
      }
      break;
    case GOTREF_PC:
      put_bal_address (c, insn->rt, emit_map (e, g->target_of[k - g->n_fixed]));
      break;
    case GOTREF_PC_SAVED:
      put_bal_address_keep_ra (c, insn->rt,
			       emit_map (e, g->target_of[k - g->n_fixed]));
      put (c, itype (OP_ADDIU, REG_SP, REG_SP, 8));
      break;
    case GOTREF_ABS:
      split_hi_lo (emit_map (e, e->plan.gotref_slot[w]), &hi, &lo);
      put (c, itype (OP_LUI, 0, insn->rt, hi));
      put (c, itype (OP_ADDIU, insn->rt, insn->rt, (uint32_t) lo));
      break;
    case GOTREF_SAVED:
      /* The gp the function saved in its frame.  */
      put (c, itype (OP_LW, REG_SP, insn->rt,
		     (uint32_t) e->facts.gp_saved[w]));
      put (c, itype (OP_LW, insn->rt, insn->rt, 4 * slot - 0x7ff0));
      break;
    default:
      /* addiu y,x,%lo(f) becomes lw y,<new f>(gp), or through the
	 register that holds gp there.  */
      r = GOTREF_REG (form) != 0 ? GOTREF_REG (form) : REG_GP;
      put (c, itype (OP_LW, r, insn->rt, 4 * slot - 0x7ff0));
      break;
    }
}

/* Write the copy of INSN.  */

bool
put_insn_body (struct cursor *c, const struct insn *insn, char **errmsg)
{
  const struct emitter *e = c->e;
  const struct mips_object *obj = &e->a->obj;
  const struct new_got *g = &e->plan.got;
  long w = emit_word_index (e, insn->addr);
  uint32_t word = insn->word;
  bool hi;

  if (w >= 0 && e->layout.long_kind[w] != LONG_NONE)
    return put_long (c, insn, w, errmsg);
  if (w >= 0 && e->plan.gotref_slot[w] != 0)
    {
      if (e->plan.gotref_form[w] & GOTREF_F_BEFORE)
	put (c, 0);		/* Its branch ran it.  */
      else
	put_gotref (c, insn, w);
      return true;
    }

  switch (insn->kind)
    {
    case INSN_BRANCH:
    case INSN_JUMP:
    case INSN_CALL:
      if (insn->op == OP_J || insn->op == OP_JAL)
	{
	  uint32_t t = emit_map (e, insn->target);
	  if ((((c->pc + 4) ^ t) & 0xf0000000) && !c->sizing)
	    goto range;
	  word = (word & 0xfc000000) | ((t >> 2) & 0x03ffffff);
	}
      else if (emit_word_index (e, insn->target) >= 0)
	{
	  uint32_t t = e->layout.retarget[w] != 0 ? e->layout.retarget[w]
		       : emit_map (e, insn->target);
	  int64_t off = ((int64_t) t - (int64_t) (c->pc + 4)) / 4;
	  if (!cursor_reaches (c, off))
	    goto range;
	  if (e->plan.invert[w])
	    word = invert_branch (word);
	  word = (word & 0xffff0000) | ((uint32_t) off & 0xffff);
	}
      put (c, word);
      return true;
    default:
      break;
    }

  if (absolute_gp_half (e, insn, &hi))
    {
      if (hi)
	put (c, itype (OP_LUI, 0, REG_GP, ((g->gp + 0x8000) >> 16) & 0xffff));
      else
	put (c, itype (OP_ADDIU, REG_GP, REG_GP, g->gp & 0xffff));
      return true;
    }
  /* A code address computed from the function's own entry in t9
     (glibc's makecontext: `addiu t9,t9,K' makes the trampoline that a
     context returns to) moves with the copy: t9 holds the entry's new
     address there.  */
  if (insn->op == OP_ADDIU && insn->rs == REG_T9 && w >= 0
      && !e->fixed_address && e->facts.t9_valid[w] && insn->imm != 0)
    {
      const struct cfg *cfg = &e->a->cfg;
      const struct block *b = cfg_block_at (cfg, insn->addr);
      uint32_t entry = b != NULL ? cfg->funcs[b->func].entry : 0;
      uint32_t t = entry + (uint32_t) insn->imm;

      if (b != NULL && emit_word_index (e, t) >= 0
	  && code_insn_at (&e->a->code, t) != NULL)
	{
	  int64_t d = (int64_t) emit_map (e, t) - (int64_t) emit_map (e, entry);
	  if (!cursor_reaches (c, d))
	    {
	      if (asprintf (errmsg, "0x%08x: the code address that t9 plus %d"
			    " makes is out of reach in the profiled code",
			    insn->addr, (int) insn->imm) < 0)
		*errmsg = NULL;
	      return false;
	    }
	  put (c, (word & 0xffff0000) | ((uint32_t) d & 0xffff));
	  return true;
	}
    }
  /* gp-relative references to the old GOT's global part move up, but
     for GOTs that stay in place (struct new_got).  */
  if (has_base (insn) && !g->in_place
      && (insn->rs == REG_GP
	  || reloc_table_holds_gp (&e->a->relocs, insn->addr, insn->rs)))
    {
      uint32_t old = obj->gp + (uint32_t) insn->imm;
      if (old >= obj->got_addr + 4 * g->n_old_local
	  && old < obj->got_addr + 4 * g->n_old)
	{
	  int32_t imm = insn->imm + 4 * (int32_t) g->n_new;
	  if (imm > 0x7fff)
	    {
	      if (asprintf (errmsg, "0x%08x: GOT entry beyond gp's reach in "
			    "the profiled code", insn->addr) < 0)
		*errmsg = NULL;
	      return false;
	    }
	  word = (word & 0xffff0000) | ((uint32_t) imm & 0xffff);
	}
    }
  put (c, word);
  return true;

 range:
  if (asprintf (errmsg, "0x%08x: branch out of range in the profiled code "
		"(long branches are not supported yet)", insn->addr) < 0)
    *errmsg = NULL;
  return false;
}

/* If INSN is the lui or the addiu of a gp prologue, write it so that it
   computes the new gp from the new address of the function (the new
   value of t9, or of ra in the bal form), and return true.  */

static bool
put_prologue_part (struct cursor *c, const struct insn *insn)
{
  const struct emitter *e = c->e;
  const struct reloc_table *t = &e->a->relocs;
  const struct reloc_entry *r;
  bool is_lui = insn->op == OP_LUI;
  uint32_t info;

  /* A gp prologue's pair is a lui and an addiu of the same register.  */
  if (!is_lui && insn->op != OP_ADDIU)
    return false;
  r = prologue_at (t, is_lui ? insn->addr : insn->addr - 4);
  if (r == NULL || insn->rt != r->index)
    return false;
  /* A multi-GOT object's function keeps its GOT's gp (struct new_got,
     in_place).  */
  info = (e->plan.got.in_place ? r->aux : e->plan.got.gp)
	 - emit_map (e, r->target);
  if (is_lui)
    put (c, itype (OP_LUI, 0, r->index, ((info + 0x8000) >> 16) & 0xffff));
  else
    put (c, itype (OP_ADDIU, r->index, r->index, info & 0xffff));
  return true;
}

/* Write the copy of INSN in the new text: a gp prologue's part, or the
   instruction (put_insn).  */

bool
put_copy (struct cursor *c, const struct insn *insn, char **errmsg)
{
  return put_prologue_part (c, insn) || put_insn (c, insn, errmsg);
}

/* Words of the copy of INSN (put_copy).  */

uint32_t
insn_words (const struct emitter *e, const struct insn *insn)
{
  struct cursor c;
  char *msg = NULL;

  cursor_sizing (&c, e);
  put_copy (&c, insn, &msg);
  free (msg);
  return CURSOR_WORDS (&c);
}

/* Whether INSN is the addu of LLVM's gp prologue that puts gp in gp:
   `addu gp,R,t9', R the prologue's pair (find_prologues), whose lui
   lies at most 32 words before.  */

bool
is_llvm_gp_addu (const struct reloc_table *t, const struct insn *insn)
{
  if (insn->op != 0 || (insn->word & 0x3f) != FUNCT_ADDU
      || insn->rd != REG_GP || (insn->rs != REG_T9 && insn->rt != REG_T9))
    return false;
  for (uint32_t k = 2; k <= 34 && k * 4 <= insn->addr; k++)
    {
      const struct reloc_entry *r = prologue_at (t, insn->addr - 4 * k);
      if (r != NULL && r->aux2 == insn->addr)
	return true;
    }
  return false;
}

/* The restore pad before a block that far jumps with nothing dead
   reach (put_pad_jump): a branch over it for the code that falls in,
   then at and ra back and sp up; the pad's address is that of its
   third word.  */

void
put_pad (struct cursor *c)
{
  put (c, itype (OP_BEQ, 0, 0, 4));	/* b over the pad */
  put (c, 0);
  put (c, itype (OP_LW, REG_SP, REG_AT, 0));
  put (c, itype (OP_LW, REG_SP, REG_RA, 4));
  put (c, itype (OP_ADDIU, REG_SP, REG_SP, 8));
}

bool
emit_text (struct emitter *e, unsigned char *out, char **errmsg)
{
  struct cursor c;
  bool ok;

  memset (&c, 0, sizeof c);
  c.e = e;
  c.out = out;
  c.big_endian = e->a->obj.big_endian;
  ok = walk_text (e, &c, errmsg);
  free (c.carries);
  return ok;
}

void
emit_free (struct emitter *e)
{
  free (e->plan.counts);
  free (e->layout.map);
  free (e->layout.insn_new);
  free (e->plan.gotref_slot);
  free (e->plan.gotref_form);
  free (e->facts.gp_valid);
  free (e->facts.t9_valid);
  free (e->facts.t9_moves);
  free (e->layout.t9_const);
  free (e->facts.gp_saved);
  free (e->facts.gp_untrusted);
  free (e->layout.long_kind);
  free (e->layout.long_reg);
  free (e->layout.long_slot);
  free (e->facts.entered);
  free (e->facts.in_llsc);
  free (e->layout.retarget);
  free (e->plan.invert);
  free (e->plan.edge_ok);
  free (e->plan.xlate);
  free (e->plan.hooks);
  free (e->plan.window_slot);
  free (e->plan.window_blocks);
  free (e->plan.edge_owner);
  free (e->layout.pad);
  free (e->layout.needs_pad);
  free (e->plan.blocks);
  free (e->facts.returns);
  free (e->plan.probe);
  free (e->layout.probe_stub);
  free (e->layout.probe_new_stub);
  free (e->layout.past_probe);
  free (e->plan.t9_tramp);
  free (e->plan.t9_call);
  free (e->layout.tramp);
  derive_free (&e->plan.derive);
  free (e->plan.got.new_values);
  free (e->plan.got.target_of);
  free (e->plan.got.index);
  free (e->plan.got.moved_pages);
  memset (e, 0, sizeof *e);
}
