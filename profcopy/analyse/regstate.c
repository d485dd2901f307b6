/* regstate.c -- the register dataflows of gp: where gp holds the new
   gp and which frame slots hold a saved gp; t9state.c has t9's.

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
#include "regstate.h"

/* The gp state.  A block starts with gp valid when every path into it
   leaves gp valid; a block that code outside its function can enter
   (a function entry, a code address held in data or in the GOT) starts
   with gp unknown.  Inside a block, `addu gp,gp,t9|ra' (the prologue)
   and `lw gp,off(sp)' (the reload after a call) make gp valid, any other
   write of gp and every call make it unknown.  A reload is valid only
   when its slot holds a valid gp: one that gp_check_reloads found may
   not (E->gp_untrusted) makes gp unknown, as in musl's _init, which
   saves and restores its caller's gp without computing its own.  In a
   multi-GOT object, nothing makes gp valid.  */

bool
gp_step (const struct emitter *e, bool valid, const struct insn *insn)
{
  if (!(insn->writes & R (REG_GP)))
    return valid;
  /* A multi-GOT object keeps its GOTs (struct new_got, in_place).  */
  if (object_multi_got (&e->a->obj))
    return false;
  if (insn->word == ADDU_GP_GP_T9 || insn->word == ADDU_GP_GP_RA
      || is_llvm_gp_addu (&e->a->relocs, insn))
    return true;
  return (insn->op == OP_LW && insn->rs == REG_SP
	  && (e->facts.gp_untrusted == NULL
	      || !e->facts.gp_untrusted[emit_word_index (e, insn->addr)]));
}

/* The gp state of block B: see state_block.  */

static bool
gp_block (struct emitter *e, const struct block *b, bool in, bool record)
{
  return state_block (e, b, in, gp_step, record ? e->facts.gp_valid : NULL);
}

/* The gp state at the end of block B from both states in, in one
   walk: bit 0 from invalid, bit 1 from valid (gp_block's).  */

static unsigned
gp_transfer (const struct emitter *e, const struct block *b)
{
  const struct code *code = &e->a->code;
  bool from_invalid = false, from_valid = true, called = false;

  for (uint32_t a = b->start; a < b->end; a += 4)
    {
      const struct insn *insn = code_insn_at (code, a);
      if (insn == NULL)
	continue;
      from_invalid = gp_step (e, from_invalid, insn);
      from_valid = gp_step (e, from_valid, insn);
      called |= is_call (insn);
    }
  return called ? 0 : (from_invalid ? 1 : 0) | (from_valid ? 2 : 0);
}

/* The gp state after the delay slot of the control instruction CTL of
   block B, entered with gp state IN.  */

bool
gp_at_transfer (const struct emitter *e, const struct block *b, bool in,
		const struct insn *ctl)
{
  const struct code *code = &e->a->code;
  bool v = in;

  for (uint32_t x = b->start; x < b->end && x <= ctl->addr + 4; x += 4)
    {
      const struct insn *insn = code_insn_at (code, x);
      if (insn != NULL)
	v = gp_step (e, v, insn);
    }
  return v;
}

/* Lower IN (a register state per block) at the targets of every switch
   table whose jump runs with the state invalid, stepping with STEP from
   the start of the jump's block to the jump itself; with SAME_FUNC, a
   table entry in another function gets an invalid state.  Set DIRTY
   (when not NULL) for each block lowered.  Return whether anything
   changed.  */

bool
jump_table_meet (const struct emitter *e, unsigned char *in,
		 bool (*step) (const struct emitter *, bool,
			       const struct insn *), bool same_func,
		 unsigned char *dirty)
{
  const struct analysis *a = e->a;
  const struct cfg *cfg = &a->cfg;
  bool changed = false;

  for (size_t k = 0; k < a->relocs.n_entries; k++)
    {
      const struct reloc_entry *r = &a->relocs.entries[k];
      const struct block *from, *to;
      bool v;
      if (r->type != RELOC_JUMP_TABLE)
	continue;
      from = cfg_block_at (cfg, r->aux2);
      to = cfg_block_at (cfg, r->target);
      if (from == NULL || to == NULL || to->start != r->target)
	continue;
      /* The state at the jr itself: it adds gp to the entry.  */
      v = in[from - cfg->blocks] && (!same_func || from->func == to->func);
      for (uint32_t x = from->start; x < r->aux2; x += 4)
	{
	  const struct insn *insn = code_insn_at (&a->code, x);
	  if (insn != NULL)
	    v = step (e, v, insn);
	}
      if (in[to - cfg->blocks] && !v)
	{
	  in[to - cfg->blocks] = 0;
	  if (dirty != NULL)
	    dirty[to - cfg->blocks] = 1;
	  changed = true;
	}
    }
  return changed;
}

/* The functions of E's CFG that have LLVM's gp prologue (its gp in
   another register than gp: struct reloc_table's gp_bases), as a
   malloc'd flag per function; NULL with *OK true when there are none,
   *OK false when out of memory.  */

static unsigned char *
llvm_functions (const struct emitter *e, bool *ok)
{
  const struct cfg *cfg = &e->a->cfg;
  const struct reloc_table *t = &e->a->relocs;
  unsigned char *llvm = NULL;

  *ok = true;
  for (size_t k = 0; k < t->n_entries; k++)
    if (t->entries[k].type == RELOC_PROLOGUE && t->entries[k].aux2 != 0)
      {
	const struct function *f = cfg_function_at (cfg, t->entries[k].addr);
	if (f == NULL)
	  continue;
	if (llvm == NULL && (llvm = calloc (cfg->n_funcs + 1, 1)) == NULL)
	  {
	    *ok = false;
	    return NULL;
	  }
	llvm[f - cfg->funcs] = 1;
      }
  return llvm;
}

/* Set GP_READ[i] when some path from the start of block i reads gp
   before writing it, within its function and before any call or
   return.  Compiled code that does so after a call trusts the call to
   leave gp alone (GCC reloads gp after every call that may clobber it
   and returns), so gp_dataflow may too.  Not in a function with LLVM's
   prologue (LLVM_FUNCS, may be NULL), whose $28 may be any value.  */

static void
gp_read_ahead (const struct emitter *e, const unsigned char *llvm_funcs,
	       unsigned char *gp_read)
{
  const struct cfg *cfg = &e->a->cfg;
  const struct code *code = &e->a->code;
  size_t n = cfg->n_blocks;
  unsigned char *open = calloc (n + 1, 1);
  bool changed = true;

  memset (gp_read, 0, n + 1);
  if (open == NULL)
    return;
  /* OPEN: the block neither reads nor writes gp and falls or branches
     on within its function.  */
  for (size_t i = 0; i < n; i++)
    {
      const struct block *b = &cfg->blocks[i];
      bool decided = llvm_funcs != NULL && llvm_funcs[b->func];
      for (uint32_t x = b->start; x < b->end && !decided; x += 4)
	{
	  const struct insn *insn = code_insn_at (code, x);
	  if (insn == NULL)
	    decided = true;
	  else if (insn->reads & R (REG_GP))
	    {
	      gp_read[i] = 1;
	      decided = true;
	    }
	  else if (insn->writes & R (REG_GP))
	    decided = true;
	}
      open[i] = !decided
		&& !(b->flags & (BLOCK_F_CALL | BLOCK_F_RETURN
				 | BLOCK_F_INDIRECT | BLOCK_F_INVALID));
    }
  while (changed)
    {
      changed = false;
      for (size_t i = n; i-- > 0;)
	{
	  const struct block *b = &cfg->blocks[i];
	  if (!open[i] || gp_read[i])
	    continue;
	  for (uint32_t k = 0; k < b->n_succ; k++)
	    if (cfg->blocks[b->succ[k]].func == b->func && gp_read[b->succ[k]])
	      {
		gp_read[i] = 1;
		changed = true;
		break;
	      }
	}
    }
  free (open);
}

/* What a block's direct call means to gp_dataflow.  */
struct gp_call
{
  uint32_t callee, entry;
  unsigned char transfer;
};

/* Compute gp_valid for every word: a forward dataflow to a fixpoint
   over the blocks of each function, with jump table edges added, and
   into the functions that only this object's direct calls reach, or
   only the calls INTO lists (emit_narrow_liveness; may be NULL).  */

bool
gp_dataflow (struct emitter *e, const uint32_t *into, char **errmsg)
{
  const struct analysis *a = e->a;
  const struct cfg *cfg = &a->cfg;
  size_t n = cfg->n_blocks;
  unsigned char *entry = calloc (n + 1, 1);
  unsigned char *internal = calloc (n + 1, 1);
  unsigned char *gp_read = malloc (n + 1);
  unsigned char *in = malloc (n + 1);
  unsigned char *out = malloc (n + 1);
  unsigned char *ret_ok = malloc (cfg->n_funcs + 1);
  struct gp_call *calls = malloc ((n + 1) * sizeof *calls);
  unsigned char *llvm;
  bool llvm_ok;
  /* DIRTY: the block's state in, or the returns of the function it
     calls, fell since it was last looked at.  RET_FELL: the function's
     ret_ok fell in the last pass (RET_FELL), or in this one
     (+ n_funcs + 1).  */
  unsigned char *dirty = malloc (n + 1);
  unsigned char *ret_fell = calloc (2 * (cfg->n_funcs + 1), 1);
  unsigned char *fell_now = ret_fell + cfg->n_funcs + 1;
  bool changed = true, ok = false;

  llvm = llvm_functions (e, &llvm_ok);
  if (entry == NULL || internal == NULL || in == NULL || out == NULL
      || gp_read == NULL || ret_ok == NULL || calls == NULL
      || dirty == NULL || ret_fell == NULL || !llvm_ok)
    {
      free (llvm);
      *errmsg = strdup ("out of memory");
      goto done;
    }
  /* RET_OK: the function returns with gp valid, so that a direct call
     to it leaves gp valid (every function of the object computes the
     same gp).  Assumed, then disproved: by a return without gp, or a
     way out other than a return (a tail call, a fall into the next
     function), whose return we cannot see.  */
  memset (ret_ok, 1, cfg->n_funcs + 1);
  for (size_t i = 0; i < n; i++)
    {
      const struct block *b = &cfg->blocks[i];
      const struct insn *slot;
      const struct insn *ctl = cfg_block_control (&a->code, b, &slot);
      if ((b->flags & (BLOCK_F_FALLTHRU_EXIT | BLOCK_F_INVALID))
	  || ((b->flags & BLOCK_F_INDIRECT) && ctl != NULL
	      && ctl->rs == REG_T9))
	ret_ok[b->func] = 0;
      for (uint32_t s = 0; s < b->n_succ; s++)
	if (cfg->blocks[b->succ[s]].func != b->func
	    && !(b->flags & BLOCK_F_CALL))
	  ret_ok[b->func] = 0;
      if (ctl != NULL && (ctl->kind == INSN_JUMP || ctl->kind == INSN_BRANCH)
	  && cfg_function_at (cfg, ctl->target) != &cfg->funcs[b->func])
	ret_ok[b->func] = 0;
    }
  mark_entries (e->a, entry);
  mark_outside_blocks (e->a, entry);
  gp_read_ahead (e, llvm, gp_read);
  free (llvm);
  /* A block's gp transfer, for both states in: bit 0 from invalid,
     bit 1 from valid.  */
  for (size_t i = 0; i < n; i++)
    out[i] = gp_transfer (e, &cfg->blocks[i])
	     | (calls_noreturn (e, e->facts.returns, &cfg->blocks[i]) ? 4 : 0);
  if (!e->fixed_address)
    mark_internal_entries (e->a, internal);
  /* A function that only the calls of INTO enter (through t9 from the
     GOT, say) starts with their gp too.  */
  for (size_t i = 0; !e->fixed_address && into != NULL && i < n; i++)
    if (into[i] != 0)
      {
	size_t t = into[i] - 1;
	if (t == 0 || !falls_into (&a->code, &cfg->blocks[t - 1],
				   &cfg->blocks[t]))
	  internal[t] = 1;
      }
  /* What the calls do, per block, once: CALLEE, 1 + the function of
     this object whose entry a direct call enters; ENTRY, 1 + the
     internal entry block a direct call or a call of INTO enters, and
     TRANSFER, the gp state it passes on from each state in (bit 0 from
     invalid, bit 1 from valid).  */
  for (size_t i = 0; i < n; i++)
    {
      const struct block *b = &cfg->blocks[i];
      const struct insn *slot;
      const struct insn *ctl = cfg_block_control (&a->code, b, &slot);
      long t;

      calls[i].callee = calls[i].entry = 0;
      calls[i].transfer = 0;
      if (ctl == NULL)
	continue;
      if (ctl->kind == INSN_CALL && (b->flags & BLOCK_F_CALL)
	  && !(ctl->flags & INSN_F_COND) && ctl->target != ctl->addr + 8)
	{
	  const struct function *g = cfg_function_at (cfg, ctl->target);
	  if (g != NULL && g->entry == ctl->target)
	    calls[i].callee = (uint32_t) (g - cfg->funcs) + 1;
	}
      t = into != NULL && into[i] != 0 ? (long) into[i] - 1
	  : ctl->kind == INSN_CALL ? cfg_block_starting (cfg, ctl->target)
	  : -1;
      if (t >= 0 && internal[t])
	{
	  calls[i].entry = (uint32_t) t + 1;
	  calls[i].transfer = (gp_at_transfer (e, b, false, ctl) ? 1 : 0)
			      | (gp_at_transfer (e, b, true, ctl) ? 2 : 0);
	}
    }

  /* Meet: a block's in is the AND of its predecessors' outs.  Start
     from true everywhere except entries, and lower, looking again only
     at the blocks whose state in or callee's returns fell (the one
     fixpoint is the same in any order).  */
  for (size_t i = 0; i < n; i++)
    in[i] = !entry[i] || internal[i];
  memset (dirty, 1, n + 1);
  while (changed)
    {
      changed = false;
      for (size_t i = 0; i < n; i++)
	{
	  const struct block *b = &cfg->blocks[i];
	  bool o;

	  if (!dirty[i]
	      && (calls[i].callee == 0 || !ret_fell[calls[i].callee - 1]))
	    continue;
	  dirty[i] = 0;
	  o = (out[i] >> (in[i] ? 1 : 0)) & 1;
	  /* Nothing comes back from a call that never returns.  */
	  if (out[i] & 4)
	    o = true;
	  /* A function of this object that returns with gp valid.  */
	  if (calls[i].callee != 0 && ret_ok[calls[i].callee - 1])
	    o = true;
	  if ((b->flags & BLOCK_F_RETURN) && !o && ret_ok[b->func])
	    {
	      ret_ok[b->func] = 0;
	      fell_now[b->func] = 1;
	      changed = true;
	    }
	  for (uint32_t s = 0; s < b->n_succ; s++)
	    {
	      uint32_t t = b->succ[s];
	      if (cfg->blocks[t].func != b->func && !internal[t])
		continue;
	      if ((b->flags & BLOCK_F_CALL) && internal[t])
		continue;	/* The return point, not a call target.  */
	      if ((b->flags & BLOCK_F_CALL) && gp_read[t]
		  && cfg->blocks[t].func == b->func)
		continue;	/* The code after the call trusts gp.  */
	      if (in[t] && !o)
		{
		  in[t] = 0;
		  dirty[t] = 1;
		  changed = true;
		}
	    }
	  /* A direct call into an internal entry passes its gp on.  */
	  if (calls[i].entry != 0 && in[calls[i].entry - 1]
	      && !((calls[i].transfer >> (in[i] ? 1 : 0)) & 1))
	    {
	      in[calls[i].entry - 1] = 0;
	      dirty[calls[i].entry - 1] = 1;
	      changed = true;
	    }
	}
      changed |= jump_table_meet (e, in, gp_step, false, dirty);
      memcpy (ret_fell, fell_now, cfg->n_funcs + 1);
      memset (fell_now, 0, cfg->n_funcs + 1);
    }
  for (size_t i = 0; i < n; i++)
    gp_block (e, &cfg->blocks[i], in[i], true);
  /* A multi-GOT object's gp is never the new one (struct new_got,
     in_place), not even where the dataflow stays optimistic (a cycle
     that nothing enters, the code after a call that trusts gp).  */
  if (object_multi_got (&a->obj))
    memset (e->facts.gp_valid, 0, e->n_words);
  ok = true;

 done:
  free (dirty);
  free (ret_fell);
  free (entry);
  free (internal);
  free (gp_read);
  free (in);
  free (out);
  free (ret_ok);
  free (calls);
  return ok;
}

/* The saved-gp state after INSN at word W, from STATE (an sp offset, or
   -1): `sw gp,K(sp)' with gp valid saves it; a change of sp or another
   store over the slot loses it; calls cannot touch the frame.  */

static int32_t
gp_saved_step (const struct emitter *e, long w, int32_t state,
	       const struct insn *insn)
{
  if (insn->writes & R (REG_SP))
    return -1;
  if (!(insn->flags & INSN_F_STORE) || insn->rs != REG_SP)
    return state;
  if (insn->op == OP_SW && insn->rt == REG_GP && e->facts.gp_valid[w]
      && insn->imm >= 0 && insn->imm <= 0x7fff - 16)
    return insn->imm;
  if (state >= 0 && insn->imm > state - 8 && insn->imm < state + 4)
    return -1;
  return state;
}

/* The saved-gp state at the end of block B entered with ST, recording
   the state before each word in e->gp_saved when RECORD.  */

static int32_t
gp_saved_block (struct emitter *e, const struct block *b, int32_t st,
		bool record)
{
  for (uint32_t x = b->start; x < b->end; x += 4)
    {
      long w = emit_word_index (e, x);
      const struct insn *insn = code_insn_at (&e->a->code, x);
      if (record)
	e->facts.gp_saved[w] = (int16_t) st;
      st = insn == NULL ? -1 : gp_saved_step (e, w, st, insn);
    }
  return st;
}

/* Find, for every word, the frame slot that holds a valid gp (the o32
   .cprestore slot a PIC function saves gp in): a forward must-dataflow
   over each function's blocks and switch tables (a worklist of blocks),
   from nothing at every way in that is not a visible edge.  Nothing in
   a fixed-address object, whose counters do not use gp.  False when out
   of memory.  */

bool
gp_saved_dataflow (struct emitter *e)
{
  const struct analysis *a = e->a;
  const struct cfg *cfg = &a->cfg;
  size_t n = cfg->n_blocks, n_edges = 0, sp = 0;
  int32_t *in = malloc ((n + 1) * sizeof *in);
  unsigned char *entry = calloc (n + 1, 1);
  unsigned char *queued = calloc (n + 1, 1);
  uint32_t *stack = malloc ((n + 1) * sizeof *stack);
  uint32_t *tab_first = calloc (n + 2, sizeof *tab_first);
  uint32_t *tab_to = NULL;
  struct cfg_edge *edges = NULL;
  bool ok = false;

  if (in == NULL || entry == NULL || queued == NULL || stack == NULL
      || tab_first == NULL)
    goto done;
  if (e->fixed_address)
    {
      for (size_t i = 0; i < n; i++)
	gp_saved_block (e, &cfg->blocks[i], -1, true);
      ok = true;
      goto done;
    }
  /* The switch tables' edges inside functions, by block, in compressed
     rows.  */
  if (!analysis_table_edges (a, &edges, &n_edges))
    goto done;
  tab_to = malloc ((n_edges + 1) * sizeof *tab_to);
  if (tab_to == NULL)
    goto done;
  for (size_t k = 0; k < n_edges; k++)
    if (cfg->blocks[edges[k].to].func == cfg->blocks[edges[k].from].func)
      tab_first[edges[k].from + 2]++;
  for (size_t i = 0; i < n; i++)
    tab_first[i + 2] += tab_first[i + 1];
  for (size_t k = 0; k < n_edges; k++)
    if (cfg->blocks[edges[k].to].func == cfg->blocks[edges[k].from].func)
      tab_to[tab_first[edges[k].from + 1]++] = edges[k].to;

  mark_entries (e->a, entry);
  /* -2: not reached yet.  */
  for (size_t i = n; i-- > 0;)
    {
      in[i] = entry[i] ? -1 : -2;
      if (entry[i])
	{
	  stack[sp++] = (uint32_t) i;
	  queued[i] = 1;
	}
    }
  while (sp > 0)
    {
      uint32_t i = stack[--sp];
      const struct block *b = &cfg->blocks[i];
      int32_t st = gp_saved_block (e, b, in[i], false);

      queued[i] = 0;
      for (uint32_t k = 0; k < b->n_succ + tab_first[i + 1] - tab_first[i];
	   k++)
	{
	  uint32_t t = k < b->n_succ ? b->succ[k]
		       : tab_to[tab_first[i] + k - b->n_succ];
	  int32_t v = cfg->blocks[t].func != b->func ? -1 : st;
	  int32_t m = in[t] == -2 ? v : in[t] == v ? v : -1;
	  if (m != in[t])
	    {
	      in[t] = m;
	      if (!queued[t])
		{
		  queued[t] = 1;
		  stack[sp++] = t;
		}
	    }
	}
    }
  for (size_t i = 0; i < n; i++)
    gp_saved_block (e, &cfg->blocks[i], in[i] < 0 ? -1 : in[i], true);
  ok = true;

 done:
  free (in);
  free (entry);
  free (queued);
  free (stack);
  free (tab_first);
  free (tab_to);
  free (edges);
  return ok;
}

/* A save of gp in the stack slot SLOT of the function FUNC.  */
struct gp_save
{
  uint32_t func;
  int32_t slot;
};

static bool
add_save (struct gp_save **v, size_t *n, size_t *room, uint32_t func,
	  int32_t slot)
{
  if (*n == *room)
    {
      struct gp_save *p;
      *room = *room == 0 ? 8 : 2 * *room;
      p = realloc (*v, *room * sizeof *p);
      if (p == NULL)
	return false;
      *v = p;
    }
  (*v)[*n].func = func;
  (*v)[(*n)++].slot = slot;
  return true;
}

static bool
has_save (const struct gp_save *v, size_t n, uint32_t func, int32_t slot)
{
  for (size_t k = 0; k < n; k++)
    if (v[k].func == func && v[k].slot == slot)
      return true;
  return false;
}

/* Mark in E->gp_untrusted each reload `lw gp,K(sp)' of a function that
   also saves gp in slot K where gp is not valid (the caller's gp:
   musl's _init saves and restores it, and computes none), which gp_step
   then no longer takes for a valid gp.  A slot that a valid gp is saved
   in is trusted whatever paths lead to the reload, as before.  In a
   function with LLVM's gp prologue, a reload is trusted only from a
   slot that a valid gp is saved in: LLVM keeps gp in another register
   there and may give $28 to any value (Debian's ripgrep loads a
   frame's word into it, and the copy's counters took that for gp).
   Return 1 when a reload was newly marked (gp_dataflow must run again,
   and may find more such saves), 0 when none was, -1 when out of
   memory.  Nothing in a fixed-address object, whose counters do not use
   gp.  */

int
gp_check_reloads (struct emitter *e)
{
  const struct cfg *cfg = &e->a->cfg;
  const struct code *code = &e->a->code;
  struct gp_save *bad = NULL, *good = NULL;
  size_t n_bad = 0, room_bad = 0, n_good = 0, room_good = 0;
  unsigned char *llvm;
  bool llvm_ok;
  int marked = 0;

  if (e->fixed_address)
    return 0;
  llvm = llvm_functions (e, &llvm_ok);
  if (!llvm_ok)
    return -1;
  for (size_t i = 0; i < cfg->n_blocks; i++)
    for (uint32_t x = cfg->blocks[i].start; x < cfg->blocks[i].end; x += 4)
      {
	const struct insn *insn = code_insn_at (code, x);
	bool valid;
	if (insn == NULL || insn->op != OP_SW || insn->rs != REG_SP
	    || insn->rt != REG_GP)
	  continue;
	valid = e->facts.gp_valid[emit_word_index (e, x)];
	if (!valid ? !add_save (&bad, &n_bad, &room_bad,
				cfg->blocks[i].func, insn->imm)
	    : llvm != NULL && llvm[cfg->blocks[i].func]
	      && !add_save (&good, &n_good, &room_good,
			    cfg->blocks[i].func, insn->imm))
	  {
	    marked = -1;
	    goto out;
	  }
      }
  for (size_t i = 0; i < cfg->n_blocks && (n_bad > 0 || llvm != NULL); i++)
    for (uint32_t x = cfg->blocks[i].start; x < cfg->blocks[i].end; x += 4)
      {
	const struct insn *insn = code_insn_at (code, x);
	long w = emit_word_index (e, x);
	uint32_t func = cfg->blocks[i].func;
	if (insn == NULL || insn->op != OP_LW || insn->rs != REG_SP
	    || !(insn->writes & R (REG_GP))
	    || (e->facts.gp_untrusted != NULL && e->facts.gp_untrusted[w]))
	  continue;
	if (!has_save (bad, n_bad, func, insn->imm)
	    && !(llvm != NULL && llvm[func]
		 && !has_save (good, n_good, func, insn->imm)))
	  continue;
	if (e->facts.gp_untrusted == NULL)
	  {
	    e->facts.gp_untrusted = calloc (code->n_words + 1, 1);
	    if (e->facts.gp_untrusted == NULL)
	      {
		marked = -1;
		goto out;
	      }
	  }
	e->facts.gp_untrusted[w] = 1;
	marked = 1;
      }
 out:
  free (llvm);
  free (good);
  free (bad);
  return marked;
}
