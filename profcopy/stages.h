/* stages.h -- what the analyse, plan and emit stages of emit.h share.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   emit.h is the interface that rewrite.c uses; the stages behind it
   (analyse/, plan/, emit/) share the definitions and functions
   declared here.  */

#ifndef PROFCOPY_STAGES_H
#define PROFCOPY_STAGES_H

#include <stdbool.h>
#include <stdint.h>

#include "emit.h"
#include "mips-ops.h"
#include "estimate.h"
#include "regflow.h"
#include "returns.h"
#include "scope.h"

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

static inline uint32_t
addu (unsigned rd, unsigned rs, unsigned rt)
{
  return (rs << 21) | (rt << 16) | (rd << 11) | FUNCT_ADDU;
}

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

/* The far jump that saves at and ra and goes to the target's restore
   pad (addiu sp; sw at; sw ra; bal; lui; addu; addiu; jr; nop), and
   the pad before a block (b over; nop; lw at; lw ra; addiu sp).  */
#define PAD_JUMP_WORDS 9

/* Words of a probe site and of a probe stub (see put_probe_stub); a
   site calls the last stub laid out before it, and a new copy of the
   stub goes in (behind a branch over it) when that one is further than
   PROBE_STUB_REACH bytes, well within the reach of bal.  */
#define PROBE_SITE_WORDS	7
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

/* analyse/entries.c.  */

/* Mark in ENTRY every block of A that code outside its function may
   enter.  */
void mark_entries (const struct analysis *a, unsigned char *entry);

bool calls_noreturn (const struct emitter *e, const unsigned char *returns,
		     const struct block *b);

/* Set RETURNS[f] for every function f of E's object that may return
   to its caller: some block reachable from its entry returns, jumps
   through a register, or branches to another function that may
   return, where a call to a function that never returns goes no
   further (glibc's malloc_printerr, abort).  A least fixpoint, so that
   only what is proven not to return is marked so.  False when out of
   memory.  */
bool find_returning (const struct emitter *e, unsigned char *returns);

/* The index of the GOT slot of OBJ that INSN, a `lw x,off(gp)', loads,
   or -1.  */
long got_slot (const struct mips_object *obj, const struct insn *insn);

/* The named dynamic symbol of OBJ whose global GOT slot is K (DYN, N:
   object_dynsyms_by_index), or NULL.  */
const struct object_symbol *slot_symbol (const struct mips_object *obj,
					 const struct object_symbol *const *dyn,
					 size_t n, long k);

/* True if block B of E ends in a call through t9, loaded from the GOT
   in the block itself, of a function of another object that never
   returns (noreturn_imports, or libstdc++'s std::__throw_*).  DYN names
   the dynamic symbols by index (N of them: object_dynsyms_by_index).  */
bool calls_noreturn_import (const struct emitter *e, const struct block *b,
			    const struct object_symbol *const *dyn, size_t n);

/* A malloc'd array saying for every block whether it surely runs
   seldom: it ends in a call that never returns (of this object's or
   another's) or in a trap, or every way on leads to such a block
   within its function.  NULL when out of memory.  */
unsigned char *mark_cold (const struct emitter *e);

/* True if control may fall from block PREV into the block B right after
   it: PREV is not padding and does not end in a return, an indirect
   jump or an unconditional jump whose delay slot nothing else
   enters.  */
bool falls_into (const struct code *code, const struct block *prev,
		 const struct block *b);

/* Mark in INTERNAL the function entry blocks that only direct calls and
   branches of this object reach: no code address of the relocation
   table, no dynamic symbol, no landing pad leads there, and some direct
   call or branch does.  Such an entry has gp valid when every one of
   those has it (a leaf function called from this object's own code
   keeps its caller's gp).  */
void mark_internal_entries (const struct analysis *a, unsigned char *internal);

/* A malloc'd array of the code address that each GOT slot of A holds,
   or 0: the local slots that the relocation table names, the global
   slots of symbols defined in the object.  NULL when out of memory.  */
uint32_t *got_entries (const struct analysis *a);

/* The function of CFG that the GOT slot K, holding ENTRY[K] (see
   got_entries), enters at its entry, or NULL.  */
const struct function *got_function (const struct cfg *cfg,
				     const uint32_t *entry, long k);

/* Find the functions of A whose returns go back only to code this
   object shows or to callers that follow the calling convention
   (N->narrow), and the blocks that enter them (N->in).  A function is
   left out when something else may enter it: a symbol or a call or a
   jump into its middle, a jump table, a landing pad, the code before it
   falling in, or its address in a register that may become the target
   of a call we cannot see (classify_ref).  */
bool find_narrowable (struct narrowing *n);

/* analyse/regstate.c.  */

/* The gp state.  A block starts with gp valid when every path into it
   leaves gp valid; a block that code outside its function can enter
   (a function entry, a code address held in data or in the GOT) starts
   with gp unknown.  Inside a block, `addu gp,gp,t9|ra' (the prologue)
   and `lw gp,off(sp)' (the reload after a call) make gp valid, any other
   write of gp and every call make it unknown.  */
bool gp_step (bool valid, const struct insn *insn);

/* The gp state after the delay slot of the control instruction CTL of
   block B, entered with gp state IN.  */
bool gp_at_transfer (const struct emitter *e, const struct block *b, bool in,
		     const struct insn *ctl);

/* Compute gp_valid for every word: a forward dataflow to a fixpoint
   over the blocks of each function, with jump table edges added, and
   into the functions that only this object's direct calls reach, or
   only the calls INTO lists (emit_narrow_liveness; may be NULL).  */
bool gp_dataflow (struct emitter *e, const uint32_t *into, char **errmsg);

/* Find, for every word, the frame slot that holds a valid gp (the o32
   .cprestore slot a PIC function saves gp in): a forward must-dataflow
   over each function's blocks and switch tables (a worklist of blocks),
   from nothing at every way in that is not a visible edge.  Nothing in
   a fixed-address object, whose counters do not use gp.  False when out
   of memory.  */
bool gp_saved_dataflow (struct emitter *e);

/* The value t9 holds after INSN, which held VALUE before: an original
   code address that a GOT load or a got-ref put there, else 0.  */
uint32_t t9_const_step (const struct emitter *e, uint32_t value,
			const struct insn *insn);

/* Compute t9_valid for every word of a position-independent object: a
   forward dataflow like gp_dataflow's, from the function entries where
   mark_t9_entries finds t9 set.  */
bool t9_dataflow (struct emitter *e, char **errmsg);

/* plan/placement.c.  */

/* Choose NEED scratch registers from the dead set DEAD (MUST: a
   register that has to be one of them, or 0), saving live ones.  */
void choose_regs (struct snippet *p, uint64_t dead, unsigned need,
		  unsigned must, uint64_t avoid);

/* R (REG_T9) if t9 holds the function's entry at AT of a
   position-independent object: a counter later on may count through
   it, so no code added there may take t9 as scratch; else 0.  */
uint64_t keep_t9 (const struct emitter *e, uint32_t at);

/* The registers that code added at AT may use as scratch, LIVE being
   the program's live registers there: the dead scratch registers, less
   t9 where keep_t9 keeps it.  */
uint64_t free_scratch (const struct emitter *e, uint64_t live, uint32_t at);

/* Plan the increment of SNIPPET on the way into the block at TARGET,
   with gp valid or not (GP), with EXTRA more scratch registers than an
   increment's, none of them in AVOID.  */
void plan_edge_snippet (struct emitter *e, struct snippet *sn, uint32_t target,
			bool gp, unsigned extra, uint64_t avoid);

/* True if INSN may run in the delay slot of a branch-likely, once, in
   place of where it stands: an integer instruction that transfers no
   control and that neither traps on purpose, nor calls the system, nor
   takes part in an ll/sc sequence or a cache operation, nor is one the
   kernel may have to emulate (rdhwr, floating point without an FPU).  */
bool movable (const struct insn *insn);

/* Plan the counter increment of block B.  */
bool plan_block (struct emitter *e, const struct block *b,
		 struct count_plan *p, char **errmsg);

/* True if the increment planned in P for block B takes the instruction
   it precedes into its delay slot (slot_fits, AGAIN as there), which
   nothing else (a translation, a long branch form) writes in its own
   way.  */
bool hoistable (const struct emitter *e, const struct block *b,
		const struct count_plan *p, bool again);

/* The increment planned for the counted branch edge K.  */
struct snippet *edge_snippet (struct emitter *e, size_t k);

/* Give the hottest counters (of blocks and of branch edges, by derive's
   weights) places in the window after the new GOT, as many as gp
   reaches, and plan them so.  An edge's increment through gp (with no
   register saved) becomes one off gp with the same first register.
   False when out of memory.  */
bool assign_window (struct emitter *e);

/* The register the increment planned in P loads and stores (put_llsc's
   R2).  */
unsigned snippet_data_reg (const struct snippet *p);

/* The register that holds the counter's base address in the increment
   planned in P (put_llsc's R1).  */
unsigned snippet_base_reg (const struct snippet *p);

/* The register that the increment planned in P for E restores from
   its spill in the delay slot of its retry branch instead of a nop
   (put_snippet), or 0: an ll/sc increment that has nothing else for
   the slot restores a saved register that its loop does not read (not
   the counter's base): its data register, which a retry loads again,
   else another (ra, which bal wrote before the loop).  */
unsigned restore_in_slot (const struct emitter *e, const struct snippet *p);

/* Words of the snippet planned in P for E.  */
uint32_t snippet_words (const struct emitter *e, const struct snippet *p);

/* Words of a single-thread increment planned in SN that leaves by its
   own branch (put_llsc's SKIP_TO) after one instruction of the
   program's: that instruction, the increment, and past snippet_words
   the branch out (folded; the store is in its slot), or the jump to
   the carry path and the jump back with their slots (4 words; the
   carry test is the branch out).  */
uint32_t leaving_words (const struct emitter *e, const struct snippet *sn);

/* Words of the way out of the loop planned in P for E (put_loop_exit):
   the way to the counter, the difference, the addition and the carry
   into the high word.  */
uint32_t loop_exit_words (const struct emitter *e, const struct count_plan *p);

/* plan/got.c.  */

/* The new GOT entry that holds the new address of the original code
   address TARGET, added if needed; (uint32_t) -1 when out of memory.  */
uint32_t got_target_entry (struct new_got *g, uint32_t target);

/* The counter chunks and the got-ref addius, with new GOT entries for
   their targets.  */
bool plan_got (struct emitter *e, char **errmsg);

/* Check that the new GOT still fits gp's reach and allocate its new
   values.  */
bool finish_got (struct emitter *e, char **errmsg);

/* Mark in e->entered every word that control can reach other than by
   falling into it: branch targets and code addresses of the table.  */
void mark_entered (struct emitter *e);

/* The GOT slot index that INSN, a `lw x,off(gp)', loads, or -1.  */
long got_load_slot (const struct emitter *e, const struct insn *insn);

/* True if t9 holds the original code address TARGET when the branch
   INSN runs: its last write loads TARGET from the GOT or is a GOT
   reference to TARGET.  */
bool t9_holds (const struct emitter *e, const struct insn *insn,
	       uint32_t target);

/* Decide how each got-ref addiu is rewritten (e->gotref_form): as a
   load of its new GOT entry from gp where gp is valid; elsewhere from
   the page register itself plus the distance from the page to the new
   address, or from the GOT through the gp saved in the frame.  gp need
   not be valid at the addiu: GCC loads a page once, before a loop say,
   and adds %lo to it after calls, which leave gp clobbered (a callee
   that tail-calls another object returns with that object's gp) until
   the next `lw gp,K(sp)'.  An addiu in a delay slot is written before
   its branch.  Needs the live sets.  */
bool plan_gotref_forms (struct emitter *e, char **errmsg);

/* A malloc'd array saying for every code word of E whether it is the
   jump of a switch table the relocation table knows, or NULL when out
   of memory.  */
unsigned char *table_jumps (const struct emitter *e);

bool plan_translations (struct emitter *e, char **errmsg);

/* plan/plan.c.  */

/* The words of the sequence that the got-ref addiu at word W becomes,
   and those written before the branch at word W (the sequence of its
   delay slot's addiu, GOTREF_F_BEFORE).  */
uint32_t gotref_words (const struct emitter *e, long w);

uint32_t gotref_before_words (const struct emitter *e, long w);

/* The registers the increment planned in SN reads or writes (gp, sp,
   t9 and ra, which its ways to the counter read or bal writes, and its
   own two), but for the zero register.  */
uint64_t snippet_uses (const struct snippet *sn);

/* Count the kinds of the plans of E for -v, and decide which take the
   next instruction into their delay slot, how (hoist or skip), and
   which fall-through edge counters take the next block's first.  */
void count_plans (struct emitter *e);

/* emit/layout.c.  */

/* True if INSN is a branch-likely.  */
bool is_likely (const struct insn *insn);

/* True if the long form KIND writes the branch's delay slot itself,
   so that the slot's own word is written as nothing.  */
bool long_takes_slot (unsigned kind);

/* Words the copy of INSN, word W, takes.  */
uint32_t insn_words (const struct emitter *e, long w, const struct insn *insn);

/* The non-likely branch with the opposite condition of the conditional
   branch WORD, with a zero offset; 0 if there is none.  */
uint32_t invert_branch (uint32_t word);

/* Note an increment at PC in ISL.  */
void island_add (struct island *isl, uint32_t pc);

/* True if the island ISL must be written after block B (planned in P,
   the last block if LAST), the text having reached PC: after code that
   never falls through, after the last block, or when the first waiting
   increment is about to lose reach.  *OVER is set when control may
   fall into the island, which then starts with a jump over it.  */
bool island_due (const struct emitter *e, const struct block *b,
		 const struct count_plan *p, bool last, uint32_t pc,
		 const struct island *isl, bool *over);

/* A register other than ra, dead in DEAD, or 0.  */
unsigned dead_reg (uint64_t dead);

/* emit/increments.c.  */

/* Save the registers SN must spill below a lowered sp; lowering sp
   keeps them safe from signal handlers.  */
void put_spill (struct cursor *c, const struct snippet *sn);

/* Restore what put_spill saved, but for register DONE (0: none),
   restored already.  */
void put_unspill (struct cursor *c, const struct snippet *sn, unsigned done);

/* Write the carry paths of the increments waiting in C, after a jump
   over them if OVER, and point their branches there.  */
void put_island (struct cursor *c, bool over);

/* Write the increment of counter INDEX planned in P, in the code of
   block BLOCK (whose function's entry t9 may hold), with HOIST in its
   delay slot (put_llsc's FILL; may be NULL); in P's skip form, or in
   that form going on to SKIP_TO when SKIP_TO is not 0.  */
void put_snippet (struct cursor *c, size_t index, size_t block,
		  const struct snippet *p, const struct insn *hoist,
		  uint32_t skip_to);

/* Write the way out of the loop of block BLOCK planned in P: the turns
   taken since the copy (the induction register's difference from it,
   shifted) added to the 64-bit counter BLOCK, atomically unless
   --counter-update=single; a carry out of the low word (sltu) goes
   into the high word.  The registers P's snippet saves are saved
   around it.  */
void put_loop_exit (struct cursor *c, size_t block,
		    const struct count_plan *p);

/* emit/text.c.  */

/* The prologue entry whose lui is at ADDR, or NULL.  Prologue entries
   come first in the sorted table, by address.  */
const struct reloc_entry *prologue_at (const struct reloc_table *t,
				       uint32_t addr);

/* True if INSN is an I-type instruction whose rs is a base register.  */
bool has_base (const struct insn *insn);

/* Words put_far writes, its delay slot included unless CALL.  */
uint32_t far_words (bool use_gp, bool call, bool save_ra);

/* Write the copy of INSN.  */
bool put_insn_body (struct cursor *c, const struct insn *insn, char **errmsg);

/* Words of put_gp_guard.  */
uint32_t gp_guard_words (const struct emitter *e);

/* The first instruction of the block at TARGET when a jump there may
   run a copy of it in its delay slot and go on past it: an instruction
   that transfers no control, traps in no way, is neither a system call
   nor part of a gp prologue or an ll/sc sequence, is written as one word
   like any other (no GOT reference or translation to rewrite), and
   has no increment, probe or pad before it in the new code (but for a
   pad, with PAD_OK: the pads are placed while the layout is made,
   after whoever must know the answer before; jumping past the first
   instruction also jumps past any pad).  Else NULL.  */
const struct insn *slot_fill (const struct emitter *e, uint32_t target,
			      bool pad_ok);

/* With --counter-update=single, the first instruction of the target of
   the branch CTL of a block whose taken edge is counted by SN, when it
   may run before the increment instead of in the delay slot of a jump
   after it, so that the increment leaves by its carry test (put_llsc's
   SKIP_TO) and costs no more than a block's: slot_fill's instruction,
   which must not write a register the increment uses.  Else NULL.  */
const struct insn *single_leave_fill (const struct emitter *e,
				      const struct insn *ctl,
				      const struct snippet *sn);

#endif /* PROFCOPY_STAGES_H */
