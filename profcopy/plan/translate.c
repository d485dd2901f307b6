/* translate.c -- which indirect jumps and calls the copy translates
   at run time, and how (plan_translations).

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "stages.h"
#include "got-int.h"

/* True if register REG holds a new code address (or data) when INSN
   runs because its last write loads it from the GOT (whose code
   addresses are all new) or is a GOT reference that the copy turns
   into such a load.  */

static bool
reg_from_got (const struct emitter *e, const struct insn *insn, unsigned reg)
{
  const struct insn *p = last_writer (e, insn, reg);
  uint32_t value;

  return p != NULL && (e->plan.gotref_slot[emit_word_index (e, p->addr)] != 0
		       || got_load_value (e, p, &value));
}

/* got_on_all_paths's question to block BI before AT: the last write
   of the register *ARG loads it from the GOT or is a GOT reference
   that the copy turns into such a load.  */

static enum path_verdict
got_load_block (const struct emitter *e, size_t bi, uint32_t at, void *arg)
{
  const struct block *b = &e->a->cfg.blocks[bi];
  unsigned reg = *(const unsigned *) arg;
  uint32_t value;

  for (uint32_t x = at; x > b->start; x -= 4)
    {
      const struct insn *q = code_insn_at (&e->a->code, x - 4);
      if (q == NULL || q->kind == INSN_INVALID)
	return PATH_FAILS;
      if (q->writes & R (reg))
	return e->plan.gotref_slot[emit_word_index (e, q->addr)] != 0
	       || got_load_value (e, q, &value) ? PATH_HOLDS : PATH_FAILS;
    }
  return PATH_GOES_ON;
}

/* Whether, on every way control reaches address AT of block BI (P its
   CFG's predecessors), the last write of register REG before it loads
   it from the GOT or is a GOT reference that the copy turns into such a
   load (as reg_from_got, through branches and falls: GCC shares the
   call at the end of two paths that load different GOT slots).  At
   most *BUDGET blocks are looked at.  */

static bool
got_on_all_paths (const struct emitter *e, const struct preds *p,
		  size_t bi, uint32_t at, unsigned reg, int *budget)
{
  struct path_test test = { got_load_block, NULL, &reg };

  return preds_all_paths (e, p, bi, at, &test, budget);
}

/* A malloc'd array saying for every code word of E whether it is the
   jump of a switch table the relocation table knows, or NULL when out
   of memory.  */

unsigned char *
table_jumps (const struct emitter *e)
{
  const struct analysis *a = e->a;
  unsigned char *table_jr = calloc (e->n_words + 1, 1);

  for (size_t k = 0; table_jr != NULL && k < a->relocs.n_entries; k++)
    {
      const struct reloc_entry *r = &a->relocs.entries[k];
      if (r->type == RELOC_JUMP_TABLE)
	{
	  long w = emit_word_index (e, r->aux2);
	  if (w < 0)
	    continue;
	  if (table_jr[w] == 0)
	    table_jr[w] = TABLE_JR_PROVEN;
	  if ((r->flags & RELOC_F_UNPROVEN) && r->via == VIA_GPREL)
	    table_jr[w] = TABLE_JR_GPREL;
	}
    }
  return table_jr;
}

/* The (jump, addu of gp) pairs of the switch tables of gp-relative
   words whose size is proven, sorted, or NULL (*N zero) when there are
   none or memory ran out.  */

static uint32_t (*
proven_gprel_pairs (const struct analysis *a, size_t *n))[2]
{
  uint32_t (*v)[2] = malloc ((a->relocs.n_by_type[RELOC_JUMP_TABLE] + 1)
			     * sizeof *v);
  size_t m = 0;

  *n = 0;
  if (v == NULL)
    return NULL;
  for (size_t k = 0; k < a->relocs.n_entries; k++)
    {
      const struct reloc_entry *r = &a->relocs.entries[k];
      if (r->type == RELOC_JUMP_TABLE && r->via == VIA_GPREL
	  && !(r->flags & RELOC_F_UNPROVEN))
	{
	  v[m][0] = r->aux2;
	  v[m++][1] = r->index;
	}
    }
  qsort (v, m, sizeof *v, array_compare_u32_pairs);
  *n = m;
  return v;
}

/* True if the jump INSN goes where a switch table of gp-relative words
   whose size is proven (PAIRS, N: proven_gprel_pairs) sends it: the
   last write of its register is that table's addu of gp, in straight
   code before it.  Every word of such a table is rewritten, so the
   target is a new address even in a function whose other code adds gp
   to words that nothing rewrote (analysis_unknown_entries).  */

static bool
own_table_jump (const struct emitter *e, const struct insn *insn,
		uint32_t (*pairs)[2], size_t n)
{
  const struct insn *p = last_writer (e, insn, insn->rs);
  uint32_t key[2];

  if (p == NULL || pairs == NULL)
    return false;
  key[0] = insn->addr;
  key[1] = p->addr;
  return bsearch (key, pairs, n, sizeof *pairs,
		  array_compare_u32_pairs) != NULL;
}

/* True if the program itself reads gp in block B before the word at AT
   and nothing writes gp in between: a switch table's `addu x,y,gp'
   just before its jump, where the gp dataflow lost track (a gp
   restored through the frame pointer, say).  The program relies on gp
   there, so the translation may too: every gp the copy computes is the
   new one.  */

static bool
gp_read_before (const struct emitter *e, const struct block *b, uint32_t at)
{
  while (at > b->start)
    {
      const struct insn *insn = code_insn_at (&e->a->code, at -= 4);
      if (insn == NULL || (insn->writes & R (REG_GP)))
	return false;
      if (insn->reads & R (REG_GP))
	return true;
    }
  return false;
}

bool
plan_translations (struct emitter *e, char **errmsg)
{
  const struct analysis *a = e->a;
  const struct code *code = &a->code;
  unsigned char *table_jr = table_jumps (e);
  unsigned char *guarded = analysis_unknown_entries (a);
  size_t n_pairs;
  uint32_t (*pairs)[2] = proven_gprel_pairs (a, &n_pairs);
  struct preds pr = { NULL, NULL, NULL };
  bool have_preds = preds_build (e, &pr);
  bool ok = true;

  for (size_t s = 0; s < code->n_sections; s++)
    for (size_t i = 0; i < code->sections[s].n_insns; i++)
      {
	const struct insn *insn = &code->sections[s].insns[i];
	long w = (long) (code->sections[s].base + i);
	const struct block *b;
	struct snippet *sn = &e->plan.xlate[w];
	int budget = 16;
	unsigned held;
	bool guard, no_gp, read_gp, from_pc;

	sn->kind = 0xff;
	if (insn->kind != INSN_IJUMP && insn->kind != INSN_ICALL)
	  continue;
	b = cfg_block_at (&a->cfg, insn->addr);
	guard = insn->kind == INSN_IJUMP
		&& ((table_jr != NULL && table_jr[w] == TABLE_JR_GPREL)
		    || (guarded != NULL && b != NULL && guarded[b->func]
			&& !own_table_jump (e, insn, pairs, n_pairs)));
	if (!guard
	    && ((table_jr != NULL && table_jr[w] != 0)
		|| reg_from_got (e, insn, insn->rs)))
	  continue;
	if (!guard && b != NULL && have_preds
	    && got_on_all_paths (e, &pr, (size_t) (b - a->cfg.blocks),
				 insn->addr, insn->rs, &budget))
	  continue;
	/* A fixed-address object's translation needs no gp (put_xlate):
	   leaf functions without a gp prologue call through pointers
	   too, and a jump into the original code there runs it with
	   the switch tables already rewritten for the new.  */
	/* Where gp is not known valid, the program may read it (a
	   switch's `addu x,y,gp'), or another register may hold it
	   (LLVM's code); a switch whose words may be gp-relative ones
	   that nothing rewrote needs its translation where neither is
	   so too, and so does any other jump there: it computes gp from
	   a bal (fd-find calls through a register that got a GOT page
	   plus %lo on a path the analysis could not be sure of, with no
	   register holding gp; left as it was, the call ran the original
	   code).  */
	no_gp = b != NULL && !e->facts.gp_valid[w] && !e->fixed_address;
	/* Not in a multi-GOT object (struct new_got, in_place).  */
	read_gp = no_gp && !e->plan.got.in_place
		  && gp_read_before (e, b, insn->addr);
	held = no_gp && !read_gp ? gp_holder_before (e, b, insn->addr) : 0;
	if (held == insn->rs)
	  held = 0;
	from_pc = no_gp && !read_gp && held == 0 && insn->rs != REG_RA;
	if (b == NULL
	    || (no_gp && held == 0 && !from_pc && !(guard && read_gp))
	    || insn->rs == REG_GP || insn->rs == REG_SP || e->facts.in_llsc[w])
	  {
	    if (guard)
	      {
		/* Its target may be a gp-relative word that nothing
		   rewrote: it would land in the new segment's data.  */
		ok = false;
		if (asprintf (errmsg, "0x%08x: an indirect jump that"
			      " may go through a switch table of gp-relative"
			      " words cannot be translated (no valid gp"
			      " there)", insn->addr) < 0)
		  *errmsg = NULL;
		goto out;
	      }
	    e->stats.n_xlate_skipped++;
	    continue;
	  }
	sn->kind = COUNT_GP;
	choose_regs (sn, free_scratch (e, cfg_live_at (code, &a->cfg, b,
							insn->addr),
				       insn->addr),
		     from_pc ? 3 : 2, 0, R (insn->rs) | R (REG_RA) | R (held));
	sn->guard = guard;
	sn->gp_reg = (uint8_t) held;
	sn->gp_from_pc = from_pc;
	/* A jalr writes ra itself: the bal may clobber it.  */
	sn->ra_dead = from_pc && insn->kind == INSN_ICALL
		      && insn->rd == REG_RA;
	e->stats.n_xlate++;
	e->plan.n_xlate_guarded += guard;
      }
 out:
  free (table_jr);
  free (guarded);
  free (pairs);
  preds_free (&pr);
  return ok;
}
