/* jump-tables.c -- switch tables: their bounds proven, their entries
   entered in the relocation table.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   got-ref.c's walk finds the tables and the jumps that use them
   (struct jump_table); emit_tables enters every entry that the table
   can hold: as many as a check of the index on every path to the jump
   proves (prove_bound), never fewer than a scan of the table shows to
   be code addresses of the function.  Without a proof, a scan that
   ends at a word leading into no code closes the table (every entry
   of a switch table leads into code); one that ends at a code address
   of another function does not (a case GCC moved out of line).  */

#include <config.h>

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "finder.h"
#include "mips-ops.h"

/* Proving a table's bound.  The index that selects an entry is bounded
   on a path by a mask (`andi i,x,M`), by a byte or halfword load, or by
   a range check (`sltiu c,i,N` or `sltu c,i,r` with r a constant, and a
   branch on c) whose in-range edge the path takes, as long as nothing
   else writes the index between there and the table's addu.  The
   table's bound is the largest bound over every path that reaches the
   addu; a path that meets anything else (a function entry, an address
   the relocation table or a switch reaches, a call, another write of
   the index, the walk's limits) leaves the table unproven.  */

static int
compare_pair (const void *pa, const void *pb)
{
  const uint32_t *a = pa, *b = pb;

  if (a[0] != b[0])
    return a[0] < b[0] ? -1 : 1;
  return a[1] < b[1] ? -1 : a[1] > b[1];
}

/* Build F's branch_in and entered lists.  False when out of memory.  */

static bool
proof_prepare (struct finder *f)
{
  const struct code *code = f->code;
  const struct reloc_table *table = f->table;
  size_t n = 0, k = 0;

  if (f->proof_ready)
    return true;
  for (size_t s = 0; s < code->n_sections; s++)
    for (size_t i = 0; i < code->sections[s].n_insns; i++)
      {
	const struct insn *insn = &code->sections[s].insns[i];
	if (insn->kind == INSN_BRANCH || insn->kind == INSN_JUMP
	    || insn->kind == INSN_CALL)
	  n++;
      }
  f->branch_in = malloc ((n + 1) * sizeof *f->branch_in);
  f->entered = malloc ((table->n_entries + f->rf->n_jump_edges + n + 1)
		       * sizeof *f->entered);
  if (f->branch_in == NULL || f->entered == NULL)
    return false;
  for (size_t s = 0; s < code->n_sections; s++)
    for (size_t i = 0; i < code->sections[s].n_insns; i++)
      {
	const struct insn *insn = &code->sections[s].insns[i];
	if (insn->kind == INSN_BRANCH || insn->kind == INSN_JUMP)
	  {
	    f->branch_in[k][0] = insn->target;
	    f->branch_in[k][1] = insn->addr;
	    k++;
	  }
      }
  qsort (f->branch_in, k, sizeof *f->branch_in, compare_pair);
  f->n_branch_in = k;
  k = 0;
  for (size_t i = 0; i < table->n_entries; i++)
    f->entered[k++] = table->entries[i].target;
  /* A call enters a function, which may have no entry in the table.  */
  for (size_t s = 0; s < code->n_sections; s++)
    for (size_t i = 0; i < code->sections[s].n_insns; i++)
      if (code->sections[s].insns[i].kind == INSN_CALL)
	f->entered[k++] = code->sections[s].insns[i].target;
  for (size_t i = 0; i < f->rf->n_jump_edges; i++)
    f->entered[k++] = f->rf->jump_edges[i][1];
  qsort (f->entered, k, sizeof *f->entered, array_compare_u32);
  f->n_entered = k;
  f->proof_ready = true;
  return true;
}

static bool
is_entered (const struct finder *f, uint32_t addr)
{
  size_t a = 0, b = f->n_entered;

  while (a < b)
    {
      size_t mid = a + (b - a) / 2;
      if (f->entered[mid] < addr)
	a = mid + 1;
      else
	b = mid;
    }
  return (a < f->n_entered && f->entered[a] == addr)
	 || bsearch (&addr, f->funcs, f->n_funcs, sizeof *f->funcs,
		     array_compare_u32) != NULL;
}

/* The first of F's branch_in pairs whose target is ADDR.  */

static size_t
first_branch_in (const struct finder *f, uint32_t addr)
{
  size_t a = 0, b = f->n_branch_in;

  while (a < b)
    {
      size_t mid = a + (b - a) / 2;
      if (f->branch_in[mid][0] < addr)
	a = mid + 1;
      else
	b = mid;
    }
  return a;
}

/* One path of a proof, walking back: the tracked register REG holds the
   index (scaled by 4 while SCALED) just before the instruction at AT,
   a signed 32-bit value that the path's checks so far put in [LO, HI].
   EDGE says how the path left the branch at AT - 4 when AT - 4 is the
   branch and the path came through its taken (1) or fall-through (2)
   edge, else 0.  */
struct bound_path
{
  uint32_t at;
  unsigned reg;
  bool scaled;
  int edge;
  int steps;
  int64_t lo, hi;
};

enum { EDGE_NONE, EDGE_TAKEN, EDGE_FALL };

/* What a compare says of the tracked register: nothing, or that it is
   below N when its result is not zero, unsigned or signed.  */
enum compare { CMP_NONE, CMP_ULT, CMP_SLT };

/* How the instruction before BRANCH (within a few words, none of which
   writes REG or C) compares the tracked register REG for C: `sltiu
   c,reg,N' or `sltu c,reg,r' with `li r,N' (CMP_ULT), `slti c,reg,N'
   or `slt c,reg,r' with `li r,N' (CMP_SLT); *N the constant.  */

static enum compare
range_check (const struct finder *f, uint32_t branch, unsigned c,
	     unsigned reg, int64_t *n)
{
  unsigned limit_reg = 0;
  enum compare kind = CMP_NONE;

  for (uint32_t k = 1; k <= 8 && branch >= 4 * k; k++)
    {
      const struct insn *insn = code_insn_at (f->code, branch - 4 * k);
      unsigned funct;
      if (insn == NULL || insn->kind != INSN_OTHER
	  || (k > 1 && is_entered (f, branch - 4 * (k - 1))))
	return CMP_NONE;
      if (limit_reg != 0 && (insn->writes & REG_BIT (limit_reg)))
	{
	  if ((insn->op == OP_ADDIU || insn->op == OP_ORI)
	      && insn->rs == REG_ZERO && insn->rt == limit_reg)
	    {
	      *n = insn->op == OP_ORI ? (int64_t) (insn->imm & 0xffff)
		   : (int64_t) insn->imm;
	      return kind;
	    }
	  return CMP_NONE;
	}
      if (insn->writes & REG_BIT (c))
	{
	  funct = insn->word & 0x3f;
	  if ((insn->op == OP_SLTIU || insn->op == OP_SLTI) && insn->rt == c
	      && insn->rs == reg)
	    {
	      /* sltiu compares with the sign-extended immediate.  */
	      *n = insn->op == OP_SLTIU ? (int64_t) (uint32_t) insn->imm
		   : (int64_t) insn->imm;
	      return insn->op == OP_SLTIU ? CMP_ULT : CMP_SLT;
	    }
	  if (insn->op == 0 && (funct == FUNCT_SLTU || funct == FUNCT_SLT)
	      && insn->rd == c && insn->rs == reg && insn->rt != REG_ZERO
	      && insn->rt != reg)
	    {
	      limit_reg = insn->rt;
	      kind = funct == FUNCT_SLTU ? CMP_ULT : CMP_SLT;
	      continue;
	    }
	  return CMP_NONE;
	}
      if (insn->writes & REG_BIT (reg))
	return CMP_NONE;
    }
  return CMP_NONE;
}

/* Most entries a proof accepts.  */
#define BOUND_MAX	(1 << 20)

/* Narrow P's range of the tracked register to [LO, HI].  */

static void
narrow (struct bound_path *p, int64_t lo, int64_t hi)
{
  if (lo > p->lo)
    p->lo = lo;
  if (hi < p->hi)
    p->hi = hi;
}

/* The number of entries P's range lets the index select, or 0 while
   it is not bounded on both sides.  A range that no value is in (a
   path that cannot be taken) selects one.  */

static int64_t
bound_of (const struct bound_path *p)
{
  if (p->lo > p->hi)
    return 1;
  if (p->lo < 0 || p->hi >= (p->scaled ? 4 * (int64_t) BOUND_MAX
			     : (int64_t) BOUND_MAX))
    return 0;
  return p->scaled ? p->hi / 4 + 1 : p->hi + 1;
}

/* Narrow P by the branch INSN, which the path leaves by P's edge.  */

static void
branch_step (const struct finder *f, const struct insn *insn,
	     struct bound_path *p)
{
  unsigned reg = p->reg;
  bool taken = p->edge == EDGE_TAKEN;
  unsigned code = insn->word >> 16 & 0x1f;
  int64_t n;

  switch (insn->op)
    {
    case OP_BEQ:
    case OP_BNE:
    case OP_BEQL:
    case OP_BNEL:
      if (insn->rt != REG_ZERO || insn->rs == REG_ZERO)
	return;
      if (insn->rs == reg)
	{
	  /* beqz reg, taken, or bnez reg, fallen through: reg is 0.  */
	  if (taken == (insn->op == OP_BEQ || insn->op == OP_BEQL))
	    narrow (p, 0, 0);
	  return;
	}
      {
	/* beqz c leaves the range when taken, bnez c enters it.  */
	bool bnez = insn->op == OP_BNE || insn->op == OP_BNEL;
	enum compare kind = range_check (f, insn->addr, insn->rs, reg, &n);
	if (kind == CMP_ULT && taken == bnez && n <= INT32_MAX)
	  narrow (p, 0, n - 1);
	else if (kind == CMP_SLT && taken == bnez)
	  narrow (p, INT32_MIN, n - 1);
	else if (kind == CMP_SLT)
	  narrow (p, n, INT32_MAX);
      }
      return;
    case OP_REGIMM:
      if (insn->rs != reg)
	return;
      /* bltz: below 0 when taken; bgez: 0 or more.  */
      if (code == REGIMM_BLTZ || code == REGIMM_BLTZL)
	taken = !taken;
      else if (code != REGIMM_BGEZ && code != REGIMM_BGEZL)
	return;
      if (taken)
	narrow (p, 0, INT32_MAX);
      else
	narrow (p, INT32_MIN, -1);
      return;
    case OP_BLEZ:
    case OP_BLEZL:
    case OP_BGTZ:
    case OP_BGTZL:
      /* blez: 0 or less when taken; bgtz: above 0.  */
      if (insn->rs != reg)
	return;
      if (insn->op == OP_BLEZ || insn->op == OP_BLEZL)
	taken = !taken;
      if (taken)
	narrow (p, 1, INT32_MAX);
      else
	narrow (p, INT32_MIN, 0);
      return;
    default:
      return;
    }
}

/* What the instruction INSN on path P says of the index: a bound (the
   number of entries, > 0), 0 to go on (P updated), or -1 when the path
   cannot be proven.  */

static int64_t
bound_step (const struct finder *f, const struct insn *insn,
	    struct bound_path *p)
{
  unsigned reg = p->reg;
  int64_t b;

  if (insn->kind == INSN_BRANCH && p->edge != EDGE_NONE)
    {
      branch_step (f, insn, p);
      return bound_of (p);
    }
  /* A call the path came back from (prove_bound keeps only a
     callee-saved index across one).  */
  if ((insn->kind == INSN_CALL || insn->kind == INSN_ICALL)
      && p->edge != EDGE_NONE)
    return 0;
  if (insn->kind != INSN_OTHER)
    return insn->kind == INSN_BRANCH ? 0 : -1;
  if (!(insn->writes & REG_BIT (reg)))
    return 0;
  if (insn->op == OP_ANDI && insn->rt == reg)
    narrow (p, 0, insn->imm & 0xffff);
  else if ((insn->op == OP_LBU || insn->op == OP_LHU || insn->op == OP_LB
	    || insn->op == OP_LH) && insn->rt == reg && !p->scaled)
    narrow (p, insn->op == OP_LB ? -128 : insn->op == OP_LH ? -32768 : 0,
	    insn->op == OP_LBU ? 255 : insn->op == OP_LHU ? 65535
	    : insn->op == OP_LB ? 127 : 32767);
  else if (p->scaled && insn->op == 0 && (insn->word & 0x3f) == FUNCT_SLL
	   && insn->rd == reg && (insn->word >> 6 & 0x1f) == 2
	   && insn->rt != REG_ZERO)
    {
      /* What is known of 4 * i (modulo 2^32) says nothing simple of
	 i: the checks of i before start afresh.  */
      if ((b = bound_of (p)) > 0)
	return b;
      p->reg = insn->rt;
      p->scaled = false;
      p->lo = INT32_MIN;
      p->hi = INT32_MAX;
      return 0;
    }
  else if (copy_source (insn) != 0 && insn->rd == reg)
    {
      p->reg = copy_source (insn);
      return 0;
    }
  /* The index's definition: bounded now, or never.  */
  return bound_of (p) > 0 ? bound_of (p) : -1;
}

/* The number of entries that the index of table T can select, proven on
   every path to its addu; 0 if that cannot be proven.  */

static uint32_t
prove_bound (struct finder *f, const struct jump_table *t)
{
  struct bound_path stack[BOUND_PATHS];
  size_t depth = 0, paths = 1;
  uint32_t bound = 0;

  if (t->index_add == 0 || t->index_reg == REG_ZERO || !proof_prepare (f))
    return 0;
  stack[depth++] = (struct bound_path) { t->index_add, t->index_reg, true,
					 EDGE_NONE, 0, INT32_MIN, INT32_MAX };
  while (depth > 0)
    {
      struct bound_path p = stack[--depth];
      for (;;)
	{
	  const struct insn *prev, *before;
	  int64_t r;

	  if (++p.steps > BOUND_STEPS || p.at < 4)
	    return 0;
	  prev = code_insn_at (f->code, p.at - 4);
	  if (prev == NULL)
	    return 0;
	  if (p.edge != EDGE_NONE)
	    {
	      /* PREV is the branch the path came through.  */
	      r = bound_step (f, prev, &p);
	      p.edge = EDGE_NONE;
	      if (r < 0)
		return 0;
	      if (r > 0)
		{
		  bound = bound > r ? bound : (uint32_t) r;
		  break;
		}
	      p.at -= 4;
	      continue;
	    }
	  if (is_entered (f, p.at))
	    return 0;
	  /* Branches into AT: each is another path, through the branch's
	     delay slot and then the branch itself, taken.  */
	  for (size_t k = first_branch_in (f, p.at);
	       k < f->n_branch_in && f->branch_in[k][0] == p.at; k++)
	    {
	      uint32_t src = f->branch_in[k][1];
	      const struct insn *slot = code_insn_at (f->code, src + 4);
	      struct bound_path q = p;
	      if (slot == NULL || depth == BOUND_PATHS
		  || ++paths > BOUND_PATHS)
		return 0;
	      r = bound_step (f, slot, &q);
	      if (r < 0)
		return 0;
	      if (r > 0)
		{
		  bound = bound > r ? bound : (uint32_t) r;
		  continue;
		}
	      q.at = src + 4;
	      q.edge = EDGE_TAKEN;
	      stack[depth++] = q;
	    }
	  /* Falling in from the word before.  */
	  before = p.at >= 8 ? code_insn_at (f->code, p.at - 8) : NULL;
	  if (before != NULL && (before->flags & INSN_F_DELAY))
	    {
	      /* PREV is the delay slot of BEFORE.  */
	      if (before->kind == INSN_JUMP || before->kind == INSN_IJUMP
		  || before->kind == INSN_RETURN)
		break;		/* Only the branches into AT reach it.  */
	      if (before->kind == INSN_CALL || before->kind == INSN_ICALL)
		{
		  /* A call comes back here.  Its callee keeps a
		     callee-saved register for its caller, and the
		     compiler relies on that when it keeps the index there
		     across the call: go on through the delay slot (which
		     a branch-likely call may annul) to the call.  */
		  if (!(REGS_CALLEE_SAVED & REG_BIT (p.reg))
		      || (before->flags & INSN_F_LIKELY))
		    return 0;
		}
	      else if (before->kind != INSN_BRANCH)
		return 0;
	      if (!(before->flags & INSN_F_LIKELY))
		{
		  r = bound_step (f, prev, &p);
		  if (r < 0)
		    return 0;
		  if (r > 0)
		    {
		      bound = bound > r ? bound : (uint32_t) r;
		      break;
		    }
		}
	      p.at = before->addr + 4;
	      p.edge = EDGE_FALL;
	      continue;
	    }
	  r = bound_step (f, prev, &p);
	  if (r < 0)
	    return 0;
	  if (r > 0)
	    {
	      bound = bound > r ? bound : (uint32_t) r;
	      break;
	    }
	  p.at -= 4;
	}
    }
  return bound;
}

/* The target of table word WORD.  */

static uint32_t
table_target (const struct reloc_table *table, const struct jump_table *t,
	      uint32_t word)
{
  return t->kind == TABLE_GPREL ? reloc_table_gp_at (table, t->add) + word
	 : t->kind == TABLE_LABEL ? t->label + word : word;
}

/* True if the value that DEF puts in REG reaches the instruction at ADD,
   directly or through stack spills (DEPTH levels at most).  */

static bool
value_reaches (struct finder *f, const struct insn *def, unsigned reg,
	       uint32_t add, int depth)
{
  bool ok = true, found = false;
  size_t n;
  const struct insn **use = readers (f, def, reg, &n, &ok);

  for (size_t i = 0; !found && i < n; i++)
    {
      const struct insn *u = use[i];
      if (u->addr == add)
	found = true;
      else if (depth > 0 && u->op == OP_SW && u->rs == REG_SP && u->rt == reg
	       && regflow_follow_slot (f->rf, u) && f->rf->n_uses > 0)
	{
	  size_t m = f->rf->n_uses;
	  const struct insn **reloads = malloc (m * sizeof *reloads);
	  if (reloads == NULL)
	    break;
	  memcpy (reloads, f->rf->uses, m * sizeof *reloads);
	  for (size_t k = 0; !found && k < m; k++)
	    if (reloads[k]->rt != REG_ZERO)
	      found = value_reaches (f, reloads[k], reloads[k]->rt, add,
				     depth - 1);
	  free (reloads);
	}
    }
  free (use);
  return found;
}

/* The label of T when the GOT references of the function [LO, HI) that
   write T's label register all compute the same code address: compiled
   code keeps the base label of its computed gotos in one register, set
   once, and reaches its uses through the computed gotos themselves,
   whose targets a walk does not know.  0 if there is no such reference
   or they disagree.  */

static uint32_t
only_writer_label (struct finder *f, const struct jump_table *t, uint32_t lo,
		   uint32_t hi)
{
  uint32_t label = 0;

  for (size_t k = 0; k < f->table->n_entries; k++)
    {
      const struct reloc_entry *e = &f->table->entries[k];
      const struct insn *p;
      if (e->type != RELOC_GOT_REF || e->aux < lo || e->aux >= hi)
	continue;
      p = code_insn_at (f->code, e->aux);
      if (p == NULL || p->rt != t->label_reg)
	continue;
      if (label != 0 && label != e->target)
	return 0;
      label = e->target;
    }
  return label;
}

/* The code label that register T->label_reg holds at T's addu: the
   target of a GOT reference of the same function whose value reaches
   the addu in that register.  0 if there is none, or several different
   ones.  */

static uint32_t
find_label (struct finder *f, const struct jump_table *t)
{
  uint32_t lo, hi, label = 0;

  function_bounds (f, t->add, &lo, &hi);
  for (size_t k = 0; k < f->table->n_entries; k++)
    {
      const struct reloc_entry *e = &f->table->entries[k];
      const struct insn *addiu;
      if (e->type != RELOC_GOT_REF || e->aux < lo || e->aux >= hi
	  || e->target == label)
	continue;
      addiu = code_insn_at (f->code, e->aux);
      if (addiu == NULL || !value_reaches (f, addiu, addiu->rt, t->add, 2))
	continue;
      if (label != 0)
	return 0;
      label = e->target;
    }
  if (label == 0)
    label = only_writer_label (f, t, lo, hi);
  return label;
}

/* Enter every element of each table found.  The number of elements is
   the bound of the switch's range check when one is found and all its
   elements are code addresses; else the run of elements that lead into
   the function of the jr, up to the next table: RELOC_F_CLOSED when the
   run ends at a word that leads into no code, the next table or the end
   of the data, RELOC_F_UNPROVEN when at a code address elsewhere.  */

bool
emit_tables (struct finder *f)
{
  const struct mips_object *obj = f->obj;
  bool ok = true;

  for (size_t i = 0; ok && i < f->n_tables; i++)
    {
      struct jump_table *t = &f->tables[i];
      uint32_t lo = 0, hi = UINT32_MAX, limit = UINT32_MAX;

      if (t->kind == TABLE_LABEL)
	{
	  t->label = find_label (f, t);
	  if (t->label == 0)
	    continue;
	}
      uint32_t count = 0, bound, all_code = 0;
      bool proven, closed = true;

      function_bounds (f, t->jr, &lo, &hi);
      for (size_t k = 0; k < f->n_tables; k++)
	if (f->tables[k].base > t->base && f->tables[k].base < limit)
	  limit = f->tables[k].base;

      for (uint32_t a = t->base; a < limit; a += 4)
	{
	  uint32_t word, target;
	  if (!object_read_word (obj, a, &word))
	    break;
	  target = table_target (f->table, t, word);
	  if ((target & 3) || !object_is_code (obj, target))
	    break;
	  if (target < lo || target >= hi)
	    {
	      closed = false;
	      break;
	    }
	  count++;
	}
      /* A proven bound extends the scan, never shortens it: the words
	 after a bounded table that still look like its entries are
	 entries of a table that shares its jump, or of the next.  The
	 index may reach further than the table (a mask of 7 bits over
	 83 cases) as long as no word it reaches there holds a code
	 address: the program would not go there either.  */
      bound = prove_bound (f, t);
      proven = bound != 0;
      for (uint32_t k = 0; proven && k < bound; k++)
	{
	  uint32_t word;
	  bool code = object_read_word (obj, t->base + 4 * k, &word)
		      && object_is_code (obj, table_target (f->table, t, word));
	  if (code && all_code == k)
	    all_code++;
	  else if (code)
	    proven = false;
	}
      if (proven && all_code > count)
	count = all_code;

      for (uint32_t k = 0; ok && k < count; k++)
	{
	  struct reloc_entry e = { 0 };
	  uint32_t word;
	  object_read_word (obj, t->base + 4 * k, &word);
	  e.type = RELOC_JUMP_TABLE;
	  e.via = t->kind == TABLE_GPREL ? VIA_GPREL
		  : t->kind == TABLE_LABEL ? VIA_LABEL : VIA_ABS;
	  e.base = t->kind == TABLE_GPREL ? reloc_table_gp_at (f->table, t->add)
		   : t->label;
	  e.addr = t->base + 4 * k;
	  e.target = table_target (f->table, t, word);
	  e.aux = t->base;
	  e.aux2 = t->jr;
	  e.info = count;
	  e.index = t->kind == TABLE_GPREL ? t->add : 0;
	  e.flags = proven ? 0 : closed ? RELOC_F_CLOSED : RELOC_F_UNPROVEN;
	  ok = reloc_table_add (f->table, &e);
	}
    }
  return ok;
}
