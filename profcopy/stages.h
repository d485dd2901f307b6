/* stages.h -- what the analyse, plan and emit stages of emit.h share.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   emit.h is the interface that rewrite.c uses; the stages behind it
   (analyse/, plan/, emit/) share the definitions and functions
   declared here.  Each function's comment is at its definition, in
   the file its group below names.  */

#ifndef PROFCOPY_STAGES_H
#define PROFCOPY_STAGES_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "emit.h"
#include "mips-ops.h"
#include "estimate.h"
#include "regflow.h"
#include "returns.h"
#include "scope.h"

/* System call numbers of o32 MIPS Linux (asm/unistd.h: 4000 + N).  */
#define SYS_FORK	4002
#define SYS_EXECVE	4011
#define SYS_SIGACTION	4067
#define SYS_CLONE	4120
#define SYS_RT_SIGACTION	4194
#define SYS_EXIT_GROUP	4246
#define SYS_EXECVEAT	4356
#define SYS_CLONE3	4435

/* The flags of struct plan's hooks.  */
#define HOOK_SYSCALL	1
#define HOOK_JUMP_NOTE	2

/* table_jumps: a jump through switch tables that are all known, or
   through one of gp-relative words whose size no check proves.  */
#define TABLE_JR_PROVEN	1
#define TABLE_JR_GPREL	2

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

/* Split the 32-bit displacement D into HI and LO for `lui; lo(...)'
   (LO sign-extended: HI << 16 + LO == D).  */

static inline void
split_hi_lo (uint32_t d, uint32_t *hi, int32_t *lo)
{
  uint32_t h = (d + 0x8000) >> 16;
  int32_t l = (int32_t) (d - (h << 16));

  *hi = h & 0xffff;
  *lo = l;
}

static inline int
popcount64 (uint64_t v)
{
  int n = 0;
  for (; v != 0; v &= v - 1)
    n++;
  return n;
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

/* Registers a snippet may use as scratch when dead.  */
#define SCRATCH_MASK							\
  (R (1) | R (2) | R (3) | R (4) | R (5) | R (6) | R (7) | R (8) | R (9)	\
   | R (10) | R (11) | R (12) | R (13) | R (14) | R (15) | R (16) | R (17) \
   | R (18) | R (19) | R (20) | R (21) | R (22) | R (23) | R (24) | R (25) \
   | R (30) | R (31))

/* Set in long_reg: the bal form keeps ra below a lowered sp.  */
#define LONG_SAVE_RA 0x80

/* Words of a probe stub (see put_probe_stub); a site calls the last
   stub laid out before it, and a new copy of the stub goes in (behind
   a branch over it) when that one is further than PROBE_STUB_REACH
   bytes, well within the reach of bal.  */
#define PROBE_STUB_WORDS	68
#define PROBE_STUB_REACH	0x18000

/* The increments waiting for their carry paths: how many, and where
   the first of them starts (layout and emission alike).  */
struct island
{
  size_t n;
  uint32_t first;
  bool off;			/* Folded counters: no carry paths.  */
};

/* Output cursor.  */
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
  bool sizing;			/* Write nothing, only count the words
				   (cursor_sizing).  */
  /* Where the last increment put the instruction of FILL, and its
     branch out to SKIP_TO or the branch-likely out of its skip form
     (put_llsc): the layout's addresses of those instructions.  */
  uint32_t fill_pc, out_pc;
};

/* Make C a cursor for E that writes nothing: the put_ functions run on
   it say how many words they would write (CURSOR_WORDS), and the
   layout takes its sizes from them, so that the sizes it plans and the
   words emission writes come from the same code.  On such a cursor no
   branch is out of reach and no carry path waits.  */

static inline void
cursor_sizing (struct cursor *c, const struct emitter *e)
{
  memset (c, 0, sizeof *c);
  c->e = e;
  c->sizing = true;
}

#define CURSOR_WORDS(c)	((c)->pc / 4)

/* The new address of the original code address OLD, for put_snippet's
   SKIP_TO: while laying out, a block not laid out yet is at 0, which
   would mean no skip; any address gives the same words.  */

static inline uint32_t
skip_target (const struct cursor *c, uint32_t old)
{
  uint32_t to = emit_map (c->e, old);

  return to == 0 && c->sizing ? c->pc : to;
}

/* Whether a branch's offset OFF (in words) fits its 16 bits: always on
   a sizing cursor, where the addresses are not all known yet.  */

static inline bool
cursor_reaches (const struct cursor *c, int64_t off)
{
  return c->sizing || (off >= -32768 && off <= 32767);
}

static inline void
put (struct cursor *c, uint32_t word)
{
  if (!c->sizing)
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
    }
  c->pc += 4;
}

/* analyse/facts.c.  */

bool prove_facts (struct emitter *e, const uint32_t *into, char **errmsg);

/* analyse/entries.c.  */

void mark_entries (const struct analysis *a, unsigned char *entry);

void mark_outside_blocks (const struct analysis *a, unsigned char *entry);

bool calls_noreturn (const struct emitter *e, const unsigned char *returns,
		     const struct block *b);

bool find_returning (const struct emitter *e, unsigned char *returns);

/* Whether INSN loads a word off gp or off a register that holds gp
   (T's gp_bases), and the address it loads from, with the gp of its
   code (T's gp regions), in *SLOT.  */
bool got_load_address (const struct reloc_table *t, const struct insn *insn,
		       uint32_t *slot);

long got_slot (const struct mips_object *obj, const struct reloc_table *t,
	       const struct insn *insn);

const struct object_symbol *slot_symbol (const struct mips_object *obj,
					 const struct object_symbol *const *dyn,
					 size_t n, long k);

bool calls_noreturn_import (const struct emitter *e, const struct block *b,
			    const struct object_symbol *const *dyn, size_t n);

unsigned char *mark_cold (const struct emitter *e);

bool falls_into (const struct code *code, const struct block *prev,
		 const struct block *b);

void mark_internal_entries (const struct analysis *a, unsigned char *internal);

uint32_t *got_entries (const struct analysis *a);

const struct function *got_function (const struct cfg *cfg,
				     const uint32_t *entry, long k);

/* analyse/narrow.c.  */

bool find_narrowable (struct narrowing *n);

/* analyse/regstate.c.  */

bool gp_step (const struct emitter *e, bool valid, const struct insn *insn);

bool gp_at_transfer (const struct emitter *e, const struct block *b, bool in,
		     const struct insn *ctl);

bool gp_dataflow (struct emitter *e, const uint32_t *into, char **errmsg);

bool gp_saved_dataflow (struct emitter *e);

int gp_check_reloads (struct emitter *e);

/* analyse/t9state.c.  */

uint32_t t9_const_step (const struct emitter *e, uint32_t value,
			const struct insn *insn);

/* Plan the trampolines that set t9 for functions without gp that
   calls of their own object enter by bal (PLAN.T9_TRAMP, T9_CALL),
   then fill FACTS.T9_VALID.  Needs the live sets.  */
bool t9_dataflow (struct emitter *e, char **errmsg);

/* Fill T9[i] (one per block) with the original code address that t9
   holds on every way into block i, or 0.  */
void t9_constants (const struct emitter *e, uint32_t *t9);

/* Whether t9 holds TARGET at INSN, the control instruction that ends
   block B, given T9 (t9_constants).  */
bool t9_holds_at (const struct emitter *e, const uint32_t *t9,
		  const struct block *b, const struct insn *insn,
		  uint32_t target);

/* plan/marks.c.  */

/* Mark the system calls that call the runtime's syscall hook first
   (exit_group, the exec calls, fork and clone).  */
void mark_syscall_hooks (struct emitter *e);

/* Mark the indirect jumps, calls and returns that note themselves for
   the runtime before they jump (--poison-original).  */
void mark_jump_notes (struct emitter *e);

/* Give every bal over data its long form, LONG_DATA_BAL.  */
void mark_data_bals (struct emitter *e);

/* Mark the entry and exit probes of --calls; false when out of
   memory.  */
bool mark_probes (struct emitter *e);

/* plan/placement.c.  */

void choose_regs (struct snippet *p, uint64_t dead, unsigned need,
		  unsigned must, uint64_t avoid);

uint64_t keep_t9 (const struct emitter *e, uint32_t at);

uint64_t free_scratch (const struct emitter *e, uint64_t live, uint32_t at);

void plan_edge_snippet (struct emitter *e, struct snippet *sn, uint32_t target,
			bool gp, unsigned extra, uint64_t avoid);

bool movable (const struct insn *insn);

bool plan_block (struct emitter *e, const struct block *b,
		 struct count_plan *p, char **errmsg);

bool hoistable (const struct emitter *e, const struct block *b,
		const struct count_plan *p, bool again);

bool plan_window (struct emitter *e, const struct block *b,
		  struct count_plan *p);

struct snippet *edge_snippet (struct emitter *e, size_t k);

unsigned snippet_data_reg (const struct snippet *p);

unsigned snippet_base_reg (const struct snippet *p);

unsigned restore_in_slot (const struct emitter *e, const struct snippet *p);

/* plan/window.c.  */

bool assign_window (struct emitter *e);

/* plan/got.c.  */

/* The most bytes of GOT that gp, 0x7ff0 past its start, reaches: the
   last word's offset from gp is at most 0x7fff - 3 (a word was one
   too many, and the copy's global entry past the limit was refused as
   "branch out of range").  */
#define GOT_REACH 0xfff0

bool got_has_room (const struct new_got *g, uint32_t target);

uint32_t got_target_entry (struct new_got *g, uint32_t target);

bool plan_got (struct emitter *e, char **errmsg);

uint32_t gotref_target (const struct emitter *e, long w);

bool finish_got (struct emitter *e, char **errmsg);

long got_load_slot (const struct emitter *e, const struct insn *insn);
bool got_load_value (const struct emitter *e, const struct insn *insn,
		     uint32_t *value);

bool t9_holds (const struct emitter *e, const struct insn *insn,
	       uint32_t target);

bool plan_gotref_forms (struct emitter *e, char **errmsg);

/* plan/translate.c.  */

unsigned char *table_jumps (const struct emitter *e);

bool plan_translations (struct emitter *e, char **errmsg);

/* plan/plan.c.  */

bool gotref_before (const struct emitter *e, long w);

uint64_t snippet_uses (const struct snippet *sn);

void count_plans (struct emitter *e);

/* emit/layout.c.  */

bool is_likely (const struct insn *insn);

bool long_takes_slot (unsigned kind);

uint32_t invert_branch (uint32_t word);

void island_add (struct island *isl, uint32_t pc);

bool island_due (const struct emitter *e, const struct block *b,
		 const struct count_plan *p, bool last, uint32_t pc,
		 const struct island *isl, bool *over);

unsigned dead_reg (uint64_t dead);

/* emit/increments.c.  */

void put_spill (struct cursor *c, const struct snippet *sn);

void put_unspill (struct cursor *c, const struct snippet *sn, unsigned done);

void put_island (struct cursor *c, bool over);

uint32_t snippet_words (const struct emitter *e, const struct snippet *sn);

void put_snippet (struct cursor *c, size_t index, size_t block,
		  const struct snippet *p, const struct insn *hoist,
		  uint32_t skip_to);

void put_loop_exit (struct cursor *c, size_t block,
		    const struct count_plan *p);

/* emit/text.c.  */

const struct reloc_entry *prologue_at (const struct reloc_table *t,
				       uint32_t addr);
bool is_llvm_gp_addu (const struct reloc_table *t, const struct insn *insn);

bool has_base (const struct insn *insn);

bool put_insn_body (struct cursor *c, const struct insn *insn, char **errmsg);

void put_pad (struct cursor *c);

bool put_copy (struct cursor *c, const struct insn *insn, char **errmsg);

void put_gotref (struct cursor *c, const struct insn *insn, long w);

uint32_t insn_words (const struct emitter *e, const struct insn *insn);

/* emit/walk.c.  */

bool walk_text (struct emitter *e, struct cursor *c, char **errmsg);

/* emit/hooks.c.  */

void put_syscall_hook (struct cursor *c);

void put_jump_note (struct cursor *c, uint32_t addr);

void put_t9_tramp (struct cursor *c, uint32_t entry, unsigned r);
void put_xlate (struct cursor *c, const struct insn *insn,
		const struct snippet *sn);

void put_probe_site (struct cursor *c, long w, unsigned kind, uint32_t func,
		     bool new_stub);

/* emit/branches.c.  */

void put_bal_address (struct cursor *c, unsigned r, uint32_t target);

void put_bal_address_keep_ra (struct cursor *c, unsigned r,
			      uint32_t target);

uint32_t far_words (const struct emitter *e, bool use_gp, bool call,
		    bool save_ra);

uint32_t pad_jump_words (const struct emitter *e, uint32_t target);

bool put_long (struct cursor *c, const struct insn *insn, long w,
	       char **errmsg);

bool reach_error (char **errmsg, const struct insn *ctl, const char *what,
		  const char *where);

bool put_edge_counts (struct cursor *c, size_t index, const struct block *b,
		      const struct count_plan *p, struct emitter *lay,
		      char **errmsg);

const struct insn *slot_fill (const struct emitter *e, uint32_t target,
			      bool pad_ok);

const struct insn *single_leave_fill (const struct emitter *e,
				      const struct insn *ctl,
				      const struct snippet *sn);

bool put_branch_edge_counts (struct cursor *c, const struct block *b,
			     const struct count_plan *p, struct emitter *lay,
			     char **errmsg);

#endif 