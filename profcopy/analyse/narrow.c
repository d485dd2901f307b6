/* narrow.c -- the functions whose entries only this object's own calls
   reach, with t9 set as those calls set it (find_narrowable), so that
   what holds on every such call holds at the entry.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "stages.h"

/* True if the code address TARGET that the addiu at ADDIU of CODE puts
   in t9 goes, with no other read or write of t9 on the way (falling
   through from block to block; a store would let the address escape),
   to a jalr t9 or a jr t9, whose block is then *SITE, or to a direct
   call or jump to TARGET (the linker turned the jalr into a bal; *SITE
   is then NULL: the block scan finds it).  *SAME_BLOCK says that the
   call is in the block of the addiu, so that its t9 can hold nothing
   else (another way into a later block could bring another t9).  */

static bool
t9_called_at_once (const struct code *code, const struct cfg *cfg,
		   uint32_t addiu, uint32_t target, const struct block **site,
		   bool *same_block)
{
  const struct block *b = cfg_block_at (cfg, addiu);
  const struct insn *insn = code_insn_at (code, addiu);
  uint32_t at = addiu + 4;

  if (b == NULL || insn == NULL || insn->rt != REG_T9)
    return false;
  for (int hops = 0; hops < 8; hops++)
    {
      const struct insn *slot;
      const struct insn *ctl = cfg_block_control (code, b, &slot);
      uint32_t stop = ctl != NULL ? ctl->addr : b->end;

      for (; at < stop; at += 4)
	{
	  const struct insn *x = code_insn_at (code, at);
	  if (x == NULL || ((x->reads | x->writes) & R (REG_T9)))
	    return false;
	}
      if (ctl != NULL)
	{
	  if (slot == NULL || (slot->reads & R (REG_T9)))
	    return false;
	  *same_block = hops == 0;
	  *site = NULL;
	  if ((ctl->kind == INSN_ICALL || ctl->kind == INSN_IJUMP)
	      && ctl->rs == REG_T9)
	    *site = b;
	  return *site != NULL
		 || ((ctl->kind == INSN_CALL || ctl->kind == INSN_JUMP)
		     && ctl->target == target);
	}
      if (b + 1 >= cfg->blocks + cfg->n_blocks || b->end != b[1].start
	  || (b->flags & (BLOCK_F_INVALID | BLOCK_F_FALLTHRU_EXIT)))
	return false;
      b++;
      at = b->start;
    }
  return false;
}

/* Add to *IN (*N_IN entries, *MAX allocated) that block BLOCK enters
   function FUNC.  False when out of memory.  */

static bool
add_entrant (struct cfg_entrant **in, size_t *n_in, size_t *max,
	     size_t block, size_t func)
{
  if (!array_room (in, max, *n_in, sizeof **in, 1024))
    return false;
  (*in)[*n_in].block = (uint32_t) block;
  (*in)[(*n_in)++].func = (uint32_t) func;
  return true;
}

/* True if function F of CODE may call through an address that does
   not come straight from the GOT: it writes t9 other than by a GOT load
   or the addiu of a GOT page reference, or calls through a register
   other than t9.  Only there can an address that the function builds
   in another register be the target of a call (GCC may hoist the
   address of a call it knows out of a loop).  */

static bool
t9_dirty (const struct code *code, const struct cfg *cfg,
	  const struct function *f)
{
  for (uint32_t k = 0; k < f->n_blocks; k++)
    {
      const struct block *b = &cfg->blocks[f->first_block + k];
      for (uint32_t at = b->start; at < b->end; at += 4)
	{
	  const struct insn *x = code_insn_at (code, at);
	  if (x == NULL)
	    return true;
	  if (x->kind == INSN_ICALL && x->rs != REG_T9)
	    return true;
	  if (!(x->writes & R (REG_T9)) || x->kind == INSN_ICALL
	      || x->kind == INSN_CALL)
	    continue;
	  if ((x->op == OP_LW && x->rs == REG_GP)
	      || (x->op == OP_ADDIU && x->rs == REG_T9))
	    continue;
	  return true;
	}
    }
  return false;
}

/* Whether every instruction that reads the value the instruction at AT
   puts in REG (the entry of function FN) is a call or a jump through
   REG, on every path (regflow.c): then those are all the calls that
   value makes, and they are added to N's entrants of FN (inexact:
   another path may bring another value to the same call).  False
   with *OK still true when some reader does something else with it or
   the walk is not sure; *OK false when out of memory.  */

static bool
only_called_through (struct narrowing *n, uint32_t at, unsigned reg,
		     const struct function *fn, bool *ok)
{
  const struct cfg *cfg = &n->a->cfg;
  const struct insn *def = code_insn_at (&n->a->code, at);
  size_t n_uses;

  *ok = true;
  /* regflow ends a walk of v0 or v1 at a call, which a caller that
     knows its callee (-fipa-ra) may keep them across.  */
  if (def == NULL || !(def->writes & R (reg)) || reg == REG_V0
      || reg == REG_V1)
    return false;
  if (!regflow_follow (&n->rf, def, reg))
    {
      *ok = false;
      return false;
    }
  if (n->rf.truncated || n->rf.blind)
    return false;
  n_uses = n->rf.n_uses;
  for (size_t k = 0; k < n_uses; k++)
    {
      const struct insn *x = n->rf.uses[k];
      const struct block *b = cfg_block_at (cfg, x->addr);
      const struct insn *slot;
      if ((x->kind != INSN_ICALL && x->kind != INSN_IJUMP) || x->rs != reg
	  || b == NULL || cfg_block_control (&n->a->code, b, &slot) != x)
	return false;
    }
  for (size_t k = 0; k < n_uses; k++)
    if (!add_entrant (&n->in, &n->n_in, &n->max,
		      cfg_block_at (cfg, n->rf.uses[k]->addr) - cfg->blocks,
		      fn - cfg->funcs))
      {
	*ok = false;
	return false;
      }
  n->inexact[fn - cfg->funcs] = 1;
  return true;
}

/* Record in N that the instruction at AT puts the entry of function
   FN in register REG: a call or tail call through t9 right after it
   enters FN; anything else is a function pointer, which only callers
   that follow the calling convention use, unless the function of AT
   may call through such a value.  False when out of memory.  */

static bool
classify_ref (struct narrowing *n, uint32_t at, unsigned reg,
	      const struct function *fn)
{
  const struct cfg *cfg = &n->a->cfg;
  const struct code *code = &n->a->code;
  const struct function *here = cfg_function_at (cfg, at);
  const struct block *site;
  bool same, ok;
  size_t h;

  if (reg == REG_T9
      && t9_called_at_once (code, cfg, at, fn->entry, &site, &same))
    {
      if (site != NULL && !same)
	n->inexact[fn - cfg->funcs] = 1;
      return site == NULL
	     || add_entrant (&n->in, &n->n_in, &n->max, site - cfg->blocks,
			     fn - cfg->funcs);
    }
  if (only_called_through (n, at, reg, fn, &ok))
    return true;
  if (!ok)
    return false;
  n->escaped[fn - cfg->funcs] = 1;
  if (here == NULL)
    {
      n->narrow[fn - cfg->funcs] = 0;
      return true;
    }
  h = here - cfg->funcs;
  if (n->dirty[h] < 0)
    n->dirty[h] = t9_dirty (code, cfg, here);
  if (n->dirty[h])
    n->narrow[fn - cfg->funcs] = 0;
  return true;
}

/* Find the functions of A whose returns go back only to code this
   object shows or to callers that follow the calling convention
   (N->narrow), and the blocks that enter them (N->in).  A function is
   left out when something else may enter it: a symbol or a call or a
   jump into its middle, a jump table, a landing pad, the code before it
   falling in, or its address in a register that may become the target
   of a call we cannot see (classify_ref).  */

bool
find_narrowable (struct narrowing *n)
{
  const struct analysis *a = n->a;
  const struct cfg *cfg = &a->cfg;
  const struct code *code = &a->code;
  const struct mips_object *obj = &a->obj;
  uint32_t n_local = obj->dyn.local_gotno;

  /* Not e_entry, DT_INIT or DT_FINI; a section's start only when
     something else says it is a function.  */
  for (size_t f = 0; f < cfg->n_funcs; f++)
    {
      unsigned from = cfg->funcs[f].from;
      n->narrow[f] = cfg->funcs[f].n_blocks > 0 && !(from & FUNC_FROM_ENTRY)
		     && (!(from & FUNC_FROM_SECTION)
			 || (from & (FUNC_FROM_SYMTAB | FUNC_FROM_DYNSYM
				     | FUNC_FROM_FDE | FUNC_FROM_PROLOGUE)));
    }
  for (size_t i = 0; i < obj->n_symbols; i++)
    {
      const struct object_symbol *sym = &obj->symbols[i];
      const struct function *fn = cfg_function_at (cfg, sym->value);
      if (!sym->dynamic)
	continue;
      if (fn != NULL && sym->value != fn->entry)
	n->narrow[fn - cfg->funcs] = 0;
      else if (fn != NULL)
	n->escaped[fn - cfg->funcs] = 1;
    }
  for (size_t i = 0; i < a->n_landing_pads; i++)
    {
      const struct function *fn = cfg_function_at (cfg, a->landing_pads[i]);
      if (fn != NULL)
	n->narrow[fn - cfg->funcs] = 0;
    }
  /* An address the copy leaves as the original made it is translated
     where it is jumped to, from anywhere.  */
  for (size_t i = 0; i < a->relocs.n_unsure; i++)
    {
      const struct function *fn = cfg_function_at (cfg, a->relocs.unsure[i]);
      if (fn != NULL)
	{
	  n->narrow[fn - cfg->funcs] = 0;
	  n->escaped[fn - cfg->funcs] = 1;
	}
    }
  for (size_t i = 0; i < a->relocs.n_entries; i++)
    {
      const struct reloc_entry *r = &a->relocs.entries[i];
      const struct function *fn = cfg_function_at (cfg, r->target);
      const struct insn *addiu;

      if (fn == NULL)
	continue;
      switch (r->type)
	{
	case RELOC_PROLOGUE:
	case RELOC_FDE:
	case RELOC_SYMBOL:
	  break;
	case RELOC_DATA:
	case RELOC_ENTRY:
	case RELOC_INIT:
	case RELOC_FINI:
	  /* A switch table's own word: its RELOC_JUMP_TABLE decides.  */
	  if (r->target == fn->entry && !(r->flags & RELOC_F_TABLE_SLOT))
	    n->escaped[fn - cfg->funcs] = 1;
	  break;
	case RELOC_JUMP_TABLE:
	  if (r->target == fn->entry || r->aux2 == 0
	      || cfg_function_at (cfg, r->aux2) != fn)
	    n->narrow[fn - cfg->funcs] = 0;
	  break;
	case RELOC_GOT_REF:
	  addiu = code_insn_at (code, r->aux);
	  if (r->target != fn->entry)
	    {
	      if (cfg_function_at (cfg, r->aux) != fn)
		n->narrow[fn - cfg->funcs] = 0;
	    }
	  else if (addiu == NULL)
	    n->narrow[fn - cfg->funcs] = 0;
	  else if (!classify_ref (n, r->aux, addiu->rt, fn))
	    return false;
	  break;
	case RELOC_GOT:
	  if (r->target == fn->entry)
	    n->escaped[fn - cfg->funcs] = 1;
	  if (r->target != fn->entry || r->addr < obj->got_addr
	      || (r->addr - obj->got_addr) / 4 >= n_local)
	    n->narrow[fn - cfg->funcs] = 0;
	  break;
	default:
	  n->narrow[fn - cfg->funcs] = 0;
	  break;
	}
    }
  for (size_t i = 0; i < cfg->n_blocks; i++)
    {
      const struct block *b = &cfg->blocks[i];
      const struct insn *slot;
      const struct insn *ctl = cfg_block_control (code, b, &slot);
      const struct function *fn;

      if (i > 0 && cfg->blocks[i - 1].func != b->func
	  && falls_into (code, &cfg->blocks[i - 1], b))
	n->narrow[b->func] = 0;
      /* Loads of GOT slots that hold function entries: local slots the
	 relocation table names, global ones of symbols defined here.  */
      for (uint32_t at = b->start; at < b->end; at += 4)
	{
	  const struct insn *x = code_insn_at (code, at);

	  if (x == NULL)
	    continue;
	  fn = got_function (cfg, n->got_entry, got_slot (obj, &n->a->relocs, x));
	  if (fn != NULL && !classify_ref (n, at, x->rt, fn))
	    return false;
	}
      if (ctl == NULL
	  || (ctl->kind != INSN_CALL && ctl->kind != INSN_JUMP
	      && ctl->kind != INSN_BRANCH)
	  || (ctl->kind == INSN_CALL && ctl->target == ctl->addr + 8))
	continue;
      fn = cfg_function_at (cfg, ctl->target);
      if (fn == NULL || (ctl->kind != INSN_CALL && fn == &cfg->funcs[b->func]))
	continue;
      if (ctl->target != fn->entry)
	n->narrow[fn - cfg->funcs] = 0;
      else if (!add_entrant (&n->in, &n->n_in, &n->max, i, fn - cfg->funcs))
	return false;
    }
  return true;
}
