/* regstate.h -- what the register dataflows of regstate.c (gp) and
   t9state.c (t9) share.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_REGSTATE_H
#define PROFCOPY_REGSTATE_H

#include "stages.h"

static inline bool
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
	     bool (*step) (const struct emitter *, bool, const struct insn *),
	     uint8_t *record)
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
      valid = step (e, valid, insn);
      if (is_call (insn))
	called = true;
    }
  return valid && !called;
}

/* Lower IN (a register state per block) at the targets of every switch
   table whose jump runs with the state invalid, stepping with STEP from
   the start of the jump's block to the jump itself; with SAME_FUNC, a
   table entry in another function gets an invalid state.  Set DIRTY
   (when not NULL) for each block lowered.  Return whether anything
   changed.  */
bool jump_table_meet (const struct emitter *e, unsigned char *in,
		      bool (*step) (const struct emitter *, bool,
				    const struct insn *), bool same_func,
		      unsigned char *dirty);

#endif /* PROFCOPY_REGSTATE_H */
