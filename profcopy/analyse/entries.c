/* entries.c -- what the calls of an object prove: function entries, the
   functions that return, cold code, the entries that only direct calls
   reach, and the GOT entries that hold code addresses; narrow.c, the
   entries only this object's calls reach with t9 as they set it.

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

/* Mark in ENTRY every block of A that code outside its function may
   enter.  */

void
mark_entries (const struct analysis *a, unsigned char *entry)
{
  const struct cfg *cfg = &a->cfg;

  for (size_t f = 0; f < cfg->n_funcs; f++)
    if (cfg->funcs[f].n_blocks > 0)
      entry[cfg->funcs[f].first_block] = 1;
  /* The unwinder enters a landing pad with the thrower's gp.  */
  for (size_t i = 0; i < a->n_landing_pads; i++)
    {
      const struct block *b = cfg_block_at (cfg, a->landing_pads[i]);
      if (b != NULL && b->start == a->landing_pads[i])
	entry[b - cfg->blocks] = 1;
    }
  for (size_t i = 0; i < a->relocs.n_entries; i++)
    {
      const struct reloc_entry *r = &a->relocs.entries[i];
      const struct block *b;
      if (r->type == RELOC_JUMP_TABLE || r->type == RELOC_PROLOGUE
	  || (r->flags & RELOC_F_TABLE_SLOT))
	continue;
      b = cfg_block_at (cfg, r->target);
      if (b != NULL && b->start == r->target)
	entry[b - cfg->blocks] = 1;
    }
}

/* Mark in ENTRY too every block of A that no other block reaches (no
   branch, jump, call's return, fall-through but from padding, or
   switch table) and that is not padding itself: if it runs, code from
   elsewhere entered it with registers this object cannot know.
   glibc's makecontext computes its trampoline from t9 and stores it as
   the new context's return address; the trampoline starts with
   another function's gp and t9.  */

void
mark_outside_blocks (const struct analysis *a, unsigned char *entry)
{
  const struct cfg *cfg = &a->cfg;
  unsigned char *reached = calloc (cfg->n_blocks + 1, 1);

  if (reached == NULL)
    return;			/* Only a refinement.  */
  /* Padding never runs: what it falls into is not reached by it.  */
  for (size_t i = 0; i < cfg->n_blocks; i++)
    for (uint32_t s = 0; s < cfg->blocks[i].n_succ
		       && !(cfg->blocks[i].flags & BLOCK_F_PADDING); s++)
      reached[cfg->blocks[i].succ[s]] = 1;
  for (size_t i = 0; i < a->relocs.n_entries; i++)
    {
      const struct reloc_entry *r = &a->relocs.entries[i];
      const struct block *b;
      if (r->type != RELOC_JUMP_TABLE)
	continue;
      b = cfg_block_at (cfg, r->target);
      if (b != NULL)
	reached[b - cfg->blocks] = 1;
    }
  for (size_t i = 0; i < cfg->n_blocks; i++)
    if (!reached[i] && !(cfg->blocks[i].flags & BLOCK_F_PADDING))
      entry[i] = 1;
  free (reached);
}

bool
calls_noreturn (const struct emitter *e, const unsigned char *returns,
		const struct block *b)
{
  const struct cfg *cfg = &e->a->cfg;
  const struct insn *slot;
  const struct insn *ctl;
  const struct function *g;
  uint32_t target;

  if (!(b->flags & BLOCK_F_CALL))
    return false;
  ctl = cfg_block_control (&e->a->code, b, &slot);
  if (ctl == NULL)
    return false;
  if (ctl->kind == INSN_CALL)
    target = ctl->target;
  else if (ctl->kind == INSN_ICALL && ctl->rs == REG_T9)
    {
      target = 0;
      for (uint32_t x = b->start; x < b->end && x < ctl->addr; x += 4)
	{
	  const struct insn *insn = code_insn_at (&e->a->code, x);
	  if (insn != NULL)
	    target = t9_const_step (e, target, insn);
	}
    }
  else
    return false;
  g = cfg_function_at (cfg, target);
  return g != NULL && g->entry == target && !returns[g - cfg->funcs];
}

/* Set RETURNS[f] for every function f of E's object that may return
   to its caller: some block reachable from its entry returns, jumps
   through a register, or branches to another function that may
   return, where a call to a function that never returns goes no
   further (glibc's malloc_printerr, abort).  A least fixpoint, so that
   only what is proven not to return is marked so.  False when out of
   memory.  */

bool
find_returning (const struct emitter *e, unsigned char *returns)
{
  const struct cfg *cfg = &e->a->cfg;
  uint32_t *stack = malloc ((cfg->n_blocks + 1) * sizeof *stack);
  unsigned char *seen = calloc (cfg->n_blocks + 1, 1);
  bool changed = true;

  if (stack == NULL || seen == NULL)
    {
      free (stack);
      free (seen);
      return false;
    }
  memset (returns, 0, cfg->n_funcs + 1);
  while (changed)
    {
      changed = false;
      for (size_t f = 0; f < cfg->n_funcs; f++)
	{
	  const struct function *fn = &cfg->funcs[f];
	  size_t sp = 0;
	  bool ret = false;

	  if (returns[f] || fn->n_blocks == 0)
	    continue;
	  memset (seen + fn->first_block, 0, fn->n_blocks);
	  stack[sp++] = fn->first_block;
	  seen[fn->first_block] = 1;
	  while (sp > 0 && !ret)
	    {
	      const struct block *b = &cfg->blocks[stack[--sp]];
	      if (b->flags & (BLOCK_F_RETURN | BLOCK_F_INDIRECT
			      | BLOCK_F_FALLTHRU_EXIT | BLOCK_F_SLOT_ENTRY))
		{
		  ret = true;
		  break;
		}
	      if (calls_noreturn (e, returns, b))
		continue;
	      for (uint32_t k = 0; k < b->n_succ; k++)
		{
		  uint32_t t = b->succ[k];
		  if (cfg->blocks[t].func != f)
		    {
		      if (returns[cfg->blocks[t].func]
			  || cfg->funcs[cfg->blocks[t].func].entry
			     != cfg->blocks[t].start)
			ret = true;
		      continue;
		    }
		  if (!seen[t])
		    {
		      seen[t] = 1;
		      stack[sp++] = t;
		    }
		}
	    }
	  if (ret)
	    {
	      returns[f] = 1;
	      changed = true;
	    }
	}
    }
  free (stack);
  free (seen);
  return true;
}

/* The index of the GOT slot of OBJ that INSN, a `lw x,off(gp)' (or off
   a register that holds gp: T's gp_bases), loads, or -1; in a multi-GOT
   object's code of a secondary GOT (T's gp regions), the primary GOT's
   entry of the same symbol, or -1 for a local entry.  */

bool
got_load_address (const struct reloc_table *t, const struct insn *insn,
		  uint32_t *slot)
{
  if (insn->op != OP_LW
      || (insn->rs != REG_GP
	  && !reloc_table_holds_gp (t, insn->addr, insn->rs)))
    return false;
  *slot = reloc_table_gp_at (t, insn->addr) + (uint32_t) insn->imm;
  return true;
}

long
got_slot (const struct mips_object *obj, const struct reloc_table *t,
	  const struct insn *insn)
{
  uint32_t slot, value, primary;

  if (!got_load_address (t, insn, &slot)
      || slot < obj->got_addr
      || slot >= obj->got_addr + obj->got_size)
    return -1;
  if (reloc_table_gp_at (t, insn->addr) == obj->gp)
    return (long) ((slot - obj->got_addr) / 4);
  return object_got_slot (obj, slot, &value, &primary) == GOT_SLOT_GLOBAL
	 ? (long) primary : -1;
}

/* Functions of the C and C++ libraries that never return: a call of
   one from another object runs at most once.  */
static const char *const noreturn_imports[] = {
  "_Exit", "_Unwind_Resume", "__assert", "__assert_fail",
  "__assert_perror_fail", "__chk_fail", "__cxa_bad_cast",
  "__cxa_bad_typeid", "__cxa_call_terminate", "__cxa_pure_virtual",
  "__cxa_rethrow", "__cxa_throw", "__cxa_throw_bad_array_new_length",
  "__fortify_fail", "__longjmp_chk", "__stack_chk_fail", "_ZSt9terminatev",
  "_exit", "_longjmp", "abort", "err", "errx", "exit", "longjmp",
  "pthread_exit", "quick_exit", "siglongjmp", "thrd_exit", "verr", "verrx",
  NULL
};

/* The named dynamic symbol of OBJ whose global GOT slot is K (DYN, N:
   object_dynsyms_by_index), or NULL.  */

const struct object_symbol *
slot_symbol (const struct mips_object *obj,
	     const struct object_symbol *const *dyn, size_t n, long k)
{
  uint32_t index;

  if (k < 0 || (uint64_t) k < obj->dyn.local_gotno)
    return NULL;
  index = (uint32_t) k - obj->dyn.local_gotno + obj->dyn.gotsym;
  if (index >= n || dyn[index] == NULL || dyn[index]->name == NULL)
    return NULL;
  return dyn[index];
}

/* True if block B of E ends in a call through t9, loaded from the GOT
   in the block itself, of a function of another object that never
   returns (noreturn_imports, or libstdc++'s std::__throw_*).  DYN names
   the dynamic symbols by index (N of them: object_dynsyms_by_index).  */

bool
calls_noreturn_import (const struct emitter *e, const struct block *b,
		       const struct object_symbol *const *dyn, size_t n)
{
  const struct mips_object *obj = &e->a->obj;
  const struct insn *slot;
  const struct insn *ctl = cfg_block_control (&e->a->code, b, &slot);
  const struct insn *load = NULL;
  const struct object_symbol *sym;
  const char *name;

  if (!(b->flags & BLOCK_F_CALL) || ctl == NULL
      || ctl->kind != INSN_ICALL || ctl->rs != REG_T9)
    return false;
  for (uint32_t x = b->start; x < ctl->addr; x += 4)
    {
      const struct insn *insn = code_insn_at (&e->a->code, x);
      if (insn != NULL && (insn->writes & R (REG_T9)))
	load = insn;
    }
  if (load == NULL
      || (sym = slot_symbol (obj, dyn, n, got_slot (obj, &e->a->relocs, load))) == NULL
      || sym->shndx != SHN_UNDEF)
    return false;
  name = sym->name;
  if (strncmp (name, "_ZSt", 4) == 0 && strstr (name, "__throw_") != NULL)
    return true;
  for (size_t m = 0; noreturn_imports[m] != NULL; m++)
    if (strcmp (name, noreturn_imports[m]) == 0)
      return true;
  return false;
}

/* A malloc'd array saying for every block whether it surely runs
   seldom: it ends in a call that never returns (of this object's or
   another's) or in a trap, or every way on leads to such a block
   within its function.  NULL when out of memory.  */

unsigned char *
mark_cold (const struct emitter *e)
{
  const struct cfg *cfg = &e->a->cfg;
  size_t n = cfg->n_blocks;
  unsigned char *cold = calloc (n + 1, 1);
  const struct object_symbol **dyn;
  size_t n_dyn;
  bool changed = true;

  dyn = object_dynsyms_by_index (&e->a->obj, &n_dyn);
  if (cold == NULL || dyn == NULL)
    {
      free (cold);
      free (dyn);
      return NULL;
    }
  for (size_t i = 0; i < n; i++)
    {
      const struct block *b = &cfg->blocks[i];
      const struct insn *last = code_insn_at (&e->a->code, b->end - 4);
      if (calls_noreturn (e, e->facts.returns, b)
	  || calls_noreturn_import (e, b, dyn, n_dyn)
	  || (last != NULL && (last->flags & INSN_F_TRAP)))
	cold[i] = 1;
    }
  free (dyn);
  while (changed)
    {
      changed = false;
      for (size_t i = n; i-- > 0;)
	{
	  const struct block *b = &cfg->blocks[i];
	  bool all = b->n_succ > 0
		     && !(b->flags & (BLOCK_F_CALL | BLOCK_F_RETURN
				      | BLOCK_F_INDIRECT
				      | BLOCK_F_FALLTHRU_EXIT));
	  if (cold[i])
	    continue;
	  for (uint32_t k = 0; k < b->n_succ && all; k++)
	    all = cold[b->succ[k]] && cfg->blocks[b->succ[k]].func == b->func;
	  if (all)
	    {
	      cold[i] = 1;
	      changed = true;
	    }
	}
    }
  return cold;
}

/* True if control may fall from block PREV into the block B right after
   it: PREV is not padding and does not end in a return, an indirect
   jump or an unconditional jump whose delay slot nothing else
   enters.  */

bool
falls_into (const struct code *code, const struct block *prev,
	    const struct block *b)
{
  const struct insn *slot;
  const struct insn *ctl;

  if (prev->end != b->start
      || (prev->flags & (BLOCK_F_RETURN | BLOCK_F_INDIRECT | BLOCK_F_PADDING)))
    return false;
  ctl = cfg_block_control (code, prev, &slot);
  return ctl == NULL || ctl->kind != INSN_JUMP
	 || (prev->flags & BLOCK_F_SLOT_ENTRY);
}

/* Mark in INTERNAL the function entry blocks that only direct calls and
   branches of this object reach: no code address of the relocation
   table, no dynamic symbol, no landing pad leads there, and some direct
   call or branch does.  Such an entry has gp valid when every one of
   those has it (a leaf function called from this object's own code
   keeps its caller's gp).  */

void
mark_internal_entries (const struct analysis *a, unsigned char *internal)
{
  const struct cfg *cfg = &a->cfg;
  const struct code *code = &a->code;
  unsigned char *reached = calloc (cfg->n_blocks + 1, 1);

  if (reached == NULL)
    return;
  for (size_t f = 0; f < cfg->n_funcs; f++)
    if (cfg->funcs[f].n_blocks > 0
	&& !(cfg->funcs[f].from & (FUNC_FROM_SECTION | FUNC_FROM_ENTRY)))
      internal[cfg->funcs[f].first_block] = 1;
  for (size_t i = 0; i < a->relocs.n_entries; i++)
    {
      const struct reloc_entry *r = &a->relocs.entries[i];
      const struct block *b;
      if (r->type == RELOC_PROLOGUE || r->type == RELOC_FDE
	  || r->type == RELOC_SYMBOL)
	continue;
      b = cfg_block_at (cfg, r->target);
      if (b != NULL && b->start == r->target)
	internal[b - cfg->blocks] = 0;
    }
  for (size_t i = 0; i < a->n_landing_pads; i++)
    {
      const struct block *b = cfg_block_at (cfg, a->landing_pads[i]);
      if (b != NULL)
	internal[b - cfg->blocks] = 0;
    }
  for (size_t i = 0; i < a->obj.n_symbols; i++)
    {
      const struct block *b;
      if (!a->obj.symbols[i].dynamic)
	continue;
      b = cfg_block_at (cfg, a->obj.symbols[i].value);
      if (b != NULL)
	internal[b - cfg->blocks] = 0;
    }
  for (size_t s = 0; s < code->n_sections; s++)
    for (size_t k = 0; k < code->sections[s].n_insns; k++)
      {
	const struct insn *insn = &code->sections[s].insns[k];
	const struct block *b;
	if (insn->kind != INSN_CALL && insn->kind != INSN_BRANCH
	    && insn->kind != INSN_JUMP)
	  continue;
	b = cfg_block_at (cfg, insn->target);
	if (b != NULL && b->start == insn->target)
	  reached[b - cfg->blocks] = 1;
      }
  for (size_t i = 0; i < cfg->n_blocks; i++)
    {
      const struct block *prev = i > 0 ? &cfg->blocks[i - 1] : NULL;
      if (!reached[i])
	internal[i] = 0;
      /* Reached by falling in from another function: keep it simple.  */
      if (prev != NULL && prev->func != cfg->blocks[i].func
	  && falls_into (code, prev, &cfg->blocks[i]))
	internal[i] = 0;
    }
  free (reached);
}

/* A malloc'd array of the code address that each GOT slot of A holds,
   or 0: the local slots that the relocation table names, the global
   slots of symbols defined in the object.  NULL when out of memory.  */

uint32_t *
got_entries (const struct analysis *a)
{
  const struct mips_object *obj = &a->obj;
  uint32_t n_got = obj->got_size / 4;
  uint32_t n_local = obj->dyn.local_gotno < n_got ? obj->dyn.local_gotno
		     : n_got;
  uint32_t *entry = calloc (n_got + 1, sizeof *entry);

  if (entry == NULL)
    return NULL;
  for (size_t i = 0; i < a->relocs.n_entries; i++)
    {
      const struct reloc_entry *r = &a->relocs.entries[i];
      if (r->type == RELOC_GOT && r->addr >= obj->got_addr
	  && (r->addr - obj->got_addr) / 4 < n_local)
	entry[(r->addr - obj->got_addr) / 4] = r->target;
    }
  for (size_t i = 0; i < obj->n_symbols; i++)
    {
      const struct object_symbol *sym = &obj->symbols[i];
      if (sym->dynamic && sym->shndx != SHN_UNDEF
	  && sym->index >= obj->dyn.gotsym
	  && sym->index - obj->dyn.gotsym < n_got - n_local)
	entry[sym->index - obj->dyn.gotsym + n_local] = sym->value;
    }
  return entry;
}

/* The function of CFG that the GOT slot K, holding ENTRY[K] (see
   got_entries), enters at its entry, or NULL.  */

const struct function *
got_function (const struct cfg *cfg, const uint32_t *entry, long k)
{
  const struct function *fn;

  if (k < 0 || entry[k] == 0)
    return NULL;
  fn = cfg_function_at (cfg, entry[k]);
  return fn != NULL && fn->entry == entry[k] ? fn : NULL;
}
