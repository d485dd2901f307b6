/* marks.c -- the words of the original code that need more than a
   copy, marked for planning: system calls the runtime must see first,
   indirect jumps noted for call traces, bal over data and call probes
   (the ll/sc sequences are facts: analyse/facts.c).

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#include <config.h>

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "stages.h"

/* The system calls that the runtime must see before they are made
   (runtime/hook.S): exit_group (the profile is written there, after
   every destructor), the exec calls (it is written before the image
   goes) and the calls that make processes (fork, and clone, which may
   make a child that shares this memory).  In a static executable,
   whose libc the runtime cannot interpose, the calls that set or ask
   for a signal's action too: the runtime first gives back the signals
   it handles (runtime/static.c).  STATIC_EXE says which.  */

static bool
hooked_syscall (uint32_t nr, bool static_exe)
{
  switch (nr)
    {
    case SYS_EXIT_GROUP:
    case SYS_EXECVE:
    case SYS_EXECVEAT:
    case SYS_FORK:
    case SYS_CLONE:
    case SYS_CLONE3:
      return true;
    case SYS_SIGACTION:
    case SYS_RT_SIGACTION:
      return static_exe;
    default:
      return false;
    }
}

/* The system call number that v0 holds at the syscall instruction AT
   of block B: the value of the block's last `li v0,N' before AT
   (addiu or ori from zero), or -1 when v0 is set otherwise or before
   the block.  */

static long
syscall_number (const struct code *code, const struct block *b, uint32_t at)
{
  while (at > b->start)
    {
      const struct insn *insn = code_insn_at (code, at -= 4);
      if (insn == NULL)
	return -1;
      if (!(insn->writes & R (REG_V0)))
	continue;
      if ((insn->op == OP_ADDIU || insn->op == OP_ORI)
	  && insn->rs == REG_ZERO && insn->rt == REG_V0)
	return insn->op == OP_ORI ? (long) (insn->imm & 0xffff)
	       : (long) insn->imm;
      return -1;
    }
  return -1;
}

/* Mark the system calls of E that call the runtime's syscall hook
   first: those whose number may be one of hooked_syscall's (when the
   number is not a constant of the block, the hook itself looks).  A
   system call in a delay slot or between an ll and its sc has no room
   before it and is left alone.  */

void
mark_syscall_hooks (struct emitter *e)
{
  const struct analysis *a = e->a;

  for (size_t i = 0; i < a->cfg.n_blocks; i++)
    {
      const struct block *b = &a->cfg.blocks[i];
      for (uint32_t at = b->start; at < b->end; at += 4)
	{
	  const struct insn *insn = code_insn_at (&a->code, at);
	  long w = emit_word_index (e, at), nr;
	  if (insn == NULL || w < 0 || insn->op != 0
	      || (insn->word & 0x3f) != FUNCT_SYSCALL
	      || (insn->flags & INSN_F_SLOT) || e->facts.in_llsc[w])
	    continue;
	  nr = syscall_number (&a->code, b, at);
	  if (nr >= 0 && !hooked_syscall ((uint32_t) nr, object_is_static (&a->obj)))
	    continue;
	  e->plan.hooks[w] |= HOOK_SYSCALL;
	  if (nr == SYS_EXIT_GROUP)
	    e->plan.exit_hooked = true;
	}
    }
}

/* Mark the indirect jumps, calls and returns of E that note
   themselves for the runtime before they jump (--poison-original):
   a jump that reaches the poisoned original code or data is then
   named in the runtime's message.  Those between an ll and its sc are
   left alone.  */

void
mark_jump_notes (struct emitter *e)
{
  const struct code *code = &e->a->code;

  for (size_t s = 0; s < code->n_sections; s++)
    for (size_t i = 0; i < code->sections[s].n_insns; i++)
      {
	const struct insn *insn = &code->sections[s].insns[i];
	size_t w = code->sections[s].base + i;
	if ((insn->kind == INSN_IJUMP || insn->kind == INSN_ICALL
	     || insn->kind == INSN_RETURN)
	    && !(insn->flags & INSN_F_SLOT) && !e->facts.in_llsc[w])
	  e->plan.hooks[w] |= HOOK_JUMP_NOTE;
      }
}

/* True if INSN is a `bal' over data words to a label a few words on in
   the same section, whose code reads the data through ra (musl's
   _start and _dlstart: bal 1f; slot; .gpword ...; 1: lw gp,0(ra)): the
   copy carries its own copy of the data, which names the copies of the
   code addresses (put_data_bal).  The target's first instruction must
   load a word of the data through ra, and the slot leave ra alone: a
   bal to a function a few words on (glibc's libm has them) is a call,
   whose return address is code.  */

static bool
data_bal (const struct emitter *e, const struct insn *insn)
{
  const struct insn *slot = code_insn_at (&e->a->code, insn->addr + 4);
  const struct insn *first;
  uint64_t touched = R (REG_RA);

  if (!(insn->kind == INSN_CALL && insn->op == OP_REGIMM
	&& insn->rt == REGIMM_BGEZAL && insn->rs == 0
	&& insn->target > insn->addr + 8 && insn->target <= insn->addr + 72
	&& emit_word_index (e, insn->target) >= 0))
    return false;
  first = code_insn_at (&e->a->code, insn->target);
  return (first != NULL && first->op == OP_LW && first->rs == REG_RA
	  && first->imm >= 0
	  && (uint32_t) first->imm < insn->target - (insn->addr + 8)
	  && slot != NULL && !(slot->flags & INSN_F_DELAY)
	  && !((slot->reads | slot->writes) & touched));
}

/* Give every bal over data its long form, LONG_DATA_BAL (data_bal),
   before anything is placed: the bal, its slot and the data stay
   together.  */

void
mark_data_bals (struct emitter *e)
{
  const struct code *code = &e->a->code;

  for (size_t s = 0; s < code->n_sections; s++)
    for (size_t i = 0; i < code->sections[s].n_insns; i++)
      if (data_bal (e, &code->sections[s].insns[i]))
	e->layout.long_kind[code->sections[s].base + i] = LONG_DATA_BAL;
}

/* With --calls: mark the probe sites, an entry probe at the entry of
   every function and an exit probe before every return and every tail
   jump (an unconditional jump to another function's entry, or a jump
   through t9 that no table explains).  Lazy-binding stubs are left
   alone: they leave through the dynamic linker.  False when out of
   memory.  */

bool
mark_probes (struct emitter *e)
{
  const struct analysis *a = e->a;
  const struct cfg *cfg = &a->cfg;
  const struct code *code = &a->code;
  unsigned char *table_jr = table_jumps (e);

  if (table_jr == NULL)
    return false;
  for (size_t i = 0; i < cfg->n_blocks; i++)
    {
      const struct block *b = &cfg->blocks[i];
      const struct function *f = &cfg->funcs[b->func];
      const struct insn *first = code_insn_at (code, b->start);
      const struct insn *slot;
      const struct insn *ctl;
      const char *sname;
      bool exit_here = false;

      if (first == NULL)
	continue;
      sname = NULL;
      for (size_t s = 0; s < code->n_sections; s++)
	if (b->start >= code->sections[s].start
	    && b->start < code->sections[s].end)
	  sname = code->sections[s].section->name;
      if (sname != NULL && (strcmp (sname, ".MIPS.stubs") == 0
			    || strcmp (sname, ".plt") == 0))
	continue;
      if (b->start == f->entry && first->kind != INSN_INVALID)
	e->plan.probe[emit_word_index (e, b->start)] = PROBE_ENTRY;
      ctl = cfg_block_control (code, b, &slot);
      if (ctl == NULL || slot == NULL)
	continue;
      if (ctl->kind == INSN_RETURN)
	exit_here = true;
      else if (ctl->kind == INSN_JUMP)
	{
	  const struct function *g = cfg_function_at (cfg, ctl->target);
	  exit_here = g != NULL && g != f && g->entry == ctl->target;
	}
      else if (ctl->kind == INSN_IJUMP && ctl->rs == REG_T9)
	exit_here = !table_jr[emit_word_index (e, ctl->addr)];
      if (exit_here)
	e->plan.probe[emit_word_index (e, ctl->addr)] |= PROBE_EXIT;
    }
  free (table_jr);
  return true;
}
