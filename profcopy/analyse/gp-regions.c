/* gp-regions.c -- which gp the code of a multi-GOT object uses where.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   When the GOT entries of a shared object outgrow the 64 KiB that gp
   reaches, GNU ld gives some of its input files a secondary GOT after
   the primary one, and the functions of those files set gp to that
   GOT's (their prologue's _gp_disp is from it).  Every gp-relative
   word of such a function (GOT loads, switch tables of gp-relative
   words) means an address from that gp.  Functions are laid out by
   input file, so the code from one gp prologue on to the next uses
   that prologue's gp; a function without one (a leaf, or the cold part
   of a function that GCC moved to .text.unlikely) takes the gp of the
   code that jumps into it, or that it jumps into, else of the code
   before it.  */

#include <config.h>

#include <elf.h>
#include <stdlib.h>

#include "array.h"
#include "insn.h"
#include "object.h"
#include "reloc-finders.h"

/* A region: the code from START on, until the next region, whose gp is
   GP, 0 while unknown.  */
struct region
{
  uint32_t start, gp;
};

static int
compare_region (const void *pa, const void *pb)
{
  const struct region *a = pa, *b = pb;

  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  /* A known gp first, so that it wins over an unknown one.  */
  return (a->gp == 0) - (b->gp == 0);
}

/* The region of V (N of them) that holds ADDR, or -1.  */

static long
region_of (const struct region *v, size_t n, uint32_t addr)
{
  size_t lo = 0, hi = n;

  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (v[mid].start <= addr)
	lo = mid + 1;
      else
	hi = mid;
    }
  return (long) lo - 1;
}

/* One pass of the direct jumps, branches and calls of CODE over the N
   regions V: a region of unknown gp takes the gp of a region that jumps
   or branches into it, or calls it, or that it jumps or branches into
   (a jump keeps gp; a call keeps it when the callee computes none).
   True if some region took a gp.  */

static bool
spread (const struct code *code, struct region *v, size_t n)
{
  bool changed = false;

  for (size_t s = 0; s < code->n_sections; s++)
    {
      const struct insn_section *sec = &code->sections[s];
      for (size_t i = 0; i < sec->n_insns; i++)
	{
	  const struct insn *x = &sec->insns[i];
	  long from, to;
	  if (x->kind != INSN_BRANCH && x->kind != INSN_JUMP
	      && x->kind != INSN_CALL)
	    continue;
	  from = region_of (v, n, x->addr);
	  to = region_of (v, n, x->target);
	  if (from < 0 || to < 0 || from == to)
	    continue;
	  if (v[to].gp == 0 && v[from].gp != 0)
	    {
	      v[to].gp = v[from].gp;
	      changed = true;
	    }
	  else if (v[from].gp == 0 && v[to].gp != 0 && x->kind != INSN_CALL)
	    {
	      v[from].gp = v[to].gp;
	      changed = true;
	    }
	}
    }
  return changed;
}

bool
find_gp_regions (const struct mips_object *obj, const struct code *code,
		 struct reloc_table *table)
{
  const struct object_section *stubs = object_section_named (obj,
							     ".MIPS.stubs");
  struct region *v;
  size_t n = 0, k = 0;
  uint32_t gp;

  table->gp = obj->gp;
  if (obj->got_primary >= obj->got_size)
    return true;
  v = malloc ((table->n_entries + obj->n_symbols + 3) * sizeof *v);
  if (v == NULL)
    return false;
  for (size_t i = 0; i < table->n_entries; i++)
    {
      const struct reloc_entry *r = &table->entries[i];
      if (r->type == RELOC_PROLOGUE)
	v[n++] = (struct region) { r->target, r->aux };
      else if (r->type == RELOC_FDE || r->type == RELOC_ENTRY
	       || r->type == RELOC_INIT || r->type == RELOC_FINI)
	v[n++] = (struct region) { r->target, 0 };
    }
  for (size_t i = 0; i < obj->n_symbols; i++)
    if (obj->symbols[i].type == STT_FUNC
	&& object_is_code (obj, obj->symbols[i].value))
      v[n++] = (struct region) { obj->symbols[i].value, 0 };
  /* The lazy-binding stubs, which code of every GOT calls, are read as
     the primary GOT's (their `lw t9,-0x7ff0(gp)' loads its reserved
     word, ld.so's resolver).  */
  if (stubs != NULL && stubs->size > 0)
    {
      v[n++] = (struct region) { stubs->addr, obj->gp };
      v[n++] = (struct region) { stubs->addr + stubs->size, 0 };
    }
  if (n > 0)
    qsort (v, n, sizeof *v, compare_region);
  /* One region per start, its known gp if any.  */
  for (size_t i = 0; i < n; i++)
    if (k == 0 || v[k - 1].start != v[i].start)
      v[k++] = v[i];
  n = k;
  /* Each pass carries a gp one jump further; a few reach every cold
     part from its function.  */
  for (int pass = 0; pass < 8 && spread (code, v, n); pass++)
    continue;
  /* The rest take the gp before them; then only the changes stay.  */
  gp = obj->gp;
  k = 0;
  for (size_t i = 0; i < n; i++)
    {
      if (v[i].gp == 0)
	v[i].gp = gp;
      if (v[i].gp != gp)
	v[k++] = v[i];
      gp = v[i].gp;
    }
  table->gp_regions = malloc ((k + 1) * sizeof *table->gp_regions);
  if (table->gp_regions == NULL)
    {
      free (v);
      return false;
    }
  for (size_t i = 0; i < k; i++)
    table->gp_regions[i] = (uint64_t) v[i].start << 32 | v[i].gp;
  table->n_gp_regions = k;
  free (v);
  return true;
}

uint32_t
reloc_table_gp_at (const struct reloc_table *table, uint32_t addr)
{
  /* The last region that starts at ADDR or before.  */
  size_t k = array_lower_bound_u64 (table->gp_regions, table->n_gp_regions,
				    (uint64_t) addr + 1, 32);

  return k == 0 ? table->gp : (uint32_t) table->gp_regions[k - 1];
}
