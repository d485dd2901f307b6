/* plan.c -- emit_plan: branch edge counters, loops counted by their
   induction register, and the order in which all of it is planned;
   marks.c marks the words that need more than a copy.

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

/* Whether the branch at word W writes the sequence of the got-ref
   addiu in its delay slot before itself (GOTREF_F_BEFORE).  */

bool
gotref_before (const struct emitter *e, long w)
{
  return (size_t) w + 1 < e->n_words && e->plan.gotref_slot[w + 1] != 0
	 && (e->plan.gotref_form[w + 1] & GOTREF_F_BEFORE);
}

/* The registers the increment planned in SN reads or writes (gp, sp,
   t9 and ra, which its ways to the counter read or bal writes, and its
   own two), but for the zero register.  */

uint64_t
snippet_uses (const struct snippet *sn)
{
  uint64_t used = R (REG_GP) | R (REG_SP) | R (REG_T9) | R (REG_RA)
		  | R (snippet_base_reg (sn)) | R (snippet_data_reg (sn))
		  | R (sn->ra_keep);

  return used & ~R (0);
}

/* True if the increment planned in P for block B may leave by the
   unconditional branch that it precedes (b, not j, jal or a branch
   with a condition): its branch-likely goes to the branch's target
   with the branch's delay slot instruction in its own, so that neither
   the nop of an increment that has nothing for its slot nor the branch
   run.  The delay slot instruction must be one that may run there
   (movable) and is written as one word like any other; the branch no
   probe, pad or translation.  emit_layout gives the plan up when the
   branch-likely cannot reach the target.
   A single-thread increment runs the delay slot instruction first,
   then leaves by its carry test (put_llsc's SKIP_TO) to the target:
   the instruction must then write no register the increment uses.  */

static bool
leaves_by_jump (const struct emitter *e, const struct block *b,
		const struct count_plan *p)
{
  const struct insn *slot;
  const struct insn *ctl = cfg_block_control (&e->a->code, b, &slot);
  long w, ws;

  if (e->plan.calls || p->edge || p->derived || p->s.n_spill > 0
      || p->s.hoist || p->s.skip || ctl == NULL || slot == NULL
      || ctl->addr != p->at || ctl->kind != INSN_JUMP || ctl->op == OP_J
      || slot->addr != ctl->addr + 4 || slot->addr + 4 != b->end
      || !movable (slot) || (slot->writes & R (REG_GP))
      || (e->single && (slot->writes & snippet_uses (&p->s)) != 0))
    return false;
  w = emit_word_index (e, ctl->addr);
  ws = emit_word_index (e, slot->addr);
  return (w >= 0 && ws >= 0 && emit_word_index (e, ctl->target) >= 0
	  && e->layout.long_kind[w] == LONG_NONE && e->plan.probe[w] == 0
	  && e->plan.probe[ws] == 0 && !e->layout.needs_pad[w]
	  && !e->layout.needs_pad[ws]
	  && e->plan.xlate[w].kind == 0xff && e->plan.xlate[ws].kind == 0xff
	  && e->plan.gotref_slot[ws] == 0 && !e->facts.in_llsc[ws]
	  && insn_words (e, slot) == 1);
}

/* Count the kinds of the plans of E for -v, and decide which take the
   next instruction into their delay slot, how (hoist or skip), and
   which fall-through edge counters take the next block's first.  */

void
count_plans (struct emitter *e)
{
  const struct cfg *cfg = &e->a->cfg;
  struct rewrite_stats *s = &e->stats;

  s->n_derived = s->n_edge = s->n_count_window = s->n_count_gp = 0;
  s->n_count_pc = s->n_count_t9 = s->n_count_abs = s->n_spilled = 0;
  s->n_hoisted = s->n_skipped = s->n_count_saved_gp = s->n_jumps = 0;
  s->n_loops = 0;
  s->n_edge_counters = e->plan.derive.n_edges;
  s->n_edge_window = s->n_edge_saved_window = s->n_count_saved_window = 0;
  for (size_t k = 0;
       e->plan.edge_owner != NULL && k < e->plan.derive.n_edges; k++)
    {
      unsigned kind = edge_snippet (e, k)->kind;
      s->n_edge_window += kind == COUNT_WINDOW || kind == COUNT_SAVED_WINDOW;
      s->n_edge_saved_window += kind == COUNT_SAVED_WINDOW;
    }
  for (size_t i = 0; i < cfg->n_blocks; i++)
    {
      struct count_plan *p = &e->plan.blocks[i];
      /* A counted fall-through edge leaves by a branch-likely past the
	 next block's first instruction, with a copy of it in its delay
	 slot, when slot_fill allows.  */
      p->fall_s.skip = !e->single && p->count_fall && p->fall_s.n_spill == 0
		       && slot_fill (e, cfg->blocks[i].end, true) != NULL;
      if (p->derived)
	{
	  s->n_derived++;
	  continue;
	}
      if (p->iv)
	{
	  s->n_loops++;
	  s->n_loops_stack += p->iv_stack;
	  continue;
	}
      s->n_edge += p->edge;
      s->n_count_window += (p->s.kind == COUNT_WINDOW
			    || p->s.kind == COUNT_SAVED_WINDOW);
      s->n_count_saved_window += p->s.kind == COUNT_SAVED_WINDOW;
      if (p->s.kind == COUNT_GP || p->s.kind == COUNT_WINDOW)
	s->n_count_gp++;
      else if (p->s.kind == COUNT_SAVED_GP || p->s.kind == COUNT_SAVED_WINDOW)
	s->n_count_saved_gp++;
      else if (p->s.kind == COUNT_PC)
	s->n_count_pc++;
      else if (p->s.kind == COUNT_T9)
	s->n_count_t9++;
      else
	s->n_count_abs++;
      if (p->s.n_spill > 0)
	s->n_spilled++;
      /* A single-thread increment has no delay slot to fill: its store
	 is in the carry test's.  */
      p->s.hoist = !e->single && hoistable (e, &cfg->blocks[i], p, true);
      p->s.skip = !e->single && !p->s.hoist && p->s.n_spill == 0
		  && hoistable (e, &cfg->blocks[i], p, false);
      p->s.jump = leaves_by_jump (e, &cfg->blocks[i], p);
      p->s.skip |= p->s.jump && !e->single;
      s->n_jumps += p->s.jump;
      s->n_hoisted += p->s.hoist;
      s->n_skipped += p->s.skip && !p->s.jump;
    }
}

/* Whether the conditional branch INSN has an inverse of the same form:
   beq/bne, blez/bgtz, bltz/bgez.  */

static bool
invertible (const struct insn *insn)
{
  unsigned op = insn->word >> 26, rt = (insn->word >> 16) & 31;

  if (insn->kind != INSN_BRANCH
      || (insn->flags & (INSN_F_LIKELY | INSN_F_COND)))
    return false;
  return (op >= OP_BEQ && op <= OP_BGTZ) || (op == OP_REGIMM && rt <= 1);
}

/* Mark in E->edge_ok the blocks whose two branch edges may get counters
   of their own: a conditional branch that has an inverse, its delay
   slot in the block, to the start of another block of the same
   function within EDGE_REACH (the stub jumps back there) that is not
   the function's entry (--calls sends such branches past the probe),
   falling into the next block; no word of theirs in an ll/sc
   sequence.  False when out of memory.  */

static bool
mark_edge_candidates (struct emitter *e)
{
  const struct cfg *cfg = &e->a->cfg;
  const struct code *code = &e->a->code;

  e->plan.edge_ok = calloc (cfg->n_blocks + 1, 1);
  if (e->plan.edge_ok == NULL)
    return false;
  for (size_t i = 0; i + 1 < cfg->n_blocks; i++)
    {
      const struct block *b = &cfg->blocks[i], *t, *next = b + 1;
      const struct insn *slot;
      const struct insn *ctl = cfg_block_control (code, b, &slot);
      bool ok;

      if (ctl == NULL || slot == NULL || !invertible (ctl) || b->n_succ != 2
	  || (b->flags & BLOCK_F_SLOT_ENTRY) || next->start != b->end
	  || next->func != b->func
	  || (ctl->target > ctl->addr ? ctl->target - ctl->addr
	      : ctl->addr - ctl->target) > EDGE_REACH
	  || (t = cfg_block_at (cfg, ctl->target)) == NULL
	  || t->start != ctl->target || t->func != b->func
	  || cfg->funcs[t->func].entry == t->start)
	continue;
      ok = !e->facts.in_llsc[emit_word_index (e, t->start)]
	   && !e->facts.in_llsc[emit_word_index (e, next->start)];
      for (uint32_t x = b->start; ok && x < b->end; x += 4)
	ok = !e->facts.in_llsc[emit_word_index (e, x)];
      if (ok)
	{
	  e->plan.edge_ok[i] = 1;
	  e->plan.n_edge_candidates++;
	}
    }
  return true;
}

/* What a thread of emit_plan's estimates: estimate_frequencies's
   arguments, and its result in FREQ.  */
struct estimate_job
{
  const struct analysis *a;
  const unsigned char *cold;
  const uint32_t *enters;
  float *freq, *taken;
};

static void *
run_estimate (void *arg)
{
  struct estimate_job *job = arg;

  job->freq = estimate_frequencies (job->a, job->cold, job->enters,
				    job->taken);
  return NULL;
}

/* How many turns a visit of a loop must take, at least, for its stack
   form (plan_loop) to pay.  */
#define STACK_TURNS 4

/* Longest loop block plan_loop takes (words): its branch back must
   reach with room to spare.  */
#define LOOP_WORDS	256

/* True if INSN may fault on an address below its base register: a load
   or store of the user's memory (not pref or cache, which never
   fault).  */

static bool
faulting_access (const struct insn *insn)
{
  return (insn->flags & (INSN_F_LOAD | INSN_F_STORE)) != 0
	 && insn->op >= 0x20 && insn->op != 0x2f && insn->op != 0x33;
}

/* If block B is a loop of its own (its conditional branch goes back to
   its start, its fall-through leaves) that steps an induction register
   by a constant, plan P to count it by that register instead of an
   increment per turn: on the way in, copy the register into one dead
   in the whole loop; on the way out, add the difference divided by the
   step to the counter.  A turn costs nothing then, a visit about a
   dozen instructions.

   The count is exact when the difference fits 32 bits: the register is
   the base of a load or store in the block, so its values over one
   visit are addresses that the program reads or writes, and n turns
   stepping by s sweep n * |s| bytes, which a visit cannot do beyond
   2^31 without touching the kernel's half of the address space (which
   faults).  The block makes no call, system call or trap, so control
   leaves it only by its fall-through, or by a signal whose handler
   does not come back (that visit's turns are then not counted).
   Neither of the branch's edges may have a counter (the copy lives
   across the branch back), which makes derive.c count the block.
   False, P unchanged, when B is no such loop or its way out lacks
   dead registers.  */

static bool
plan_loop (struct emitter *e, const struct block *b, struct count_plan *p)
{
  const struct code *code = &e->a->code;
  const struct cfg *cfg = &e->a->cfg;
  const struct block *next = b + 1;
  const struct insn *slot;
  const struct insn *ctl = cfg_block_control (code, b, &slot);
  uint64_t used = 0, based = 0, stepped = 0, dead;
  uint32_t writers[32] = { 0 };
  int32_t step[32] = { 0 };
  unsigned reg = 0, save = 0, shift;
  uint32_t size, inverse;
  struct snippet sn;
  bool gp;

  if (p->edge || ctl == NULL || slot == NULL || ctl->kind != INSN_BRANCH
      || (ctl->flags & (INSN_F_LIKELY | INSN_F_COND))
      || ctl->target != b->start || b->n_succ != 2
      || (b->flags & (BLOCK_F_SLOT_ENTRY | BLOCK_F_INVALID))
      || b->end - b->start > 4 * LOOP_WORDS
      || (size_t) (b - cfg->blocks) + 1 >= cfg->n_blocks
      || next->start != b->end || next->func != b->func
      || cfg->funcs[b->func].entry == b->start)
    return false;
  for (uint32_t at = b->start; at < b->end; at += 4)
    {
      const struct insn *insn = code_insn_at (code, at);
      long w = emit_word_index (e, at);
      if (insn == NULL || w < 0 || e->facts.in_llsc[w] || e->plan.probe[w] != 0
	  || e->plan.gotref_slot[w] != 0
	  || (insn->flags & INSN_F_TRAP)
	  || (insn != ctl && insn->kind != INSN_OTHER)
	  || (insn->op == 0 && (insn->word & 0x3f) == FUNCT_SYSCALL))
	return false;
      used |= insn->reads | insn->writes;
      for (unsigned r = 1; r < 32; r++)
	if (insn->writes & R (r))
	  writers[r]++;
      if (insn->op == OP_ADDIU && insn->rs == insn->rt && insn->rt != 0
	  && insn->imm != 0)
	{
	  stepped |= R (insn->rt);
	  step[insn->rt] = insn->imm;
	}
      if (faulting_access (insn))
	based |= R (insn->rs);
    }
  /* The induction register: written only by its step, the base of an
     access; not gp, sp, k0 or k1.  */
  for (unsigned r = 1; r < 32 && reg == 0; r++)
    if ((stepped & based & R (r)) && writers[r] == 1 && r != REG_GP
	&& r != REG_SP && r != 26 && r != 27)
      reg = r;
  if (reg == 0)
    return false;
  /* The copy: dead on the way in and out, untouched by the loop, not t9
     (a counter may count through it) nor ra (bal).  */
  dead = free_scratch (e, b->live_in | next->live_in, b->start)
	 & ~used & ~R (REG_T9) & ~R (REG_RA);
  for (size_t i = 0; i < sizeof scratch_order && save == 0; i++)
    if (dead & R (scratch_order[i]))
      save = scratch_order[i];
  memset (&sn, 0, sizeof sn);
  gp = gp_at_transfer (e, b, e->facts.gp_valid[emit_word_index (e, b->start)],
		       ctl);
  if (save != 0)
    plan_edge_snippet (e, &sn, b->end, gp, 1, R (reg) | R (save));
  /* With the copy in a register, a way out that saves registers still
     costs less than a turn's increment that saves them too (some 13
     words) from two turns a visit; against one that saves none it
     does not pay.  */
  if (save == 0 || (sn.n_spill > 0 && p->s.n_spill == 0))
    {
      /* The stack form: the copy below a lowered sp, which the loop
	 must leave alone, and a way out that may save registers: some
	 28 words a visit, and a counter on the way in (the block's
	 counter is forced).  It pays only against an increment that
	 saves registers too (some 13 words a turn) and when a visit
	 takes STACK_TURNS turns or more, which only a profile tells:
	 the loop's count is at least that many times its way out's,
	 which each visit takes once.  Its registers are r1, r2, the
	 carry's and the difference's; with COUNT_PC the carry goes in
	 ra, free once the base is made.  */
      size_t i = (size_t) (b - cfg->blocks);
      if ((used & R (REG_SP)) || p->s.n_spill == 0 || e->plan.counts == NULL
	  || e->plan.counts[i] <= 0 || e->plan.counts[i + 1] < 0
	  || e->plan.counts[i] < STACK_TURNS * e->plan.counts[i + 1])
	return false;
      save = 0;
      plan_edge_snippet (e, &sn, b->end, gp, 1, R (reg));
      /* The saved gp is a frame slot off the sp the copy moved; t9's
	 kind depends on how many registers are asked for.  */
      if (sn.kind == COUNT_SAVED_GP || sn.kind == COUNT_T9)
	return false;
      if (sn.kind != COUNT_PC)
	plan_edge_snippet (e, &sn, b->end, gp, 2, R (reg));
    }
  size = (uint32_t) (step[reg] > 0 ? step[reg] : -step[reg]);
  shift = 0;
  while (!(size & 1))
    {
      size >>= 1;
      shift++;
    }
  /* Dividing by an odd step is multiplying by its inverse (modulo
     2^32: the difference is a multiple of the step), in HI and LO.  */
  if (size != 1 && (next->live_in & (R (REG_HI) | R (REG_LO))))
    return false;
  inverse = size;
  for (int i = 0; i < 5; i++)
    inverse *= 2 - size * inverse;
  p->s = sn;
  p->at = b->start;
  p->iv = true;
  p->iv_reg = (uint8_t) reg;
  p->iv_save = (uint8_t) save;
  p->iv_stack = save == 0;
  p->iv_down = step[reg] < 0;
  p->iv_shift = (uint8_t) shift;
  p->iv_inverse = size != 1 ? inverse : 0;
  return true;
}

/* Plan the increment of every block of E (the part of emit_plan
   before the choice of the counted blocks); the cost of each in words
   goes in COST.  */

static bool
plan_blocks (struct emitter *e, uint32_t *cost, char **errmsg)
{
  const struct analysis *a = e->a;

  for (size_t i = 0; i < a->cfg.n_blocks; i++)
    {
      struct count_plan *p = &e->plan.blocks[i];
      if (!plan_block (e, &a->cfg.blocks[i], p, errmsg))
	return false;
      cost[i] = snippet_words (e, &p->s);
      if (e->plan.edge_ok != NULL && plan_loop (e, &a->cfg.blocks[i], p))
	{
	  e->plan.edge_ok[i] = 0;
	  continue;
	}
      if (p->edge)
	cost[i] += snippet_words (e, &p->taken) + 4;
      /* The count at the block's end would run on the fall-through
	 edge only.  */
      if (e->plan.edge_ok != NULL
	  && (p->edge || p->at >= a->cfg.blocks[i].end))
	e->plan.edge_ok[i] = 0;
    }
  return true;
}

/* Plan the counters of the branch edges of block I that derive.c
   counted.  */

static void
plan_branch_edges (struct emitter *e, size_t i)
{
  const struct code *code = &e->a->code;
  const struct block *b = &e->a->cfg.blocks[i];
  struct count_plan *p = &e->plan.blocks[i];
  const struct insn *slot;
  const struct insn *ctl;
  size_t n = e->a->cfg.n_blocks;
  bool gp;

  if (e->plan.derive.taken_edge[i] == 0 && e->plan.derive.fall_edge[i] == 0)
    return;
  ctl = cfg_block_control (code, b, &slot);
  gp = gp_at_transfer (e, b, e->facts.gp_valid[emit_word_index (e, b->start)],
		       ctl);
  if (e->plan.derive.taken_edge[i] != 0)
    {
      p->count_taken = true;
      p->taken_counter = (uint32_t) (n + e->plan.derive.taken_edge[i] - 1);
      plan_edge_snippet (e, &p->taken_s, ctl->target, gp, 0, 0);
      e->plan.invert[emit_word_index (e, ctl->addr)] = 1;
    }
  if (e->plan.derive.fall_edge[i] != 0)
    {
      p->count_fall = true;
      p->fall_counter = (uint32_t) (n + e->plan.derive.fall_edge[i] - 1);
      plan_edge_snippet (e, &p->fall_s, b->end, gp, 0, 0);
    }
}

bool
emit_plan (struct emitter *e, const struct analysis *a, bool all_blocks,
	   bool calls, bool single, bool folded, bool note_jumps,
	   struct call_sites *sites,
	   const struct prof_object *const *used, size_t n_used,
	   char **errmsg)
{
  const struct code *code = &a->code;
  size_t total = 0;
  uint32_t *cost;
  unsigned char *cold;
  struct estimate_job est;
  pthread_t thread;
  bool threaded, ok;

  memset (e, 0, sizeof *e);
  e->single = single;
  e->folded = folded;
  e->a = a;
  e->fixed_address = a->obj.e_type == ET_EXEC;
  total = code->n_words;
  e->n_words = total;
  e->old_start = UINT32_MAX;
  e->old_end = 0;
  for (size_t i = 0; i < code->n_sections; i++)
    {
      if (code->sections[i].start < e->old_start)
	e->old_start = code->sections[i].start;
      if (code->sections[i].end > e->old_end)
	e->old_end = code->sections[i].end;
    }
  if (e->old_start > e->old_end)
    e->old_start = e->old_end = 0;
  e->layout.map = calloc (total + 1, sizeof *e->layout.map);
  e->layout.insn_new = calloc (total + 1, sizeof *e->layout.insn_new);
  e->plan.gotref_slot = calloc (total + 1, sizeof *e->plan.gotref_slot);
  e->plan.gotref_form = calloc (total + 1, sizeof *e->plan.gotref_form);
  e->layout.long_kind = calloc (total + 1, 1);
  e->layout.long_reg = calloc (total + 1, 1);
  e->layout.long_slot = calloc (total + 1, sizeof *e->layout.long_slot);
  e->layout.retarget = calloc (total + 1, sizeof *e->layout.retarget);
  e->plan.invert = calloc (total + 1, 1);
  e->plan.xlate = calloc (total + 1, sizeof *e->plan.xlate);
  e->layout.pad = calloc (total + 1, sizeof *e->layout.pad);
  e->layout.needs_pad = calloc (total + 1, 1);
  e->plan.blocks = calloc (a->cfg.n_blocks + 1, sizeof *e->plan.blocks);
  if (e->layout.map == NULL || e->layout.insn_new == NULL
      || e->plan.gotref_slot == NULL || e->plan.gotref_form == NULL
      || e->plan.blocks == NULL
      || e->layout.long_kind == NULL || e->layout.long_reg == NULL
      || e->layout.long_slot == NULL || e->layout.retarget == NULL
      || e->plan.invert == NULL
      || e->plan.xlate == NULL
      || e->layout.pad == NULL || e->layout.needs_pad == NULL)
    goto nomem;
  e->plan.calls = calls;
  e->plan.probe = calloc (total + 1, 1);
  e->plan.hooks = calloc (total + 1, 1);
  if (e->plan.hooks == NULL)
    goto nomem;
  /* The probe sites' tables: only --calls has any.  */
  if (calls)
    {
      e->layout.probe_stub = calloc (total + 1, sizeof *e->layout.probe_stub);
      e->layout.probe_new_stub = calloc (total + 1, 1);
      e->layout.past_probe = calloc (total + 1, sizeof *e->layout.past_probe);
    }
  if (e->plan.probe == NULL
      || (calls && (e->layout.probe_stub == NULL
		    || e->layout.probe_new_stub == NULL
		    || e->layout.past_probe == NULL)))
    goto nomem;
  if (calls && !mark_probes (e))
    goto nomem;
  /* The facts read the GOT references, none of them planned yet.  */
  if (!prove_facts (e, sites->into, errmsg))
    return false;
  mark_data_bals (e);
  mark_syscall_hooks (e);
  if (note_jumps)
    mark_jump_notes (e);
  if (!all_blocks && !mark_edge_candidates (e))
    goto nomem;
  if (!plan_got (e, errmsg))
    return false;
  /* The calls that never return, hence the cold blocks, are known once
     plan_got knows what t9 holds.  */
  cold = mark_cold (e);
  cost = malloc ((a->cfg.n_blocks + 1) * sizeof *cost);
  est.taken = all_blocks ? NULL
	      : malloc ((a->cfg.n_blocks + 1) * sizeof *est.taken);
  if (!all_blocks && n_used > 0)
    e->plan.counts = profile_block_counts (a, used, n_used,
					   &e->stats.n_profiled);
  if (cold == NULL || cost == NULL || (!all_blocks && est.taken == NULL)
      || (!all_blocks && n_used > 0 && e->plan.counts == NULL))
    {
      free (cold);
      free (cost);
      free (est.taken);
      goto nomem;
    }
  /* The counters' registers and the t9 trampolines need the live
     sets, which a thread makes meanwhile (emit_narrow_liveness).  */
  if (!call_sites_wait (sites))
    {
      free (cold);
      free (cost);
      free (est.taken);
      goto nomem;
    }
  if (!t9_dataflow (e, errmsg) || !plan_gotref_forms (e, errmsg))
    {
      free (cold);
      free (cost);
      free (est.taken);
      return false;
    }
  /* The estimate needs only the CFG, the cold blocks and the calls: a
     thread of its own makes it while plan_blocks works.  */
  est.a = a;
  est.cold = cold;
  est.enters = sites->enters;
  est.freq = NULL;
  threaded = !all_blocks
	     && pthread_create (&thread, NULL, run_estimate, &est) == 0;
  ok = plan_blocks (e, cost, errmsg);
  if (threaded)
    pthread_join (thread, NULL);
  else if (!all_blocks && ok)
    run_estimate (&est);
  if (ok && !all_blocks
      && (est.freq == NULL
	  || (e->plan.counts != NULL
	      && !estimate_from_counts (a, e->plan.counts, est.freq,
					est.taken))))
    {
      *errmsg = strdup ("out of memory");
      ok = false;
    }
  ok = ok && derive_plan (a, cost, cold, sites->into, sites->returning,
			  est.freq, est.taken, e->plan.edge_ok, all_blocks,
			  &e->plan.derive, errmsg);
  free (cost);
  free (cold);
  free (est.freq);
  free (est.taken);
  free (e->plan.counts);
  e->plan.counts = NULL;
  if (!ok)
    return false;
  for (size_t i = 0; i < a->cfg.n_blocks; i++)
    {
      if (!e->plan.derive.measured[i])
	{
	  memset (&e->plan.blocks[i], 0, sizeof e->plan.blocks[i]);
	  e->plan.blocks[i].derived = true;
	}
      plan_branch_edges (e, i);
    }
  e->plan.window_slot = malloc ((a->cfg.n_blocks + e->plan.derive.n_edges + 1)
			   * sizeof *e->plan.window_slot);
  e->plan.edge_owner = malloc ((e->plan.derive.n_edges + 1)
			       * sizeof *e->plan.edge_owner);
  if (e->plan.window_slot == NULL || e->plan.edge_owner == NULL)
    goto nomem;
  for (size_t i = 0; i < a->cfg.n_blocks + e->plan.derive.n_edges; i++)
    e->plan.window_slot[i] = -1;
  for (size_t i = 0; i < a->cfg.n_blocks; i++)
    {
      if (e->plan.derive.taken_edge[i] != 0)
	e->plan.edge_owner[e->plan.derive.taken_edge[i] - 1]
	  = 2 * (uint32_t) i;
      if (e->plan.derive.fall_edge[i] != 0)
	e->plan.edge_owner[e->plan.derive.fall_edge[i] - 1]
	  = 2 * (uint32_t) i + 1;
    }
  if (!assign_window (e))
    goto nomem;
  if (!plan_translations (e, errmsg))
    return false;
  count_plans (e);
  return true;

 nomem:
  *errmsg = strdup ("out of memory");
  return false;
}
