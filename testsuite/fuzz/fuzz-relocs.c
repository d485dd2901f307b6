/* fuzz-relocs.c -- fuzz target: the relocation information table and
   the analysis behind it (analysis_run_object: code_decode,
   reloc_table_build, functions, blocks and liveness).

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The input is an object file, read from memory without a BFD (the
   decoder then takes the machine from e_flags).  What --dump-relocs
   and --dump-blocks would print is printed to /dev/null, and the
   table's jumps and the functions' unknown entries are computed as
   the rewriter does.  */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include "analysis.h"
#include "dump.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static FILE *null;
  struct analysis a = { 0 };
  struct cfg_edge *edges;
  size_t n_edges;
  char *err = NULL;

  if (null == NULL && (null = fopen ("/dev/null", "w")) == NULL)
    abort ();
  if (!object_read_image ("input", data, size, &a.obj, &err))
    {
      /* Every refusal says why.  */
      if (err == NULL)
	abort ();
      free (err);
      return 0;
    }
  a.have_obj = true;
  if (!analysis_run_object (ANALYSE_BLOCKS, &a, &err))
    {
      if (err == NULL)
	abort ();
      free (err);
      analysis_free (&a);
      return 0;
    }
  dump_relocs (null, &a);
  dump_blocks (null, &a);
  if (analysis_table_edges (&a, &edges, &n_edges))
    free (edges);
  free (analysis_unknown_entries (&a));
  analysis_free (&a);
  return 0;
}
