/* emit.c -- plan, lay out and write the profiled copy of the code.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   Every block that derive.c says needs a counter gets one 64-bit
   counter increment, made with ll/sc so that threads never lose a
   count:

   retry: ll    r2,lo(r1)
	  addiu r2,r2,1
	  beqz  r2,carry	the low word wraps: leave the pair
	   nop
	  sc    r2,lo(r1)
	  bnez  r2,done
	   nop
	  b     retry		another thread got there first
	   nop
   carry: sc    r2,lo(r1)	store the zero...
	  beqz  r2,retry
	   nop
   high:  ll ... sc on lo+4(r1)	...and carry into the high word
   done:

   r1 is the counter's 64 KiB chunk.  Position-independent code finds
   it in a new local GOT entry through gp (`lw r1,chunk(gp)'), so the
   increment goes at the first point of the block where gp is known to
   hold this object's gp: after the prologue of a function, after gp is
   reloaded following a call.  A block with no such point (a leaf
   function that never sets gp, a lazy-binding stub) finds the counter
   relative to its own address with `bal'.  Fixed-address executables
   use the counter's absolute address.  The scratch registers are ones
   that liveness proves dead at that point; what is missing is saved
   below a lowered sp, which is safe against signals.  */

#include <config.h>

#include <elf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "estimate.h"
#include "regflow.h"
#include "returns.h"
#include "scope.h"

#define OP_REGIMM	0x01
#define OP_J		0x02
#define OP_JAL		0x03
#define OP_BEQ		0x04
#define OP_BNE		0x05
#define OP_BEQL		0x14
#define OP_BNEL		0x15
#define OP_BGTZ		0x07
#define OP_ADDIU	0x09
#define OP_ORI		0x0d
#define OP_LUI		0x0f
#define OP_LW		0x23
#define OP_SW		0x2b
#define OP_LL		0x30
#define OP_SC		0x38
#define REGIMM_BGEZAL	0x11
#define FUNCT_SRL	0x02
#define FUNCT_SYSCALL	0x0c
#define FUNCT_MFLO	0x12
#define FUNCT_MULTU	0x19
#define FUNCT_ADDU	0x21
#define FUNCT_SUBU	0x23
#define FUNCT_OR	0x25
#define FUNCT_SLTU	0x2b

/* System call numbers of o32 MIPS Linux (asm/unistd.h: 4000 + N).  */
#define SYS_FORK	4002
#define SYS_EXECVE	4011
#define SYS_CLONE	4120
#define SYS_EXIT_GROUP	4246
#define SYS_EXECVEAT	4356
#define SYS_CLONE3	4435

/* Words of put_syscall_hook.  */
#define SYSHOOK_WORDS	15

/* table_jumps: a jump through switch tables that are all known, or
   through one of gp-relative words whose size no check proves.  */
#define TABLE_JR_PROVEN	1
#define TABLE_JR_GPREL	2

#define ADDU_GP_GP_T9	0x0399e021u
#define ADDU_GP_GP_RA	0x039fe021u

/* How far (bytes of original code) a branch whose edges get counters
   may go: the jump back from the taken edge's increment must reach its
   target in the new text.  */
#define EDGE_REACH	2048

/* Words of the increment itself, without the way to r1, and the
   registers it needs, r1 included.  */
#define LLSC_WORDS	6
/* Words of a --counter-update=single increment: lw, addiu, the carry
   test and the store in its delay slot.  */
#define SINGLE_WORDS	4
#define LLSC_REGS	2

/* Words of the out-of-line carry path of one increment, and how far
   (bytes of new text) the first increment waiting for its carry path
   may lie behind before an island of them is written even where
   control falls through (a conditional branch reaches 128 KiB).  */
#define CARRY_WORDS	10
#define ISLAND_REACH	0x10000

#define R(r)		((uint64_t) 1 << (r))

/* Scratch registers in order of preference: never zero, k0, k1, gp or
   sp; ra last.  */
static const uint8_t scratch_order[] = {
  1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 4, 5, 6, 7,
  16, 17, 18, 19, 20, 21, 22, 23, 30, 31
};

/* Encoders.  */

static uint32_t
itype (unsigned op, unsigned rs, unsigned rt, uint32_t imm)
{
  return (op << 26) | (rs << 21) | (rt << 16) | (imm & 0xffff);
}

/* Encode the R-type instruction FUNCT with RS, RT, RD and shift SA.  */

static uint32_t
rtype (unsigned funct, unsigned rs, unsigned rt, unsigned rd, unsigned sa)
{
  return (rs << 21) | (rt << 16) | (rd << 11) | (sa << 6) | funct;
}

static uint32_t
addu (unsigned rd, unsigned rs, unsigned rt)
{
  return (rs << 21) | (rt << 16) | (rd << 11) | FUNCT_ADDU;
}

/* Split the 32-bit displacement D into HI and LO for `lui; lo(...)'
   (LO sign-extended: HI << 16 + LO == D).  */

static void
split_hi_lo (uint32_t d, uint32_t *hi, int32_t *lo)
{
  uint32_t h = (d + 0x8000) >> 16;
  int32_t l = (int32_t) (d - (h << 16));

  *hi = h & 0xffff;
  *lo = l;
}


uint32_t
emit_map (const struct emitter *e, uint32_t old)
{
  long w = emit_word_index (e, old);

  return w < 0 ? old : e->map[w];
}

static int
popcount64 (uint64_t v)
{
  int n = 0;
  for (; v != 0; v &= v - 1)
    n++;
  return n;
}

/* The gp state.  A block starts with gp valid when every path into it
   leaves gp valid; a block that code outside its function can enter
   (a function entry, a code address held in data or in the GOT) starts
   with gp unknown.  Inside a block, `addu gp,gp,t9|ra' (the prologue)
   and `lw gp,off(sp)' (the reload after a call) make gp valid, any other
   write of gp and every call make it unknown.  */

static bool
gp_step (bool valid, const struct insn *insn)
{
  if (!(insn->writes & R (REG_GP)))
    return valid;
  if (insn->word == ADDU_GP_GP_T9 || insn->word == ADDU_GP_GP_RA)
    return true;
  return insn->op == OP_LW && insn->rs == REG_SP;
}

static bool
is_call (const struct insn *insn)
{
  return (insn->kind == INSN_CALL && insn->target != insn->addr + 8)
	 || insn->kind == INSN_ICALL;
}

/* Run a register state of block B from IN through its words with STEP,
   recording the state before each word in RECORD (per code word) when
   it is not NULL; return the state at its end (unknown after a
   call).  */

static inline __attribute__ ((always_inline)) bool
state_block (struct emitter *e, const struct block *b, bool in,
	     bool (*step) (bool, const struct insn *), uint8_t *record)
{
  const struct code *code = &e->a->code;
  bool valid = in;
  bool called = false;

  for (uint32_t a = b->start; a < b->end; a += 4)
    {
      const struct insn *insn = code_insn_at (code, a);
      if (record != NULL)
	record[emit_word_index (e, a)] = valid;
      if (insn == NULL)
	continue;
      valid = step (valid, insn);
      if (is_call (insn))
	called = true;
    }
  return valid && !called;
}

/* The gp state of block B: see state_block.  */

static bool
gp_block (struct emitter *e, const struct block *b, bool in, bool record)
{
  return state_block (e, b, in, gp_step, record ? e->gp_valid : NULL);
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
      from_invalid = gp_step (from_invalid, insn);
      from_valid = gp_step (from_valid, insn);
      called |= is_call (insn);
    }
  return called ? 0 : (from_invalid ? 1 : 0) | (from_valid ? 2 : 0);
}

/* Mark in ENTRY every block of A that code outside its function may
   enter.  */

static void
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

/* True if block B ends in a call to a function that never returns
   (RETURNS as find_returning sets it): a direct call, or jalr t9 with
   t9 loaded from the GOT in the block itself.  */

static uint32_t t9_const_step (const struct emitter *e, uint32_t value,
			       const struct insn *insn);
static uint32_t gotref_before_words (const struct emitter *e, long w);
static unsigned dead_reg (uint64_t dead);

static bool
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

static bool
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

/* The index of the GOT slot of OBJ that INSN, a `lw x,off(gp)', loads,
   or -1.  */

static long
got_slot (const struct mips_object *obj, const struct insn *insn)
{
  uint32_t slot = obj->gp + (uint32_t) insn->imm;

  if (insn->op != OP_LW || insn->rs != REG_GP || slot < obj->got_addr
      || slot >= obj->got_addr + obj->got_size)
    return -1;
  return (long) ((slot - obj->got_addr) / 4);
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

static const struct object_symbol *
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

static bool
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
      || (sym = slot_symbol (obj, dyn, n, got_slot (obj, load))) == NULL
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

static unsigned char *
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
      if (calls_noreturn (e, e->returns, b)
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

static bool
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

static void
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
  if (*n_in == *max)
    {
      size_t n = *max ? 2 * *max : 1024;
      struct cfg_entrant *p = realloc (*in, n * sizeof *p);
      if (p == NULL)
	return false;
      *in = p;
      *max = n;
    }
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

/* A malloc'd array of the code address that each GOT slot of A holds,
   or 0: the local slots that the relocation table names, the global
   slots of symbols defined in the object.  NULL when out of memory.  */

static uint32_t *
got_entries (const struct analysis *a)
{
  const struct mips_object *obj = &a->obj;
  uint32_t n_got = obj->got_size / 4, n_local = obj->dyn.local_gotno;
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

static const struct function *
got_function (const struct cfg *cfg, const uint32_t *entry, long k)
{
  const struct function *fn;

  if (k < 0 || entry[k] == 0)
    return NULL;
  fn = cfg_function_at (cfg, entry[k]);
  return fn != NULL && fn->entry == entry[k] ? fn : NULL;
}

/* The state of find_narrowable.  */
struct narrowing
{
  const struct analysis *a;
  unsigned char *narrow;	/* Per function.  */
  unsigned char *escaped;	/* Per function: its entry may be reached
				   some way other than by the entrants IN
				   (a pointer, a symbol, a table).  */
  unsigned char *inexact;	/* Per function: an entrant of IN calls
				   through a t9 that another way into its
				   block could set to something else.  */
  signed char *dirty;		/* Per function: t9_dirty, -1 unknown.  */
  struct cfg_entrant *in;
  size_t n_in, max;
  struct regflow rf;		/* For only_called_through.  */
  const uint32_t *got_entry;	/* got_entries.  */
};

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

static bool
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
	  fn = got_function (cfg, n->got_entry, got_slot (obj, x));
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

/* Functions of the C and math libraries that return, whatever their
   arguments (or fault, like any load), and run no code of the program:
   a call of one surely comes back (returns.c).  Sorted.  */
static const char *const returning_imports[] = {
  "__ctype_b_loc", "__ctype_tolower_loc", "__ctype_toupper_loc",
  "__errno_location", "abs", "acos", "asin", "atan", "atan2", "bcmp",
  "ceil", "cos", "cosh", "exp", "fabs", "floor", "fmod",
  "frexp", "labs", "ldexp", "llabs", "log", "log10", "memchr",
  "memcmp", "memcpy", "memmove", "mempcpy", "memrchr", "memset", "modf",
  "pow", "rawmemchr", "sin", "sinh", "sqrt", "stpcpy", "strcat",
  "strchr", "strchrnul", "strcmp", "strcpy", "strcspn", "strlen", "strncat",
  "strncmp", "strncpy", "strnlen", "strpbrk", "strrchr", "strspn",
  "strstr", "tan", "tanh", "tolower", "toupper"
};

/* The allocator, which returns too, but may wait for a lock that a
   thread holds over a system call: that thread would then sit in a call
   that should come back when the profile is written.  Taken as
   returning_imports where no other thread runs (single increments).
   Sorted.  */
static const char *const one_thread_imports[] = {
  "calloc", "free", "malloc", "realloc"
};

static int
compare_string (const void *key, const void *elt)
{
  return strcmp (key, *(const char *const *) elt);
}

static int
compare_aux (const void *pa, const void *pb)
{
  const struct reloc_entry *a = *(const struct reloc_entry *const *) pa;
  const struct reloc_entry *b = *(const struct reloc_entry *const *) pb;

  return a->aux < b->aux ? -1 : a->aux > b->aux;
}

/* What find_returning_calls knows of an object.  */
struct callee_finder
{
  const struct analysis *a;
  const uint32_t *got_entry;	/* got_entries.  */
  const struct object_symbol **dyn; /* Dynamic symbols by index.  */
  size_t n_dyn;
  const struct reloc_entry **got_refs; /* RELOC_GOT_REF, by addiu.  */
  size_t n_got_refs;
  unsigned char *entered;	/* Per block: control may come in other than
				   by a branch or a fall of this object.  */
  uint32_t *pred_first, *pred;	/* Predecessors by branch or fall.  */
  const struct symbol_scope *scope;
  size_t self;
  bool local;			/* Nothing may interpose A's symbols.  */
  bool one_thread;		/* No other thread runs.  */
};

/* The value t9 holds after the words of block B of F->a before STOP
   (the last that writes it): a GOT slot's word, 1 + K; a function entry
   that an addiu of a GOT page reference adds, (1 << 32) | address; else
   0 (and *NONE true when nothing there writes t9).  */

static uint64_t
t9_written (const struct callee_finder *f, const struct block *b,
	    uint32_t stop, bool *none)
{
  const struct code *code = &f->a->code;
  const struct insn *w = NULL;
  long k;

  *none = false;
  for (uint32_t at = b->start; at < stop; at += 4)
    {
      const struct insn *x = code_insn_at (code, at);
      if (x == NULL)
	return 0;
      if (x->writes & R (REG_T9))
	w = x;
    }
  if (w == NULL)
    {
      *none = true;
      return 0;
    }
  if ((k = got_slot (&f->a->obj, w)) >= 0 && w->rt == REG_T9)
    return 1 + (uint64_t) k;
  if (w->op == OP_ADDIU && w->rs == REG_T9 && f->n_got_refs > 0)
    {
      struct reloc_entry key, *pkey = &key;
      const struct reloc_entry **hit;
      key.aux = w->addr;
      hit = bsearch (&pkey, f->got_refs, f->n_got_refs, sizeof *f->got_refs,
		     compare_aux);
      if (hit != NULL)
	return ((uint64_t) 1 << 32) | (*hit)->target;
    }
  return 0;
}

/* The value (t9_written) that t9 holds at the jalr t9 CTL that ends
   block I of F->a: written in the block, or else by every block that
   branches or falls into it, the same in all.  0 when not known.  */

static uint64_t
t9_at_call (const struct callee_finder *f, size_t i, const struct insn *ctl)
{
  const struct cfg *cfg = &f->a->cfg;
  const struct block *b = &cfg->blocks[i];
  uint64_t v, same = 0;
  bool none;

  v = t9_written (f, b, ctl->addr, &none);
  if (!none)
    return v;
  if (f->entered[i] || f->pred_first[i] == f->pred_first[i + 1])
    return 0;
  for (uint32_t q = f->pred_first[i]; q < f->pred_first[i + 1]; q++)
    {
      const struct block *p = &cfg->blocks[f->pred[q]];
      const struct insn *slot;
      const struct insn *pc = cfg_block_control (&f->a->code, p, &slot);
      uint32_t stop = p->end;

      /* Entered at its slot, it may bring another t9.  */
      if (p->flags & BLOCK_F_SLOT_ENTRY)
	return 0;
      /* A branch-likely's slot runs only when the branch is taken.  */
      if (pc != NULL && (pc->flags & INSN_F_LIKELY) && p->end == b->start)
	{
	  if (pc->target == b->start)
	    return 0;
	  stop = pc->addr + 4;
	}
      v = t9_written (f, p, stop, &none);
      if (v == 0 || (same != 0 && v != same))
	return 0;
      same = v;
    }
  return same;
}

/* The callee (returns.h) of a call to VALUE (t9_written), or to the
   address VALUE when DIRECT.  */

static uint32_t
callee_of (const struct callee_finder *f, uint64_t value, bool direct)
{
  const struct mips_object *obj = &f->a->obj;
  const struct object_symbol *sym = NULL;
  const struct function *fn;
  uint32_t target;
  long definer;

  if (direct || (value >> 32) != 0)
    target = (uint32_t) value;
  else if (value == 0)
    return 0;
  else if (value - 1 < obj->dyn.local_gotno)
    target = f->got_entry[value - 1];
  else
    {
      sym = slot_symbol (obj, f->dyn, f->n_dyn, (long) (value - 1));
      if (sym == NULL)
	return 0;
      if (sym->shndx == SHN_UNDEF)
	{
	  if (strcmp (sym->name, "__stack_chk_fail") == 0)
	    return CALLEE_GUARD;
	  if (bsearch (sym->name, returning_imports,
		       sizeof returning_imports / sizeof returning_imports[0],
		       sizeof returning_imports[0], compare_string) == NULL
	      && (!f->one_thread
		  || bsearch (sym->name, one_thread_imports,
			      sizeof one_thread_imports
			      / sizeof one_thread_imports[0],
			      sizeof one_thread_imports[0],
			      compare_string) == NULL))
	    return 0;
	  if (f->scope != NULL
	      && ((definer = scope_definer (f->scope, sym->name)) < 0
		  || !f->scope->c_library[definer]))
	    return 0;
	  return CALLEE_RETURNS;
	}
      /* A symbol of ours that another object may define first.  */
      if (!f->local && ELF32_ST_VISIBILITY (sym->other) != STV_PROTECTED
	  && (f->scope == NULL
	      || scope_definer (f->scope, sym->name) != (long) f->self))
	return 0;
      target = sym->value;
    }
  fn = target != 0 ? cfg_function_at (&f->a->cfg, target) : NULL;
  if (fn == NULL || fn->entry != target)
    return 0;
  return 1 + (uint32_t) (fn - f->a->cfg.funcs);
}

/* Fill F's ENTERED and predecessor lists.  False when out of memory.  */

static bool
find_predecessors (struct callee_finder *f)
{
  const struct analysis *a = f->a;
  const struct cfg *cfg = &a->cfg;
  size_t n = cfg->n_blocks;
  uint32_t *next;

  f->entered = calloc (n + 1, 1);
  f->pred_first = calloc (n + 2, sizeof *f->pred_first);
  f->pred = malloc ((2 * n + 1) * sizeof *f->pred);
  next = malloc ((n + 1) * sizeof *next);
  if (f->entered == NULL || f->pred_first == NULL || f->pred == NULL
      || next == NULL)
    {
      free (next);
      return false;
    }
  for (size_t i = 0; i < n; i++)
    {
      const struct block *b = &cfg->blocks[i];
      long k = i > 0 ? (long) i - 1 : -1;
      if ((k >= 0 && (cfg->blocks[k].flags & BLOCK_F_CALL))
	  || (b->flags & BLOCK_F_SLOT_ENTRY)
	  || cfg->funcs[b->func].entry == b->start)
	f->entered[i] = 1;
      if (b->flags & (BLOCK_F_CALL | BLOCK_F_INDIRECT | BLOCK_F_RETURN))
	continue;
      for (uint32_t s = 0; s < b->n_succ && s < 2; s++)
	f->pred_first[b->succ[s] + 1]++;
    }
  for (size_t i = 0; i < a->relocs.n_entries; i++)
    {
      long k = cfg_block_starting (cfg, a->relocs.entries[i].target);
      if (k >= 0)
	f->entered[k] = 1;
    }
  for (size_t i = 0; i < a->obj.n_symbols; i++)
    {
      long k = cfg_block_starting (cfg, a->obj.symbols[i].value);
      if (k >= 0)
	f->entered[k] = 1;
    }
  for (size_t i = 0; i < a->n_landing_pads; i++)
    {
      long k = cfg_block_starting (cfg, a->landing_pads[i]);
      if (k >= 0)
	f->entered[k] = 1;
    }
  for (size_t i = 0; i < n; i++)
    f->pred_first[i + 1] += f->pred_first[i];
  memcpy (next, f->pred_first, n * sizeof *next);
  for (size_t i = 0; i < n; i++)
    {
      const struct block *b = &cfg->blocks[i];
      if (b->flags & (BLOCK_F_CALL | BLOCK_F_INDIRECT | BLOCK_F_RETURN))
	continue;
      for (uint32_t s = 0; s < b->n_succ && s < 2; s++)
	f->pred[next[b->succ[s]]++] = (uint32_t) i;
    }
  free (next);
  return true;
}

/* Set SITES->returning: the calls of A that surely come back
   (returns.c).  A call's callee is known when it is a direct call, or a
   jalr t9 whose t9 is a GOT slot's or a GOT page reference's on every
   way in (t9_at_call).  Another object may interpose the callee unless
   A is a program or binds its own symbols first (DF_SYMBOLIC), or the
   callee is protected, or SCOPE (NULL for a shared object alone) says
   that A, its SELF-th object, is the first definer of the callee's
   name.  ONE_THREAD: no other thread runs (one_thread_imports).
   GOT_ENTRY is got_entries (A).  False when out of memory.  */

static bool
find_returning_calls (const struct analysis *a, const uint32_t *got_entry,
		      struct call_sites *sites,
		      const struct symbol_scope *scope, size_t self,
		      bool one_thread)
{
  const struct cfg *cfg = &a->cfg;
  const struct mips_object *obj = &a->obj;
  struct callee_finder f;
  uint32_t *callee = calloc (cfg->n_blocks + 1, sizeof *callee);
  bool ok;

  memset (&f, 0, sizeof f);
  f.a = a;
  f.got_entry = got_entry;
  f.scope = scope;
  f.self = self;
  f.one_thread = one_thread;
  f.local = obj->e_type == ET_EXEC || obj->pie
	    || (obj->dyn.flags & DF_SYMBOLIC);
  f.dyn = object_dynsyms_by_index (obj, &f.n_dyn);
  f.got_refs = malloc ((a->relocs.n_by_type[RELOC_GOT_REF] + 1)
		       * sizeof *f.got_refs);
  ok = callee != NULL && f.dyn != NULL && f.got_refs != NULL
       && find_predecessors (&f);
  if (ok)
    {
      for (size_t i = 0; i < a->relocs.n_entries; i++)
	if (a->relocs.entries[i].type == RELOC_GOT_REF
	    && f.n_got_refs < a->relocs.n_by_type[RELOC_GOT_REF])
	  f.got_refs[f.n_got_refs++] = &a->relocs.entries[i];
      qsort (f.got_refs, f.n_got_refs, sizeof *f.got_refs, compare_aux);
      for (size_t i = 0; i < cfg->n_blocks; i++)
	{
	  const struct block *b = &cfg->blocks[i];
	  const struct insn *slot;
	  const struct insn *ctl = cfg_block_control (&a->code, b, &slot);

	  if (!(b->flags & BLOCK_F_CALL) || ctl == NULL)
	    continue;
	  if (ctl->kind == INSN_CALL)
	    callee[i] = callee_of (&f, ctl->target, true);
	  else if (ctl->kind == INSN_ICALL && ctl->rs == REG_T9)
	    callee[i] = callee_of (&f, t9_at_call (&f, i, ctl), false);
	}
      sites->returning = returning_calls (a, callee);
      ok = sites->returning != NULL;
    }
  free (callee);
  free (f.dyn);
  free (f.got_refs);
  free (f.entered);
  free (f.pred_first);
  free (f.pred);
  return ok;
}

/* Set INTO (per block of A, zeroed) for the calls into the functions
   that N found only their entrants enter: 1 + the index of the entry
   block of the function that block's unconditional call (or jump
   through t9) enters.  A function with a conditional call among its
   entrants, or one entered at a delay slot, is left out.  */

static void
closed_calls (const struct narrowing *n, uint32_t *into)
{
  const struct cfg *cfg = &n->a->cfg;
  const struct code *code = &n->a->code;
  size_t nf = cfg->n_funcs;
  unsigned char *closed = malloc (nf + 1);

  if (closed == NULL)
    return;
  for (size_t f = 0; f < nf; f++)
    closed[f] = n->narrow[f] && !n->escaped[f] && !n->inexact[f];
  /* No entrant at all: nothing we see enters it.  */
  {
    unsigned char *seen = calloc (nf + 1, 1);
    if (seen == NULL)
      {
	free (closed);
	return;
      }
    for (size_t k = 0; k < n->n_in; k++)
      seen[n->in[k].func] = 1;
    for (size_t f = 0; f < nf; f++)
      closed[f] &= seen[f];
    free (seen);
  }
  for (size_t k = 0; k < n->n_in; k++)
    {
      const struct block *b = &cfg->blocks[n->in[k].block];
      const struct insn *slot;
      const struct insn *ctl = cfg_block_control (code, b, &slot);

      if (ctl == NULL || slot == NULL || (b->flags & BLOCK_F_SLOT_ENTRY)
	  || (ctl->flags & INSN_F_COND))
	closed[n->in[k].func] = 0;
    }
  for (size_t k = 0; k < n->n_in; k++)
    {
      const struct block *b = &cfg->blocks[n->in[k].block];
      const struct insn *slot;
      const struct insn *ctl = cfg_block_control (code, b, &slot);
      const struct function *fn = &cfg->funcs[n->in[k].func];

      if (closed[n->in[k].func]
	  && (ctl->kind == INSN_CALL || ctl->kind == INSN_ICALL
	      || ctl->kind == INSN_IJUMP))
	into[n->in[k].block] = 1 + fn->first_block;
    }
  free (closed);
}

/* Give BLOCK_F_PADDING to the blocks of A that are alignment padding:
   nops that nothing reaches (no branch, jump, call, fall-through or
   switch table), which code outside their function may not enter
   either (mark_entries).  They fall into the function after them but
   never run, so they tell nothing of its registers.  TABLES, N_TABLES:
   the switch tables' edges (analysis_table_edges).  False when out of
   memory.  */

static bool
mark_padding (struct analysis *a, const struct cfg_edge *tables,
	      size_t n_tables)
{
  struct cfg *cfg = &a->cfg;
  const struct code *code = &a->code;
  unsigned char *pad = calloc (cfg->n_blocks + 1, 1);

  if (pad == NULL)
    return false;
  mark_entries (a, pad);
  for (size_t i = 0; i < cfg->n_blocks; i++)
    {
      const struct block *b = &cfg->blocks[i];
      pad[i] = !pad[i];
      for (uint32_t x = b->start; pad[i] && x < b->end; x += 4)
	{
	  const struct insn *insn = code_insn_at (code, x);
	  pad[i] = insn != NULL && insn->word == 0;
	}
    }
  for (size_t i = 0; i < cfg->n_blocks; i++)
    {
      const struct insn *slot;
      const struct insn *ctl = cfg_block_control (code, &cfg->blocks[i],
						  &slot);
      long j;
      for (uint32_t k = 0; k < cfg->blocks[i].n_succ; k++)
	pad[cfg->blocks[i].succ[k]] = 0;
      if (ctl != NULL && (ctl->kind == INSN_CALL || ctl->kind == INSN_JUMP
			  || ctl->kind == INSN_BRANCH)
	  && (j = cfg_block_starting (cfg, ctl->target)) >= 0)
	pad[j] = 0;
    }
  for (size_t k = 0; k < n_tables; k++)
    pad[tables[k].to] = 0;
  for (size_t i = 0; i < cfg->n_blocks; i++)
    if (pad[i])
      cfg->blocks[i].flags |= BLOCK_F_PADDING;
  free (pad);
  return true;
}

/* The tail calls of A into its own functions: from every block that
   ends in a jump through t9 (not a switch table's) whose value the
   block itself last set to a function entry, by a load of a GOT slot
   that holds it (GOT_ENTRY, see got_entries) or by the addiu of a GOT
   page reference to it, to that entry's block.  *TAILS is malloc'd
   (NULL when out of memory, false then).  */

static bool
find_tail_calls (const struct analysis *a, const uint32_t *got_entry,
		 struct cfg_edge **tails, size_t *n_tails)
{
  const struct cfg *cfg = &a->cfg;
  const struct code *code = &a->code;
  size_t n = 0, max = 64;

  *tails = malloc (max * sizeof **tails);
  if (*tails == NULL)
    return false;
  for (size_t i = 0; i < cfg->n_blocks; i++)
    {
      const struct block *b = &cfg->blocks[i];
      const struct insn *slot;
      const struct insn *ctl = cfg_block_control (code, b, &slot);
      const struct insn *w = NULL;
      const struct function *fn = NULL;
      long entry;

      if ((b->flags & (BLOCK_F_INDIRECT | BLOCK_F_INVALID))
	  != BLOCK_F_INDIRECT || ctl == NULL || slot == NULL
	  || ctl->kind != INSN_IJUMP || ctl->rs != REG_T9)
	continue;
      for (uint32_t at = ctl->addr; at > b->start && w == NULL; at -= 4)
	{
	  const struct insn *x = code_insn_at (code, at - 4);
	  if (x != NULL && (x->writes & R (REG_T9)))
	    w = x;
	}
      if (w == NULL)
	continue;
      if (w->rt == REG_T9)
	fn = got_function (cfg, got_entry, got_slot (&a->obj, w));
      if (w->op == OP_ADDIU && w->rs == REG_T9 && w->rt == REG_T9)
	for (size_t k = 0; k < a->relocs.n_entries && fn == NULL; k++)
	  if (a->relocs.entries[k].type == RELOC_GOT_REF
	      && a->relocs.entries[k].aux == w->addr)
	    {
	      fn = cfg_function_at (cfg, a->relocs.entries[k].target);
	      if (fn != NULL && fn->entry != a->relocs.entries[k].target)
		fn = NULL;
	    }
      if (fn == NULL || (entry = cfg_block_starting (cfg, fn->entry)) < 0)
	continue;
      if (n == max)
	{
	  struct cfg_edge *p = realloc (*tails, 2 * max * sizeof *p);
	  if (p == NULL)
	    {
	      free (*tails);
	      *tails = NULL;
	      return false;
	    }
	  *tails = p;
	  max *= 2;
	}
      (*tails)[n].from = (uint32_t) i;
      (*tails)[n++].to = (uint32_t) entry;
    }
  *n_tails = n;
  return true;
}

/* The liveness that emit_narrow_liveness leaves to a thread, with what
   it reads.  */
struct liveness_job
{
  struct analysis *a;
  unsigned char *narrow;
  struct cfg_entrant *in;
  size_t n_in;
  struct cfg_edge *tables, *tails;
  size_t n_tables, n_tails;
  /* Then the calls that surely come back (find_returning_calls), into
     SITES->returning: the thread has time to spare.  */
  uint32_t *got_entry;
  struct call_sites *sites;
  const struct symbol_scope *scope;
  size_t self;
  bool one_thread;
  pthread_t thread;
  bool threaded;
  bool ok;
};

static void *
run_liveness (void *arg)
{
  struct liveness_job *j = arg;

  j->ok = cfg_liveness_narrow (&j->a->code, &j->a->cfg, j->narrow, j->in,
			       j->n_in, j->tables, j->n_tables, j->tails,
			       j->n_tails)
	  && find_returning_calls (j->a, j->got_entry, j->sites, j->scope,
				   j->self, j->one_thread);
  return NULL;
}

static void
liveness_job_free (struct liveness_job *j)
{
  free (j->narrow);
  free (j->in);
  free (j->tables);
  free (j->tails);
  free (j->got_entry);
  free (j);
}

bool
emit_narrow_liveness (struct analysis *a, struct call_sites *sites,
		      const struct symbol_scope *scope, size_t self,
		      bool one_thread)
{
  struct narrowing n;
  struct liveness_job *job = calloc (1, sizeof *job);
  size_t n_blocks = a->cfg.n_blocks;
  uint32_t *got_entry;
  bool ok;

  memset (&n, 0, sizeof n);
  n.a = a;
  sites->liveness = NULL;
  sites->into = calloc (n_blocks + 1, sizeof *sites->into);
  sites->enters = calloc (n_blocks + 1, sizeof *sites->enters);
  n.narrow = calloc (a->cfg.n_funcs + 1, 1);
  n.escaped = calloc (a->cfg.n_funcs + 1, 1);
  n.inexact = calloc (a->cfg.n_funcs + 1, 1);
  n.dirty = malloc (a->cfg.n_funcs + 1);
  if (n.dirty != NULL)
    memset (n.dirty, -1, a->cfg.n_funcs + 1);
  n.got_entry = got_entry = got_entries (a);
  ok = regflow_init (&n.rf, &a->code);
  ok = ok && job != NULL && sites->into != NULL && sites->enters != NULL
       && n.narrow != NULL && n.escaped != NULL && n.inexact != NULL
       && n.dirty != NULL && got_entry != NULL
       && analysis_table_edges (a, &job->tables, &job->n_tables)
       && mark_padding (a, job->tables, job->n_tables) && find_narrowable (&n)
       && find_tail_calls (a, got_entry, &job->tails, &job->n_tails)
       && cfg_mark_jumps (&a->cfg, job->tables, job->n_tables, job->tails,
			  job->n_tails);
  if (ok)
    {
      /* What the calls enter needs no live sets: the caller may go on
	 while a thread computes them.  */
      closed_calls (&n, sites->into);
      for (size_t k = 0; k < n.n_in; k++)
	sites->enters[n.in[k].block] = 1 + n.in[k].func;
      job->a = a;
      job->got_entry = got_entry;
      job->sites = sites;
      job->scope = scope;
      job->self = self;
      job->one_thread = one_thread;
      got_entry = NULL;
      job->narrow = n.narrow;
      job->in = n.in;
      job->n_in = n.n_in;
      n.narrow = NULL;
      n.in = NULL;
      job->threaded = pthread_create (&job->thread, NULL, run_liveness,
				      job) == 0;
      if (!job->threaded)
	run_liveness (job);
      sites->liveness = job;
      job = NULL;
    }
  if (job != NULL)
    liveness_job_free (job);
  free (n.narrow);
  free (n.escaped);
  free (n.inexact);
  free (n.dirty);
  free (n.in);
  free (got_entry);
  regflow_free (&n.rf);
  return ok;
}

bool
call_sites_wait (struct call_sites *sites)
{
  struct liveness_job *j = sites->liveness;
  bool ok;

  if (j == NULL)
    return true;
  if (j->threaded)
    pthread_join (j->thread, NULL);
  ok = j->ok;
  liveness_job_free (j);
  sites->liveness = NULL;
  return ok;
}

void
call_sites_free (struct call_sites *sites)
{
  call_sites_wait (sites);
  free (sites->into);
  free (sites->enters);
  free (sites->returning);
  sites->into = sites->enters = NULL;
  sites->returning = NULL;
}

/* The gp state after the delay slot of the control instruction CTL of
   block B, entered with gp state IN.  */

static bool
gp_at_transfer (const struct emitter *e, const struct block *b, bool in,
		const struct insn *ctl)
{
  const struct code *code = &e->a->code;
  bool v = in;

  for (uint32_t x = b->start; x < b->end && x <= ctl->addr + 4; x += 4)
    {
      const struct insn *insn = code_insn_at (code, x);
      if (insn != NULL)
	v = gp_step (v, insn);
    }
  return v;
}

/* Lower IN (a register state per block) at the targets of every switch
   table whose jump runs with the state invalid, stepping with STEP from
   the start of the jump's block to the jump itself; with SAME_FUNC, a
   table entry in another function gets an invalid state.  Set DIRTY
   (when not NULL) for each block lowered.  Return whether anything
   changed.  */

static bool
jump_table_meet (const struct emitter *e, unsigned char *in,
		 bool (*step) (bool, const struct insn *), bool same_func,
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
	    v = step (v, insn);
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

/* Set GP_READ[i] when some path from the start of block i reads gp
   before writing it, within its function and before any call or
   return.  Compiled code that does so after a call trusts the call to
   leave gp alone (GCC reloads gp after every call that may clobber it
   and returns), so gp_dataflow may too.  */

static void
gp_read_ahead (const struct emitter *e, unsigned char *gp_read)
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
      bool decided = false;
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

static bool
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
  /* DIRTY: the block's state in, or the returns of the function it
     calls, fell since it was last looked at.  RET_FELL: the function's
     ret_ok fell in the last pass (RET_FELL), or in this one
     (+ n_funcs + 1).  */
  unsigned char *dirty = malloc (n + 1);
  unsigned char *ret_fell = calloc (2 * (cfg->n_funcs + 1), 1);
  unsigned char *fell_now = ret_fell + cfg->n_funcs + 1;
  bool changed = true;

  if (entry == NULL || internal == NULL || in == NULL || out == NULL
      || gp_read == NULL || ret_ok == NULL || calls == NULL
      || dirty == NULL || ret_fell == NULL)
    {
      free (dirty);
      free (ret_fell);
      free (entry);
      free (internal);
      free (gp_read);
      free (in);
      free (out);
      free (ret_ok);
      free (calls);
      *errmsg = strdup ("out of memory");
      return false;
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
  gp_read_ahead (e, gp_read);
  /* A block's gp transfer, for both states in: bit 0 from invalid,
     bit 1 from valid.  */
  for (size_t i = 0; i < n; i++)
    out[i] = gp_transfer (e, &cfg->blocks[i])
	     | (calls_noreturn (e, e->returns, &cfg->blocks[i]) ? 4 : 0);
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
  free (dirty);
  free (ret_fell);
  free (entry);
  free (internal);
  free (gp_read);
  free (in);
  free (out);
  free (ret_ok);
  free (calls);
  return true;
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
  if (insn->op == OP_SW && insn->rt == REG_GP && e->gp_valid[w]
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
	e->gp_saved[w] = (int16_t) st;
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

static bool
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

/* t9 after INSN, given whether it held the function's entry before.  */

static bool
t9_step (bool valid, const struct insn *insn)
{
  return valid && !(insn->writes & R (REG_T9));
}

/* The t9 state of block B: see state_block.  */

static bool
t9_block (struct emitter *e, const struct block *b, bool in, bool record)
{
  return state_block (e, b, in, t9_step, record ? e->t9_valid : NULL);
}

/* Mark in ENTRY_OK the function entry blocks where t9 holds the
   function's address on every way in.  The o32 PIC convention has every
   indirect call, and every call from another object, go through t9
   (jalr t9, lazy-binding stubs, the kernel's signal delivery); direct
   calls and jumps from other functions of this object must be seen to
   load t9 with the target, and no function may fall into another.
   The program's entry point and section starts are excluded.  */

static long got_load_slot (const struct emitter *e, const struct insn *insn);

/* The value t9 holds after INSN, which held VALUE before: an original
   code address that a GOT load or a got-ref put there, else 0.  */

static uint32_t
t9_const_step (const struct emitter *e, uint32_t value,
	       const struct insn *insn)
{
  long w, slot;
  uint32_t v;

  if (!(insn->writes & R (REG_T9)))
    return value;
  w = emit_word_index (e, insn->addr);
  if (e->gotref_slot[w] != 0 && e->gotref_slot[w] - 1 >= e->got.n_fixed)
    return e->got.target_of[e->gotref_slot[w] - 1 - e->got.n_fixed];
  slot = got_load_slot (e, insn);
  if (insn->rt == REG_T9 && slot >= 0
      && object_got_entry (&e->a->obj, (uint32_t) slot, &v))
    return v;
  return 0;
}

/* Fill T9[i] with the original code address that t9 holds on entry to
   block i whatever the way in, or 0: a forward dataflow within
   functions (1 marks "not reached yet").  */

static void
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

static bool
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

static void
mark_t9_entries (const struct emitter *e, unsigned char *entry_ok)
{
  const struct analysis *a = e->a;
  const struct cfg *cfg = &a->cfg;
  const struct code *code = &a->code;
  uint32_t *t9 = malloc ((cfg->n_blocks + 1) * sizeof *t9);

  if (t9 == NULL)
    return;
  t9_constants (e, t9);

  /* Code that calls through another register breaks the convention.  */
  for (size_t s = 0; s < code->n_sections; s++)
    for (size_t k = 0; k < code->sections[s].n_insns; k++)
      if (code->sections[s].insns[k].kind == INSN_ICALL
	  && code->sections[s].insns[k].rs != REG_T9)
	{
	  free (t9);
	  return;
	}

  for (size_t f = 0; f < cfg->n_funcs; f++)
    if (cfg->funcs[f].n_blocks > 0
	&& !(cfg->funcs[f].from & (FUNC_FROM_SECTION | FUNC_FROM_ENTRY)))
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
	if (insn->kind != INSN_CALL && insn->kind != INSN_BRANCH
	    && insn->kind != INSN_JUMP)
	  continue;
	to = cfg_block_at (cfg, insn->target);
	from = cfg_block_at (cfg, insn->addr);
	if (to == NULL || from == NULL || to->start != insn->target
	    || !entry_ok[to - cfg->blocks]
	    || (from->func == to->func && insn->kind != INSN_CALL))
	  continue;
	if (!t9_holds_at (e, t9, from, insn, insn->target))
	  entry_ok[to - cfg->blocks] = 0;
      }
  free (t9);
  for (size_t i = 1; i < cfg->n_blocks; i++)
    if (falls_into (code, &cfg->blocks[i - 1], &cfg->blocks[i]))
      entry_ok[i] = 0;
}

/* Compute t9_valid for every word of a position-independent object: a
   forward dataflow like gp_dataflow's, from the function entries where
   mark_t9_entries finds t9 set.  */

static bool
t9_dataflow (struct emitter *e, char **errmsg)
{
  const struct analysis *a = e->a;
  const struct cfg *cfg = &a->cfg;
  size_t n = cfg->n_blocks;
  unsigned char *entry = calloc (n + 1, 1);
  unsigned char *entry_ok = calloc (n + 1, 1);
  unsigned char *in = malloc (n + 1);
  unsigned char *t9_out = malloc (n + 1);
  bool changed = true;

  if (entry == NULL || entry_ok == NULL || in == NULL || t9_out == NULL)
    {
      free (entry);
      free (entry_ok);
      free (in);
      free (t9_out);
      *errmsg = strdup ("out of memory");
      return false;
    }
  if (e->fixed_address)
    memset (in, 0, n + 1);
  else
    {
      mark_entries (e->a, entry);
      mark_t9_entries (e, entry_ok);
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
	  if (b->flags & BLOCK_F_PADDING)
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
  free (entry);
  free (entry_ok);
  free (in);
  free (t9_out);
  return true;
}

/* Choose NEED scratch registers from the dead set DEAD (MUST: a
   register that has to be one of them, or 0), saving live ones.  */

static void
choose_regs (struct snippet *p, uint64_t dead, unsigned need,
	     unsigned must, uint64_t avoid)
{
  unsigned k = 0;

  dead &= ~avoid;
  p->n_spill = 0;
  if (must != 0)
    {
      p->regs[k++] = (uint8_t) must;
      if (!(dead & R (must)))
	p->spill[p->n_spill++] = (uint8_t) must;
      dead &= ~R (must);
    }
  for (size_t i = 0; k < need && i < sizeof scratch_order; i++)
    if (scratch_order[i] != must && (dead & R (scratch_order[i])))
      p->regs[k++] = scratch_order[i];
  for (size_t i = 0; k < need && i < sizeof scratch_order; i++)
    {
      unsigned r = scratch_order[i];
      bool used = r == must || (avoid & R (r));
      for (unsigned j = 0; j < k; j++)
	used |= p->regs[j] == r;
      if (!used && r != REG_RA)
	{
	  p->regs[k++] = (uint8_t) r;
	  p->spill[p->n_spill++] = (uint8_t) r;
	}
    }
}

/* Registers a snippet may use as scratch when dead.  */
#define SCRATCH_MASK							\
  (R (1) | R (2) | R (3) | R (4) | R (5) | R (6) | R (7) | R (8) | R (9)	\
   | R (10) | R (11) | R (12) | R (13) | R (14) | R (15) | R (16) | R (17) \
   | R (18) | R (19) | R (20) | R (21) | R (22) | R (23) | R (24) | R (25) \
   | R (30) | R (31))

/* True if the point before the word at AT of block B (or after B's
   last word, AT being B's end) lies inside an ll/sc sequence.  */

static bool
point_in_llsc (const struct emitter *e, const struct block *b, uint32_t at)
{
  const struct insn *last;

  if (at < b->end)
    return e->in_llsc[emit_word_index (e, at)];
  last = code_insn_at (&e->a->code, at - 4);
  return e->in_llsc[emit_word_index (e, at - 4)] && last != NULL
	 && last->op != OP_SC;
}

/* R (REG_T9) if t9 holds the function's entry at AT of a
   position-independent object: a counter later on may count through
   it, so no code added there may take t9 as scratch; else 0.  */

static uint64_t
keep_t9 (const struct emitter *e, uint32_t at)
{
  long w = emit_word_index (e, at);

  return !e->fixed_address && w >= 0 && e->t9_valid[w] ? R (REG_T9) : 0;
}

/* The registers that code added at AT may use as scratch, LIVE being
   the program's live registers there: the dead scratch registers, less
   t9 where keep_t9 keeps it.  */

static uint64_t
free_scratch (const struct emitter *e, uint64_t live, uint32_t at)
{
  return ~live & SCRATCH_MASK & ~keep_t9 (e, at);
}

/* Plan the increment of SNIPPET on the way into the block at TARGET,
   with gp valid or not (GP), with EXTRA more scratch registers than an
   increment's, none of them in AVOID.  */

static void
plan_edge_snippet (struct emitter *e, struct snippet *sn, uint32_t target,
		   bool gp, unsigned extra, uint64_t avoid)
{
  const struct block *t = cfg_block_at (&e->a->cfg, target);
  uint64_t dead = t != NULL ? free_scratch (e, t->live_in, target) : 0;
  unsigned need = LLSC_REGS + extra;

  dead &= ~avoid;
  if (e->fixed_address)
    {
      sn->kind = COUNT_ABS;
      choose_regs (sn, dead, need, 0, avoid);
    }
  else if (gp)
    {
      sn->kind = COUNT_GP;
      choose_regs (sn, dead, need, 0, avoid);
    }
  else if (keep_t9 (e, target) != 0 && (unsigned) popcount64 (dead) >= need)
    {
      sn->kind = COUNT_T9;
      choose_regs (sn, dead, need, 0, avoid | R (REG_T9));
    }
  else if (t != NULL && e->gp_saved[emit_word_index (e, t->start)] >= 0)
    {
      sn->kind = COUNT_SAVED_GP;
      sn->saved_gp = e->gp_saved[emit_word_index (e, t->start)];
      choose_regs (sn, dead, need, 0, avoid);
    }
  else
    {
      sn->kind = COUNT_PC;
      choose_regs (sn, dead, need + 1, REG_RA, avoid);
    }
}

/* Plan block B, all of whose points lie inside an ll/sc sequence, to be
   counted on its outgoing edges, which must leave the sequence.  */

static bool
plan_edges (struct emitter *e, const struct block *b, struct count_plan *p,
	    char **errmsg)
{
  const struct code *code = &e->a->code;
  const struct insn *slot;
  const struct insn *ctl = cfg_block_control (code, b, &slot);
  bool gp;

  if (ctl == NULL || slot == NULL || point_in_llsc (e, b, b->end)
      || (ctl->kind != INSN_BRANCH && ctl->kind != INSN_JUMP)
      || emit_word_index (e, ctl->target) < 0
      || e->in_llsc[emit_word_index (e, ctl->target)])
    {
      if (asprintf (errmsg, "0x%08x: a block inside an ll/sc sequence "
		    "cannot be counted", b->start) < 0)
	*errmsg = NULL;
      return false;
    }
  gp = gp_at_transfer (e, b, e->gp_valid[emit_word_index (e, b->start)],
		       ctl);
  p->edge = true;
  p->at = b->end;
  p->has_fall = ctl->kind == INSN_BRANCH;
  p->has_taken = true;
  if (p->has_fall)
    plan_edge_snippet (e, &p->s, b->end, gp, 0, 0);
  plan_edge_snippet (e, &p->taken, ctl->target, gp, 0, 0);
  return true;
}

/* True if the instruction INSN, a copy of which may run twice, gives
   the same result the second time: a plain integer operation or load
   that reads nothing it writes.  */

static bool
rerunnable (const struct insn *insn)
{
  static const uint8_t special[] = {
    0x00, 0x02, 0x03, 0x04, 0x06, 0x07,		/* shifts */
    0x10, 0x12,					/* mfhi, mflo */
    0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2a, 0x2b	/* addu ... sltu */
  };
  bool ok = false;

  if (insn->kind != INSN_OTHER || insn->freads != 0 || insn->fwrites != 0
      || (insn->reads & insn->writes) != 0 || (insn->flags & INSN_F_STORE))
    return false;
  switch (insn->op)
    {
    case 0x00:
      for (size_t i = 0; i < sizeof special; i++)
	ok |= (insn->word & 0x3f) == special[i];
      break;
    case 0x09: case 0x0a: case 0x0b: case 0x0c: case 0x0d: case 0x0e:
    case 0x0f:					/* addiu ... lui */
    case 0x20: case 0x21: case 0x23: case 0x24: case 0x25:	/* loads */
      ok = true;
      break;
    default:
      break;
    }
  return ok;
}

/* True if INSN may run in the delay slot of a branch-likely, once, in
   place of where it stands: an integer instruction that transfers no
   control and that neither traps on purpose, nor calls the system, nor
   takes part in an ll/sc sequence or a cache operation, nor is one the
   kernel may have to emulate (rdhwr, floating point without an FPU).  */

static bool
movable (const struct insn *insn)
{
  unsigned funct = insn->word & 0x3f;

  if (insn->kind != INSN_OTHER || insn->freads != 0 || insn->fwrites != 0
      || (insn->flags & INSN_F_TRAP))
    return false;
  switch (insn->op)
    {
    case 0x00:			/* SPECIAL, but for movf/movt, syscall,
				   break, sync and the traps */
      return funct != 0x01 && funct != 0x0c && funct != 0x0d
	     && funct != 0x0f && !(funct >= 0x30 && funct <= 0x36);
    case 0x09: case 0x0a: case 0x0b: case 0x0c: case 0x0d: case 0x0e:
    case 0x0f:			/* addiu ... lui */
    case 0x1c:			/* SPECIAL2: mul, madd, clz ..., not sdbbp */
      return funct != 0x3f;
    case 0x1f:			/* SPECIAL3: ext, ins, seb ..., not rdhwr,
				   which the kernel may emulate */
      return funct != 0x3b;
    case 0x20: case 0x21: case 0x22: case 0x23: case 0x24: case 0x25:
    case 0x26:			/* lb ... lwr */
    case 0x28: case 0x29: case 0x2a: case 0x2b: case 0x2e: /* stores */
      return true;
    default:
      return false;
    }
}

/* True if the instruction at AT of block B could go into the delay slot
   of the increment S planned just before it (see put_llsc): no register
   saved around it, an instruction that may run again after a failed
   store-conditional without harm (AGAIN: the slot of the retry branch)
   or that may run in the slot of a branch-likely (else), that writes
   neither the increment's registers nor sp, fp, gp or ra (nor, as a
   load, a callee-saved register: the unwind tables may restore it
   there), and that no probe goes in front of.  */

static bool
slot_fits (const struct emitter *e, const struct block *b, uint32_t at,
	   const struct snippet *s, bool again)
{
  const struct code *code = &e->a->code;
  const struct insn *slot;
  const struct insn *ctl = cfg_block_control (code, b, &slot);
  const struct insn *insn;
  uint64_t avoid = R (REG_SP) | R (REG_FP) | R (REG_GP) | R (REG_RA);
  long w;

  if (s->n_spill > 0 || at >= b->end || (ctl != NULL && at >= ctl->addr))
    return false;
  w = emit_word_index (e, at);
  insn = code_insn_at (code, at);
  if (w < 0 || insn == NULL || e->probe[w] != 0 || e->in_llsc[w]
      || (e->gotref_slot[w] != 0 && e->gotref_form[w] != GOTREF_GP)
      || gotref_before_words (e, w) != 0
      || !(again ? rerunnable (insn) : movable (insn)))
    return false;
  for (unsigned k = 0; k < 3; k++)
    avoid |= R (s->regs[k]);
  if (insn->flags & INSN_F_LOAD)
    avoid |= R (16) | R (17) | R (18) | R (19) | R (20) | R (21) | R (22)
	     | R (23);
  return (insn->writes & avoid) == 0;
}

/* slot_fits for the slot of the retry branch.  */

static bool
hoist_fits (const struct emitter *e, const struct block *b, uint32_t at,
	    const struct snippet *s)
{
  return slot_fits (e, b, at, s, true);
}

/* True if gp is valid at the point before the word at AT of block B
   (or after B's last word, AT being B's end).  */

static bool
gp_at_point (const struct emitter *e, const struct block *b, uint32_t at)
{
  const struct insn *last;

  if (at < b->end)
    return e->gp_valid[emit_word_index (e, at)];
  last = code_insn_at (&e->a->code, at - 4);
  return last != NULL
	 && gp_step (e->gp_valid[emit_word_index (e, at - 4)], last);
}

/* The last point of block B over CODE where a count may go: its
   control instruction (the count goes before it), its end when it has
   none, its start when the control's delay slot is not in it.  */

static uint32_t
scan_limit (const struct code *code, const struct block *b)
{
  const struct insn *slot;
  const struct insn *ctl = cfg_block_control (code, b, &slot);

  if (ctl == NULL)
    return b->end;
  return slot == NULL ? b->start : ctl->addr;
}

/* True if the count may not move past the instruction at AT of CODE:
   one that may not come back (a system call such as exit, a trap).  */

static bool
ends_count_scan (const struct code *code, uint32_t at)
{
  const struct insn *insn = code_insn_at (code, at);

  return insn == NULL || insn->kind == INSN_INVALID
	 || (insn->flags & INSN_F_TRAP)
	 || (insn->op == 0 && (insn->word & 0x3f) == FUNCT_SYSCALL);
}

/* DEAD without the registers the instruction at AT of block B writes
   (hoistable's condition), when that leaves NEED of them.  */

static uint64_t
spare_next (const struct emitter *e, const struct block *b, uint32_t at,
	    uint64_t dead, unsigned need)
{
  const struct insn *insn = at < b->end ? code_insn_at (&e->a->code, at)
			    : NULL;

  if (insn != NULL && popcount64 (dead & ~insn->writes) >= (int) need)
    dead &= ~insn->writes;
  return dead;
}

/* Plan the counter increment of block B.  */

static bool
plan_block (struct emitter *e, const struct block *b, struct count_plan *p,
	    char **errmsg)
{
  const struct code *code = &e->a->code;
  const struct cfg *cfg = &e->a->cfg;
  uint32_t limit = scan_limit (code, b);
  uint32_t first_gp = 0, first_t9 = 0, t9_free = 0;
  bool have_gp = false, have_t9 = false, have_t9_free = false;
  bool have_t9_fit = false;
  bool have_saved = false;	/* A point with gp saved in the frame and
				   enough free registers.  */
  uint32_t saved_at = 0;
  struct snippet fit;		/* The first point with enough registers,
				   used if none lets the next instruction
				   into the delay slot.  */
  uint32_t fit_at = 0;
  bool have_fit = false;

  for (uint32_t at = b->start; at <= limit; at += 4)
    {
      bool gp;
      uint64_t dead;

      if (point_in_llsc (e, b, at))
	continue;
      gp = gp_at_point (e, b, at);
      if (!e->fixed_address && gp)
	{
	  dead = free_scratch (e, cfg_live_at (code, cfg, b, at), at);
	  if (!have_gp)
	    {
	      have_gp = true;
	      first_gp = at;
	    }
	  if (popcount64 (dead) >= LLSC_REGS)
	    {
	      p->at = at;
	      p->s.kind = COUNT_GP;
	      choose_regs (&p->s, spare_next (e, b, at, dead, LLSC_REGS),
			   LLSC_REGS, 0, 0);
	      if (hoist_fits (e, b, at, &p->s))
		return true;
	      if (!have_fit)
		{
		  have_fit = true;
		  fit = p->s;
		  fit_at = at;
		}
	    }
	}
      if (!e->fixed_address && !gp && at < b->end && !have_saved
	  && e->gp_saved[emit_word_index (e, at)] >= 0)
	{
	  dead = free_scratch (e, cfg_live_at (code, cfg, b, at), at);
	  if (popcount64 (dead) >= LLSC_REGS)
	    {
	      have_saved = true;
	      saved_at = at;
	    }
	}
      if (!e->fixed_address && !gp && at < b->end
	  && e->t9_valid[emit_word_index (e, at)])
	{
	  dead = free_scratch (e, cfg_live_at (code, cfg, b, at), at);
	  if (!have_t9)
	    {
	      have_t9 = true;
	      first_t9 = at;
	    }
	  if (!have_t9_fit && popcount64 (dead & ~R (REG_T9)) >= LLSC_REGS)
	    {
	      struct snippet t;
	      memset (&t, 0, sizeof t);
	      choose_regs (&t, spare_next (e, b, at, dead & ~R (REG_T9),
					   LLSC_REGS),
			   LLSC_REGS, 0, R (REG_T9));
	      if (!have_t9_free || hoist_fits (e, b, at, &t))
		t9_free = at;
	      have_t9_free = true;
	      have_t9_fit = hoist_fits (e, b, at, &t);
	    }
	}
      if (e->fixed_address)
	{
	  dead = free_scratch (e, cfg_live_at (code, cfg, b, at), at);
	  if (popcount64 (dead) >= LLSC_REGS)
	    {
	      p->at = at;
	      p->s.kind = COUNT_ABS;
	      choose_regs (&p->s, spare_next (e, b, at, dead, LLSC_REGS),
			   LLSC_REGS, 0, 0);
	      if (hoist_fits (e, b, at, &p->s))
		return true;
	      if (!have_fit)
		{
		  have_fit = true;
		  fit = p->s;
		  fit_at = at;
		}
	    }
	}
      if (at < limit && ends_count_scan (code, at))
	break;
    }

  if (have_fit)
    {
      p->at = fit_at;
      p->s = fit;
      return true;
    }

  /* t9-relative without saving registers beats gp-relative with.  */
  if (have_t9_free || (have_t9 && !have_gp))
    {
      p->at = have_t9_free ? t9_free : first_t9;
      p->s.kind = COUNT_T9;
      choose_regs (&p->s,
		   spare_next (e, b, p->at,
			       free_scratch (e, cfg_live_at (code, cfg, b, p->at),
					     p->at) & ~R (REG_T9), LLSC_REGS),
		   LLSC_REGS, 0, R (REG_T9));
      return true;
    }
  /* gp reloaded from the frame beats a saved ra or registers.  */
  if (have_saved)
    {
      p->at = saved_at;
      p->s.kind = COUNT_SAVED_GP;
      p->s.saved_gp = e->gp_saved[emit_word_index (e, saved_at)];
      choose_regs (&p->s,
		   spare_next (e, b, saved_at,
			       free_scratch (e, cfg_live_at (code, cfg, b,
							     saved_at),
					     saved_at), LLSC_REGS),
		   LLSC_REGS, 0, 0);
      return true;
    }
  if (have_gp)
    {
      p->at = first_gp;
      p->s.kind = COUNT_GP;
      choose_regs (&p->s,
		   spare_next (e, b, first_gp,
			       free_scratch (e, cfg_live_at (code, cfg, b,
							     first_gp),
					     first_gp), LLSC_REGS),
		   LLSC_REGS, 0, 0);
      return true;
    }
  if (point_in_llsc (e, b, b->start))
    return plan_edges (e, b, p, errmsg);
  p->at = b->start;
  if (e->fixed_address)
    {
      p->s.kind = COUNT_ABS;
      choose_regs (&p->s,
		   spare_next (e, b, b->start, ~b->live_in & SCRATCH_MASK,
			       LLSC_REGS),
		   LLSC_REGS, 0, 0);
    }
  else
    {
      uint64_t dead = free_scratch (e, b->live_in, b->start);

      p->s.kind = COUNT_PC;
      choose_regs (&p->s,
		   spare_next (e, b, b->start, dead & ~R (REG_RA), LLSC_REGS)
		   | (dead & R (REG_RA)),
		   LLSC_REGS + 1, REG_RA, 0);
    }
  return true;
}

/* True if the increment planned in P for block B takes the instruction
   it precedes into its delay slot (slot_fits, AGAIN as there), which
   nothing else (a translation, a long branch form) writes in its own
   way.  */

static bool
hoistable (const struct emitter *e, const struct block *b,
	   const struct count_plan *p, bool again)
{
  long w;

  if (p->edge || p->derived)
    return false;
  w = emit_word_index (e, p->at);
  return w >= 0 && p->at < b->end && e->xlate[w].kind == 0xff
	 && e->long_kind[w] == LONG_NONE
	 && slot_fits (e, b, p->at, &p->s, again);
}

/* Plan the increment of block B (planned in P) as a window counter:
   at a point of B where gp is valid, with one scratch register (one
   the next instruction can go into the delay slot with, preferably).
   False, P unchanged, when gp is valid nowhere before B's control.  */

static bool
plan_window (struct emitter *e, const struct block *b, struct count_plan *p)
{
  const struct code *code = &e->a->code;
  const struct cfg *cfg = &e->a->cfg;
  uint32_t limit = scan_limit (code, b);
  struct snippet fit, s;
  uint32_t fit_at = 0;
  bool have_fit = false;

  for (uint32_t at = b->start; at <= limit; at += 4)
    {
      bool gp;
      uint64_t dead;

      if (point_in_llsc (e, b, at))
	continue;
      gp = gp_at_point (e, b, at);
      if (gp)
	{
	  dead = free_scratch (e, cfg_live_at (code, cfg, b, at), at);
	  memset (&s, 0, sizeof s);
	  s.kind = COUNT_WINDOW;
	  choose_regs (&s, spare_next (e, b, at, dead, 1), 1, 0, 0);
	  if (s.n_spill == 0 && hoist_fits (e, b, at, &s))
	    {
	      p->at = at;
	      p->s = s;
	      return true;
	    }
	  if (!have_fit || (fit.n_spill > 0 && s.n_spill == 0))
	    {
	      fit = s;
	      fit_at = at;
	      have_fit = true;
	    }
	}
      if (at < limit && ends_count_scan (code, at))
	break;
    }
  if (!have_fit)
    return false;
  p->at = fit_at;
  p->s = fit;
  return true;
}

/* GOT entries the layout may still add (for long branches) after the
   window is sized; emit_window_fit mends the rare excess.  */
#define WINDOW_GOT_MARGIN 1024

/* Order of blocks by derive weight, heaviest first, then by index.  */

static const uint32_t *window_weight;

static int
compare_by_weight (const void *pa, const void *pb)
{
  uint32_t a = *(const uint32_t *) pa, b = *(const uint32_t *) pb;

  if (window_weight[a] != window_weight[b])
    return window_weight[a] > window_weight[b] ? -1 : 1;
  return a < b ? -1 : a > b;
}

/* Number the window's blocks (those with a window_slot, any value) in
   ascending order into window_slot and window_blocks.  */

static void
number_window (struct emitter *e)
{
  e->n_window = 0;
  for (size_t i = 0; i < e->a->cfg.n_blocks + e->derive.n_edges; i++)
    if (e->window_slot[i] >= 0)
      {
	e->window_slot[i] = (int32_t) e->n_window;
	e->window_blocks[e->n_window++] = (uint32_t) i;
      }
}

/* The increment planned for the counted branch edge K.  */

static struct snippet *
edge_snippet (struct emitter *e, size_t k)
{
  struct count_plan *p = &e->plans[e->edge_owner[k] / 2];

  return e->edge_owner[k] & 1 ? &p->fall_s : &p->taken_s;
}

uint32_t
emit_window_entry (const struct emitter *e)
{
  return e->folded ? 4 : 8;
}

/* Give the hottest counters (of blocks and of branch edges, by derive's
   weights) places in the window after the new GOT, as many as gp
   reaches, and plan them so.  An edge's increment through gp (with no
   register saved) becomes one off gp with the same first register.
   False when out of memory.  */

static bool
assign_window (struct emitter *e)
{
  const struct cfg *cfg = &e->a->cfg;
  uint32_t n_got = e->got.n_old + e->got.n_new + WINDOW_GOT_MARGIN;
  int64_t room = 0x7ff0 + 0x7ff8 - 4 * (int64_t) ((n_got + 1) & ~1u);
  size_t cap = room > 0 ? (size_t) (room / emit_window_entry (e)) : 0;
  uint32_t *cand;
  size_t n_cand = 0, n_win = 0;

  if (e->fixed_address || e->derive.weight == NULL || cap == 0)
    return true;
  cand = malloc ((cfg->n_blocks + e->derive.n_edges + 1) * sizeof *cand);
  if (cand == NULL)
    return false;
  for (size_t i = 0; i < cfg->n_blocks; i++)
    {
      const struct count_plan *p = &e->plans[i];
      if (e->derive.measured[i] && !p->edge && !p->iv
	  && p->s.kind == COUNT_GP)
	cand[n_cand++] = (uint32_t) i;
    }
  /* Then the edges, all by weight: a hot edge's load saved is worth
     more than a cold block's (the edges once came after every block:
     sqlite3 0.3%, cpubench 0.3% more instructions).  */
  for (size_t k = 0; k < e->derive.n_edges; k++)
    {
      const struct snippet *s = edge_snippet (e, k);
      if (s->kind == COUNT_GP && s->n_spill == 0)
	cand[n_cand++] = (uint32_t) (cfg->n_blocks + k);
    }
  window_weight = e->derive.weight;
  qsort (cand, n_cand, sizeof *cand, compare_by_weight);
  for (size_t k = 0; k < n_cand && n_win < cap; k++)
    if (cand[k] >= cfg->n_blocks)
      {
	/* regs[0] is a dead register; regs[1], kept, is the other one
	   should the counter leave the window (emit_window_fit).  */
	edge_snippet (e, cand[k] - cfg->n_blocks)->kind = COUNT_WINDOW;
	e->window_slot[cand[k]] = 0;
	n_win++;
      }
    else if (plan_window (e, &cfg->blocks[cand[k]], &e->plans[cand[k]]))
      {
	e->window_slot[cand[k]] = 0;
	n_win++;
      }
  free (cand);
  e->window_blocks = malloc ((n_win + 1) * sizeof *e->window_blocks);
  if (e->window_blocks == NULL)
    return false;
  number_window (e);
  return true;
}

/* The register the increment planned in P loads and stores (put_llsc's
   R2).  */

static unsigned
snippet_data_reg (const struct snippet *p)
{
  return (p->kind == COUNT_PC ? p->regs[2]
	  : p->kind == COUNT_WINDOW ? p->regs[0] : p->regs[1]);
}

/* The register that holds the counter's base address in the increment
   planned in P (put_llsc's R1).  */

static unsigned
snippet_base_reg (const struct snippet *p)
{
  return (p->kind == COUNT_PC ? p->regs[1]
	  : p->kind == COUNT_WINDOW ? REG_GP : p->regs[0]);
}

/* The register that the increment planned in P for E restores from
   its spill in the delay slot of its retry branch instead of a nop
   (put_snippet), or 0: an ll/sc increment that has nothing else for
   the slot restores a saved register that its loop does not read (not
   the counter's base): its data register, which a retry loads again,
   else another (ra, which bal wrote before the loop).  */

static unsigned
restore_in_slot (const struct emitter *e, const struct snippet *p)
{
  unsigned base = snippet_base_reg (p);
  unsigned reg = 0;

  if (e->single || p->n_spill == 0 || p->hoist || p->skip)
    return 0;
  for (unsigned i = 0; i < p->n_spill; i++)
    if (p->spill[i] == snippet_data_reg (p))
      return p->spill[i];
    else if (p->spill[i] != base && reg == 0)
      reg = p->spill[i];
  return reg;
}

/* Words of the way to the counter of the snippet planned in P
   (put_counter_base; none off gp in the window).  */

static uint32_t
base_words (const struct snippet *p)
{
  return (p->kind == COUNT_PC ? 3
	  : p->kind == COUNT_T9 || p->kind == COUNT_SAVED_GP ? 2
	  : p->kind == COUNT_WINDOW ? 0 : 1);
}

/* Words of the snippet planned in P for E.  */

static uint32_t
snippet_words (const struct emitter *e, const struct snippet *p)
{
  uint32_t n = (e->single ? SINGLE_WORDS : LLSC_WORDS) - e->folded
	       + base_words (p);

  if (p->n_spill > 0)
    n += 2 + 2 * p->n_spill;
  if (p->skip)
    n += 2;
  if (restore_in_slot (e, p) != 0)
    n -= 1;
  return n;
}

/* Words of a single-thread increment planned in SN that leaves by its
   own branch (put_llsc's SKIP_TO) after one instruction of the
   program's: that instruction, the increment, and past snippet_words
   the branch out (folded; the store is in its slot), or the jump to
   the carry path and the jump back with their slots (4 words; the
   carry test is the branch out).  */

static uint32_t
leaving_words (const struct emitter *e, const struct snippet *sn)
{
  return 1 + snippet_words (e, sn) + (e->folded ? 1 : 4);
}

/* Words of the way out of the loop planned in P for E (put_loop_exit):
   the way to the counter, the difference, the addition and the carry
   into the high word.  */

static uint32_t
loop_exit_words (const struct emitter *e, const struct count_plan *p)
{
  uint32_t n = base_words (&p->s) + 1 + (p->iv_shift != 0)
	       + (p->iv_inverse != 0 ? 4 : 0);

  /* The saves; the stack form's copy's load, sp raised.  */
  n += p->s.n_spill > 0 ? 2 + 2 * p->s.n_spill : 0;
  if (p->iv_stack)
    n += 2;
  if (e->folded)
    return n + (e->single ? 3 : 5);
  return n + (e->single ? 4 + 2 + 3 : 6 + 2 + 5);
}

/* The new GOT entry that holds the new address of the original code
   address TARGET, added if needed; (uint32_t) -1 when out of memory.  */

static uint32_t
got_target_entry (struct new_got *g, uint32_t target)
{
  for (uint32_t k = 0; k < g->n_targets; k++)
    if (g->target_of[k] == target)
      return g->n_fixed + k;
  if (g->n_targets == g->alloc_targets)
    {
      uint32_t n = g->alloc_targets ? 2 * g->alloc_targets : 256;
      uint32_t *v = realloc (g->target_of, n * sizeof *v);
      if (v == NULL)
	return (uint32_t) -1;
      g->target_of = v;
      g->alloc_targets = n;
    }
  g->target_of[g->n_targets++] = target;
  g->n_new = g->n_fixed + g->n_targets;
  return g->n_new - 1;
}

/* The counter chunks and the got-ref addius, with new GOT entries for
   their targets.  */

static bool
plan_got (struct emitter *e, char **errmsg)
{
  const struct analysis *a = e->a;
  const struct mips_object *obj = &a->obj;
  struct new_got *g = &e->got;

  g->n_old_local = obj->dyn.local_gotno;
  g->n_old = obj->got_size / 4;
  /* The counters of the blocks, then those of the branch edges.  */
  g->n_chunks = (uint32_t) (((a->cfg.n_blocks + 2 * e->n_edge_candidates)
			     * 8 + 0xffff) / 0x10000);
  if (g->n_chunks == 0)
    g->n_chunks = 1;
  g->n_fixed = g->n_chunks + 3;
  g->n_new = g->n_fixed;
  for (size_t i = 0; i < a->relocs.n_entries; i++)
    {
      const struct reloc_entry *r = &a->relocs.entries[i];
      uint32_t k;
      long w;
      if (r->type != RELOC_GOT_REF)
	continue;
      k = got_target_entry (g, r->target);
      if (k == (uint32_t) -1)
	{
	  *errmsg = strdup ("out of memory");
	  return false;
	}
      w = emit_word_index (e, r->aux);
      if (w < 0)
	continue;
      if (e->gotref_slot[w] != 0 && e->gotref_slot[w] != k + 1)
	{
	  if (asprintf (errmsg, "0x%08x: one addiu computes two code "
			"addresses", r->aux) < 0)
	    *errmsg = NULL;
	  return false;
	}
      e->gotref_slot[w] = k + 1;
    }
  return true;
}

/* Check that the new GOT still fits gp's reach and allocate its new
   values.  */

static bool
finish_got (struct emitter *e, char **errmsg)
{
  struct new_got *g = &e->got;

  if ((uint64_t) 4 * (g->n_old + g->n_new) > 0xfff0 + 4)
    {
      *errmsg = strdup ("the GOT would outgrow gp's 64 KiB reach");
      return false;
    }
  g->new_values = calloc (g->n_new + 1, sizeof *g->new_values);
  if (g->new_values == NULL)
    {
      *errmsg = strdup ("out of memory");
      return false;
    }
  return true;
}

/* Mark in e->entered every word that control can reach other than by
   falling into it: branch targets and code addresses of the table.  */

static void
mark_entered (struct emitter *e)
{
  const struct code *code = &e->a->code;
  const struct reloc_table *t = &e->a->relocs;

  for (size_t s = 0; s < code->n_sections; s++)
    for (size_t i = 0; i < code->sections[s].n_insns; i++)
      {
	const struct insn *insn = &code->sections[s].insns[i];
	long w;
	if (insn->kind != INSN_BRANCH && insn->kind != INSN_JUMP
	    && insn->kind != INSN_CALL)
	  continue;
	w = emit_word_index (e, insn->target);
	if (w >= 0)
	  e->entered[w] = 1;
      }
  for (size_t k = 0; k < t->n_entries; k++)
    {
      long w = emit_word_index (e, t->entries[k].target);
      if (w >= 0)
	e->entered[w] = 1;
    }
  for (size_t k = 0; k < e->a->n_landing_pads; k++)
    {
      long w = emit_word_index (e, e->a->landing_pads[k]);
      if (w >= 0)
	e->entered[w] = 1;
    }
}

/* The instruction that last writes REG before INSN runs, searching back
   through straight code, into the previous block when that one falls
   through (with the delay slot of a conditional branch, which runs on
   both paths) and nothing else jumps in between; NULL if not found.  */

static const struct insn *
last_writer (const struct emitter *e, const struct insn *insn, unsigned reg)
{
  uint32_t a = insn->addr;

  for (int n = 0; n < 64 && a >= 4; n++)
    {
      const struct insn *p;
      long w = emit_word_index (e, a);

      if (w < 0 || e->entered[w])
	return NULL;
      a -= 4;
      p = code_insn_at (&e->a->code, a);
      if (p == NULL || p->kind == INSN_INVALID
	  || (p->kind != INSN_OTHER
	      && (p->kind != INSN_BRANCH || (p->flags & INSN_F_LIKELY))))
	return NULL;
      if (p->writes & R (reg))
	return p;
    }
  return NULL;
}

/* The GOT slot index that INSN, a `lw x,off(gp)', loads, or -1.  */

static long
got_load_slot (const struct emitter *e, const struct insn *insn)
{
  return got_slot (&e->a->obj, insn);
}

/* True if t9 holds the original code address TARGET when the branch
   INSN runs: its last write loads TARGET from the GOT or is a GOT
   reference to TARGET.  */

static bool
t9_holds (const struct emitter *e, const struct insn *insn, uint32_t target)
{
  const struct insn *p = last_writer (e, insn, REG_T9);

  return p != NULL && target != 0 && t9_const_step (e, 0, p) == target;
}

/* True if register REG holds a new code address (or data) when INSN
   runs because its last write loads it from the GOT (whose code
   addresses are all new) or is a GOT reference that the copy turns
   into such a load.  */

static bool
reg_from_got (const struct emitter *e, const struct insn *insn, unsigned reg)
{
  const struct insn *p = last_writer (e, insn, reg);

  return p != NULL && (e->gotref_slot[emit_word_index (e, p->addr)] != 0
		       || got_load_slot (e, p) >= 0);
}

/* The blocks that lead into each block of a CFG, for got_on_all_paths:
   those whose branch, jump or fall goes there (FIRST[i] ... FIRST[i +
   1] - 1 in FROM), and whether anything else can enter it (OUTSIDE: a
   function entry, a code address of the relocation table, a landing
   pad).  */
struct preds
{
  uint32_t *first, *from;
  unsigned char *outside;
};

static void
preds_free (struct preds *p)
{
  free (p->first);
  free (p->from);
  free (p->outside);
}

/* Fill P for E's CFG.  False when out of memory.  */

static bool
preds_build (const struct emitter *e, struct preds *p)
{
  const struct cfg *cfg = &e->a->cfg;
  size_t n = cfg->n_blocks, n_edges = 0;
  long k;

  p->first = calloc (n + 2, sizeof *p->first);
  p->outside = calloc (n + 1, 1);
  for (size_t i = 0; i < n; i++)
    n_edges += cfg->blocks[i].n_succ;
  p->from = malloc ((n_edges + 1) * sizeof *p->from);
  if (p->first == NULL || p->outside == NULL || p->from == NULL)
    return false;
  for (size_t i = 0; i < n; i++)
    for (uint32_t s = 0; s < cfg->blocks[i].n_succ; s++)
      p->first[cfg->blocks[i].succ[s] + 1]++;
  for (size_t i = 0; i < n; i++)
    p->first[i + 1] += p->first[i];
  for (size_t i = 0; i < n; i++)
    for (uint32_t s = 0; s < cfg->blocks[i].n_succ; s++)
      p->from[p->first[cfg->blocks[i].succ[s]]++] = (uint32_t) i;
  for (size_t i = n; i > 0; i--)
    p->first[i] = p->first[i - 1];
  p->first[0] = 0;
  for (size_t f = 0; f < cfg->n_funcs; f++)
    if ((k = cfg_block_starting (cfg, cfg->funcs[f].entry)) >= 0)
      p->outside[k] = 1;
  for (size_t i = 0; i < e->a->relocs.n_entries; i++)
    if ((k = cfg_block_starting (cfg, e->a->relocs.entries[i].target)) >= 0)
      p->outside[k] = 1;
  for (size_t i = 0; i < e->a->n_landing_pads; i++)
    if ((k = cfg_block_starting (cfg, e->a->landing_pads[i])) >= 0)
      p->outside[k] = 1;
  return true;
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
  const struct cfg *cfg = &e->a->cfg;
  const struct code *code = &e->a->code;
  const struct block *b = &cfg->blocks[bi];

  if (--*budget < 0)
    return false;
  for (uint32_t x = at; x > b->start; x -= 4)
    {
      const struct insn *q = code_insn_at (code, x - 4);
      if (q == NULL || q->kind == INSN_INVALID)
	return false;
      if (q->writes & R (reg))
	return e->gotref_slot[emit_word_index (e, q->addr)] != 0
	       || got_load_slot (e, q) >= 0;
    }
  if (p->outside[bi] || p->first[bi] == p->first[bi + 1])
    return false;
  for (uint32_t k = p->first[bi]; k < p->first[bi + 1]; k++)
    {
      const struct block *from = &cfg->blocks[p->from[k]];
      const struct insn *slot;
      const struct insn *ctl = cfg_block_control (code, from, &slot);
      /* A call's successor is its return point; a branch-likely's
	 slot runs on one of its ways only.  */
      if ((from->flags & (BLOCK_F_CALL | BLOCK_F_INVALID | BLOCK_F_SLOT_ENTRY))
	  || (ctl != NULL && (ctl->flags & INSN_F_LIKELY))
	  || (ctl != NULL && slot == NULL)
	  || !got_on_all_paths (e, p, p->from[k], from->end, reg, budget))
	return false;
    }
  return true;
}

static bool has_base (const struct insn *insn);

/* Whether, on every way control reaches address AT of block BI (P its
   CFG's predecessors), gp is valid (gp_valid) or the program itself
   has read gp as a base (a GOT load, say) since its last write of gp
   and the last call: the compiler trusts gp there, so it holds the
   object's gp where gp_dataflow cannot tell (after a reload through a
   frame pointer, `lw gp,16(s8)').  At most *BUDGET blocks are looked
   at.  */

static bool
gp_trusted_on_all_paths (const struct emitter *e, const struct preds *p,
			 const struct object_symbol *const *dyn, size_t n_dyn,
			 size_t bi, uint32_t at, int *budget)
{
  const struct cfg *cfg = &e->a->cfg;
  const struct code *code = &e->a->code;
  const struct block *b = &cfg->blocks[bi];

  if (--*budget < 0)
    return false;
  for (uint32_t x = at; x > b->start; x -= 4)
    {
      const struct insn *q;
      if (x < b->end && e->gp_valid[emit_word_index (e, x)])
	return true;
      q = code_insn_at (code, x - 4);
      if (q == NULL || q->kind == INSN_INVALID || (q->writes & R (REG_GP)))
	return false;
      if (has_base (q) && q->rs == REG_GP)
	return true;
    }
  if (e->gp_valid[emit_word_index (e, b->start)])
    return true;
  if (p->outside[bi] || p->first[bi] == p->first[bi + 1])
    return false;
  for (uint32_t k = p->first[bi]; k < p->first[bi + 1]; k++)
    {
      const struct block *from = &cfg->blocks[p->from[k]];
      const struct insn *slot;
      const struct insn *ctl = cfg_block_control (code, from, &slot);
      /* Nothing comes back from a call that never returns
	 (__stack_chk_fail, say).  */
      if ((from->flags & BLOCK_F_CALL)
	  && (calls_noreturn (e, e->returns, from)
	      || calls_noreturn_import (e, from, dyn, n_dyn)))
	continue;
      /* A call's successor is its return point, with the callee's gp;
	 a branch-likely's slot runs on one of its ways only.  */
      if ((from->flags & (BLOCK_F_CALL | BLOCK_F_INVALID | BLOCK_F_SLOT_ENTRY))
	  || (ctl != NULL && (ctl->flags & INSN_F_LIKELY))
	  || (ctl != NULL && slot == NULL)
	  || !gp_trusted_on_all_paths (e, p, dyn, n_dyn, p->from[k],
				       from->end, budget))
	return false;
    }
  return true;
}

/* Decide how each got-ref addiu is rewritten (e->gotref_form): as a
   load of its new GOT entry from gp where gp is valid; elsewhere from
   the page register itself plus the distance from the page to the new
   address, or from the GOT through the gp saved in the frame.  gp need
   not be valid at the addiu: GCC loads a page once, before a loop say,
   and adds %lo to it after calls, which leave gp clobbered (a callee
   that tail-calls another object returns with that object's gp) until
   the next `lw gp,K(sp)'.  An addiu in a delay slot is written before
   its branch.  Needs the live sets.  */

static bool
plan_gotref_forms (struct emitter *e, char **errmsg)
{
  const struct code *code = &e->a->code;
  const struct cfg *cfg = &e->a->cfg;
  struct preds pr = { NULL, NULL, NULL };
  const struct object_symbol **dyn = NULL;
  size_t n_dyn = 0;
  bool have_preds = false, ok = false;

  e->n_gotref_nogp = e->n_gotref_unsafe = 0;
  for (size_t s = 0; s < code->n_sections; s++)
    for (size_t i = 0; i < code->sections[s].n_insns; i++)
      {
	const struct insn *insn = &code->sections[s].insns[i];
	const struct insn *ctl = NULL;
	long w = emit_word_index (e, insn->addr);
	const struct block *b;
	uint32_t at = insn->addr;
	uint64_t dead;
	unsigned form;
	int budget = 16;

	if (w < 0 || e->gotref_slot[w] == 0)
	  continue;
	e->gotref_form[w] = GOTREF_GP;
	if (e->fixed_address || e->gp_valid[w])
	  continue;
	if (!have_preds)
	  {
	    have_preds = true;
	    dyn = object_dynsyms_by_index (&e->a->obj, &n_dyn);
	    if (!preds_build (e, &pr) || dyn == NULL)
	      {
		*errmsg = strdup ("out of memory");
		goto out;
	      }
	  }
	b = cfg_block_at (cfg, insn->addr);
	if (b == NULL)
	  continue;
	if (gp_trusted_on_all_paths (e, &pr, dyn, n_dyn,
				     (size_t) (b - cfg->blocks), insn->addr,
				     &budget))
	  continue;
	e->n_gotref_nogp++;
	form = 0;
	if (insn->flags & INSN_F_SLOT)
	  {
	    /* The slot of a branch, jump or call that neither reads y nor
	       writes x or y, which nothing enters: it runs first (after
	       the run-time translation of an indirect jump's register,
	       which is not y).  */
	    ctl = code_insn_at (code, insn->addr - 4);
	    if (ctl == NULL || e->entered[w] || e->in_llsc[w - 1]
		|| (ctl->flags & INSN_F_LIKELY)
		|| (ctl->kind != INSN_BRANCH && ctl->kind != INSN_JUMP
		    && ctl->kind != INSN_CALL && ctl->kind != INSN_IJUMP
		    && ctl->kind != INSN_ICALL)
		|| (ctl->reads & R (insn->rt))
		|| (ctl->writes & (R (insn->rt) | R (insn->rs))))
	      goto unsafe;
	    at = ctl->addr;
	    form = GOTREF_F_BEFORE;
	  }
	if (e->in_llsc[w])
	  goto unsafe;
	if (insn->rt != insn->rs)
	  {
	    e->gotref_form[w] = (uint8_t) (form | GOTREF_ADD);
	    continue;
	  }
	if (e->gp_saved[w] >= 0 && insn->rt != REG_SP)
	  {
	    e->gotref_form[w] = (uint8_t) (form | GOTREF_SAVED);
	    continue;
	  }
	dead = free_scratch (e, cfg_live_at (code, cfg, b, at), at)
	       & ~(R (insn->rt) | R (insn->rs));
	if (ctl != NULL)
	  dead &= ~(ctl->reads | ctl->writes);
	if (dead_reg (dead) != 0)
	  {
	    e->gotref_form[w] = (uint8_t) (form | GOTREF_TMP
					   | (dead_reg (dead) << 3));
	    continue;
	  }
      unsafe:
	/* Left as it was: right only if gp is valid after all.  */
	e->n_gotref_unsafe++;
      }
  ok = true;
 out:
  if (have_preds)
    preds_free (&pr);
  free (dyn);
  return ok;
}

/* A malloc'd array saying for every code word of E whether it is the
   jump of a switch table the relocation table knows, or NULL when out
   of memory.  */

static unsigned char *
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

static bool
plan_translations (struct emitter *e, char **errmsg)
{
  const struct analysis *a = e->a;
  const struct code *code = &a->code;
  unsigned char *table_jr = table_jumps (e);
  unsigned char *guarded = analysis_unknown_entries (a);
  struct preds pr = { NULL, NULL, NULL };
  bool have_preds = preds_build (e, &pr);
  bool ok = true;

  for (size_t s = 0; s < code->n_sections; s++)
    for (size_t i = 0; i < code->sections[s].n_insns; i++)
      {
	const struct insn *insn = &code->sections[s].insns[i];
	long w = (long) (e->section_base[s] + i);
	const struct block *b;
	struct snippet *sn = &e->xlate[w];
	int budget = 16;
	bool guard;

	sn->kind = 0xff;
	if (insn->kind != INSN_IJUMP && insn->kind != INSN_ICALL)
	  continue;
	b = cfg_block_at (&a->cfg, insn->addr);
	guard = insn->kind == INSN_IJUMP
		&& ((table_jr != NULL && table_jr[w] == TABLE_JR_GPREL)
		    || (guarded != NULL && b != NULL && guarded[b->func]));
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
	if (b == NULL
	    || (!e->gp_valid[w] && !e->fixed_address
		&& !(guard && gp_read_before (e, b, insn->addr)))
	    || insn->rs == REG_GP || insn->rs == REG_SP || e->in_llsc[w])
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
	    e->n_xlate_skipped++;
	    continue;
	  }
	sn->kind = COUNT_GP;
	choose_regs (sn, free_scratch (e, cfg_live_at (code, &a->cfg, b,
							insn->addr),
				       insn->addr),
		     2, 0, R (insn->rs) | R (REG_RA));
	sn->guard = guard;
	e->n_xlate++;
	e->n_xlate_guarded += guard;
      }
 out:
  free (table_jr);
  free (guarded);
  preds_free (&pr);
  return ok;
}

/* The system calls that the runtime must see before they are made
   (runtime/hook.S): exit_group (the profile is written there, after
   every destructor), the exec calls (it is written before the image
   goes) and the calls that make processes (fork, and clone, which may
   make a child that shares this memory).  */

static bool
hooked_syscall (uint32_t nr)
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

static void
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
	      || (insn->flags & INSN_F_SLOT) || e->in_llsc[w])
	    continue;
	  nr = syscall_number (&a->code, b, at);
	  if (nr >= 0 && !hooked_syscall ((uint32_t) nr))
	    continue;
	  e->sys_hook[w] = 1;
	  e->n_sys_hooks++;
	  if (nr == SYS_EXIT_GROUP)
	    e->exit_hooked = true;
	}
    }
}

/* Mark the words between each ll and its sc: an ll there (ours) would
   move the reservation, and the program's sc would never succeed.  */

static void
mark_llsc (struct emitter *e)
{
  const struct code *code = &e->a->code;

  for (size_t s = 0; s < code->n_sections; s++)
    {
      const struct insn_section *sec = &code->sections[s];
      for (size_t i = 0; i < sec->n_insns; i++)
	if (sec->insns[i].op == OP_LL)
	  for (size_t k = i + 1; k < sec->n_insns && k <= i + 32; k++)
	    {
	      e->in_llsc[e->section_base[s] + k] = 1;
	      if (sec->insns[k].op == OP_SC)
		break;
	    }
    }
}

/* With --calls: mark the probe sites, an entry probe at the entry of
   every function and an exit probe before every return and every tail
   jump (an unconditional jump to another function's entry, or a jump
   through t9 that no table explains).  Lazy-binding stubs are left
   alone: they leave through the dynamic linker.  False when out of
   memory.  */

static bool
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
	e->probe[emit_word_index (e, b->start)] = PROBE_ENTRY;
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
	e->probe[emit_word_index (e, ctl->addr)] |= PROBE_EXIT;
    }
  free (table_jr);
  return true;
}

static const struct insn *slot_fill (const struct emitter *e,
				     uint32_t target, bool pad_ok);

/* The words of the sequence that the got-ref addiu at word W becomes,
   and those written before the branch at word W (the sequence of its
   delay slot's addiu, GOTREF_F_BEFORE).  */

static uint32_t
gotref_words (const struct emitter *e, long w)
{
  switch (GOTREF_KIND (e->gotref_form[w]))
    {
    case GOTREF_ADD:
    case GOTREF_TMP:
      return 3;
    case GOTREF_SAVED:
      return 2;
    default:
      return 1;
    }
}

static uint32_t
gotref_before_words (const struct emitter *e, long w)
{
  if ((size_t) w + 1 >= e->n_words || e->gotref_slot[w + 1] == 0
      || !(e->gotref_form[w + 1] & GOTREF_F_BEFORE))
    return 0;
  return gotref_words (e, w + 1);
}

static uint32_t insn_words (const struct emitter *e, long w,
			    const struct insn *insn);

/* The registers the increment planned in SN reads or writes (gp, sp,
   t9 and ra, which its ways to the counter read or bal writes, and its
   own two), but for the zero register.  */

static uint64_t
snippet_uses (const struct snippet *sn)
{
  uint64_t used = R (REG_GP) | R (REG_SP) | R (REG_T9) | R (REG_RA)
		  | R (snippet_base_reg (sn)) | R (snippet_data_reg (sn));

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

  if (e->calls || p->edge || p->derived || p->s.n_spill > 0
      || p->s.hoist || p->s.skip || ctl == NULL || slot == NULL
      || ctl->addr != p->at || ctl->kind != INSN_JUMP || ctl->op == OP_J
      || slot->addr != ctl->addr + 4 || slot->addr + 4 != b->end
      || !movable (slot) || (slot->writes & R (REG_GP))
      || (e->single && (slot->writes & snippet_uses (&p->s)) != 0))
    return false;
  w = emit_word_index (e, ctl->addr);
  ws = emit_word_index (e, slot->addr);
  return (w >= 0 && ws >= 0 && emit_word_index (e, ctl->target) >= 0
	  && e->long_kind[w] == LONG_NONE && e->probe[w] == 0
	  && e->probe[ws] == 0 && !e->needs_pad[w] && !e->needs_pad[ws]
	  && e->xlate[w].kind == 0xff && e->xlate[ws].kind == 0xff
	  && e->gotref_slot[ws] == 0 && !e->in_llsc[ws]
	  && insn_words (e, ws, slot) == 1);
}

/* Count the kinds of the plans of E for -v, and decide which take the
   next instruction into their delay slot, how (hoist or skip), and
   which fall-through edge counters take the next block's first.  */

static void
count_plans (struct emitter *e)
{
  const struct cfg *cfg = &e->a->cfg;

  e->n_derived = e->n_edge = e->n_count_window = e->n_count_gp = 0;
  e->n_count_pc = e->n_count_t9 = e->n_count_abs = e->n_spilled = 0;
  e->n_hoisted = e->n_skipped = e->n_count_saved_gp = e->n_jumps = 0;
  e->n_loops = 0;
  e->n_edge_counters = e->derive.n_edges;
  e->n_edge_window = 0;
  for (size_t k = 0; e->edge_owner != NULL && k < e->derive.n_edges; k++)
    e->n_edge_window += edge_snippet (e, k)->kind == COUNT_WINDOW;
  for (size_t i = 0; i < cfg->n_blocks; i++)
    {
      struct count_plan *p = &e->plans[i];
      /* A counted fall-through edge leaves by a branch-likely past the
	 next block's first instruction, with a copy of it in its delay
	 slot, when slot_fill allows.  */
      p->fall_s.skip = !e->single && p->count_fall && p->fall_s.n_spill == 0
		       && slot_fill (e, cfg->blocks[i].end, true) != NULL;
      if (p->derived)
	{
	  e->n_derived++;
	  continue;
	}
      if (p->iv)
	{
	  e->n_loops++;
	  e->n_loops_stack += p->iv_stack;
	  continue;
	}
      e->n_edge += p->edge;
      e->n_count_window += p->s.kind == COUNT_WINDOW;
      if (p->s.kind == COUNT_GP || p->s.kind == COUNT_WINDOW)
	e->n_count_gp++;
      else if (p->s.kind == COUNT_SAVED_GP)
	e->n_count_saved_gp++;
      else if (p->s.kind == COUNT_PC)
	e->n_count_pc++;
      else if (p->s.kind == COUNT_T9)
	e->n_count_t9++;
      else
	e->n_count_abs++;
      if (p->s.n_spill > 0)
	e->n_spilled++;
      /* A single-thread increment has no delay slot to fill: its store
	 is in the carry test's.  */
      p->s.hoist = !e->single && hoistable (e, &cfg->blocks[i], p, true);
      p->s.skip = !e->single && !p->s.hoist && p->s.n_spill == 0
		  && hoistable (e, &cfg->blocks[i], p, false);
      p->s.jump = leaves_by_jump (e, &cfg->blocks[i], p);
      p->s.skip |= p->s.jump && !e->single;
      e->n_jumps += p->s.jump;
      e->n_hoisted += p->s.hoist;
      e->n_skipped += p->s.skip && !p->s.jump;
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

  e->edge_ok = calloc (cfg->n_blocks + 1, 1);
  if (e->edge_ok == NULL)
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
      ok = !e->in_llsc[emit_word_index (e, t->start)]
	   && !e->in_llsc[emit_word_index (e, next->start)];
      for (uint32_t x = b->start; ok && x < b->end; x += 4)
	ok = !e->in_llsc[emit_word_index (e, x)];
      if (ok)
	{
	  e->edge_ok[i] = 1;
	  e->n_edge_candidates++;
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
      if (insn == NULL || w < 0 || e->in_llsc[w] || e->probe[w] != 0
	  || e->gotref_slot[w] != 0
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
  gp = gp_at_transfer (e, b, e->gp_valid[emit_word_index (e, b->start)],
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
      if ((used & R (REG_SP)) || p->s.n_spill == 0 || e->counts == NULL
	  || e->counts[i] <= 0 || e->counts[i + 1] < 0
	  || e->counts[i] < STACK_TURNS * e->counts[i + 1])
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
      struct count_plan *p = &e->plans[i];
      if (!plan_block (e, &a->cfg.blocks[i], p, errmsg))
	return false;
      cost[i] = snippet_words (e, &p->s);
      if (e->edge_ok != NULL && plan_loop (e, &a->cfg.blocks[i], p))
	{
	  e->edge_ok[i] = 0;
	  continue;
	}
      if (p->edge)
	cost[i] += snippet_words (e, &p->taken) + 4;
      /* The count at the block's end would run on the fall-through
	 edge only.  */
      if (e->edge_ok != NULL && (p->edge || p->at >= a->cfg.blocks[i].end))
	e->edge_ok[i] = 0;
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
  struct count_plan *p = &e->plans[i];
  const struct insn *slot;
  const struct insn *ctl;
  size_t n = e->a->cfg.n_blocks;
  bool gp;

  if (e->derive.taken_edge[i] == 0 && e->derive.fall_edge[i] == 0)
    return;
  ctl = cfg_block_control (code, b, &slot);
  gp = gp_at_transfer (e, b, e->gp_valid[emit_word_index (e, b->start)],
		       ctl);
  if (e->derive.taken_edge[i] != 0)
    {
      p->count_taken = true;
      p->taken_counter = (uint32_t) (n + e->derive.taken_edge[i] - 1);
      plan_edge_snippet (e, &p->taken_s, ctl->target, gp, 0, 0);
      e->invert[emit_word_index (e, ctl->addr)] = 1;
    }
  if (e->derive.fall_edge[i] != 0)
    {
      p->count_fall = true;
      p->fall_counter = (uint32_t) (n + e->derive.fall_edge[i] - 1);
      plan_edge_snippet (e, &p->fall_s, b->end, gp, 0, 0);
    }
}

bool
emit_plan (struct emitter *e, const struct analysis *a, bool all_blocks,
	   bool calls, bool single, bool folded,
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
  e->section_base = calloc (code->n_sections + 1, sizeof *e->section_base);
  if (e->section_base == NULL)
    goto nomem;
  for (size_t i = 0; i < code->n_sections; i++)
    {
      e->section_base[i] = total;
      total += code->sections[i].n_insns;
    }
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
  e->map = calloc (total + 1, sizeof *e->map);
  e->insn_new = calloc (total + 1, sizeof *e->insn_new);
  e->gotref_slot = calloc (total + 1, sizeof *e->gotref_slot);
  e->gotref_form = calloc (total + 1, 1);
  e->gp_valid = calloc (total + 1, 1);
  e->t9_valid = calloc (total + 1, 1);
  e->gp_saved = malloc ((total + 1) * sizeof *e->gp_saved);
  e->long_kind = calloc (total + 1, 1);
  e->long_reg = calloc (total + 1, 1);
  e->long_slot = calloc (total + 1, sizeof *e->long_slot);
  e->entered = calloc (total + 1, 1);
  e->in_llsc = calloc (total + 1, 1);
  e->retarget = calloc (total + 1, sizeof *e->retarget);
  e->invert = calloc (total + 1, 1);
  e->xlate = calloc (total + 1, sizeof *e->xlate);
  e->pad = calloc (total + 1, sizeof *e->pad);
  e->needs_pad = calloc (total + 1, 1);
  e->plans = calloc (a->cfg.n_blocks + 1, sizeof *e->plans);
  if (e->map == NULL || e->insn_new == NULL || e->gotref_slot == NULL
      || e->gotref_form == NULL
      || e->gp_valid == NULL || e->t9_valid == NULL || e->plans == NULL
      || e->long_kind == NULL
      || e->long_reg == NULL || e->long_slot == NULL || e->entered == NULL
      || e->in_llsc == NULL || e->retarget == NULL || e->invert == NULL
      || e->xlate == NULL
      || e->pad == NULL || e->needs_pad == NULL)
    goto nomem;
  e->calls = calls;
  e->probe = calloc (total + 1, 1);
  e->sys_hook = calloc (total + 1, 1);
  if (e->sys_hook == NULL)
    goto nomem;
  /* The probe sites' tables: only --calls has any.  */
  if (calls)
    {
      e->probe_stub = calloc (total + 1, sizeof *e->probe_stub);
      e->probe_new_stub = calloc (total + 1, 1);
      e->past_probe = calloc (total + 1, sizeof *e->past_probe);
    }
  if (e->probe == NULL
      || (calls && (e->probe_stub == NULL || e->probe_new_stub == NULL
		    || e->past_probe == NULL)))
    goto nomem;
  if (calls && !mark_probes (e))
    goto nomem;
  mark_entered (e);
  mark_llsc (e);
  mark_syscall_hooks (e);
  e->returns = malloc (a->cfg.n_funcs + 1);
  if (e->returns == NULL || !find_returning (e, e->returns))
    goto nomem;
  if (e->gp_saved == NULL)
    goto nomem;
  if (!gp_dataflow (e, sites->into, errmsg))
    return false;
  if (!gp_saved_dataflow (e))
    goto nomem;
  if (!all_blocks && !mark_edge_candidates (e))
    goto nomem;
  if (!plan_got (e, errmsg)
      || !t9_dataflow (e, errmsg))
    return false;
  /* The calls that never return, hence the cold blocks, are known once
     plan_got knows what t9 holds.  */
  cold = mark_cold (e);
  cost = malloc ((a->cfg.n_blocks + 1) * sizeof *cost);
  est.taken = all_blocks ? NULL
	      : malloc ((a->cfg.n_blocks + 1) * sizeof *est.taken);
  if (!all_blocks && n_used > 0)
    e->counts = profile_block_counts (a, used, n_used, &e->n_profiled);
  if (cold == NULL || cost == NULL || (!all_blocks && est.taken == NULL)
      || (!all_blocks && n_used > 0 && e->counts == NULL))
    {
      free (cold);
      free (cost);
      free (est.taken);
      goto nomem;
    }
  /* The counters' registers need the live sets.  */
  if (!call_sites_wait (sites))
    {
      free (cold);
      free (cost);
      free (est.taken);
      goto nomem;
    }
  if (!plan_gotref_forms (e, errmsg))
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
	  || (e->counts != NULL
	      && !estimate_from_counts (a, e->counts, est.freq, est.taken))))
    {
      *errmsg = strdup ("out of memory");
      ok = false;
    }
  ok = ok && derive_plan (a, cost, cold, sites->into, sites->returning,
			  est.freq, est.taken, e->edge_ok, all_blocks,
			  &e->derive, errmsg);
  free (cost);
  free (cold);
  free (est.freq);
  free (est.taken);
  free (e->counts);
  e->counts = NULL;
  if (!ok)
    return false;
  for (size_t i = 0; i < a->cfg.n_blocks; i++)
    {
      if (!e->derive.measured[i])
	{
	  memset (&e->plans[i], 0, sizeof e->plans[i]);
	  e->plans[i].derived = true;
	}
      plan_branch_edges (e, i);
    }
  e->window_slot = malloc ((a->cfg.n_blocks + e->derive.n_edges + 1)
			   * sizeof *e->window_slot);
  e->edge_owner = malloc ((e->derive.n_edges + 1) * sizeof *e->edge_owner);
  if (e->window_slot == NULL || e->edge_owner == NULL)
    goto nomem;
  for (size_t i = 0; i < a->cfg.n_blocks + e->derive.n_edges; i++)
    e->window_slot[i] = -1;
  for (size_t i = 0; i < a->cfg.n_blocks; i++)
    {
      if (e->derive.taken_edge[i] != 0)
	e->edge_owner[e->derive.taken_edge[i] - 1] = 2 * (uint32_t) i;
      if (e->derive.fall_edge[i] != 0)
	e->edge_owner[e->derive.fall_edge[i] - 1] = 2 * (uint32_t) i + 1;
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

/* True if INSN is a branch-likely.  */

static bool
is_likely (const struct insn *insn)
{
  return (insn->flags & INSN_F_LIKELY) != 0;
}

static uint32_t far_words (bool use_gp, bool call, bool save_ra);

/* Set in long_reg: the bal form keeps ra below a lowered sp.  */
#define LONG_SAVE_RA 0x80

/* The far jump that saves at and ra and goes to the target's restore
   pad (addiu sp; sw at; sw ra; bal; lui; addu; addiu; jr; nop), and
   the pad before a block (b over; nop; lw at; lw ra; addiu sp).  */
#define PAD_JUMP_WORDS 9
#define PAD_WORDS 5

/* True if the long form KIND writes the branch's delay slot itself,
   so that the slot's own word is written as nothing.  */

static bool
long_takes_slot (unsigned kind)
{
  return kind == LONG_JUMP_GP || kind == LONG_JUMP_PC || kind == LONG_COND_GP
	 || kind == LONG_COND_PC || kind == LONG_JUMP_PAD
	 || kind == LONG_COND_PAD;
}

/* Words the copy of INSN, word W, takes.  */

static uint32_t
insn_words (const struct emitter *e, long w, const struct insn *insn)
{
  uint32_t likely = is_likely (insn) ? 1 : 0;
  bool save_ra = (e->long_reg[w] & LONG_SAVE_RA) != 0;

  switch (e->long_kind[w])
    {
    case LONG_CALL_GP:
    case LONG_CALL_PC:
      return far_words (e->long_kind[w] == LONG_CALL_GP, true, false);
    case LONG_JUMP_GP:
    case LONG_JUMP_PC:
      return 1 + far_words (e->long_kind[w] == LONG_JUMP_GP, false, save_ra);
    case LONG_COND_GP:
    case LONG_COND_PC:
      return 2 + likely
	     + far_words (e->long_kind[w] == LONG_COND_GP, false, save_ra);
    case LONG_JUMP_PAD:
      return 1 + PAD_JUMP_WORDS;
    case LONG_COND_PAD:
      return 2 + likely + PAD_JUMP_WORDS;
    default:
      break;
    }
  if (w > 0 && long_takes_slot (e->long_kind[w - 1]))
    return 0;
  if (e->gotref_slot[w] != 0 && !(e->gotref_form[w] & GOTREF_F_BEFORE))
    return gotref_words (e, w);
  return 1;
}

/* The non-likely branch with the opposite condition of the conditional
   branch WORD, with a zero offset; 0 if there is none.  */

static uint32_t
invert_branch (uint32_t word)
{
  uint32_t op = word >> 26, base = word & 0x03ff0000;

  switch (op)
    {
    case 0x04: case 0x14: return (0x05u << 26) | base;	/* beq(l) -> bne */
    case 0x05: case 0x15: return (0x04u << 26) | base;	/* bne(l) -> beq */
    case 0x06: case 0x16: return (0x07u << 26) | base;	/* blez(l) -> bgtz */
    case 0x07: case 0x17: return (0x06u << 26) | base;	/* bgtz(l) -> blez */
    case OP_REGIMM:
      switch ((word >> 16) & 0x1f)
	{
	case 0x00: case 0x02:	/* bltz(l) -> bgez */
	  return (word & 0xffe00000) | (0x01u << 16);
	case 0x01: case 0x03:	/* bgez(l) -> bltz */
	  return word & 0xffe00000;
	default:
	  return 0;
	}
    case 0x11:
      /* bc1f/bc1t(l): flip tf, clear nd.  */
      if (((word >> 21) & 0x1f) == 0x08)
	return (word & 0xfffc0000) ^ 0x00010000;
      return 0;
    default:
      return 0;
    }
}

static uint32_t gp_guard_words (const struct emitter *e);

/* Words of the translation planned in SN.  */

static uint32_t
xlate_words (const struct emitter *e, const struct snippet *sn)
{
  return 14 + (sn->guard ? gp_guard_words (e) : 0)
	 + (sn->n_spill > 0 ? 2 + 2 * sn->n_spill : 0);
}

/* One layout pass: fill map and insn_new and set text_size.  */

/* Words of a probe site and of a probe stub (see put_probe_stub); a
   site calls the last stub laid out before it, and a new copy of the
   stub goes in (behind a branch over it) when that one is further than
   PROBE_STUB_REACH bytes, well within the reach of bal.  */
#define PROBE_SITE_WORDS	7
#define PROBE_STUB_WORDS	68
#define PROBE_STUB_REACH	0x18000

/* Lay out the probe site at word W at *PC, deciding on its stub;
   *LAST_STUB is the last stub laid out (0: none yet).  REUSE: a site
   already placed at this word chose the stub.  */

static void
layout_probe_site (struct emitter *e, long w, uint32_t *pc,
		   uint32_t *last_stub, bool reuse)
{
  if (!reuse)
    {
      e->probe_new_stub[w] = *last_stub == 0
			     || *pc - *last_stub > PROBE_STUB_REACH;
      if (e->probe_new_stub[w])
	{
	  *last_stub = *pc + 8;
	  *pc += 4 * (2 + PROBE_STUB_WORDS);
	}
      e->probe_stub[w] = *last_stub;
    }
  *pc += 4 * PROBE_SITE_WORDS;
}

/* Send the branches of a function to its own entry past the entry
   probe: a loop back to the entry is not a call.  */

static void
retarget_entry_branches (struct emitter *e)
{
  const struct cfg *cfg = &e->a->cfg;
  const struct code *code = &e->a->code;

  for (size_t i = 0; i < cfg->n_blocks; i++)
    {
      const struct block *b = &cfg->blocks[i];
      const struct insn *slot;
      const struct insn *ctl = cfg_block_control (code, b, &slot);
      long t, w;

      if (ctl == NULL || (ctl->kind != INSN_BRANCH && ctl->kind != INSN_JUMP)
	  || ctl->op == OP_J)
	continue;
      t = emit_word_index (e, ctl->target);
      w = emit_word_index (e, ctl->addr);
      if (t < 0 || !(e->probe[t] & PROBE_ENTRY) || e->plans[i].edge
	  || cfg_function_at (cfg, ctl->target) != &cfg->funcs[b->func])
	continue;
      e->retarget[w] = e->past_probe[t];
    }
}

/* The increments waiting for their carry paths: how many, and where
   the first of them starts (layout and emission alike).  */
struct island
{
  size_t n;
  uint32_t first;
  bool off;			/* Folded counters: no carry paths.  */
};

/* Note an increment at PC in ISL.  */

static void
island_add (struct island *isl, uint32_t pc)
{
  if (isl->off)
    return;
  if (isl->n++ == 0)
    isl->first = pc;
}

/* True if the island ISL must be written after block B (planned in P,
   the last block if LAST), the text having reached PC: after code that
   never falls through, after the last block, or when the first waiting
   increment is about to lose reach.  *OVER is set when control may
   fall into the island, which then starts with a jump over it.  */

static bool
island_due (const struct emitter *e, const struct block *b,
	    const struct count_plan *p, bool last, uint32_t pc,
	    const struct island *isl, bool *over)
{
  const struct insn *slot;
  const struct insn *ctl;

  if (isl->n == 0)
    return false;
  ctl = cfg_block_control (&e->a->code, b, &slot);
  *over = !p->edge
	  && ((b->flags & BLOCK_F_SLOT_ENTRY)
	      || (!(b->flags & (BLOCK_F_RETURN | BLOCK_F_INDIRECT))
		  && (ctl == NULL || slot == NULL
		      || ctl->kind != INSN_JUMP)));
  return !*over || last || pc - isl->first >= ISLAND_REACH;
}

static const struct insn *single_leave_fill (const struct emitter *e,
					     const struct insn *ctl,
					     const struct snippet *sn);

static void
layout_pass (struct emitter *e)
{
  const struct analysis *a = e->a;
  uint32_t pc = e->text_addr;
  uint32_t last_stub = 0;
  struct island isl = { 0, 0, e->folded };

  for (size_t i = 0; i < a->cfg.n_blocks; i++)
    {
      const struct block *b = &a->cfg.blocks[i];
      struct count_plan *p = &e->plans[i];
      long ws = emit_word_index (e, b->start);
      bool over;

      if (e->needs_pad[ws])
	{
	  e->pad[ws] = pc + 8;
	  pc += 4 * PAD_WORDS;
	}
      e->map[ws] = pc;
      if (e->probe[ws] & PROBE_ENTRY)
	{
	  layout_probe_site (e, ws, &pc, &last_stub, false);
	  e->past_probe[ws] = pc;
	}
      if (p->iv)
	pc += 4 * (p->iv_stack ? 2 : 1);
      for (uint32_t at = b->start; at < b->end; at += 4)
	{
	  long w = emit_word_index (e, at);
	  if (at == p->at && !p->edge && !p->derived && !p->iv && p->s.jump
	      && e->single)
	    {
	      /* The branch's slot instruction, the increment, its test
		 (in place of the branch) and 4 words of way out; folded,
		 the increment and a branch with the store in its slot.  */
	      e->insn_new[w + 1] = pc;
	      if (at != b->start)
		e->map[w] = pc;
	      e->map[w + 1] = pc;
	      pc += 4 * leaving_words (e, &p->s);
	      island_add (&isl, pc);
	      e->insn_new[w] = pc - 4 * (e->folded ? 2 : 6);
	      break;
	    }
	  if (at == p->at && !p->edge && !p->derived && !p->iv)
	    {
	      pc += 4 * snippet_words (e, &p->s);
	      island_add (&isl, pc);
	      if (p->s.hoist)
		{
		  /* The instruction is the snippet's last word.  */
		  e->insn_new[w] = pc - 4;
		  if (at != b->start)
		    e->map[w] = pc - 4;
		  continue;
		}
	      if (p->s.jump)
		{
		  /* The branch is the branch-likely, the fourth word from
		     the end, and its delay slot instruction the next, the
		     last of the block.  */
		  e->insn_new[w] = pc - 16;
		  e->insn_new[w + 1] = pc - 12;
		  if (at != b->start)
		    e->map[w] = pc - 4 * snippet_words (e, &p->s);
		  e->map[w + 1] = pc - 12;
		  break;
		}
	      if (p->s.skip)
		{
		  /* The instruction is the slot of the branch-likely, the
		     third word from the end; code that came here would
		     run the increment with it.  */
		  e->insn_new[w] = pc - 12;
		  if (at != b->start)
		    e->map[w] = pc - 4 * snippet_words (e, &p->s);
		  continue;
		}
	    }
	  if (e->probe[w] & PROBE_EXIT)
	    layout_probe_site (e, w, &pc, &last_stub,
			       (e->probe[w] & PROBE_ENTRY) != 0);
	  if (e->xlate[w].kind != 0xff)
	    pc += 4 * xlate_words (e, &e->xlate[w]);
	  if (e->sys_hook[w])
	    pc += 4 * SYSHOOK_WORDS;
	  if (at != b->start)
	    e->map[w] = pc;
	  pc += 4 * gotref_before_words (e, w);
	  e->insn_new[w] = pc;
	  pc += 4 * insn_words (e, w, code_insn_at (&a->code, at));
	}
      if (p->edge)
	{
	  const struct insn *slot;
	  const struct insn *ctl = cfg_block_control (&a->code, b, &slot);
	  if (p->has_fall)
	    {
	      pc += 4 * snippet_words (e, &p->s);
	      island_add (&isl, pc);
	      pc += 4 * 2;
	    }
	  p->stub = pc;
	  e->retarget[emit_word_index (e, ctl->addr)] = pc;
	  pc += 4 * snippet_words (e, &p->taken);
	  island_add (&isl, pc);
	  pc += 4 * 2;
	}
      else if (p->iv)
	{
	  /* The branch back goes past the copy.  */
	  const struct insn *slot;
	  const struct insn *ctl = cfg_block_control (&a->code, b, &slot);
	  e->retarget[emit_word_index (e, ctl->addr)] = e->insn_new[ws];
	  pc += 4 * loop_exit_words (e, p);
	}
      else if (p->at == b->end && !p->derived)
	{
	  pc += 4 * snippet_words (e, &p->s);
	  island_add (&isl, pc);
	}
      if (p->count_taken)
	{
	  const struct insn *slot;
	  const struct insn *ctl = cfg_block_control (&a->code, b, &slot);
	  if (single_leave_fill (e, ctl, &p->taken_s) != NULL)
	    {
	      /* The fill, the increment and its way out.  */
	      pc += 4 * leaving_words (e, &p->taken_s);
	      island_add (&isl, pc);
	    }
	  else
	    {
	      pc += 4 * snippet_words (e, &p->taken_s);
	      island_add (&isl, pc);
	      pc += 4 * 2;
	    }
	  e->retarget[emit_word_index (e, ctl->addr)] = pc;
	}
      if (p->count_fall)
	{
	  pc += 4 * snippet_words (e, &p->fall_s);
	  island_add (&isl, pc);
	}
      if (island_due (e, b, p, i + 1 == a->cfg.n_blocks, pc, &isl, &over))
	{
	  pc += 4 * ((over ? 2 : 0) + CARRY_WORDS * (uint32_t) isl.n);
	  isl.n = 0;
	}
    }
  e->text_size = pc - e->text_addr;
  if (e->calls)
    retarget_entry_branches (e);
}

/* A register other than ra, dead in DEAD, or 0.  */

static unsigned
dead_reg (uint64_t dead)
{
  for (size_t i = 0; i < sizeof scratch_order; i++)
    if (scratch_order[i] != REG_RA && (dead & R (scratch_order[i])))
      return scratch_order[i];
  return 0;
}

/* The prologue entry whose lui is at ADDR, or NULL.  */
static const struct reloc_entry *prologue_at (const struct reloc_table *t,
					      uint32_t addr);

/* Choose the long form of the direct branch INSN (word W), which cannot
   reach its target.  The target is reached through a register R that
   is dead where it is written: loaded from a new GOT entry when gp is
   valid, else built relative to a `bal', which also needs ra dead (a
   call overwrites ra anyway).  False with *ERRMSG when nothing fits.  */

static bool
choose_long (struct emitter *e, const struct insn *insn, long w,
	     char **errmsg)
{
  const struct code *code = &e->a->code;
  const struct cfg *cfg = &e->a->cfg;
  const struct block *b = cfg_block_at (cfg, insn->addr);
  const struct block *t = cfg_block_at (cfg, insn->target);
  const struct reloc_entry *pro = prologue_at (&e->a->relocs, insn->target);
  const struct insn *slot = code_insn_at (code, insn->addr + 4);
  bool call = insn->kind == INSN_CALL && !(insn->flags & INSN_F_COND);
  bool jump = insn->kind == INSN_JUMP;
  bool cond = insn->kind == INSN_BRANCH && invert_branch (insn->word) != 0;
  bool gp, save_ra;
  uint64_t dead, moved = 0;
  unsigned reg;
  uint32_t k;

  if (b == NULL || t == NULL || slot == NULL || !(call || jump || cond))
    goto none;
  /* A got-ref addiu of the slot that runs before the branch
     (GOTREF_F_BEFORE) has written its register already.  */
  if (gotref_before_words (e, w) != 0)
    moved = R (slot->rt) | R (slot->rs)
	    | (GOTREF_KIND (e->gotref_form[w + 1]) == GOTREF_TMP
	       ? R (GOTREF_REG (e->gotref_form[w + 1])) : 0);
  if ((call || jump) && !(moved & R (REG_T9))
      && ((pro != NULL && pro->via == VIA_T9 && pro->target == insn->target)
	  || t9_holds (e, insn, insn->target)))
    {
      /* t9 holds the target: the only way the original can work.  */
      e->long_kind[w] = LONG_T9;
      return true;
    }

  /* For a call, R is written before the slot runs, so it must be dead
     at the branch; for a jump or branch the slot runs first (it is
     moved before R is written), and R must be dead at the target.  */
  /* A call or jump loads R before its slot runs; an inverted branch
     after (the slot may be the reload of gp after a call).  */
  if (!call && (slot->writes & R (REG_GP)))
    gp = slot->op == OP_LW && slot->rs == REG_SP;
  else
    gp = e->gp_valid[w];
  if (call)
    dead = ~cfg_live_at (code, cfg, b, insn->addr);
  else
    dead = ~t->live_in;
  /* A tail jump to another function's entry: the o32 ABI passes
     nothing in at, so at is dead there whatever liveness, which gives
     up at function boundaries, says.  */
  if (jump && gp && t->func != b->func
      && cfg->funcs[t->func].entry == insn->target
      && !(slot->reads & R (REG_AT)))
    dead |= R (REG_AT);
  dead &= SCRATCH_MASK & ~moved;
  /* A jump's register reaches the target, where t9 may still count.  */
  if (!call)
    dead &= ~keep_t9 (e, insn->target);
  reg = dead_reg (dead);
  if (reg == 0 && !call && t->start == insn->target)
    {
      /* Nothing is free at the target: save at and ra, and land on a
	 pad before the target that puts them back.  */
      e->needs_pad[emit_word_index (e, insn->target)] = 1;
      e->long_kind[w] = jump ? LONG_JUMP_PAD : LONG_COND_PAD;
      return true;
    }
  if (reg == 0)
    goto none;
  /* Without gp, a bal finds the target and clobbers ra, which a jump
     must then save unless it is dead at the target.  */
  save_ra = !gp && !call && !(dead & R (REG_RA));
  if (gp)
    {
      k = got_target_entry (&e->got, insn->target);
      if (k == (uint32_t) -1)
	{
	  *errmsg = strdup ("out of memory");
	  return false;
	}
      e->long_slot[w] = k;
    }
  e->long_reg[w] = (uint8_t) (reg | (save_ra ? LONG_SAVE_RA : 0));
  e->long_kind[w] = call ? (gp ? LONG_CALL_GP : LONG_CALL_PC)
		    : jump ? (gp ? LONG_JUMP_GP : LONG_JUMP_PC)
		    : (gp ? LONG_COND_GP : LONG_COND_PC);
  return true;

 none:
  if (asprintf (errmsg, "0x%08x: branch out of range in the profiled code, "
		"and no long form applies", insn->addr) < 0)
    *errmsg = NULL;
  return false;
}

/* The plan whose increment leaves by the branch INSN, or NULL.  */

static struct count_plan *
jump_plan (struct emitter *e, const struct insn *insn)
{
  const struct block *b = cfg_block_at (&e->a->cfg, insn->addr);
  struct count_plan *p;

  if (b == NULL)
    return NULL;
  p = &e->plans[b - e->a->cfg.blocks];
  return p->s.jump && !p->derived && !p->edge && p->at == insn->addr
	 ? p : NULL;
}

bool
emit_layout (struct emitter *e, uint32_t text_addr, char **errmsg)
{
  const struct code *code = &e->a->code;

  e->text_addr = text_addr;
  for (int pass = 0; pass < 32; pass++)
    {
      bool changed = false;

      layout_pass (e);
      for (size_t s = 0; s < code->n_sections; s++)
	for (size_t i = 0; i < code->sections[s].n_insns; i++)
	  {
	    const struct insn *insn = &code->sections[s].insns[i];
	    long w = (long) (e->section_base[s] + i);
	    int64_t off;
	    struct count_plan *jp;

	    if (e->long_kind[w] != LONG_NONE
		|| (insn->kind != INSN_BRANCH && insn->kind != INSN_JUMP
		    && insn->kind != INSN_CALL)
		|| insn->op == OP_J || insn->op == OP_JAL
		|| emit_word_index (e, insn->target) < 0
		|| (insn->kind == INSN_CALL && insn->target == insn->addr + 8))
	      continue;
	    off = ((int64_t) (e->retarget[w] != 0 ? e->retarget[w]
			      : emit_map (e, insn->target))
		   - (int64_t) (e->insn_new[w] + 4)) / 4;
	    if (off >= -32768 && off <= 32767)
	      continue;
	    if ((jp = jump_plan (e, insn)) != NULL)
	      {
		/* The increment's branch-likely does not reach: the
		   branch stays, and gets a long form if it needs one.  */
		jp->s.jump = jp->s.skip = false;
		e->n_jumps--;
		changed = true;
		continue;
	      }
	    if (!choose_long (e, insn, w, errmsg))
	      return false;
	    if (e->long_kind[w] != LONG_T9)
	      changed = true;
	    e->n_long_calls++;
	  }
      if (!changed)
	return finish_got (e, errmsg);
    }
  *errmsg = strdup ("the layout of long branches does not settle");
  return false;
}

bool
emit_window_fit (struct emitter *e, char **errmsg)
{
  const struct cfg *cfg = &e->a->cfg;
  struct new_got *g = &e->got;

  for (;;)
    {
      uint32_t got_bytes = (4 * (g->n_old + g->n_new) + 7) & ~7u;
      uint32_t cap = got_bytes < 0x7ff0 + 0x7ff8
		     ? (0x7ff0 + 0x7ff8 - got_bytes) / emit_window_entry (e) : 0;
      uint32_t *order;
      size_t drop;

      if (e->n_window <= cap)
	return true;
      /* Give the coldest window blocks their ordinary counters back.  */
      order = malloc ((e->n_window + 1) * sizeof *order);
      if (order == NULL)
	{
	  *errmsg = strdup ("out of memory");
	  return false;
	}
      memcpy (order, e->window_blocks, e->n_window * sizeof *order);
      window_weight = e->derive.weight;
      qsort (order, e->n_window, sizeof *order, compare_by_weight);
      drop = e->n_window - cap + cap / 16;
      for (size_t k = e->n_window - drop; k < e->n_window; k++)
	{
	  struct count_plan *p;
	  e->window_slot[order[k]] = -1;
	  if (order[k] >= cfg->n_blocks)
	    {
	      edge_snippet (e, order[k] - cfg->n_blocks)->kind = COUNT_GP;
	      continue;
	    }
	  p = &e->plans[order[k]];
	  if (!plan_block (e, &cfg->blocks[order[k]], p, errmsg))
	    {
	      free (order);
	      return false;
	    }
	}
      free (order);
      number_window (e);
      count_plans (e);
      free (g->new_values);
      g->new_values = NULL;
      if (!emit_layout (e, e->text_addr, errmsg))
	return false;
    }
}

/* Output cursor.  */
/* An increment waiting for its carry path: where it starts (its ll,
   where the carry path goes back to retry), its registers and the
   offset of the counter's low word; with LEAVE, it is a single-thread
   increment that leaves by its carry test (put_llsc).  */
struct carry
{
  uint32_t retry;
  uint8_t r1, r2;
  bool leave;
  int32_t lo;
};

struct cursor
{
  const struct emitter *e;
  unsigned char *out;		/* The byte of TEXT_ADDR.  */
  uint32_t pc;			/* Address of the next word.  */
  uint32_t text_addr;		/* E's.  */
  bool big_endian;		/* The object's.  */
  struct island isl;		/* The increments waiting ...  */
  struct carry *carries;	/* ... and their carry paths.  */
  size_t max_carries;
  uint32_t slot_word;		/* For the retry branch's delay slot when
				   put_llsc has no FILL, instead of a nop.  */
  bool failed;			/* Out of memory or reach.  */
};

static inline void
put (struct cursor *c, uint32_t word)
{
  unsigned char *p = c->out + (c->pc - c->text_addr);

  if (c->big_endian)
    {
      p[0] = word >> 24;
      p[1] = word >> 16;
      p[2] = word >> 8;
      p[3] = word;
    }
  else
    {
      p[0] = word;
      p[1] = word >> 8;
      p[2] = word >> 16;
      p[3] = word >> 24;
    }
  c->pc += 4;
}

/* Save the registers SN must spill below a lowered sp; lowering sp
   keeps them safe from signal handlers.  */

static void
put_spill (struct cursor *c, const struct snippet *sn)
{
  if (sn->n_spill == 0)
    return;
  put (c, itype (OP_ADDIU, REG_SP, REG_SP, (uint32_t) -16));
  for (unsigned i = 0; i < sn->n_spill; i++)
    put (c, itype (OP_SW, REG_SP, sn->spill[i], 4 * i));
}

/* Restore what put_spill saved, but for register DONE (0: none),
   restored already.  */

static void
put_unspill (struct cursor *c, const struct snippet *sn, unsigned done)
{
  if (sn->n_spill == 0)
    return;
  for (unsigned i = sn->n_spill; i-- > 0;)
    if (sn->spill[i] != done)
      put (c, itype (OP_LW, REG_SP, sn->spill[i], 4 * i));
  put (c, itype (OP_ADDIU, REG_SP, REG_SP, 16));
}

static bool put_insn_body (struct cursor *c, const struct insn *insn,
			   char **errmsg);

/* Rewrite the word at PC, already written, to WORD.  */

static void
put_at (struct cursor *c, uint32_t pc, uint32_t word)
{
  uint32_t save = c->pc;

  c->pc = pc;
  put (c, word);
  c->pc = save;
}

static bool branch_offset (struct cursor *c, uint32_t from, uint32_t to,
			   uint32_t *off);

/* The end of an atomic increment of the counter at LO(R1), scratch R2,
   whose ll is N words back: the branch back to retry after a failed
   store, with FILL or C's slot_word in its slot; with neither, a
   branch-likely back past the ll with the ll in its slot, which runs
   only when the store failed; with SKIP, a branch-likely out to SKIP_TO
   (or past this code, when 0) when the store succeeded, with FILL in
   its slot, then the branch back to retry (put_llsc).  */

static void
put_llsc_retry (struct cursor *c, unsigned r1, unsigned r2, int32_t lo,
		const struct insn *fill, bool skip, uint32_t skip_to,
		uint32_t n)
{
  uint32_t off;

  if (!skip && fill == NULL && c->slot_word == 0)
    {
      put (c, itype (OP_BEQL, r2, 0, -n));		/* to retry + 4 */
      put (c, itype (OP_LL, r1, r2, (uint32_t) lo));
      return;
    }
  if (!skip)
    put (c, itype (OP_BEQ, r2, 0, -(n + 1)));		/* to retry */
  else
    {
      if (skip_to == 0)
	skip_to = c->pc + 16;
      if (!branch_offset (c, c->pc, skip_to, &off))
	return;
      put (c, itype (OP_BNEL, r2, 0, off));		/* out */
    }
  if (fill == NULL)
    put (c, c->slot_word);
  else
    {
      char *msg = NULL;
      if (!put_insn_body (c, fill, &msg))
	c->failed = true;
      free (msg);
    }
  if (skip)
    {
      put (c, itype (OP_BEQ, 0, 0, -(n + 3)));		/* to retry */
      put (c, 0);
    }
}

/* put_llsc's increment of a folded counter (struct emitter): the same
   forms without the carry test, one word and one instruction run
   fewer.  Single: lw, addiu, sw; leaving for SKIP_TO, lw, addiu, a
   branch to SKIP_TO with the store in its slot.  Atomic: ll, addiu, sc
   and the branch back to retry after a failed store, with FILL or C's
   slot_word in its slot, or a branch-likely back past the ll with the
   ll in its slot; with SKIP, a branch-likely out when the store
   succeeded, with FILL in its slot, then the branch back to retry.  */

static void
put_folded (struct cursor *c, unsigned r1, unsigned r2, int32_t lo,
	    const struct insn *fill, bool skip, uint32_t skip_to)
{
  uint32_t off;

  if (c->e->single)
    {
      put (c, itype (OP_LW, r1, r2, (uint32_t) lo));
      put (c, itype (OP_ADDIU, r2, r2, 1));
      if (skip_to != 0)
	{
	  if (!branch_offset (c, c->pc, skip_to, &off))
	    return;
	  put (c, itype (OP_BEQ, 0, 0, off));		/* out */
	}
      put (c, itype (OP_SW, r1, r2, (uint32_t) lo));
      return;
    }
  put (c, itype (OP_LL, r1, r2, (uint32_t) lo));	/* retry: */
  put (c, itype (OP_ADDIU, r2, r2, 1));
  put (c, itype (OP_SC, r1, r2, (uint32_t) lo));
  put_llsc_retry (c, r1, r2, lo, fill, skip, skip_to, 3);
}

/* The ll/sc increment of the 64-bit counter at LO(R1), scratch R2.  The
   usual path runs 5 instructions: ll, addiu, the branch that tests for
   a carry out of the low word with the store-conditional in its delay
   slot, and the branch back to retry after a failed store, whose slot
   holds FILL, the program's own next instruction when hoistable allows
   it (then the increment costs 4), or C's slot_word; with neither, it
   is a branch-likely back past the ll, with the ll in its slot, run
   only when the store failed.  With SKIP, the branch
   after the store is instead a branch-likely taken when the store
   succeeded, with FILL in its slot, to SKIP_TO (or, when 0, to the word
   after the increment), followed by the branch back to retry: FILL runs
   once, only on the way out, so it need not be one that may run again
   (2 more words, never run).  A carry (once in 2^32 counts) goes out
   of line to the island put_island writes: it retries if the store of
   the zero failed, else increments the high word and comes back to
   the branch after the store, with R2 = 1 as after a store that
   succeeded.
   A single-thread increment (--counter-update=single) is lw, addiu,
   the carry test with the store in its slot (4 words, no FILL).  With
   SKIP_TO it leaves by that test instead, a branch taken to SKIP_TO
   when there was no carry, and a carry falls through to the jump to
   its carry path, which comes back to a jump to SKIP_TO after it (4
   more words, never run).  */

static void
put_llsc (struct cursor *c, unsigned r1, unsigned r2, int32_t lo,
	  const struct insn *fill, bool skip, uint32_t skip_to)
{
  struct carry *k;
  uint32_t off;

  if (c->e->folded)
    {
      put_folded (c, r1, r2, lo, fill, skip, skip_to);
      return;
    }
  if (c->isl.n == c->max_carries)
    {
      size_t n = c->max_carries ? 2 * c->max_carries : 256;
      struct carry *p = realloc (c->carries, n * sizeof *p);

      if (p == NULL)
	{
	  c->failed = true;
	  return;
	}
      c->carries = p;
      c->max_carries = n;
    }
  k = &c->carries[c->isl.n];
  k->retry = c->pc;
  k->r1 = (uint8_t) r1;
  k->r2 = (uint8_t) r2;
  k->lo = lo;
  k->leave = c->e->single && skip_to != 0;
  if (k->leave)
    {
      if (!branch_offset (c, c->pc + 8, skip_to, &off))
	return;
      put (c, itype (OP_LW, r1, r2, (uint32_t) lo));
      put (c, itype (OP_ADDIU, r2, r2, 1));
      put (c, itype (OP_BNE, r2, 0, off));		/* out */
      put (c, itype (OP_SW, r1, r2, (uint32_t) lo));
      put (c, itype (OP_BEQ, 0, 0, 0));			/* to carry, later */
      put (c, 0);
      if (!branch_offset (c, c->pc, skip_to, &off))
	return;
      put (c, itype (OP_BEQ, 0, 0, off));		/* back: out */
      put (c, 0);
      return;
    }
  if (c->e->single)
    {
      put (c, itype (OP_LW, r1, r2, (uint32_t) lo));
      put (c, itype (OP_ADDIU, r2, r2, 1));
      put (c, itype (OP_BEQ, r2, 0, 0));		/* to carry, later */
      put (c, itype (OP_SW, r1, r2, (uint32_t) lo));
      return;
    }
  put (c, itype (OP_LL, r1, r2, (uint32_t) lo));	/* retry: */
  put (c, itype (OP_ADDIU, r2, r2, 1));
  put (c, itype (OP_BEQ, r2, 0, 0));			/* to carry, later */
  put (c, itype (OP_SC, r1, r2, (uint32_t) lo));
  put_llsc_retry (c, r1, r2, lo, fill, skip, skip_to, 4);
}							/* done: */

/* The offset field of a branch at FROM to TO, or false (and C failed)
   when it does not reach.  */

static bool
branch_offset (struct cursor *c, uint32_t from, uint32_t to, uint32_t *off)
{
  int64_t d = ((int64_t) to - (int64_t) (from + 4)) / 4;

  if (d < -32768 || d > 32767)
    {
      c->failed = true;
      return false;
    }
  *off = (uint32_t) d & 0xffff;
  return true;
}

/* Write the carry paths of the increments waiting in C, after a jump
   over them if OVER, and point their branches there.  */

static void
put_island (struct cursor *c, bool over)
{
  uint32_t off;

  if (c->failed)
    return;
  if (over)
    {
      put (c, itype (OP_BEQ, 0, 0, CARRY_WORDS * (uint32_t) c->isl.n + 1));
      put (c, 0);
    }
  for (size_t i = 0; i < c->isl.n; i++)
    {
      const struct carry *k = &c->carries[i];
      uint32_t r1 = k->r1, r2 = k->r2;
      int32_t hi_lo;

      if (k->leave)
	{
	  if (!branch_offset (c, k->retry + 16, c->pc, &off))
	    return;
	  put_at (c, k->retry + 16, itype (OP_BEQ, 0, 0, off));
	}
      else
	{
	  if (!branch_offset (c, k->retry + 8, c->pc, &off))
	    return;
	  put_at (c, k->retry + 8, itype (OP_BEQ, r2, 0, off));
	}
      if (!branch_offset (c, c->pc, k->retry, &off))	/* carry: */
	return;
      /* A single-thread increment's store cannot fail.  */
      put (c, c->e->single ? 0 : itype (OP_BEQ, r2, 0, off)); /* sc failed */
      put (c, 0);
      /* The high word through r1 + 4: LO + 4 may not fit 16 bits.  A
	 window counter is off gp, whose LO + 4 fits.  */
      hi_lo = k->lo;
      if (r1 == REG_GP)
	{
	  put (c, 0);
	  hi_lo += 4;
	}
      else
	put (c, itype (OP_ADDIU, r1, r1, 4));
      if (c->e->single)
	{
	  put (c, itype (OP_LW, r1, r2, (uint32_t) hi_lo));
	  put (c, itype (OP_ADDIU, r2, r2, 1));
	  put (c, itype (OP_SW, r1, r2, (uint32_t) hi_lo));
	  put (c, 0);
	  put (c, 0);
	}
      else
	{
	  put (c, itype (OP_LL, r1, r2, (uint32_t) hi_lo));	/* high: */
	  put (c, itype (OP_ADDIU, r2, r2, 1));
	  put (c, itype (OP_SC, r1, r2, (uint32_t) hi_lo));
	  put (c, itype (OP_BEQ, r2, 0, (uint32_t) -4));	/* to high */
	  put (c, 0);
	}
      /* Back to the branch after the store, R2 being 1: on past the
	 increment with its delay slot, as after any store that
	 succeeded (a single-thread increment ends there; one that
	 leaves by its carry test goes back to its jump out).  */
      if (!branch_offset (c, c->pc, k->retry + (k->leave ? 24 : 16),
			  &off))
	return;
      put (c, itype (OP_BEQ, 0, 0, off));
      put (c, 0);
    }
  c->isl.n = 0;
}

/* Write the way to counter INDEX planned in P (for code of block
   BLOCK, whose function's entry t9 may hold) into P's base register,
   sp lowered by 16 when P saved registers; the counter's low word is
   then at *LO off it.  Not for COUNT_WINDOW, whose base is gp.  */

static void
put_counter_base (struct cursor *c, size_t index, size_t block,
		  const struct snippet *p, int32_t *lo)
{
  const struct emitter *e = c->e;
  uint32_t counter = e->counters + 8 * (uint32_t) index;
  uint32_t chunk = (8 * (uint32_t) index) >> 16;
  uint32_t slot = e->got.n_old_local + chunk;
  unsigned r1 = snippet_base_reg (p);
  uint32_t hi;

  *lo = (int32_t) (8 * (uint32_t) index - (chunk << 16)) - 0x8000;
  switch (p->kind)
    {
    case COUNT_GP:
      put (c, itype (OP_LW, REG_GP, r1, 4 * slot - 0x7ff0));
      break;
    case COUNT_SAVED_GP:
      put (c, itype (OP_LW, REG_SP, r1,
		     (uint32_t) (p->saved_gp + (p->n_spill > 0 ? 16 : 0))));
      put (c, itype (OP_LW, r1, r1, 4 * slot - 0x7ff0));
      break;
    case COUNT_T9:
      {
	const struct cfg *cfg = &e->a->cfg;
	const struct function *f = &cfg->funcs[cfg->blocks[block].func];
	split_hi_lo (counter - emit_map (e, f->entry), &hi, lo);
	put (c, itype (OP_LUI, 0, r1, hi));
	put (c, addu (r1, r1, REG_T9));
      }
      break;
    case COUNT_ABS:
      split_hi_lo (counter, &hi, lo);
      put (c, itype (OP_LUI, 0, r1, hi));
      break;
    case COUNT_PC:
      /* bal lands on the addu, which is the counter's base.  */
      split_hi_lo (counter - (c->pc + 8), &hi, lo);
      put (c, itype (OP_REGIMM, 0, REGIMM_BGEZAL, 1));
      put (c, itype (OP_LUI, 0, r1, hi));
      put (c, addu (r1, r1, REG_RA));
      break;
    default:
      c->failed = true;
      break;
    }
}

/* Write the increment of counter INDEX planned in P, in the code of
   block BLOCK (whose function's entry t9 may hold), with HOIST in its
   delay slot (put_llsc's FILL; may be NULL); in P's skip form, or in
   that form going on to SKIP_TO when SKIP_TO is not 0.  */

static void
put_snippet (struct cursor *c, size_t index, size_t block,
	     const struct snippet *p, const struct insn *hoist,
	     uint32_t skip_to)
{
  bool skip = p->skip || skip_to != 0;
  const struct emitter *e = c->e;
  unsigned done = 0;
  int32_t lo;

  put_spill (c, p);
  done = restore_in_slot (e, p);
  if (done != 0)
    {
      if (hoist != NULL || skip)
	c->failed = true;
      for (unsigned i = 0; i < p->n_spill; i++)
	if (p->spill[i] == done)
	  c->slot_word = itype (OP_LW, REG_SP, done, 4 * i);
    }
  if (p->kind == COUNT_WINDOW)
    {
      int32_t off = (int32_t) (e->window + emit_window_entry (e)
			       * (uint32_t) e->window_slot[index]
			       - e->got.gp);
      if (e->window_slot[index] < 0 || off < -0x8000 || off > 0x7ff8 - 4)
	c->failed = true;
      else
	put_llsc (c, REG_GP, p->regs[0], off, hoist, skip, skip_to);
    }
  else
    {
      put_counter_base (c, index, block, p, &lo);
      put_llsc (c, snippet_base_reg (p), snippet_data_reg (p), lo, hoist,
		skip, skip_to);
    }
  c->slot_word = 0;
  put_unspill (c, p, done);
  /* The layout notes the increment where the snippet ends.  */
  island_add (&c->isl, c->pc);
}

/* Write the way out of the loop of block BLOCK planned in P: the turns
   taken since the copy (the induction register's difference from it,
   shifted) added to the 64-bit counter BLOCK, atomically unless
   --counter-update=single; a carry out of the low word (sltu) goes
   into the high word.  The registers P's snippet saves are saved
   around it.  */

static void
put_loop_exit (struct cursor *c, size_t block, const struct count_plan *p)
{
  const struct emitter *e = c->e;
  const struct snippet *sn = &p->s;
  unsigned r1 = snippet_base_reg (sn), r2 = snippet_data_reg (sn);
  unsigned carry = sn->regs[sn->kind == COUNT_PC ? 3 : 2];
  unsigned d = p->iv_save;
  uint32_t retry, high, off;
  int32_t lo;

  if (p->iv_stack)
    {
      d = sn->regs[3];
      if (sn->kind == COUNT_PC)
	carry = REG_RA;
    }
  put_spill (c, sn);
  put_counter_base (c, block, block, sn, &lo);
  if (c->failed)
    return;
  if (p->iv_stack)
    put (c, itype (OP_LW, REG_SP, d, sn->n_spill > 0 ? 16 : 0));
  if (p->iv_down)
    put (c, rtype (FUNCT_SUBU, d, p->iv_reg, d, 0));
  else
    put (c, rtype (FUNCT_SUBU, p->iv_reg, d, d, 0));
  if (p->iv_shift != 0)
    put (c, rtype (FUNCT_SRL, 0, d, d, p->iv_shift));
  if (p->iv_inverse != 0)
    {
      put (c, itype (OP_LUI, 0, r2, p->iv_inverse >> 16));
      put (c, itype (OP_ORI, r2, r2, p->iv_inverse & 0xffff));
      put (c, rtype (FUNCT_MULTU, d, r2, 0, 0));
      put (c, rtype (FUNCT_MFLO, 0, 0, d, 0));
    }
  retry = c->pc;
  put (c, itype (e->single ? OP_LW : OP_LL, r1, r2, (uint32_t) lo));
  put (c, addu (r2, r2, d));
  if (!e->folded)
    put (c, rtype (FUNCT_SLTU, r2, d, carry, 0));
  put (c, itype (e->single ? OP_SW : OP_SC, r1, r2, (uint32_t) lo));
  if (!e->single && branch_offset (c, c->pc, retry, &off))
    {
      put (c, itype (OP_BEQ, r2, 0, off));
      put (c, 0);
    }
  if (!e->folded)
    {
      /* The high word through r1 + 4 (LO + 4 may not fit 16 bits).  */
      put (c, itype (OP_BEQ, carry, 0, e->single ? 4 : 6));
      put (c, itype (OP_ADDIU, r1, r1, 4));
      high = c->pc;
      put (c, itype (e->single ? OP_LW : OP_LL, r1, r2, (uint32_t) lo));
      put (c, itype (OP_ADDIU, r2, r2, 1));
      put (c, itype (e->single ? OP_SW : OP_SC, r1, r2, (uint32_t) lo));
      if (!e->single && branch_offset (c, c->pc, high, &off))
	{
	  put (c, itype (OP_BEQ, r2, 0, off));
	  put (c, 0);
	}
    }
  put_unspill (c, sn, 0);
  if (p->iv_stack)
    put (c, itype (OP_ADDIU, REG_SP, REG_SP, 8));
}

/* The prologue entry whose lui is at ADDR, or NULL.  Prologue entries
   come first in the sorted table, by address.  */

static const struct reloc_entry *
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

static bool
has_base (const struct insn *insn)
{
  return insn->op == OP_ADDIU || (insn->op >= 0x20 && insn->op <= 0x3f);
}


/* Write the jump (CALL: jalr) to the new address of the original code
   address TARGET through register R: from the new GOT entry K when
   USE_GP, else relative to a bal, which clobbers ra: with SAVE_RA, ra is
   kept below a lowered sp meanwhile.  Unless CALL (whose slot is the
   original one that follows), the jump's delay slot is written too.  */

static void
put_far (struct cursor *c, unsigned r, uint32_t target, uint32_t k,
	 bool use_gp, bool call, bool save_ra)
{
  const struct emitter *e = c->e;
  uint32_t jump = call ? (r << 21) | (REG_RA << 11) | 0x09 : (r << 21) | 0x08;

  if (use_gp)
    put (c, itype (OP_LW, REG_GP, r,
		   4 * (e->got.n_old_local + k) - 0x7ff0));
  else
    {
      uint32_t here, hi;
      int32_t lo;
      if (save_ra)
	{
	  put (c, itype (OP_ADDIU, REG_SP, REG_SP, (uint32_t) -8));
	  put (c, itype (OP_SW, REG_SP, REG_RA, 0));
	}
      here = c->pc + 8;
      split_hi_lo (emit_map (e, target) - here, &hi, &lo);
      put (c, itype (OP_REGIMM, 0, REGIMM_BGEZAL, 1));
      put (c, itype (OP_LUI, 0, r, hi));
      put (c, addu (r, r, REG_RA));
      put (c, itype (OP_ADDIU, r, r, (uint32_t) lo));
      if (save_ra)
	put (c, itype (OP_LW, REG_SP, REG_RA, 0));
    }
  put (c, jump);
  if (!call)
    put (c, save_ra ? itype (OP_ADDIU, REG_SP, REG_SP, 8) : 0);
}

/* Write the far jump to the restore pad before the block at the
   original address TARGET: at and ra are saved below a lowered sp, at
   gets the pad's address relative to a bal, and the pad restores both
   and sp.  */

static void
put_pad_jump (struct cursor *c, uint32_t target)
{
  const struct emitter *e = c->e;
  uint32_t here, hi;
  int32_t lo;

  put (c, itype (OP_ADDIU, REG_SP, REG_SP, (uint32_t) -8));
  put (c, itype (OP_SW, REG_SP, REG_AT, 0));
  put (c, itype (OP_SW, REG_SP, REG_RA, 4));
  here = c->pc + 8;
  split_hi_lo (e->pad[emit_word_index (e, target)] - here, &hi, &lo);
  put (c, itype (OP_REGIMM, 0, REGIMM_BGEZAL, 1));
  put (c, itype (OP_LUI, 0, REG_AT, hi));
  put (c, addu (REG_AT, REG_AT, REG_RA));
  put (c, itype (OP_ADDIU, REG_AT, REG_AT, (uint32_t) lo));
  put (c, (REG_AT << 21) | 0x08);	/* jr at */
  put (c, 0);
}

/* Words put_far writes, its delay slot included unless CALL.  */

static uint32_t
far_words (bool use_gp, bool call, bool save_ra)
{
  uint32_t n = use_gp ? 2 : 5 + (save_ra ? 3 : 0);

  return n + (call ? 0 : 1);
}

/* Write the long form of the branch INSN, word W.  */

static bool
put_long (struct cursor *c, const struct insn *insn, long w, char **errmsg)
{
  const struct emitter *e = c->e;
  unsigned kind = e->long_kind[w];
  unsigned r = e->long_reg[w] & ~LONG_SAVE_RA;
  bool save_ra = (e->long_reg[w] & LONG_SAVE_RA) != 0;
  uint32_t k = e->long_slot[w];
  const struct insn *dslot = code_insn_at (&e->a->code, insn->addr + 4);
  bool use_gp = kind == LONG_CALL_GP || kind == LONG_JUMP_GP
		|| kind == LONG_COND_GP;

  switch (kind)
    {
    case LONG_T9:
      put (c, insn->kind == INSN_CALL ? 0x0320f809u : 0x03200008u);
      return true;
    case LONG_CALL_GP:
    case LONG_CALL_PC:
      put_far (c, r, insn->target, k, use_gp, true, false);
      return true;
    case LONG_JUMP_PAD:
      if (dslot == NULL || !put_insn_body (c, dslot, errmsg))
	return false;
      put_pad_jump (c, insn->target);
      return true;
    case LONG_COND_PAD:
      if (dslot == NULL)
	return false;
      put (c, invert_branch (insn->word)
	      | (1 + PAD_JUMP_WORDS + (is_likely (insn) ? 1 : 0)));
      if (is_likely (insn))
	put (c, 0);
      if (!put_insn_body (c, dslot, errmsg))
	return false;
      put_pad_jump (c, insn->target);
      return true;
    case LONG_JUMP_GP:
    case LONG_JUMP_PC:
      /* The slot first, so that R need only be dead at the target.  */
      if (dslot == NULL || !put_insn_body (c, dslot, errmsg))
	return false;
      put_far (c, r, insn->target, k, use_gp, false, save_ra);
      return true;
    default:
      if (dslot == NULL)
	return false;
      {
	/* Skip over the far jump: branch-likely runs its slot only when
	   taken, so it goes after a nop, on the far jump's side.  */
	uint32_t skip = 1 + far_words (use_gp, false, save_ra)
			+ (is_likely (insn) ? 1 : 0);
	put (c, invert_branch (insn->word) | skip);
	if (is_likely (insn))
	  put (c, 0);
	if (!put_insn_body (c, dslot, errmsg))
	  return false;
	put_far (c, r, insn->target, k, use_gp, false, save_ra);
      }
      return true;
    }
}

/* Write the copy of INSN, unless it is the delay slot of a long
   conditional branch, which that branch wrote.  */

static bool
put_insn (struct cursor *c, const struct insn *insn, char **errmsg)
{
  long w = emit_word_index (c->e, insn->addr);

  if (w > 0 && long_takes_slot (c->e->long_kind[w - 1]))
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
	return false;
      if (!(x->writes & R (REG_GP)))
	continue;
      if (is_lui && x->op == OP_ADDIU && x->rs == REG_GP && x->rt == REG_GP)
	lui = insn, addiu = x;
      else if (!is_lui && x->op == OP_LUI && x->rt == REG_GP)
	lui = x, addiu = insn;
      break;
    }
  if (lui == NULL)
    return false;
  *hi = is_lui;
  return ((lui->word & 0xffff) << 16)
	 + (uint32_t) (int16_t) (addiu->word & 0xffff) == e->a->obj.gp;
}

/* Write the sequence that the got-ref addiu INSN, word W, becomes
   (enum gotref_form).  */

static void
put_gotref (struct cursor *c, const struct insn *insn, long w)
{
  const struct emitter *e = c->e;
  const struct new_got *g = &e->got;
  uint32_t k = e->gotref_slot[w] - 1;
  uint32_t slot = g->n_old_local + k;
  unsigned form = e->gotref_form[w];
  uint32_t f, d, hi;
  int32_t lo;
  unsigned r;

  switch (GOTREF_KIND (form))
    {
    case GOTREF_ADD:
    case GOTREF_TMP:
      /* y = x + (new f - page), the page being f - %lo(f): no gp.  */
      r = GOTREF_KIND (form) == GOTREF_ADD ? insn->rt : GOTREF_REG (form);
      f = g->target_of[k - g->n_fixed];
      d = emit_map (e, f) - f + (uint32_t) insn->imm;
      split_hi_lo (d, &hi, &lo);
      put (c, itype (OP_LUI, 0, r, hi));
      put (c, itype (OP_ADDIU, r, r, (uint32_t) lo));
      put (c, addu (insn->rt, insn->rs, r));
      break;
    case GOTREF_SAVED:
      /* The gp the function saved in its frame.  */
      put (c, itype (OP_LW, REG_SP, insn->rt, (uint32_t) e->gp_saved[w]));
      put (c, itype (OP_LW, insn->rt, insn->rt, 4 * slot - 0x7ff0));
      break;
    default:
      /* addiu y,x,%lo(f) becomes lw y,<new f>(gp).  */
      put (c, itype (OP_LW, REG_GP, insn->rt, 4 * slot - 0x7ff0));
      break;
    }
}

/* Write the copy of INSN.  */

static bool
put_insn_body (struct cursor *c, const struct insn *insn, char **errmsg)
{
  const struct emitter *e = c->e;
  const struct mips_object *obj = &e->a->obj;
  const struct new_got *g = &e->got;
  long w = emit_word_index (e, insn->addr);
  uint32_t word = insn->word;
  bool hi;

  if (w >= 0 && e->long_kind[w] != LONG_NONE)
    return put_long (c, insn, w, errmsg);
  if (w >= 0 && e->gotref_slot[w] != 0)
    {
      if (e->gotref_form[w] & GOTREF_F_BEFORE)
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
	  if (((c->pc + 4) ^ t) & 0xf0000000)
	    goto range;
	  word = (word & 0xfc000000) | ((t >> 2) & 0x03ffffff);
	}
      else if (emit_word_index (e, insn->target) >= 0)
	{
	  uint32_t t = e->retarget[w] != 0 ? e->retarget[w]
		       : emit_map (e, insn->target);
	  int64_t off = ((int64_t) t - (int64_t) (c->pc + 4)) / 4;
	  if (off < -32768 || off > 32767)
	    goto range;
	  if (e->invert[w])
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
  /* gp-relative references to the old GOT's global part move up.  */
  if (has_base (insn) && insn->rs == REG_GP)
    {
      uint32_t old = obj->gp + (uint32_t) insn->imm;
      if (old >= obj->got_addr + 4 * g->n_old_local
	  && old < obj->got_addr + 4 * g->n_old)
	{
	  int32_t imm = insn->imm + 4 * (int32_t) g->n_new;
	  if (imm > 0x7fff)
	    goto range;
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
  bool is_lui;
  uint32_t info;

  /* Both words of a gp prologue's pair write gp.  */
  if (!(insn->writes & R (REG_GP)))
    return false;
  r = prologue_at (t, insn->addr);
  is_lui = r != NULL;
  if (r == NULL && insn->addr >= 4)
    r = prologue_at (t, insn->addr - 4);
  if (r == NULL)
    return false;
  info = e->got.gp - emit_map (e, r->target);
  if (is_lui)
    put (c, itype (OP_LUI, 0, REG_GP, ((info + 0x8000) >> 16) & 0xffff));
  else
    put (c, itype (OP_ADDIU, REG_GP, REG_GP, info & 0xffff));
  return true;
}

/* Put into REG the run-time value of the new GOT entry K: loaded off gp,
   or, in a fixed-address object, its value as a constant.  */

static void
put_got_value (struct cursor *c, unsigned reg, uint32_t k)
{
  const struct new_got *g = &c->e->got;
  uint32_t hi;
  int32_t lo;

  if (!c->e->fixed_address)
    {
      put (c, itype (OP_LW, REG_GP, reg, 4 * (g->n_old_local + k) - 0x7ff0));
      return;
    }
  split_hi_lo (g->new_values[k], &hi, &lo);
  put (c, itype (OP_LUI, 0, reg, hi));
  put (c, itype (OP_ADDIU, reg, reg, (uint32_t) lo));
}

/* Write the call of the runtime's syscall hook that goes before a
   system call (mark_syscall_hooks): through the syscall_hook word of
   the segment header, which the runtime fills when it starts (0 until
   then: no call), found relative to a bal, so that no valid gp is
   needed.  ra and t9 are kept below sp, at and every other register by
   the hook itself; the system call then runs with the registers the
   program set.  SYSHOOK_WORDS words.  */

static void
put_syscall_hook (struct cursor *c)
{
  const struct emitter *e = c->e;
  uint32_t anchor = c->pc + 20, hi;
  int32_t lo;

  split_hi_lo (e->syscall_hook_slot - anchor, &hi, &lo);
  put (c, itype (OP_ADDIU, REG_SP, REG_SP, (uint32_t) -16));
  put (c, itype (OP_SW, REG_SP, REG_RA, 12));
  put (c, itype (OP_SW, REG_SP, REG_T9, 8));
  put (c, itype (OP_REGIMM, 0, REGIMM_BGEZAL, 1));	/* bal anchor */
  put (c, itype (OP_SW, REG_SP, REG_AT, 4));
  /* anchor: at = the slot's address; t9 = the hook.  */
  put (c, itype (OP_LUI, 0, REG_AT, hi));
  put (c, addu (REG_AT, REG_AT, REG_RA));
  put (c, itype (OP_LW, REG_AT, REG_T9, (uint32_t) lo));
  put (c, itype (OP_BEQ, REG_T9, 0, 3));	/* beqz t9, over the call */
  put (c, itype (OP_LW, REG_SP, REG_AT, 4));
  put (c, (REG_T9 << 21) | (REG_RA << 11) | 0x09);	/* jalr t9 */
  put (c, 0);
  put (c, itype (OP_LW, REG_SP, REG_T9, 8));
  put (c, itype (OP_LW, REG_SP, REG_RA, 12));
  put (c, itype (OP_ADDIU, REG_SP, REG_SP, 16));
}

/* Words of put_gp_guard.  */

static uint32_t
gp_guard_words (const struct emitter *e)
{
  return e->fixed_address ? 13 : 11;
}

/* Write the gp guard of a translation of register X with the scratch
   registers R1 and R2: a switch table's word that no one rewrote is an
   offset from the original gp, so X holds the case's original address
   plus the distance DELTA that gp moved by (the new GOT's from the
   old).  If X - DELTA is an address of the original code, X becomes
   that, which the translation then maps.  build() keeps the range that
   such values fall in, [start + DELTA, end + DELTA), clear of any code,
   so no pointer to real code is taken for one.  */

static void
put_gp_guard (struct cursor *c, unsigned x, unsigned r1, unsigned r2)
{
  const struct emitter *e = c->e;
  const struct new_got *g = &e->got;
  uint32_t hi, start_words = e->fixed_address ? 2 : 1;
  int32_t lo;

  split_hi_lo (e->a->obj.gp - g->gp, &hi, &lo);
  put (c, itype (OP_LUI, 0, r1, hi));
  put (c, itype (OP_ADDIU, r1, r1, (uint32_t) lo));
  put (c, addu (r1, x, r1));
  /* if r1 < end && !(r1 < start), x = r1.  */
  put_got_value (c, r2, GOT_OLD_END (g));
  put (c, rtype (FUNCT_SLTU, r1, r2, r2, 0));
  put (c, itype (OP_BEQ, r2, 0, start_words + 4));	/* beqz */
  put_got_value (c, r2, GOT_OLD_START (g));
  put (c, rtype (FUNCT_SLTU, r1, r2, r2, 0));
  put (c, itype (OP_BNE, r2, 0, 2));			/* bnez */
  put (c, 0);
  put (c, rtype (FUNCT_OR, r1, 0, x, 0));
}

/* Write the run-time translation of the register of the indirect jump
   INSN with the scratch registers of SN: if it holds an address of the
   original code, replace it by the new address from the map.  The
   original code's end and start and the map come from new GOT entries,
   so that ld.so's relocation gives their run-time addresses; a
   fixed-address object has them as constants, and needs no valid gp.
   The end is compared first: a pointer into this object's new code,
   which lies above the original (the common case: code pointers in
   data were mapped by the rewriter), costs four instructions.  */

static void
put_xlate (struct cursor *c, const struct insn *insn, const struct snippet *sn)
{
  const struct emitter *e = c->e;
  const struct new_got *g = &e->got;
  unsigned x = insn->rs, r1 = sn->regs[0], r2 = sn->regs[1];
  uint32_t hi;
  int32_t lo;

  put_spill (c, sn);
  if (sn->guard)
    put_gp_guard (c, x, r1, r2);
  /* r1 = end; if x >= end, done; r2 = start; if x < start, done;
     r1 = x - start.  */
  put_got_value (c, r1, GOT_OLD_END (g));
  put (c, rtype (FUNCT_SLTU, x, r1, r1, 0));
  put (c, itype (OP_BEQ, r1, 0, e->fixed_address ? 10 : 11)); /* beqz */
  put_got_value (c, r2, GOT_OLD_START (g));
  put (c, rtype (FUNCT_SLTU, x, r2, r1, 0));
  put (c, itype (OP_BNE, r1, 0, e->fixed_address ? 6 : 8)); /* bnez */
  put (c, rtype (FUNCT_SUBU, x, r2, r1, 0));
  /* x = the map's entry: the new address at link time, to which a
     loaded object adds its bias, start - the link-time start.  */
  put_got_value (c, x, GOT_MAP (g));
  put (c, addu (x, x, r1));
  put (c, itype (OP_LW, x, x, 0));
  if (e->fixed_address)
    put (c, 0);
  else
    {
      split_hi_lo (-e->old_start, &hi, &lo);
      put (c, addu (x, x, r2));
      put (c, itype (OP_LUI, 0, r1, hi));
      put (c, itype (OP_ADDIU, r1, r1, (uint32_t) lo));
      put (c, addu (x, x, r1));
    }
  put_unspill (c, sn, 0);
}

/* Set *ERRMSG to "ADDR: WHAT cannot reach WHERE", ADDR being CTL's, and
   return false.  */

static bool
reach_error (char **errmsg, const struct insn *ctl, const char *what,
	     const char *where)
{
  if (asprintf (errmsg, "0x%08x: %s cannot reach %s", ctl->addr, what,
		where) < 0)
    *errmsg = NULL;
  return false;
}

/* Write the jump from a counting stub on to TO, for the branch CTL, with
   FILL in its delay slot (a nop when NULL); false with *ERRMSG, naming
   the stub WHAT, when it cannot reach.  */

static bool
put_jump_back (struct cursor *c, const struct insn *ctl, uint32_t to,
	       const struct insn *fill, const char *what, char **errmsg)
{
  int64_t off = ((int64_t) to - (int64_t) (c->pc + 4)) / 4;

  if (off < -32768 || off > 32767)
    return reach_error (errmsg, ctl, what, "its target");
  put (c, itype (OP_BEQ, 0, 0, (uint32_t) off));
  if (fill == NULL)
    {
      put (c, 0);
      return true;
    }
  return put_insn_body (c, fill, errmsg);
}

/* Write the counts of block INDEX (B), planned in P to go on its
   outgoing edges: after its fall-through, then the stub its branch
   goes to, which counts and jumps on to the branch's real target.  */

static bool
put_edge_counts (struct cursor *c, size_t index, const struct block *b,
		 const struct count_plan *p, char **errmsg)
{
  const struct emitter *e = c->e;
  const struct insn *slot;
  const struct insn *ctl = cfg_block_control (&e->a->code, b, &slot);

  if (p->has_fall)
    {
      uint32_t words = snippet_words (e, &p->taken) + 3;
      put_snippet (c, index, index, &p->s, NULL, 0);
      put (c, itype (OP_BEQ, 0, 0, words));	/* b over the stub */
      put (c, 0);
    }
  put_snippet (c, index, index, &p->taken, NULL, 0);
  return put_jump_back (c, ctl, emit_map (e, ctl->target), NULL,
			"the counting stub of an ll/sc block", errmsg);
}

/* The first instruction of the block at TARGET when a jump there may
   run a copy of it in its delay slot and go on past it: an instruction
   that transfers no control, traps in no way, is neither a system call
   nor part of a gp prologue or an ll/sc sequence, is written as one word
   like any other (no GOT reference or translation to rewrite), and
   has no increment, probe or pad before it in the new code (but for a
   pad, with PAD_OK: the pads are placed while the layout is made,
   after whoever must know the answer before; jumping past the first
   instruction also jumps past any pad).  Else NULL.  */

static const struct insn *
slot_fill (const struct emitter *e, uint32_t target, bool pad_ok)
{
  const struct cfg *cfg = &e->a->cfg;
  const struct block *t = cfg_block_at (cfg, target);
  const struct insn *insn = code_insn_at (&e->a->code, target);
  const struct count_plan *p;
  long w = emit_word_index (e, target);

  if (t == NULL || t->start != target || insn == NULL || w < 0
      || insn->kind != INSN_OTHER
      || (insn->flags & (INSN_F_TRAP | INSN_F_SLOT))
      || (insn->op == 0 && (insn->word & 0x3f) == FUNCT_SYSCALL)
      || (insn->writes & R (REG_GP)) || e->in_llsc[w]
      || e->gotref_slot[w] != 0 || e->xlate[w].kind != 0xff
      || e->probe[w] != 0 || (e->needs_pad[w] && !pad_ok)
      || insn_words (e, w, insn) != 1)
    return NULL;
  p = &e->plans[t - cfg->blocks];
  if (p->edge || (!p->derived && p->at <= target))
    return NULL;
  return insn;
}

/* With --counter-update=single, the first instruction of the target of
   the branch CTL of a block whose taken edge is counted by SN, when it
   may run before the increment instead of in the delay slot of a jump
   after it, so that the increment leaves by its carry test (put_llsc's
   SKIP_TO) and costs no more than a block's: slot_fill's instruction,
   which must not write a register the increment uses.  Else NULL.  */

static const struct insn *
single_leave_fill (const struct emitter *e, const struct insn *ctl,
		   const struct snippet *sn)
{
  const struct insn *fill;

  if (!e->single || sn->n_spill > 0)
    return NULL;
  fill = slot_fill (e, ctl->target, false);
  if (fill == NULL || (fill->writes & snippet_uses (sn)) != 0)
    return NULL;
  return fill;
}

/* Write the counters of the branch edges of block B planned in P: the
   taken edge's increment and the jump to the target (the inverted branch
   skips them), then the fall-through edge's increment.  */

static bool
put_branch_edge_counts (struct cursor *c, const struct block *b,
			const struct count_plan *p, char **errmsg)
{
  const struct emitter *e = c->e;
  const struct insn *slot;
  const struct insn *ctl = cfg_block_control (&e->a->code, b, &slot);

  if (p->count_taken)
    {
      const struct insn *fill = slot_fill (e, ctl->target, false);
      size_t block = (size_t) (b - e->a->cfg.blocks);
      uint32_t past = e->insn_new[emit_word_index (e, ctl->target)] + 4;
      if (fill == NULL && !e->single && p->taken_s.n_spill == 0)
	{
	  /* The increment leaves by a branch-likely to the target, with
	     nothing in its slot: as many words as the increment and a
	     jump back, one instruction fewer run.  */
	  put_snippet (c, p->taken_counter, block, &p->taken_s, NULL,
		       emit_map (e, ctl->target));
	  if (c->failed)
	    return reach_error (errmsg, ctl, "the counter of a branch edge",
				"its target");
	}
      else if (fill == NULL)
	{
	  put_snippet (c, p->taken_counter, block, &p->taken_s, NULL, 0);
	  if (!put_jump_back (c, ctl, emit_map (e, ctl->target), NULL,
			      "the counter of a branch edge", errmsg))
	    return false;
	}
      else if (single_leave_fill (e, ctl, &p->taken_s) != NULL)
	{
	  /* The target's first instruction, then the increment that
	     leaves past the copy of it there.  */
	  if (!put_insn_body (c, fill, errmsg))
	    return false;
	  put_snippet (c, p->taken_counter, block, &p->taken_s, NULL, past);
	  if (c->failed)
	    return reach_error (errmsg, ctl, "the counter of a branch edge",
				"its target");
	}
      else if (p->taken_s.n_spill > 0 || e->single)
	{
	  /* b past the copy of the target's first instruction, with
	     another copy in its delay slot.  */
	  put_snippet (c, p->taken_counter, block, &p->taken_s, NULL, 0);
	  if (!put_jump_back (c, ctl, past, fill,
			      "the counter of a branch edge", errmsg))
	    return false;
	}
      else
	{
	  /* The increment leaves by a branch-likely past the copy of the
	     target's first instruction, with another copy in its delay
	     slot: as many words as the increment and a jump back.  */
	  put_snippet (c, p->taken_counter, block, &p->taken_s, fill, past);
	  if (c->failed)
	    return reach_error (errmsg, ctl, "the counter of a branch edge",
				"its target");
	}
      if (c->pc != e->retarget[emit_word_index (e, ctl->addr)])
	{
	  *errmsg = strdup ("internal error: layout and emission disagree "
			    "on a branch edge");
	  return false;
	}
    }
  if (p->count_fall && p->fall_s.skip)
    {
      long w = emit_word_index (e, b->end);
      put_snippet (c, p->fall_counter, (size_t) (b - e->a->cfg.blocks),
		   &p->fall_s, code_insn_at (&e->a->code, b->end),
		   e->insn_new[w] + 4);
      if (c->failed)
	return reach_error (errmsg, ctl, "the counter of a fall-through edge",
			    "past its target");
    }
  else if (p->count_fall)
    put_snippet (c, p->fall_counter, (size_t) (b - e->a->cfg.blocks),
		 &p->fall_s, NULL, 0);
  return true;
}

/* The probe stub: save every register the runtime's probe routines may
   write (at, v0-v1, a0-a3, t0-t9, gp, ra, HI, LO; they use no FP
   register), call the routine the runtime put in the slot the site's
   word selects, with the run-time address of the original function and
   the function's return address, restore, and return past the site's
   word.  On entry ra points at that word and the site has saved the
   function's own ra at 4(sp).  */

static void
put_probe_stub (struct cursor *c)
{
  const struct emitter *e = c->e;
  uint32_t start = c->pc;
  uint32_t anchor = start + 4 * 26;
  uint32_t hi;
  int32_t lo;
  unsigned k;
  static const uint8_t saved[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
				   13, 14, 15, 24, 25, 28, 31 };

  split_hi_lo (e->probe_slots - anchor, &hi, &lo);
  put (c, itype (OP_ADDIU, REG_SP, REG_SP, (uint32_t) -112));
  for (k = 0; k < sizeof saved; k++)
    put (c, itype (OP_SW, REG_SP, saved[k], 16 + 4 * k));
  put (c, (8 << 11) | 0x10);			/* mfhi t0 */
  put (c, itype (OP_SW, REG_SP, 8, 92));
  put (c, (8 << 11) | 0x12);			/* mflo t0 */
  put (c, itype (OP_SW, REG_SP, 8, 96));
  put (c, itype (OP_REGIMM, 0, REGIMM_BGEZAL, 1));	/* bal anchor */
  put (c, 0);
  put (c, itype (OP_LUI, 0, 8, hi));			/* anchor: */
  put (c, addu (8, 8, REG_RA));
  put (c, itype (OP_LW, REG_SP, 9, 88));		/* t1: the word */
  put (c, itype (OP_LW, 9, 4, 0));
  put (c, itype (0x0c, 4, 10, 1));			/* andi t2,a0,1 */
  put (c, (10 << 16) | (10 << 11) | (2 << 6));		/* sll t2,t2,2 */
  put (c, addu (8, 8, 10));
  put (c, itype (OP_LW, 8, REG_T9, (uint32_t) lo));
  put (c, itype (OP_BEQ, REG_T9, 0, 6));		/* no routine yet */
  put (c, itype (OP_ADDIU, 0, 10, (uint32_t) -2));
  put (c, (4 << 21) | (10 << 16) | (4 << 11) | 0x24);	/* and a0,a0,t2 */
  put (c, addu (4, 4, 9));
  put (c, itype (OP_LW, REG_SP, 5, 116));
  put (c, (REG_T9 << 21) | (REG_RA << 11) | 0x09);	/* jalr t9 */
  put (c, 0);
  put (c, itype (OP_LW, REG_SP, 8, 92));
  put (c, (8 << 21) | 0x11);				/* mthi t0 */
  put (c, itype (OP_LW, REG_SP, 8, 96));
  put (c, (8 << 21) | 0x13);				/* mtlo t0 */
  for (k = 0; k < sizeof saved; k++)
    put (c, itype (OP_LW, REG_SP, saved[k], 16 + 4 * k));
  put (c, itype (OP_ADDIU, REG_SP, REG_SP, 112));
  put (c, itype (OP_ADDIU, REG_RA, REG_RA, 4));
  put (c, (REG_RA << 21) | 0x08);			/* jr ra */
  put (c, 0);
  (void) start;
}

/* The probe site of KIND (PROBE_ENTRY or PROBE_EXIT) at word W, in the
   function that starts at FUNC (original address), with the stub copy
   before it when the layout put one there (NEW_STUB).  */

static void
put_probe_site (struct cursor *c, long w, unsigned kind, uint32_t func,
		bool new_stub)
{
  const struct emitter *e = c->e;
  uint32_t word_addr;
  int64_t off;

  if (new_stub)
    {
      put (c, itype (OP_BEQ, 0, 0, 1 + PROBE_STUB_WORDS));	/* b over */
      put (c, 0);
      put_probe_stub (c);
    }
  put (c, itype (OP_ADDIU, REG_SP, REG_SP, (uint32_t) -8));
  put (c, itype (OP_SW, REG_SP, REG_RA, 4));
  off = ((int64_t) e->probe_stub[w] - (int64_t) (c->pc + 4)) / 4;
  put (c, itype (OP_REGIMM, 0, REGIMM_BGEZAL, (uint32_t) off));
  put (c, 0);
  word_addr = c->pc;
  put (c, (func - word_addr) | (kind == PROBE_EXIT ? 1 : 0));
  put (c, itype (OP_LW, REG_SP, REG_RA, 4));
  put (c, itype (OP_ADDIU, REG_SP, REG_SP, 8));
}

bool
emit_text (struct emitter *e, unsigned char *out, char **errmsg)
{
  const struct analysis *a = e->a;
  struct cursor c = { e, out, e->text_addr, e->text_addr,
		      e->a->obj.big_endian, { 0, 0, e->folded }, NULL, 0, 0,
		      false };
  bool ok = false;

  for (size_t i = 0; i < a->cfg.n_blocks; i++)
    {
      const struct block *b = &a->cfg.blocks[i];
      const struct count_plan *p = &e->plans[i];
      bool over;

      if (e->needs_pad[emit_word_index (e, b->start)])
	{
	  put (&c, itype (OP_BEQ, 0, 0, 4));	/* b over the pad */
	  put (&c, 0);
	  put (&c, itype (OP_LW, REG_SP, REG_AT, 0));
	  put (&c, itype (OP_LW, REG_SP, REG_RA, 4));
	  put (&c, itype (OP_ADDIU, REG_SP, REG_SP, 8));
	}
      if (c.pc != e->map[emit_word_index (e, b->start)])
	{
	  if (asprintf (errmsg, "internal error: layout and emission "
			"disagree at 0x%08x", b->start) < 0)
	    *errmsg = NULL;
	  goto done;
	}
      if (e->probe[emit_word_index (e, b->start)] & PROBE_ENTRY)
	{
	  long ws = emit_word_index (e, b->start);
	  put_probe_site (&c, ws, PROBE_ENTRY, b->start,
			  e->probe_new_stub[ws]);
	  e->n_probes++;
	  e->n_probe_stubs += e->probe_new_stub[ws];
	}
      if (p->iv && p->iv_stack)
	{
	  put (&c, itype (OP_ADDIU, REG_SP, REG_SP, (uint32_t) -8));
	  put (&c, itype (OP_SW, REG_SP, p->iv_reg, 0));
	}
      else if (p->iv)
	put (&c, addu (p->iv_save, p->iv_reg, 0));
      for (uint32_t at = b->start; at < b->end; at += 4)
	{
	  const struct insn *insn = code_insn_at (&a->code, at);
	  long w = emit_word_index (e, at);
	  if (at == p->at && !p->edge && !p->derived && !p->iv && p->s.jump)
	    {
	      /* Leave by the branch: to its target, with its slot (first,
		 for a single-thread increment).  */
	      const struct insn *slot = code_insn_at (&a->code, at + 4);
	      if (e->single && !put_insn_body (&c, slot, errmsg))
		goto done;
	      put_snippet (&c, i, i, &p->s, e->single ? NULL : slot,
			   emit_map (e, insn->target));
	      if (c.failed)
		{
		  reach_error (errmsg, insn, "an increment", "its target");
		  goto done;
		}
	      break;
	    }
	  if (at == p->at && !p->edge && !p->derived && !p->iv)
	    {
	      put_snippet (&c, i, i, &p->s,
			   p->s.hoist || p->s.skip ? insn : NULL, 0);
	      if (p->s.hoist || p->s.skip)
		continue;
	    }
	  if (e->probe[w] & PROBE_EXIT)
	    {
	      bool reuse = (e->probe[w] & PROBE_ENTRY) != 0;
	      put_probe_site (&c, w, PROBE_EXIT,
			      a->cfg.funcs[b->func].entry,
			      !reuse && e->probe_new_stub[w]);
	      e->n_probes++;
	      e->n_probe_stubs += !reuse && e->probe_new_stub[w];
	    }
	  if (insn != NULL && e->xlate[emit_word_index (e, at)].kind != 0xff)
	    put_xlate (&c, insn, &e->xlate[emit_word_index (e, at)]);
	  if (e->sys_hook[emit_word_index (e, at)])
	    put_syscall_hook (&c);
	  if (gotref_before_words (e, w) != 0)
	    put_gotref (&c, code_insn_at (&a->code, at + 4), w + 1);
	  if (insn == NULL)
	    {
	      *errmsg = strdup ("internal error: a block word has no record");
	      goto done;
	    }
	  if (!put_prologue_part (&c, insn) && !put_insn (&c, insn, errmsg))
	    goto done;
	}
      if (p->edge && !put_edge_counts (&c, i, b, p, errmsg))
	goto done;
      if (p->iv)
	put_loop_exit (&c, i, p);
      if (!p->edge && !p->derived && p->at == b->end)
	put_snippet (&c, i, i, &p->s, NULL, 0);
      if ((p->count_taken || p->count_fall)
	  && !put_branch_edge_counts (&c, b, p, errmsg))
	goto done;
      if (island_due (e, b, p, i + 1 == a->cfg.n_blocks, c.pc, &c.isl,
		      &over))
	put_island (&c, over);
      if (c.failed)
	{
	  if (asprintf (errmsg, "0x%08x: the carry paths of the counters "
			"cannot be placed within reach", b->start) < 0)
	    *errmsg = NULL;
	  goto done;
	}
    }
  if (c.pc != e->text_addr + e->text_size)
    {
      *errmsg = strdup ("internal error: layout and emission disagree");
      goto done;
    }
  ok = true;

 done:
  free (c.carries);
  return ok;
}

void
emit_free (struct emitter *e)
{
  free (e->counts);
  free (e->section_base);
  free (e->map);
  free (e->insn_new);
  free (e->gotref_slot);
  free (e->gotref_form);
  free (e->gp_valid);
  free (e->t9_valid);
  free (e->gp_saved);
  free (e->long_kind);
  free (e->long_reg);
  free (e->long_slot);
  free (e->entered);
  free (e->in_llsc);
  free (e->retarget);
  free (e->invert);
  free (e->edge_ok);
  free (e->xlate);
  free (e->sys_hook);
  free (e->window_slot);
  free (e->window_blocks);
  free (e->edge_owner);
  free (e->pad);
  free (e->needs_pad);
  free (e->plans);
  free (e->returns);
  free (e->probe);
  free (e->probe_stub);
  free (e->probe_new_stub);
  free (e->past_probe);
  derive_free (&e->derive);
  free (e->got.new_values);
  free (e->got.target_of);
  memset (e, 0, sizeof *e);
}
