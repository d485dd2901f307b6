/* finder.h -- what got-ref.c, gp-bases.c and jump-tables.c share: the
   state of the walk that finds code addresses computed by code.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_FINDER_H
#define PROFCOPY_FINDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "insn.h"
#include "mips-ops.h"
#include "object.h"
#include "regflow.h"
#include "reloc-finders.h"

/* How far a proof of a table's bound walks back from the addu that
   indexes the table: instructions on one path, and paths.  */
#define BOUND_STEPS	96
#define BOUND_PATHS	32

/* How many stack slots and register copies an entry loaded from a
   table may pass through before its jump.  */
#define ENTRY_HOPS	6

enum table_kind
{
  TABLE_ABS,			/* The entries are addresses.  */
  TABLE_GPREL,			/* Offsets from gp (.gpword).  */
  TABLE_LABEL			/* Offsets from a code label (GCC's computed
				   goto in PIC code: &&l - &&base).  */
};

struct jump_table
{
  uint32_t base;		/* Address of the first entry.  */
  uint32_t jr;			/* The jump that uses it.  */
  enum table_kind kind;
  uint32_t add;			/* TABLE_LABEL: the addu of the label;
				   TABLE_GPREL: the addu of gp.  */
  unsigned label_reg;		/* TABLE_LABEL: the register with the label.  */
  uint32_t label;		/* TABLE_LABEL: the label, once found.  */
  uint32_t index_add;		/* The addu of the table and the index.  */
  unsigned index_reg;		/* The index register there (4 x the
				   entry's number).  */
};

/* Where an entry loaded from a table goes: the table, the addu that
   indexed it, and what was added to the entry so far.  */
struct entry_path
{
  uint32_t base;
  enum table_kind kind;
  uint32_t add;
  unsigned label_reg;
  uint32_t index_add;
  unsigned index_reg;
  /* The store and the reload of the stack slot through which the sum
     of the table's address and the index went, or 0.  */
  uint32_t spill[2];
};

/* A constant stored to the stack, to be followed from its reloads.  */
struct spill
{
  uint32_t store;		/* The sw.  */
  uint32_t value;		/* The constant stored.  */
  uint32_t slot_addr;		/* GOT slot it came from, or 0 for a lui.  */
  uint32_t origin;		/* The instruction that loaded it first.  */
};

/* A code reference found but not yet entered: USE, an addiu that
   reads REG as DEF set it to the GOT page or %hi C, is checked for
   other values only once every spill is known (settle_pending).  */
struct pending_ref
{
  const struct insn *def, *use;
  unsigned reg;
  uint32_t c, slot_addr, origin;
};

/* The instructions of one function that write one register, by the
   readers their values reach (got-ref.c, reader_sees_other).  */
struct writer_index
{
  uint32_t lo, hi;		/* The function; both 0 until built.  */
  uint32_t (*by_use)[2];	/* (reader, writer) addresses, sorted.  */
  size_t n, alloc;
  uint32_t *cut;		/* Writers whose walk was cut short: they
				   may reach any reader.  */
  size_t n_cut, alloc_cut;
};

struct finder
{
  const struct mips_object *obj;
  const struct code *code;
  struct reloc_table *table;
  struct regflow *rf;
  struct jump_table *tables;
  size_t n_tables, alloc_tables;
  unsigned char *slot_done;	/* GOT slots already entered.  */
  uint32_t n_slot_done;
  struct spill *spills;
  size_t n_spills, alloc_spills;
  struct pending_ref *pending;
  size_t n_pending, alloc_pending;
  uint32_t *funcs;		/* Sorted function entries known so far.  */
  size_t n_funcs;
  /* For proving table bounds: the direct branches and jumps as (target,
     source) pairs sorted by target, and the sorted addresses that
     control may reach other than by those and by falling in (function
     entries, code addresses the table holds, switch cases).  Built on
     first use.  */
  uint32_t (*branch_in)[2];
  size_t n_branch_in;
  uint32_t *entered;
  size_t n_entered;
  bool proof_ready;
  /* The (instruction, register, table) walks follow_entry made, so that
     copies and spills that go round in circles end: an open-addressed
     set of N_SEEN keys (a power of two), USED_SEEN of them taken.  */
  uint64_t *seen;
  size_t n_seen, used_seen;
  /* Per register, the writers of the function last asked about.  */
  struct writer_index writers[32];
};

/* True if INSN reloads a register from the stack.  A value derived
   from a reload is not spilled again: a counter kept on the stack would
   otherwise look like an endless series of constants.  */

static inline bool
is_reload (const struct insn *insn)
{
  return insn->op == OP_LW && insn->rs == REG_SP;
}

/* got-ref.c.  */
bool is_addu (const struct insn *insn);
unsigned copy_source (const struct insn *insn);
const struct insn **copy_readers (const struct regflow *rf, bool walked,
				  size_t *n, bool *ok);
const struct insn **readers (struct finder *f, const struct insn *def,
			     unsigned reg, size_t *n, bool *ok);
uint32_t *function_entries (const struct reloc_table *table, size_t *n);
size_t entries_upto (const uint32_t *v, size_t n, uint32_t addr);
void function_bounds (const struct finder *f, uint32_t addr, uint32_t *lo,
		      uint32_t *hi);
/* The function around ADDR, as function_bounds, clipped to ADDR's code
   section; false when ADDR is in none.  */
bool function_span (const struct finder *f, uint32_t addr, uint32_t *lo,
		    uint32_t *hi);
/* Whether ADDR is a function entry known so far.  */
bool known_entry (const struct finder *f, uint32_t addr);
/* Enter the code reference of the addiu USE to the GOT page or %hi C,
   loaded first by ORIGIN (from the GOT slot SLOT_ADDR, 0 for a lui).  */
bool enter_code_ref (struct finder *f, const struct insn *use, uint32_t c,
		     uint32_t slot_addr, uint32_t origin);

/* settle.c.  Whether the reload RELOAD may see another value than the
   constant VALUE of the GOT slot SLOT_ADDR (0: of a lui).  */
bool reload_sees_other (struct finder *f, uint32_t value, uint32_t slot_addr,
			const struct insn *reload, bool *ok);
/* Whether the reload RELOAD may see another value than the store
   STORE puts in its slot: another store over the slot in its function
   that reaches it, or one that regflow cannot follow.  */
bool reload_sees_other_store (struct finder *f, const struct insn *store,
			      const struct insn *reload, bool *ok);
/* Enter the pending references that see one value.  */
bool settle_pending (struct finder *f);
/* Drop the references from entry FIRST of TABLE on whose addiu two
   code addresses meet.  */
bool drop_conflicts (struct reloc_table *table, size_t first);

/* gp-bases.c: the loads and stores whose base holds gp from LLVM's
   prologue into another register than gp (struct reloc_table,
   gp_bases), found with the walker RF.  False when out of memory.  */
bool find_gp_bases (const struct code *code, struct reloc_table *table,
		    struct regflow *rf);

/* jump-tables.c.  */
bool emit_tables (struct finder *f);

#endif /* PROFCOPY_FINDER_H */
