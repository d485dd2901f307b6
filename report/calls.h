/* calls.h -- the call graph of a profile, from block counts alone.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   Every block that ends in a call (the call, then its delay slot) is a
   call site that ran as often as its block.  The callee of a direct
   call is the function holding its target; the callee of `jalr t9' is
   found when the block loads t9 from the GOT.  No trace is needed.  */

#ifndef PROFCOPY_CALLS_H
#define PROFCOPY_CALLS_H

#include <stdbool.h>
#include <stdio.h>

#include "report.h"

struct mips_object;

/* A malloc'd array of the addresses that the calls of PROF's blocks
   enter in its original OBJ (direct calls, and `jalr t9' through a
   local GOT entry), sorted, each once; *N of them.  NULL when out of
   memory.  */
uint32_t *calls_entries (const struct prof_object *prof,
			 const struct mips_object *obj, size_t *n);

/* Find the call sites of object number INDEX of R, whose original OBJ is
   open and whose blocks are attributed, and record its defined dynamic
   symbols.  On failure return false with a malloc'd reason in
   *ERRMSG.  */
bool calls_find (struct report *r, size_t index,
		 const struct mips_object *obj, char **errmsg);

/* Resolve the calls through global GOT entries of R to the first object
   (in profile order, the order of the dynamic linker's lookup) that
   defines the symbol.  Call once every object was added.  */
void calls_resolve (struct report *r);

/* Print the call graph of R to OUT: text (per function, its callers and
   callees) or CSV (caller,callee,count,caller_object,callee_object;
   the objects are the originals' paths, the callee's empty when no
   profiled object defines it).  */
void calls_print (FILE *out, const struct report *r,
		  enum report_format format);

/* Write the call graph of R to FILE as a Graphviz digraph, keeping the
   functions whose share of the instructions is at least NODE_THRES
   percent and the edges whose share of the calls is at least EDGE_THRES
   percent (with their two ends).  On failure return false with a
   malloc'd reason in *ERRMSG.  */
bool calls_write_dot (const char *file, const struct report *r,
		      double node_thres, double edge_thres, char **errmsg);

#endif /* PROFCOPY_CALLS_H */
