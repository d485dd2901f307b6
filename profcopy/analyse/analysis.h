/* analysis.h -- the analysis half of profcopy, for one object.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_ANALYSIS_H
#define PROFCOPY_ANALYSIS_H

#include <stdbool.h>

#include "object.h"
#include "insn.h"
#include "cfg.h"
#include "reloc-table.h"

/* A run of machine code that the object addresses as data
   (islands.c): left as it is, not code for the rewrite.  */
struct code_island
{
  uint32_t start, end;		/* [start, end).  */
  size_t n_funcs;		/* The functions it held.  */
};

/* Everything profcopy learns about one object, in pipeline order.  */
struct analysis
{
  struct mips_object obj;	/* Input: bfd-plugin.  */
  struct code code;		/* Decoded instructions: opcodes-glue.  */
  struct reloc_table relocs;	/* Relocation information table.  */
  struct cfg cfg;		/* Functions, blocks, liveness.  */
  uint32_t *landing_pads;	/* C++ landing pads (from the LSDAs), sorted.  */
  size_t n_landing_pads;
  struct code_island *islands;	/* Taken out of CODE, sorted; found with
				   the CFG (ANALYSE_CFG and deeper).  */
  size_t n_islands;
  bool have_obj, have_code, have_relocs, have_cfg;
};

/* What to compute.  */
enum analysis_depth
{
  ANALYSE_RELOCS,		/* Object, code and relocation table.  */
  ANALYSE_CFG,			/* ... and functions and blocks.  */
  ANALYSE_BLOCKS		/* ... and liveness.  */
};

/* Analyse the object at PATH to DEPTH into *A.  On failure return false
   with a malloc'd reason in *ERRMSG; *A must still be freed.  */
bool analysis_run (const char *path, enum analysis_depth depth,
		   struct analysis *a, char **errmsg);

/* The same for the object already read into A->obj (with have_obj
   set, and the rest of *A zero), by a caller that has it from
   elsewhere: from memory, say, with object_read_image.  */
bool analysis_run_object (enum analysis_depth depth, struct analysis *a,
			  char **errmsg);

/* The jumps through the switch tables of A's relocation table, as
   edges between blocks, in *EDGES (malloc'd; *N of them); none for a
   jump one of whose targets starts no block, or whose table may have
   more entries than were found (RELOC_F_UNPROVEN).  False when out of
   memory.  */
bool analysis_table_edges (const struct analysis *a, struct cfg_edge **edges,
			   size_t *n);

/* Per function of A's CFG (a malloc'd array, NULL when out of memory),
   1 when control may enter its blocks in ways analysis does not see:
   it jumps through a switch table of gp-relative words or label
   offsets that may have more entries than were found
   (RELOC_F_UNPROVEN), or computes a
   gp-relative address (`addu x,y,gp') that no known table explains,
   the element of a table no walk followed.  Its jumps are translated
   at run time with the gp guard (emit/text.c, put_gp_guard), and derive.c takes every one
   of its blocks as entered from outside.  (A table of absolute
   addresses in a position-independent object needs neither: every
   code address in its data is in the relocation table.)  */
unsigned char *analysis_unknown_entries (const struct analysis *a);

/* The islands of A's CFG (see islands.c) in *ISLANDS (malloc'd, sorted;
   NULL when none) and *N.  False when out of memory.  */
bool analysis_find_islands (const struct analysis *a,
			    struct code_island **islands, size_t *n);

void analysis_free (struct analysis *a);

#endif /* PROFCOPY_ANALYSIS_H */
