/* regflow.c -- follow the value of one register through the code.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "mips-ops.h"
#include "regflow.h"

/* How many instructions one walk may visit.  A register that holds a GOT
   page in a callee-saved register, or the stack slot it is spilled to,
   can stay live through a whole large function (Rust's fd-find has one
   of 160 KiB, 41,000 instructions, whose page spilled at its start is
   reloaded 148 times to the end); this bound only stops pathological
   walks.  */
#define REGFLOW_MAX_STEPS 65536

/* One walk made: KEY says from which instruction, of which register
   (or of the stack slot its store writes, MEMO_SLOT), and its readers
   are pool[START ... START + N - 1].  */
struct regflow_memo
{
  uint64_t key;			/* 0: empty.  */
  size_t start, n;
  bool truncated;
  bool blind;			/* It met an indirect jump of unknown
				   targets...  */
  bool stale;			/* ... which are known now: make it again.  */
};

#define MEMO_SLOT 0xff

static bool add_use (struct regflow *rf, const struct insn *insn);

static uint64_t
memo_key (uint32_t addr, unsigned reg)
{
  return ((uint64_t) addr << 8 | reg) + 1;
}

/* The entry of KEY in RF's table, empty if the walk was not made.  */

static struct regflow_memo *
memo_find (const struct regflow *rf, uint64_t key)
{
  size_t mask = rf->n_memo - 1;
  /* The high bits of the product mix best; 24 of them covered only
     16 Mi entries of a larger table, whose probes then ran on and on
     (pandoc's analysis took over ten minutes instead of two).  */
  size_t i = (size_t) ((key * 0x9e3779b97f4a7c15ull) >> 16) & mask;

  while (rf->memo[i].key != 0 && rf->memo[i].key != key)
    i = (i + 1) & mask;
  return &rf->memo[i];
}

/* If the walk KEY was made, put its readers in RF->uses and return
   true.  */

static bool
memo_recall (struct regflow *rf, uint64_t key, bool *ok)
{
  const struct regflow_memo *m;

  *ok = true;
  if (rf->memo == NULL)
    return false;
  m = memo_find (rf, key);
  if (m->key == 0 || m->stale)
    return false;
  rf->n_uses = 0;
  for (size_t i = 0; i < m->n; i++)
    if (!add_use (rf, rf->pool[m->start + i]))
      {
	*ok = false;
	return true;
      }
  rf->truncated = m->truncated;
  rf->blind = m->blind;
  return true;
}

/* Keep the readers of the walk KEY just made.  Out of memory, it is
   simply not kept.  */

static void
memo_keep (struct regflow *rf, uint64_t key)
{
  struct regflow_memo *m;

  if (2 * (rf->used_memo + 1) > rf->n_memo)
    {
      size_t n = rf->n_memo ? 2 * rf->n_memo : 4096;
      struct regflow_memo *old = rf->memo;
      size_t n_old = rf->n_memo;
      struct regflow_memo *fresh = calloc (n, sizeof *fresh);

      if (fresh == NULL)
	return;
      rf->memo = fresh;
      rf->n_memo = n;
      for (size_t i = 0; i < n_old; i++)
	if (old[i].key != 0)
	  *memo_find (rf, old[i].key) = old[i];
      free (old);
    }
  if (rf->n_pool + rf->n_uses > rf->alloc_pool)
    {
      size_t n = rf->alloc_pool ? 2 * rf->alloc_pool : 16384;
      const struct insn **p;
      while (n < rf->n_pool + rf->n_uses)
	n *= 2;
      p = realloc (rf->pool, n * sizeof *p);
      if (p == NULL)
	return;
      rf->pool = p;
      rf->alloc_pool = n;
    }
  m = memo_find (rf, key);
  if (m->key == 0)
    rf->used_memo++;
  m->key = key;
  m->start = rf->n_pool;
  m->n = rf->n_uses;
  m->truncated = rf->truncated;
  m->blind = rf->blind;
  m->stale = false;
  /* An empty list may have no pool at all.  */
  if (rf->n_uses > 0)
    memcpy (rf->pool + rf->n_pool, rf->uses, rf->n_uses * sizeof *rf->uses);
  rf->n_pool += rf->n_uses;
}

bool
regflow_init (struct regflow *rf, const struct code *code)
{

  rf->code = code;
  rf->generation = 0;
  rf->worklist = NULL;
  rf->n_work = rf->alloc_work = 0;
  rf->uses = NULL;
  rf->n_uses = rf->alloc_uses = 0;
  rf->truncated = false;
  rf->blind = false;
  rf->jump_edges = NULL;
  rf->n_jump_edges = 0;
  rf->stamp = NULL;
  rf->memo = NULL;
  rf->n_memo = rf->used_memo = 0;
  rf->pool = NULL;
  rf->n_pool = rf->alloc_pool = 0;
  rf->stamp = calloc (code->n_words + 1, sizeof *rf->stamp);
  return rf->stamp != NULL;
}

void
regflow_set_jump_edges (struct regflow *rf, const uint32_t (*edges)[2],
			size_t n)
{
  rf->jump_edges = edges;
  rf->n_jump_edges = n;
  for (size_t i = 0; i < rf->n_memo; i++)
    if (rf->memo[i].key != 0 && rf->memo[i].blind)
      rf->memo[i].stale = true;
}

void
regflow_free (struct regflow *rf)
{
  free (rf->stamp);
  free (rf->worklist);
  free (rf->uses);
  free (rf->memo);
  free (rf->pool);
  rf->memo = NULL;
  rf->pool = NULL;
  rf->stamp = NULL;
  rf->worklist = NULL;
  rf->uses = NULL;
}

/* The record at ADDR and its global word index in *INDEX, or NULL.  */

static inline const struct insn *
lookup (const struct regflow *rf, uint32_t addr, size_t *index)
{
  const struct code *code = rf->code;

  if (addr & 3)
    return NULL;
  for (size_t i = 0; i < code->n_sections; i++)
    {
      const struct insn_section *s = &code->sections[i];
      if (addr >= s->start && addr < s->end)
	{
	  size_t k = (addr - s->start) / 4;
	  if (k >= s->n_insns)
	    return NULL;
	  *index = s->base + k;
	  return &s->insns[k];
	}
    }
  return NULL;
}

/* The last record of the section that holds INSN, the record of
   ADDR.  */

static inline const struct insn *
section_last (const struct regflow *rf, uint32_t addr, const struct insn *insn)
{
  const struct code *code = rf->code;

  for (size_t i = 0; i < code->n_sections; i++)
    {
      const struct insn_section *s = &code->sections[i];
      if (addr >= s->start && addr < s->end)
	return &s->insns[s->n_insns - 1];
    }
  return insn;
}

static bool
push (struct regflow *rf, uint32_t addr)
{
  if (!array_room (&rf->worklist, &rf->alloc_work, rf->n_work,
		   sizeof *rf->worklist, 64))
    return false;
  rf->worklist[rf->n_work++] = addr;
  return true;
}

static bool
add_use (struct regflow *rf, const struct insn *insn)
{
  if (!array_room (&rf->uses, &rf->alloc_uses, rf->n_uses,
		   sizeof *rf->uses, 16))
    return false;
  rf->uses[rf->n_uses++] = insn;
  return true;
}

/* What one walk follows: a register, or a word of the stack frame
   (a spill slot at OFFSET from sp).  */
struct tracked
{
  bool slot;
  unsigned reg;
  int32_t offset;
  bool abi;			/* A call ends every register that the
				   o32 ABI does not preserve.  */
};


/* True if INSN reads what T follows.  */

static inline bool
reads_tracked (const struct tracked *t, const struct insn *insn)
{
  if (!t->slot)
    return (insn->reads & REG_BIT (t->reg)) != 0;
  return insn->op == OP_LW && insn->rs == REG_SP && insn->imm == t->offset;
}

/* True if INSN overwrites what T follows.  For a stack slot that is any
   store that overlaps it, and any change of sp, which makes the offset
   mean another word.  */

static inline bool
writes_tracked (const struct tracked *t, const struct insn *insn)
{
  if (!t->slot)
    return (insn->writes & REG_BIT (t->reg)) != 0;
  if (insn->writes & REG_BIT (REG_SP))
    return true;
  switch (insn->op)
    {
    case OP_SB:
    case OP_SH:
    case OP_SWL:
    case OP_SW:
    case OP_SWR:
      return insn->rs == REG_SP && insn->imm > t->offset - 4
	&& insn->imm < t->offset + 4;
    default:
      return false;
    }
}

/* True if what T follows may still be read after a call.  By the o32
   ABI only the callee-saved registers survive one, but GCC's
   interprocedural register allocation (-fipa-ra, on at -O2) keeps
   values in temporaries across calls to functions it knows leave them
   alone, and compiled code never reads a clobbered temporary after a
   call; so every register but the results v0 and v1 is followed on.  */

static bool
survives_call (const struct tracked *t)
{
  if (t->slot)
    return true;
  if (t->abi)
    return (t->reg >= REG_S0 && t->reg <= REG_S7) || t->reg == REG_FP
	   || t->reg == REG_GP || t->reg == REG_SP;
  return t->reg != REG_V0 && t->reg != REG_V1;
}

/* Queue the places control reaches after the control transfer BRANCH
   and its delay slot, for a walk of T.  SLOT_KILLS says whether the
   delay slot overwrites it; an annulled slot (branch-likely not taken)
   does not run, so the fall-through path survives it.  */

static bool
push_successors (struct regflow *rf, const struct insn *branch,
		 const struct tracked *t, bool slot_kills)
{
  uint32_t after = branch->addr + 8;
  bool ok = true;

  switch (branch->kind)
    {
    case INSN_JUMP:
      if (!slot_kills)
	ok = push (rf, branch->target);
      break;
    case INSN_BRANCH:
      if (!slot_kills)
	ok = push (rf, branch->target);
      if (ok && (!slot_kills || (branch->flags & INSN_F_LIKELY)))
	ok = push (rf, after);
      break;
    case INSN_CALL:
    case INSN_ICALL:
      /* Only a callee-saved register survives the call.  A conditional
	 call that is not taken falls through with the register intact.  */
      if (!slot_kills && survives_call (t))
	ok = push (rf, after);
      else if ((branch->flags & INSN_F_COND)
	       && (!slot_kills || (branch->flags & INSN_F_LIKELY)))
	ok = push (rf, after);
      break;
    case INSN_IJUMP:
      /* A switch whose table is known goes to its cases.  */
      if (!slot_kills && rf->jump_edges == NULL)
	rf->blind = true;
      if (!slot_kills && rf->jump_edges != NULL)
	{
	  size_t lo = 0, hi = rf->n_jump_edges;
	  while (lo < hi)
	    {
	      size_t mid = lo + (hi - lo) / 2;
	      if (rf->jump_edges[mid][0] < branch->addr)
		lo = mid + 1;
	      else
		hi = mid;
	    }
	  for (; ok && lo < rf->n_jump_edges
		 && rf->jump_edges[lo][0] == branch->addr; lo++)
	    ok = push (rf, rf->jump_edges[lo][1]);
	}
      break;
    default:
      /* Returns and other indirect jumps leave the function.  */
      break;
    }
  return ok;
}

static bool
walk (struct regflow *rf, const struct insn *def, const struct tracked *t)
{
  size_t steps = 0;
  size_t index;

  rf->n_uses = 0;
  rf->n_work = 0;
  rf->truncated = false;
  rf->blind = false;
  if (++rf->generation == 0)
    {
      /* The stamps wrapped: clear them so no old walk looks current.  */
      for (size_t i = 0; i <= rf->code->n_words; i++)
	rf->stamp[i] = 0;
      rf->generation = 1;
    }

  /* Where does control go after DEF?  If DEF sits in a delay slot, to
     the successors of its branch; else to the next word.  */
  if (def->flags & INSN_F_SLOT)
    {
      const struct insn *branch = lookup (rf, def->addr - 4, &index);
      if (branch == NULL)
	return true;
      if (!push_successors (rf, branch, t, false))
	return false;
    }
  else if (!push (rf, def->addr + 4))
    return false;

  while (rf->n_work > 0)
    {
      uint32_t pc = rf->worklist[--rf->n_work];
      const struct insn *insn = lookup (rf, pc, &index);
      const struct insn *last;

      if (insn == NULL)
	continue;
      /* The last record of INSN's section: straight-line code is walked
	 here, without the worklist (the same order as pushing the next
	 word and taking it straight back).  */
      last = section_last (rf, pc, insn);
      for (;;)
	{
	  if (rf->stamp[index] == rf->generation)
	    break;
	  rf->stamp[index] = rf->generation;
	  if (++steps > REGFLOW_MAX_STEPS)
	    {
	      rf->truncated = true;
	      return true;
	    }
	  if (insn->kind == INSN_INVALID)
	    break;

	  if (insn->flags & INSN_F_DELAY)
	    {
	      size_t slot_index;
	      const struct insn *slot = lookup (rf, pc + 4, &slot_index);
	      bool slot_kills = false;

	      if (reads_tracked (t, insn) && !add_use (rf, insn))
		return false;
	      if (writes_tracked (t, insn))
		break;
	      if (slot != NULL && slot->kind != INSN_INVALID)
		{
		  if (reads_tracked (t, slot) && !add_use (rf, slot))
		    return false;
		  slot_kills = writes_tracked (t, slot);
		}
	      if (!push_successors (rf, insn, t, slot_kills))
		return false;
	      break;
	    }

	  if (reads_tracked (t, insn) && !add_use (rf, insn))
	    return false;
	  /* Nothing runs after a break: the code behind it may be
	     another function's.  */
	  if (writes_tracked (t, insn) || insn == last
	      || insn_always_traps (insn))
	    break;
	  insn++;
	  index++;
	  pc += 4;
	}
    }
  return true;
}

static bool follow (struct regflow *rf, const struct insn *def,
		    unsigned reg, bool abi);

bool
regflow_follow (struct regflow *rf, const struct insn *def, unsigned reg)
{
  return follow (rf, def, reg, false);
}

bool
regflow_follow_abi (struct regflow *rf, const struct insn *def,
		    unsigned reg)
{
  return follow (rf, def, reg, true);
}

static bool
follow (struct regflow *rf, const struct insn *def, unsigned reg, bool abi)
{
  struct tracked t = { false, reg, 0, abi };
  uint64_t key = memo_key (def->addr, abi ? reg | 0x80 : reg);
  bool ok;

  if (reg == REG_ZERO)
    {
      rf->n_uses = 0;
      return true;
    }
  if (memo_recall (rf, key, &ok))
    return ok;
  if (!walk (rf, def, &t))
    return false;
  memo_keep (rf, key);
  return true;
}

bool
regflow_follow_slot (struct regflow *rf, const struct insn *store)
{
  struct tracked t = { true, 0, store->imm, false };
  uint64_t key = memo_key (store->addr, MEMO_SLOT);
  bool ok;

  if (memo_recall (rf, key, &ok))
    return ok;
  if (!walk (rf, store, &t))
    return false;
  memo_keep (rf, key);
  return true;
}
