/* emit.h -- the profiled copy of an object's code.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   Three stages make it: analyse/ proves what the counting code may
   rely on (function entries, the calls that come back, where gp and t9
   hold known values, the live registers), plan/ chooses the counting
   code of every block and the new GOT, emit/ lays out the new text and
   writes it: the original instructions, with direct branches re-aimed,
   GOT references and gp prologues updated through the relocation
   information table, and a 64-bit counter increment per counted block.
   stages.h holds what they share; rewrite.c places the result in the
   new segment.  */

#ifndef PROFCOPY_EMIT_H
#define PROFCOPY_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "derive.h"

struct prof_object;

/* The new GOT: the old one with new local entries inserted after the
   old local ones, so that gp-relative offsets below the old global
   entries keep their meaning and the others move up by 4 * N_NEW.  A
   multi-GOT object's GOTs are full up to gp's reach (GNU ld fills the
   primary one so): they stay in place (IN_PLACE), and the new entries
   exist only as values.  */
struct new_got
{
  uint32_t addr;		/* Link-time address of the new GOT.  */
  uint32_t gp;			/* addr + 0x7ff0.  */
  uint32_t n_old_local;		/* DT_MIPS_LOCAL_GOTNO of the original.  */
  uint32_t n_old;		/* Words of the original's primary GOT.  */
  bool in_place;		/* A multi-GOT object: every GOT stays where
				   it is, and the copy's code, whose gp is
				   never the new GOT's, computes the new
				   entries' values (put_got_value_at).  */
  uint32_t n_new;		/* Entries inserted: the counter chunks, then
				   the new addresses of code.  */
  uint32_t *new_values;		/* Their link-time values.  */
  uint32_t n_chunks;		/* Entries 0..n_chunks-1: counter chunks.  */
  uint32_t n_fixed;		/* Then the original code's start
				   (GOT_OLD_START), the map (GOT_MAP)
				   and the code's end (GOT_OLD_END),
				   for translating code pointers at
				   run time.  */
  uint32_t *target_of;		/* Entry n_fixed+k: new address of the
				   original code address target_of[k].  */
  uint32_t n_targets, alloc_targets;
  uint32_t *index;		/* Open-addressed, N_INDEX slots (a power
				   of two): k + 1 for target_of[k], 0
				   empty.  */
  uint32_t n_index;
  uint32_t *moved_pages;	/* Sorted: the values of old local entries
				   that are a 64 KiB page and also a code
				   address called through them, which the
				   copy changes to its new address (a
				   function at a page's start).  */
  size_t n_moved_pages;
};

/* One counter increment: how it reaches the counter, with which
   registers.  */
struct snippet
{
  uint8_t kind;			/* enum count_kind.  */
  uint8_t n_spill;		/* Registers saved around it.  */
  uint8_t regs[4];		/* Scratch: r1, r2 (ra first for COUNT_PC).  */
  uint8_t spill[4];		/* The ones that must be saved.  */
  bool hoist;			/* The instruction it precedes moves into the
				   delay slot of its retry branch.  */
  bool skip;			/* The instruction it precedes moves into the
				   delay slot of a branch-likely that leaves
				   the increment once the store succeeds
				   (put_llsc); 2 more words.  */
  bool jump;			/* With SKIP: the instruction it precedes
				   is an unconditional branch, which the
				   branch-likely replaces, with the
				   branch's delay slot in its own
				   (leaves_by_jump).  */
  int16_t saved_gp;		/* COUNT_SAVED_GP: the frame slot (from sp)
				   that holds gp.  */
  bool guard;			/* A translation: with the gp guard first
				   (emit/text.c, put_gp_guard).  */
  uint8_t gp_reg;		/* A translation: the register that holds
				   gp, if not gp (LLVM's code).  */
  bool gp_from_pc;		/* A translation where no register holds
				   gp: it computes gp into regs[2] from a
				   bal, ra saved meanwhile...  */
  bool ra_dead;			/* ... unless the jump is a call that
				   sets ra itself.  */
  uint8_t ra_keep;		/* COUNT_PC where ra is live: a register
				   dead there that keeps ra while bal
				   writes it (put_spill's `move' instead
				   of a frame below sp; ra is then
				   SPILL[0], the only one), or 0.  */
};

/* New GOT entries after the counter chunks.  */
#define GOT_OLD_START(g) ((g)->n_chunks)
#define GOT_MAP(g) ((g)->n_chunks + 1)
#define GOT_OLD_END(g) ((g)->n_chunks + 2)

/* Per block: where the counter increment goes and how.  A block whose
   every point lies inside an ll/sc sequence (where another ll would
   make the program's sc fail for ever) is counted on its way out
   instead (EDGE): after its fall-through, and in a stub that its
   branch is sent to before it goes on to the target.  */
struct count_plan
{
  uint32_t at;			/* Address of the instruction it precedes, or
				   the block's end.  */
  bool edge;			/* Counted on the outgoing edges.  */
  bool has_fall, has_taken;	/* With EDGE: which edges there are.  */
  struct snippet s;		/* The increment at AT (fall-through edge).  */
  struct snippet taken;		/* With EDGE: the one in the branch's stub.  */
  uint32_t stub;		/* With EDGE: where the stub is laid out.  */
  bool derived;			/* No counter: the count follows from others'
				   (derive.c); AT is 0.  */
  /* Counters on its branch edges (derive.c's taken_edge and fall_edge),
     whatever DERIVED says: after the block, the increment of the taken
     edge and a jump to the target, which the branch, inverted, skips on
     its way to the increment of the fall-through edge.  */
  bool count_taken, count_fall;
  uint32_t taken_counter, fall_counter;	/* Counter indices.  */
  struct snippet taken_s, fall_s;
  /* A loop of one block counted by its induction register (plan_loop):
     on the way in, IV_SAVE (dead throughout) takes a copy of IV_REG,
     which the block steps by plus or minus (minus with IV_DOWN) an odd
     number times 1 << IV_SHIFT; IV_INVERSE is the odd number's inverse
     modulo 2^32 when it is not 1, else 0.  On the way out, after the
     fall-through of its branch, the steps taken are added to the
     counter by S, whose registers are r1, r2 and the carry's (after ra
     for COUNT_PC).  AT is the block's start.  With IV_STACK (where no
     register is dead throughout the loop; only with a profile that
     says its visits are long), the copy is IV_REG's value stored below
     sp, lowered by 8 (the loop never touches sp), and S may save
     registers: the difference goes in its last register, the carry in
     ra for COUNT_PC.  */
  bool iv, iv_down, iv_stack;
  uint8_t iv_reg, iv_save, iv_shift;
  uint32_t iv_inverse;
};

/* How a got-ref addiu `addiu y,x,%lo(f)' is written (the low bits of
   its gotref_form; D is the new f less the page that x holds).  */
enum gotref_form
{
  GOTREF_GP,			/* lw y,<new f>(gp), or from GOTREF_REG
				   when that is not 0: a register that
				   holds gp (LLVM's code).  */
  GOTREF_ADD,			/* lui y,%hi(D); addiu y,y,%lo(D); addu y,y,x
				   (y != x).  */
  GOTREF_SAVED,			/* lw y,K(sp); lw y,<new f>(y): the gp that
				   the function saved in its frame.  */
  GOTREF_TMP,			/* lui r,%hi(D); addiu r,r,%lo(D); addu y,x,r
				   with r dead (GOTREF_REG).  */
  GOTREF_ABS,			/* lui y,%hi(new f); addiu y,y,%lo(new f):
				   the addiu of a fixed-address lui/addiu
				   pair (RELOC_HI_LO), whose gotref_slot is
				   f itself, with no GOT entry.  */
  GOTREF_T9,			/* lui y,%hi(E); addiu y,y,%lo(E);
				   addu y,y,t9, where t9 holds the new
				   address of the function's entry and E is
				   new f less that (t9_valid).  */
  GOTREF_PC,			/* bal; lui y; addu y,y,ra; addiu y,y: new f
				   relative to the bal, where ra is dead.  */
  GOTREF_PC_SAVED		/* The same with ra kept below a lowered sp
				   meanwhile: addiu sp,sp,-8; sw ra,0(sp);
				   ...; lw ra,0(sp); addiu sp,sp,8.  */
};
#define GOTREF_KIND(f)	((f) & 7)
/* Written before the branch whose delay slot it is, which then holds a
   nop.  */
#define GOTREF_F_BEFORE	8
#define GOTREF_REG(f)	((unsigned) (f) >> 4)
#define GOTREF_WITH_REG(r) ((r) << 4)

/* How a direct branch that cannot reach its new target is written.  */
enum long_kind
{
  LONG_NONE,
  LONG_T9,			/* jalr t9 / jr t9: t9 holds the target.  */
  LONG_CALL_GP,			/* lw r,<target>(gp); jalr r.  */
  LONG_CALL_PC,			/* r = target relative to a bal; jalr r.  */
  LONG_JUMP_GP,			/* slot; lw r,<target>(gp); jr r; nop.  */
  LONG_JUMP_PC,			/* slot; r = target via bal; jr r; nop.  */
  LONG_COND_GP,			/* Inverted branch around the gp jump.  */
  LONG_COND_PC,			/* Inverted branch around the bal jump.  */
  LONG_JUMP_PAD,		/* slot; save at and ra; bal jump to the
				   target's restore pad.  */
  LONG_COND_PAD,		/* Inverted branch around that.  */
  LONG_DATA_BAL			/* A bal over data that the code after it
				   reads through ra: bal; slot; the data,
				   code addresses made the copy's; b to the
				   target; nop.  */
};

enum count_kind
{
  COUNT_GP,			/* Counter chunk from the new GOT via gp.  */
  COUNT_PC,			/* PC-relative through bal (no valid gp).  */
  COUNT_ABS,			/* Absolute address (fixed-address objects).  */
  COUNT_T9,			/* Relative to t9, which holds the new address
				   of the function's entry.  */
  COUNT_WINDOW,			/* A counter of the window after the new GOT,
				   straight off gp.  */
  COUNT_SAVED_GP,		/* Counter chunk through the gp the function
				   saved in its frame (o32 .cprestore).  */
  COUNT_SAVED_WINDOW		/* A counter of the window, off the gp the
				   function saved in its frame.  */
};

/* Where the layout (emit/layout.c) puts the new text: per original
   word unless said otherwise.  */
struct layout
{
  uint32_t text_addr;		/* Where the new text starts.  */
  uint32_t text_size;
  uint32_t *map;		/* New address (block starts: of its counter).  */
  uint32_t *insn_new;		/* New address of the word's own copy.  */
  uint8_t *long_kind;		/* enum long_kind of a direct branch.  */
  uint8_t *long_reg;		/* Its scratch register.  */
  uint32_t *long_slot;		/* Its new entry.  */
  uint32_t *pad;		/* Per block start: address of its restore pad
				   (at and ra back, sp up) when some far jump
				   with nothing dead goes there, else 0.  */
  uint8_t *needs_pad;		/* A block start that needs one.  */
  uint32_t *retarget;		/* A branch's new target when not its map.  */
  uint32_t *t9_const;		/* Per block (or NULL): the original code
				   address t9 holds on every way in, or 0
				   (t9_constants).  */
  /* --calls: the probe stub the site calls; whether a copy of the stub
     is laid out just before the site; per entry word, the address
     after its probe, where the function's own branches to its entry
     go.  */
  uint32_t *probe_stub;
  uint8_t *probe_new_stub;
  uint32_t *past_probe;
  /* Or NULL: per function entry word, the address of its t9
     trampoline (PLAN.T9_TRAMP).  */
  uint32_t *tramp;
};

/* The addresses of the parts of the new segment that the emitted code
   refers to, which rewrite.c places (place_segments) before the text
   is written.  */
struct seg_addrs
{
  uint32_t counters;		/* The counter array.  */
  uint32_t window;		/* The window, right after the new GOT.  */
  uint32_t syscall_hook_slot;	/* The segment header's word that holds
				   the syscall hook's address.  */
  uint32_t jump_note_slot;	/* Its word that holds the runtime's jump
				   note's address.  */
  uint32_t probe_slots;		/* The two words the runtime fills
				   with its probe routines.  */
};

/* The figures that -v prints for one object: what the stages chose,
   counted as they choose it.  */
struct rewrite_stats
{
  /* Blocks counted by each kind of counting code (enum count_kind).  */
  size_t n_count_gp, n_count_pc, n_count_abs, n_count_t9;
  size_t n_count_window, n_count_saved_gp;
  size_t n_count_saved_window;	/* Window counters off the saved gp.  */
  size_t n_spilled;		/* Increments with saved registers.  */
  /* Increments with the next instruction in their delay slot: N_HOISTED
     plus N_SKIPPED, those behind a branch-likely.  */
  size_t n_hoisted, n_skipped;
  size_t n_jumps;		/* Increments in place of the b after them.  */
  size_t n_loops;		/* Counted by their induction register, */
  size_t n_loops_stack;		/* ... of them with the copy on the stack.  */
  size_t n_profiled;		/* Blocks the used profiles count.  */
  size_t n_derived;		/* Blocks whose counts are derived.  */
  size_t n_edge;		/* Blocks counted on edges.  */
  size_t n_edge_counters;	/* Branch edges counted, */
  size_t n_edge_window;		/* ... of them in gp's window, */
  size_t n_edge_saved_window;	/* ... off the gp saved in the frame.  */
  size_t n_long_calls;
  size_t n_xlate, n_xlate_skipped; /* Indirect jumps translated, not.  */
  size_t n_gotref_nogp;		/* Got-ref addius where gp may not be valid.  */
  size_t n_gotref_unsafe;	/* Those still written relative to gp.  */
  size_t n_probes, n_probe_stubs; /* --calls probe sites and stubs.  */
  size_t n_t9_tramps;		/* t9 trampolines (plan_t9_trampolines).  */
};

/* What the analysis proves of each word, block and function, which
   every later stage reads (emit_plan fills it before planning, and
   t9_dataflow after the GOT is planned): per original word unless said
   otherwise.  */
struct facts
{
  uint8_t *entered;		/* Reached other than by falling in.  */
  uint8_t *in_llsc;		/* Between an ll and its sc.  */
  unsigned char *returns;	/* Per function: may return to its caller
				   (analyse/entries.c, find_returning).  */
  uint8_t *gp_valid;		/* gp holds the new gp before this word.  */
  int16_t *gp_saved;		/* The offset from sp of a frame slot that
				   holds a valid gp, or -1.  */
  uint8_t *gp_untrusted;	/* Or NULL: a reload of gp from a slot that
				   may not hold a valid gp.  */
  uint8_t *t9_valid;		/* t9 holds the new address of the entry of
				   the word's function.  */
  uint32_t *t9_moves;		/* Or NULL: for a `move t9,S' (S callee-
				   saved), the original code address S
				   holds there on every way in, or 0.  */
};

/* What the copy will be, chosen by emit_plan (plan/): the counters and
   their code, the new GOT and its window, the rewritten GOT
   references, the translations of indirect jumps, the hooks and the
   probes.  Per original word unless said otherwise.  */
struct plan
{
  struct count_plan *blocks;	/* Per block: its counting code.  */
  struct derive derive;		/* Which blocks have counters.  */
  uint32_t *gotref_slot;	/* New entry + 1 for a got-ref addiu.  */
  uint16_t *gotref_form;	/* enum gotref_form of a got-ref addiu.  */
  unsigned char *invert;	/* A branch whose condition is inverted.  */
  unsigned char *edge_ok;	/* Per block: its branch edges may have
				   counters (mark_edge_candidates).  */
  size_t n_edge_candidates;
  uint8_t *hooks;		/* HOOK_*: the runtime's syscall hook is
				   called before the system call; the
				   jump is noted (--poison-original).  */
  bool exit_hooked;		/* Some hooked system call is exit_group.  */
  struct snippet *xlate;	/* Per indirect jump: scratch registers of
				   its run-time translation (kind COUNT_GP),
				   or kind 0xff for none.  */
  size_t n_xlate_guarded;	/* Translations with the gp guard.  */
  /* Or NULL: per function entry word, the register in which its t9
     trampoline keeps ra (0: no trampoline); per word, 1 for a bal
     that goes to its callee's trampoline (plan_t9_trampolines).  */
  uint8_t *t9_tramp;
  uint8_t *t9_call;
  /* --calls: per original word, PROBE_ENTRY at a function's entry,
     PROBE_EXIT at a return or tail jump, else 0.  */
  bool calls;
  uint8_t *probe;
  /* The window: N_WINDOW counters right after the new GOT at
     SEG.WINDOW (set with the GOT's address), for the counters
     WINDOW_BLOCKS lists in ascending order (a block i, or the counted
     branch edge k as n_blocks + k); WINDOW_SLOT[c] is counter c's, or
     -1.  EDGE_OWNER[k] is 2 x the block whose branch edge k is, plus 1
     for a fall-through edge.  */
  uint32_t n_window;
  uint32_t *window_blocks;
  int32_t *window_slot;
  uint32_t *edge_owner;
  struct new_got got;
  /* While emit_plan chooses the counters: per block, its count in the
     used profiles (-1: not known), or NULL without profiles.  */
  double *counts;
};

/* One object's rewrite: how it is asked for, then the records of the
   stages in the order they are made.  */
struct emitter
{
  const struct analysis *a;
  bool fixed_address;		/* ET_EXEC: addresses are absolute.  */
  bool single;			/* --counter-update=single: increments
				   with lw and sw, not ll and sc.  */
  bool folded;			/* The runtime carries the counters' low
				   words into their high words
				   (PC_SEGMENT_F_FOLDED): increments have
				   no carry test, and no carry paths.  */
  size_t n_words;		/* The code's (code_word_index).  */
  uint32_t old_start, old_end;	/* The original code range of the map.  */

  struct facts facts;
  struct plan plan;
  struct layout layout;
  struct seg_addrs seg;
  struct rewrite_stats stats;
};

struct symbol_scope;

/* What emit_narrow_liveness finds of the calls between the functions
   of an object: malloc'd arrays, per block, 0 when nothing is known.  */
struct call_sites
{
  uint32_t *into;		/* 1 + the entry block of the function that
				   the block's call enters, when nothing
				   else can enter that function (derive_plan
				   then takes the call as the way in).  */
  uint32_t *enters;		/* 1 + the function that the block's call or
				   jump enters (a direct one, or an indirect
				   one whose target is known).  */
  unsigned char *returning;	/* 1 when the block's call surely comes
				   back to the block after it (returns.c).  */
  struct liveness_job *liveness; /* The liveness still being computed
				   in a thread of its own, or NULL.  */
};

/* Compute the liveness of A (cfg_liveness_narrow), with fewer registers
   live after the returns of the functions that only this object's
   direct calls and jumps enter, so that the counting code finds more
   dead registers.  Fill *SITES (to be freed with call_sites_free).
   The liveness itself is computed by a thread of its own, while the
   caller goes on with what needs no live sets (emit_plan until it
   places the counters); call_sites_wait waits for it.  SCOPE, when not
   NULL, is the --whole-program closure that A is the SELF-th object of
   (which definitions the calls of A bind to); ONE_THREAD says that no
   other thread runs its code (single increments).  False when out of
   memory.  */
bool emit_narrow_liveness (struct analysis *a, struct call_sites *sites,
			   const struct symbol_scope *scope, size_t self,
			   bool one_thread);

/* Wait for the liveness that emit_narrow_liveness started; false if it
   ran out of memory.  */
bool call_sites_wait (struct call_sites *sites);

/* Wait for the liveness if needed, and free SITES' arrays.  */
void call_sites_free (struct call_sites *sites);

/* Prepare E for the analysis A: its facts (struct facts,
   analyse/facts.c), then its plan (struct plan): the count plan of
   every block (a counter in every one with ALL_BLOCKS, else only where
   derive.c says, with the SITES of emit_narrow_liveness) and the new
   GOT's entries (their addresses are fixed later); with SINGLE,
   increments that threads may race (see struct emitter).  The N_USED
   profiled objects USED (earlier runs of this file; may be NULL) place
   the counters by their counts instead of by the static estimate.
   False with *ERRMSG on failure.  */
bool emit_plan (struct emitter *e, const struct analysis *a, bool all_blocks,
		bool calls, bool single, bool folded, bool note_jumps,
		struct call_sites *sites,
		const struct prof_object *const *used, size_t n_used,
		char **errmsg);

/* Bytes of one counter of E's window: 8, or with folded counters 4,
   the low word alone (segment.h).  */
uint32_t emit_window_entry (const struct emitter *e);

/* After emit_layout: if the GOT grew so much that the window after it
   leaves gp's reach, give the coldest window blocks ordinary counters
   and lay the text out again, until it fits.  False with *ERRMSG on
   failure.  */
bool emit_window_fit (struct emitter *e, char **errmsg);

#define PROBE_ENTRY	1
#define PROBE_EXIT	2

/* Lay out the new text at TEXT_ADDR (walk_text on a counting cursor,
   again while long branches are added): fill struct layout and set
   text_size.  */
bool emit_layout (struct emitter *e, uint32_t text_addr, char **errmsg);

/* Write the new text (e->layout.text_size bytes) to OUT in the
   object's byte order, by the walk that laid it out (walk_text).  The
   new GOT and the counters must have their addresses.  */
bool emit_text (struct emitter *e, unsigned char *out, char **errmsg);

/* The new address for the original code address OLD (a block start or
   any instruction), or OLD itself when OLD is not code.  */
uint32_t emit_map (const struct emitter *e, uint32_t old);

/* The index of the original code word at ADDR among all code words, or
   -1 when ADDR is not a code word.  */
static inline long
emit_word_index (const struct emitter *e, uint32_t addr)
{
  return code_word_index (&e->a->code, addr);
}

void emit_free (struct emitter *e);

#endif /* PROFCOPY_EMIT_H */
