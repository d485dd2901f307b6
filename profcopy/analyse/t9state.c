/* t9state.c -- the register dataflow of t9: where t9 holds the new
   address of its function's entry, and the code addresses it holds.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "stages.h"
#include "regstate.h"
#include "mips-ops.h"

/* t9 after INSN, given whether it held the function's entry before.  */

static bool
t9_step (const struct emitter *e, bool valid, const struct insn *insn)
{
  (void) e;
  return valid && !(insn->writes & R (REG_T9));
}

/* The t9 state of block B: see state_block.  */

static bool
t9_block (struct emitter *e, const struct block *b, bool in, bool record)
{
  return state_block (e, b, in, t9_step, record ? e->facts.t9_valid : NULL);
}

/* The value register REG holds after INSN, which held VALUE before:
   an original code address that a GOT load or a got-ref put there,
   else 0.  */

static uint32_t
reg_const_step (const struct emitter *e, uint32_t value,
		const struct insn *insn, unsigned reg)
{
  long w;
  uint32_t v;

  if (!(insn->writes & R (reg)))
    return value;
  w = emit_word_index (e, insn->addr);
  if (e->plan.gotref_slot[w] != 0
      && (GOTREF_KIND (e->plan.gotref_form[w]) == GOTREF_ABS
	  || e->plan.gotref_slot[w] - 1 >= e->plan.got.n_fixed))
    return gotref_target (e, w);
  if (insn->rt == reg && got_load_value (e, insn, &v))
    return v;
  return 0;
}

/* The callee-saved register that INSN copies into t9 (`move t9,s4':
   GCC keeps a local function's address in one across a loop and
   copies it into t9 before each bal), or 0.  */

static unsigned
t9_move_source (const struct insn *insn)
{
  uint32_t w = insn->word;
  unsigned rs = (w >> 21) & 31, rt = (w >> 16) & 31, src;

  if ((w >> 26) != 0 || ((w >> 11) & 31) != REG_T9 || ((w >> 6) & 31) != 0
      || ((w & 0x3f) != 0x21 && (w & 0x3f) != 0x25))
    return 0;			/* Not addu or or into t9.  */
  if (rs != 0 && rt != 0)
    return 0;
  src = rs | rt;
  return (src >= 16 && src <= 23) || src == 30 ? src : 0;
}

/* The value t9 holds after INSN, which held VALUE before: an original
   code address that a GOT load or a got-ref put there, or that a
   callee-saved register copied into it held on every way there
   (t9_moves), else 0.  */

uint32_t
t9_const_step (const struct emitter *e, uint32_t value,
	       const struct insn *insn)
{
  if ((insn->writes & R (REG_T9)) && e->facts.t9_moves != NULL
      && t9_move_source (insn) != 0)
    return e->facts.t9_moves[emit_word_index (e, insn->addr)];
  return reg_const_step (e, value, insn, REG_T9);
}

/* The transfer of block B for callee-saved register REG (calls keep
   it): true if B leaves it as it was, else *AFTER is its value at B's
   end (0 if unknown: the slot of a branch-likely that writes it).  */

static bool
reg_const_keeps (const struct emitter *e, const struct block *b,
		 unsigned reg, uint32_t *after)
{
  const struct insn *slot;
  const struct insn *ctl = cfg_block_control (&e->a->code, b, &slot);
  bool keeps = true;

  *after = 0;
  for (uint32_t x = b->start; x < b->end; x += 4)
    {
      const struct insn *insn = code_insn_at (&e->a->code, x);
      if (insn == NULL)
	return false;
      if (!(insn->writes & R (reg)))
	continue;
      keeps = false;
      *after = (insn == slot && ctl != NULL && (ctl->flags & INSN_F_LIKELY))
	       ? 0 : reg_const_step (e, 0, insn, reg);
    }
  return keeps;
}

/* Fill the facts' t9_moves: for every `move t9,S' (t9_move_source),
   the original code address that S holds there on every way from its
   function's entry, or 0, by a forward dataflow of S over the blocks
   of each function that has such a move and sets S to a code address
   somewhere (1 marks "not reached yet"; a block that code of another
   function, a symbol, a pointer or a switch table enters starts
   unknown).  False when out of memory.  */

static bool
t9_moves_compute (struct emitter *e)
{
  const struct analysis *a = e->a;
  const struct cfg *cfg = &a->cfg;
  size_t n = cfg->n_blocks;
  unsigned char *entry, *keeps, *moves;
  uint32_t *in, *after;
  bool ok = false;

  if (e->facts.t9_moves != NULL)
    return true;
  e->facts.t9_moves = calloc (e->n_words + 1, sizeof *e->facts.t9_moves);
  entry = calloc (n + 1, 1);
  keeps = malloc (n + 1);
  moves = calloc (n + 1, 1);
  in = malloc ((n + 1) * sizeof *in);
  after = malloc ((n + 1) * sizeof *after);
  if (e->facts.t9_moves == NULL || entry == NULL || keeps == NULL
      || moves == NULL || in == NULL || after == NULL)
    goto done;
  mark_entries (a, entry);
  mark_outside_blocks (a, entry);
  for (size_t i = 0; i < n; i++)
    for (uint32_t k = 0; k < cfg->blocks[i].n_succ; k++)
      if (cfg->blocks[cfg->blocks[i].succ[k]].func != cfg->blocks[i].func)
	entry[cfg->blocks[i].succ[k]] = 1;
  for (size_t k = 0; k < a->relocs.n_entries; k++)
    {
      const struct block *to = cfg_block_at (cfg, a->relocs.entries[k].target);
      if (a->relocs.entries[k].type == RELOC_JUMP_TABLE && to != NULL
	  && to->start == a->relocs.entries[k].target)
	entry[to - cfg->blocks] = 1;
    }
  for (size_t f = 0; f < cfg->n_funcs; f++)
    {
      uint32_t first = cfg->funcs[f].first_block, nb = cfg->funcs[f].n_blocks;
      uint64_t sources = 0;

      for (uint32_t j = first; j < first + nb; j++)
	for (uint32_t x = cfg->blocks[j].start; x < cfg->blocks[j].end; x += 4)
	  {
	    const struct insn *insn = code_insn_at (&a->code, x);
	    unsigned src = insn != NULL ? t9_move_source (insn) : 0;
	    if (src != 0)
	      {
		sources |= R (src);
		moves[j] = 1;
	      }
	  }
      for (unsigned reg = 16; reg <= 30 && sources != 0; reg++)
	{
	  bool changed = false;
	  if (!(sources & R (reg)))
	    continue;
	  /* The blocks' transfers, once; a function that never sets the
	     register to a code address has nothing to find.  */
	  for (uint32_t j = first; j < first + nb; j++)
	    {
	      keeps[j] = reg_const_keeps (e, &cfg->blocks[j], reg, &after[j]);
	      changed |= !keeps[j] && after[j] != 0;
	      in[j] = entry[j] ? 0 : 1;
	    }
	  while (changed)
	    {
	      changed = false;
	      for (uint32_t j = first; j < first + nb; j++)
		{
		  const struct block *b = &cfg->blocks[j];
		  uint32_t v;
		  if (in[j] == 1)
		    continue;
		  v = keeps[j] ? in[j] : after[j];
		  for (uint32_t k = 0; k < b->n_succ; k++)
		    {
		      uint32_t t = b->succ[k], old;
		      if (t < first || t >= first + nb)
			continue;
		      old = in[t];
		      in[t] = old == 1 || old == v ? v : 0;
		      changed |= in[t] != old;
		    }
		}
	    }
	  for (uint32_t j = first; j < first + nb; j++)
	    {
	      const struct block *b = &cfg->blocks[j];
	      uint32_t v = in[j] == 1 ? 0 : in[j];
	      for (uint32_t x = b->start; x < b->end && moves[j]; x += 4)
		{
		  const struct insn *insn = code_insn_at (&a->code, x);
		  if (insn == NULL)
		    break;
		  if (t9_move_source (insn) == reg && v != 0)
		    e->facts.t9_moves[emit_word_index (e, x)] = v;
		  v = reg_const_step (e, v, insn, reg);
		}
	    }
	}
    }
  ok = true;

 done:
  free (entry);
  free (keeps);
  free (moves);
  free (in);
  free (after);
  return ok;
}

/* Fill T9[i] with the original code address that t9 holds on entry to
   block i whatever the way in, or 0: a forward dataflow within
   functions (1 marks "not reached yet").  */

void
t9_constants (const struct emitter *e, uint32_t *t9)
{
  const struct analysis *a = e->a;
  const struct cfg *cfg = &a->cfg;
  size_t n = cfg->n_blocks;
  unsigned char *entry = calloc (n + 1, 1);
  unsigned char *clean;
  uint32_t *after = NULL;
  unsigned char *keeps = NULL;
  bool changed = true;

  if (entry == NULL)
    {
      memset (t9, 0, n * sizeof *t9);
      return;
    }
  mark_entries (e->a, entry);
  /* A function that neither writes t9 nor calls nor leaves by a branch
     keeps the t9 of its caller.  */
  clean = malloc (cfg->n_funcs + 1);
  if (clean == NULL)
    {
      free (entry);
      memset (t9, 0, n * sizeof *t9);
      return;
    }
  memset (clean, 1, cfg->n_funcs + 1);
  for (size_t i = 0; i < n; i++)
    {
      const struct block *b = &cfg->blocks[i];
      if (b->flags & (BLOCK_F_CALL | BLOCK_F_INDIRECT | BLOCK_F_INVALID
		      | BLOCK_F_FALLTHRU_EXIT))
	clean[b->func] = 0;
      for (uint32_t k = 0; k < b->n_succ; k++)
	if (cfg->blocks[b->succ[k]].func != b->func)
	  clean[b->func] = 0;
      for (uint32_t x = b->start; x < b->end; x += 4)
	{
	  const struct insn *insn = code_insn_at (&a->code, x);
	  if (insn == NULL || (insn->writes & R (REG_T9)))
	    clean[b->func] = 0;
	}
    }
  /* A block's transfer: t9 at its end is KEEPS ? its value at the
     start : AFTER.  */
  after = malloc ((n + 1) * sizeof *after);
  keeps = malloc (n + 1);
  if (after == NULL || keeps == NULL)
    {
      free (after);
      free (keeps);
      free (entry);
      free (clean);
      memset (t9, 0, n * sizeof *t9);
      return;
    }
  for (size_t i = 0; i < n; i++)
    {
      const struct block *b = &cfg->blocks[i];
      const struct insn *slot;
      const struct insn *last = cfg_block_control (&a->code, b, &slot);
      uint32_t v = 1;
      for (uint32_t x = b->start; x < b->end; x += 4)
	{
	  const struct insn *insn = code_insn_at (&a->code, x);
	  if (insn != NULL)
	    v = t9_const_step (e, v, insn);
	  /* The slot of a branch-likely runs on the taken way only: what
	     it writes into t9 is known on neither.  */
	  if (insn != NULL && insn == slot && last != NULL
	      && (last->flags & INSN_F_LIKELY) && (insn->writes & R (REG_T9)))
	    v = 0;
	}
      keeps[i] = v == 1;
      after[i] = v == 1 ? 0 : v;
      if (b->flags & BLOCK_F_CALL)
	{
	  const struct function *f = NULL;
	  if (last != NULL && last->kind == INSN_CALL)
	    f = cfg_function_at (cfg, last->target);
	  if (f == NULL || f->entry != last->target
	      || !clean[f - cfg->funcs])
	    {
	      keeps[i] = 0;
	      after[i] = 0;
	    }
	}
    }
  for (size_t i = 0; i < n; i++)
    t9[i] = entry[i] ? 0 : 1;
  while (changed)
    {
      changed = false;
      for (size_t i = 0; i < n; i++)
	{
	  const struct block *b = &cfg->blocks[i];
	  uint32_t v = t9[i];
	  if (v == 1)
	    continue;
	  v = keeps[i] ? v : after[i];
	  for (uint32_t k = 0; k < b->n_succ; k++)
	    {
	      uint32_t t = b->succ[k];
	      uint32_t nv = cfg->blocks[t].func != b->func ? 0 : v;
	      uint32_t old = t9[t];
	      if (old == 1)
		t9[t] = nv;
	      else if (old != nv)
		t9[t] = 0;
	      changed |= t9[t] != old;
	    }
	}
      for (size_t k = 0; k < a->relocs.n_entries; k++)
	{
	  const struct reloc_entry *r = &a->relocs.entries[k];
	  const struct block *to = cfg_block_at (cfg, r->target);
	  if (r->type != RELOC_JUMP_TABLE || to == NULL
	      || to->start != r->target || t9[to - cfg->blocks] == 0)
	    continue;
	  t9[to - cfg->blocks] = 0;
	  changed = true;
	}
    }
  for (size_t i = 0; i < n; i++)
    if (t9[i] == 1)
      t9[i] = 0;
  free (entry);
  free (clean);
  free (after);
  free (keeps);
}

/* True if t9 holds the original code address TARGET at INSN, the
   control instruction ending block B (delay slot included), given the
   block constants T9.  */

bool
t9_holds_at (const struct emitter *e, const uint32_t *t9,
	     const struct block *b, const struct insn *insn, uint32_t target)
{
  uint32_t v = t9[b - e->a->cfg.blocks];

  for (uint32_t x = b->start; x < b->end && x <= insn->addr + 4; x += 4)
    {
      const struct insn *i = code_insn_at (&e->a->code, x);
      if (i != NULL)
	v = t9_const_step (e, v, i);
    }
  return v == target;
}

/* Whether every call through a register in CODE goes through t9, as
   the o32 calling convention has it: code that calls through another
   register breaks the convention, and t9 proves nothing there.  */

static bool
calls_through_t9 (const struct code *code)
{
  for (size_t s = 0; s < code->n_sections; s++)
    for (size_t k = 0; k < code->sections[s].n_insns; k++)
      if (code->sections[s].insns[k].kind == INSN_ICALL
	  && code->sections[s].insns[k].rs != REG_T9)
	return false;
  return true;
}

/* If INSN is a direct call, branch or jump to the start of a block of
   CFG in another function (a call: in any), set *FROM and *TO to its
   block and the target's and return true.  */

static bool
direct_way_in (const struct cfg *cfg, const struct insn *insn,
	       const struct block **from, const struct block **to)
{
  if (insn->kind != INSN_CALL && insn->kind != INSN_BRANCH
      && insn->kind != INSN_JUMP)
    return false;
  *to = cfg_block_at (cfg, insn->target);
  *from = cfg_block_at (cfg, insn->addr);
  return *to != NULL && *from != NULL && (*to)->start == insn->target
	 && ((*from)->func != (*to)->func || insn->kind == INSN_CALL);
}

/* Set DEAD[i] for every block i of E's CFG whose end control never
   passes: a call to a function of the object that never returns (its
   return point may be the next function: GCC ends a function with
   such a call), and the nops that only such a call's return falls
   into (alignment before the next function).  False when out of
   memory.  */

static bool
mark_dead_after_noreturn (const struct emitter *e, unsigned char *dead)
{
  const struct analysis *a = e->a;
  const struct cfg *cfg = &a->cfg;
  unsigned char *other_in;

  if (e->facts.returns == NULL)
    return true;
  /* The blocks that a way other than from the block right before them
     reaches: a branch or call's return from elsewhere, a table, a
     symbol or pointer.  */
  other_in = calloc (cfg->n_blocks + 1, 1);
  if (other_in == NULL)
    return false;
  mark_entries (a, other_in);
  for (size_t i = 0; i < cfg->n_blocks; i++)
    for (uint32_t k = 0; k < cfg->blocks[i].n_succ; k++)
      if (cfg->blocks[i].succ[k] != i + 1)
	other_in[cfg->blocks[i].succ[k]] = 1;
  for (size_t k = 0; k < a->relocs.n_entries; k++)
    {
      const struct block *to = cfg_block_at (cfg, a->relocs.entries[k].target);
      if (to != NULL)
	other_in[to - cfg->blocks] = 1;
    }
  for (size_t i = 0; i < cfg->n_blocks; i++)
    {
      const struct block *b = &cfg->blocks[i];
      bool nops = i > 0 && !other_in[i] && dead[i - 1]
		  && cfg->blocks[i - 1].end == b->start;
      for (uint32_t x = b->start; x < b->end && nops; x += 4)
	{
	  const struct insn *insn = code_insn_at (&a->code, x);
	  nops = insn != NULL && insn->word == 0;
	}
      dead[i] = nops || ((b->flags & BLOCK_F_CALL)
			 && calls_noreturn (e, e->facts.returns, b));
    }
  free (other_in);
  return true;
}

/* Set ENTRY_OK[i] for every block i where t9 holds the new address of
   the entry of its function on every direct way in, given the block
   constants T9 (t9_constants); DEAD marks the blocks that never run
   (mark_dead_after_noreturn).  */

static void
mark_t9_entries (const struct emitter *e, const uint32_t *t9,
		 const unsigned char *dead, unsigned char *entry_ok)
{
  const struct analysis *a = e->a;
  const struct cfg *cfg = &a->cfg;
  const struct code *code = &a->code;

  if (!calls_through_t9 (code))
    return;

  /* A function known only from a code address in data may be a label
     of a computed goto, which a jump through another register enters
     (Ruby's threaded interpreter: its counters took t9 for the label's
     address); a callback that no symbol, FDE, prologue or call names
     costs a pc-relative count instead.  */
  for (size_t f = 0; f < cfg->n_funcs; f++)
    if (cfg->funcs[f].n_blocks > 0
	&& !(cfg->funcs[f].from & (FUNC_FROM_SECTION | FUNC_FROM_ENTRY))
	&& cfg->funcs[f].from != FUNC_FROM_RELOC)
      entry_ok[cfg->funcs[f].first_block] = 1;
  for (size_t i = 0; i < a->n_landing_pads; i++)
    {
      const struct block *b = cfg_block_at (cfg, a->landing_pads[i]);
      if (b != NULL)
	entry_ok[b - cfg->blocks] = 0;
    }
  for (size_t s = 0; s < code->n_sections; s++)
    for (size_t k = 0; k < code->sections[s].n_insns; k++)
      {
	const struct insn *insn = &code->sections[s].insns[k];
	const struct block *from, *to;
	if (!direct_way_in (cfg, insn, &from, &to)
	    || !entry_ok[to - cfg->blocks])
	  continue;
	if (!t9_holds_at (e, t9, from, insn, insn->target)
	    && (e->plan.t9_call == NULL
		|| !e->plan.t9_call[emit_word_index (e, insn->addr)]))
	  entry_ok[to - cfg->blocks] = 0;
      }
  for (size_t i = 1; i < cfg->n_blocks; i++)
    if (falls_into (code, &cfg->blocks[i - 1], &cfg->blocks[i])
	&& !dead[i - 1])
      entry_ok[i] = 0;
}

/* True if INSN is `bal' (bgezal $zero), a direct call relative to
   the pc.  */

static bool
is_bal (const struct insn *insn)
{
  return insn->kind == INSN_CALL && insn->op == OP_REGIMM
	 && insn->rs == REG_ZERO
	 && ((insn->word >> 16) & 0x1f) == REGIMM_BGEZAL;
}

/* The registers that the trampoline of function F (entry block EB)
   may keep ra in: dead on entry, written by F itself (so that no caller
   keeps a value in one across a call, GCC's -fipa-ra or not), not t9
   or ra; none if F reads or writes t9 (it would not stay its entry's
   address, or F would read the caller's) or makes a call.  */

static uint64_t
tramp_registers (const struct emitter *e, const struct function *f,
		 const struct block *eb)
{
  const struct cfg *cfg = &e->a->cfg;
  uint64_t writes = 0, reads = 0;

  for (uint32_t j = 0; j < f->n_blocks; j++)
    {
      const struct block *b = &cfg->blocks[f->first_block + j];
      for (uint32_t at = b->start; at < b->end; at += 4)
	{
	  const struct insn *insn = code_insn_at (&e->a->code, at);
	  if (insn == NULL || insn->kind == INSN_CALL
	      || insn->kind == INSN_ICALL)
	    return 0;
	  writes |= insn->writes;
	  reads |= insn->reads;
	}
    }
  if ((writes | reads) & R (REG_T9))
    return 0;
  return writes & ~eb->live_in & SCRATCH_MASK & ~R (REG_T9) & ~R (REG_RA);
}

/* The registers that block B certainly writes (not in the slot of a
   branch-likely, which may be annulled).  */

static uint64_t
block_writes (const struct emitter *e, const struct block *b)
{
  const struct insn *slot;
  const struct insn *ctl = cfg_block_control (&e->a->code, b, &slot);
  uint64_t w = 0;

  for (uint32_t at = b->start; at < b->end; at += 4)
    {
      const struct insn *insn = code_insn_at (&e->a->code, at);
      if (insn != NULL
	  && !(insn == slot && ctl != NULL && (ctl->flags & INSN_F_LIKELY)))
	w |= insn->writes;
    }
  return w;
}

/* The registers of MASK that function F of E writes on every way from
   its entry to each of its ways out (a block with no successor in F),
   so that its callers find the function's values there whatever a
   trampoline put in them: a forward dataflow of the registers
   certainly written, over F's blocks, none on entry or where another
   function's code comes in (FOREIGN, per block of the CFG).  IN is
   room for F's blocks.  */

static uint64_t
always_written (const struct emitter *e, const struct function *f,
		uint64_t mask, const uint8_t *foreign, uint64_t *in)
{
  const struct cfg *cfg = &e->a->cfg;
  uint32_t first = f->first_block, n = f->n_blocks;
  bool changed = true;
  uint64_t all = mask;

  for (uint32_t j = 0; j < n; j++)
    in[j] = j == 0 || foreign[first + j] ? 0 : mask;
  while (changed)
    {
      changed = false;
      for (uint32_t j = 0; j < n; j++)
	{
	  const struct block *b = &cfg->blocks[first + j];
	  uint64_t out = (in[j] | block_writes (e, b)) & mask;
	  for (uint32_t k = 0; k < b->n_succ; k++)
	    {
	      uint32_t t = b->succ[k];
	      if (t >= first && t < first + n && (in[t - first] & ~out))
		{
		  in[t - first] &= out;
		  changed = true;
		}
	    }
	}
    }
  for (uint32_t j = 0; j < n; j++)
    {
      const struct block *b = &cfg->blocks[first + j];
      bool leaves = true;
      for (uint32_t k = 0; k < b->n_succ; k++)
	if (b->succ[k] >= first && b->succ[k] < first + n)
	  leaves = false;
      if (leaves || (b->flags & (BLOCK_F_RETURN | BLOCK_F_INDIRECT)))
	all &= in[j] | block_writes (e, b);
    }
  return all;
}

/* The first register of scratch_order in MASK, or 0.  */

static unsigned
first_scratch (uint64_t mask)
{
  for (size_t i = 0; i < sizeof scratch_order; i++)
    if (mask & R (scratch_order[i]))
      return scratch_order[i];
  return 0;
}

/* Plan the t9 trampolines of a position-independent object.  A
   function without gp counts pc-relative (a bal for every increment)
   unless t9 holds its entry's address, which every call through t9
   from another object guarantees, but not the `bal' of a caller in the
   same object (glibc's strlen, memchr, strchr: libc calls them so).
   When every direct way into such a function that does not set t9 is
   a bal after which t9 and a register R that the function writes
   anyway are dead (and whose slot leaves t9 alone), and the function
   calls nothing and neither reads nor writes t9, its copy gets a
   trampoline (emit/hooks.c, put_t9_tramp: t9 set to the entry, ra
   kept in R) and those calls go there (PLAN.T9_TRAMP, PLAN.T9_CALL);
   mark_t9_entries then takes the entry as one where t9 is set.  T9:
   the block constants (t9_constants).  Uses the live sets.  False
   when out of memory.  */

static bool
plan_t9_trampolines (struct emitter *e, const uint32_t *t9)
{
  const struct analysis *a = e->a;
  const struct cfg *cfg = &a->cfg;
  const struct code *code = &a->code;
  uint64_t *regs, *always, *in;
  uint8_t *bad, *foreign;
  bool any = false;

  if (e->fixed_address || !calls_through_t9 (code))
    return true;
  regs = calloc (cfg->n_funcs + 1, sizeof *regs);
  always = calloc (cfg->n_funcs + 1, sizeof *always);
  in = malloc ((cfg->n_blocks + 1) * sizeof *in);
  bad = calloc (cfg->n_funcs + 1, 1);
  foreign = calloc (cfg->n_blocks + 1, 1);
  if (regs == NULL || always == NULL || in == NULL || bad == NULL
      || foreign == NULL)
    goto nomem;
  /* The blocks that another function's code goes to.  */
  for (size_t i = 0; i < cfg->n_blocks; i++)
    for (uint32_t k = 0; k < cfg->blocks[i].n_succ; k++)
      if (cfg->blocks[cfg->blocks[i].succ[k]].func != cfg->blocks[i].func)
	foreign[cfg->blocks[i].succ[k]] = 1;
  for (size_t f = 0; f < cfg->n_funcs; f++)
    {
      const struct function *fn = &cfg->funcs[f];
      long w = emit_word_index (e, fn->entry);
      if (fn->n_blocks == 0 || w < 0 || e->facts.gp_valid[w]
	  || cfg->blocks[fn->first_block].start != fn->entry)
	continue;
      regs[f] = tramp_registers (e, fn, &cfg->blocks[fn->first_block]);
      if (regs[f] != 0)
	always[f] = always_written (e, fn, regs[f], foreign, in);
    }
  /* A function with a way in that neither sets t9 nor can be sent to
     the trampoline, or whose callers leave it no register to keep ra
     in, gets none.  */
  for (size_t s = 0; s < code->n_sections; s++)
    for (size_t k = 0; k < code->sections[s].n_insns; k++)
      {
	const struct insn *insn = &code->sections[s].insns[k];
	const struct insn *slot;
	const struct block *from, *to, *back;
	if (!direct_way_in (cfg, insn, &from, &to)
	    || cfg->funcs[to->func].entry != to->start || !regs[to->func]
	    || t9_holds_at (e, t9, from, insn, insn->target))
	  continue;
	back = cfg_block_at (cfg, from->end);
	slot = code_insn_at (code, insn->addr + 4);
	if (!is_bal (insn) || back == NULL || back->start != from->end
	    || (back->live_in & R (REG_T9)) || slot == NULL
	    || ((slot->reads | slot->writes) & R (REG_T9)))
	  bad[to->func] = 1;
	else
	  {
	    regs[to->func] &= ~back->live_in | always[to->func];
	    any = true;
	  }
      }
  if (any)
    {
      e->plan.t9_tramp = calloc (e->n_words + 1, 1);
      e->plan.t9_call = calloc (e->n_words + 1, 1);
      e->layout.tramp = calloc (e->n_words + 1, sizeof *e->layout.tramp);
      if (e->plan.t9_tramp == NULL || e->plan.t9_call == NULL
	  || e->layout.tramp == NULL)
	goto nomem;
    }
  for (size_t s = 0; any && s < code->n_sections; s++)
    for (size_t k = 0; k < code->sections[s].n_insns; k++)
      {
	const struct insn *insn = &code->sections[s].insns[k];
	const struct block *from, *to;
	if (!is_bal (insn) || !direct_way_in (cfg, insn, &from, &to)
	    || cfg->funcs[to->func].entry != to->start || !regs[to->func]
	    || bad[to->func] || t9_holds_at (e, t9, from, insn, insn->target))
	  continue;
	e->plan.t9_call[emit_word_index (e, insn->addr)] = 1;
	e->plan.t9_tramp[emit_word_index (e, insn->target)]
	  = (uint8_t) first_scratch (regs[to->func]);
      }
  free (regs);
  free (always);
  free (in);
  free (bad);
  free (foreign);
  return true;

 nomem:
  free (regs);
  free (always);
  free (in);
  free (bad);
  free (foreign);
  return false;
}

/* Compute t9_valid for every word of a position-independent object: a
   forward dataflow like gp_dataflow's, from the function entries where
   mark_t9_entries finds t9 set, after plan_t9_trampolines (which needs
   the live sets).  */

bool
t9_dataflow (struct emitter *e, char **errmsg)
{
  const struct analysis *a = e->a;
  const struct cfg *cfg = &a->cfg;
  size_t n = cfg->n_blocks;
  unsigned char *entry = calloc (n + 1, 1);
  unsigned char *entry_ok = calloc (n + 1, 1);
  unsigned char *in = malloc (n + 1);
  unsigned char *t9_out = malloc (n + 1);
  unsigned char *dead = calloc (n + 1, 1);
  uint32_t *t9 = malloc ((n + 1) * sizeof *t9);
  bool changed = true, ok = false;

  if (entry == NULL || entry_ok == NULL || in == NULL || t9_out == NULL
      || dead == NULL || t9 == NULL)
    {
      *errmsg = strdup ("out of memory");
      goto done;
    }
  if (e->fixed_address)
    memset (in, 0, n + 1);
  else
    {
      if (!t9_moves_compute (e) || !mark_dead_after_noreturn (e, dead))
	{
	  *errmsg = strdup ("out of memory");
	  goto done;
	}
      t9_constants (e, t9);
      if (!plan_t9_trampolines (e, t9))
	{
	  *errmsg = strdup ("out of memory");
	  goto done;
	}
      mark_entries (e->a, entry);
      mark_outside_blocks (e->a, entry);
      mark_t9_entries (e, t9, dead, entry_ok);
      memset (in, 1, n + 1);
    }
  for (size_t i = 0; i < n; i++)
    {
      if (entry[i] && !entry_ok[i])
	in[i] = 0;
      t9_out[i] = t9_block (e, &cfg->blocks[i], true, false);
    }
  while (changed)
    {
      changed = false;
      for (size_t i = 0; i < n; i++)
	{
	  const struct block *b = &cfg->blocks[i];
	  bool o = in[i] && t9_out[i];
	  /* Padding never runs, nor does anything come back from a call
	     that never returns.  */
	  if ((b->flags & BLOCK_F_PADDING) || dead[i])
	    continue;
	  for (uint32_t s = 0; s < b->n_succ; s++)
	    {
	      uint32_t t = b->succ[s];
	      bool v = o && cfg->blocks[t].func == b->func
		       && !(b->flags & BLOCK_F_CALL);
	      if (in[t] && !v)
		{
		  in[t] = 0;
		  changed = true;
		}
	    }
	}
      changed |= jump_table_meet (e, in, t9_step, true, NULL);
    }
  for (size_t i = 0; i < n; i++)
    t9_block (e, &cfg->blocks[i], in[i], true);
  ok = true;

 done:
  free (entry);
  free (entry_ok);
  free (in);
  free (t9_out);
  free (dead);
  free (t9);
  return ok;
}
