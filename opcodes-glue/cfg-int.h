/* cfg-int.h -- internal interfaces of opcodes-glue.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_CFG_INT_H
#define PROFCOPY_CFG_INT_H

#include "cfg.h"

/* Set *ERRMSG (when not NULL) to a malloc'd message formatted from FMT
   and return false.  */
bool glue_error (char **errmsg, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));

/* True if KIND transfers control (branch, jump, call or return).  */
static inline bool
insn_kind_is_control (unsigned kind)
{
  return kind != INSN_OTHER && kind != INSN_INVALID;
}

/* The key under which code_decode keeps libopcodes' classification of
   WORD: words with the same key get the same classification.  */
uint32_t code_memo_key (uint32_t word);

#endif /* PROFCOPY_CFG_INT_H */
