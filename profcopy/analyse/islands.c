/* islands.c -- machine code that its object addresses as data.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

/* Some objects carry machine code that their compiler did not lay out
   and that they address as a blob: V8's embedded builtins (Node.js's
   libnode) are bytes that mksnapshot wrote into .text, and V8 enters
   each builtin at the blob's start plus an offset from its own tables.
   Moving that code breaks every such address, whatever the map says of
   the start.  Such a blob is an island: a run of at least ISLAND_FUNCS
   functions that

   - no symbol names or marks (no symbol inside it at all), no FDE, no
     gp prologue: found from data and from calls only;
   - never read or write gp: they use no GOT, so compiled code of this
     object (position-independent, which reaches anything outside its
     function through the GOT) could not have made them;
   - are entered from the rest of the object by data words only, each
     pointing at the run's first word: no GOT entry, no code-built
     address, no switch table into it;
   - have no direct branch, jump or call into them from outside or out
     of them to the rest.

   An island is left as it is: it is not code for the rewrite (no blocks,
   no counts; the data word keeps its old address, so the old words run,
   and --poison-original leaves them alone).  */

#include <config.h>

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

#define ISLAND_FUNCS 64

/* True if function F of A could belong to an island by itself.  */

static bool
island_candidate (const struct analysis *a, const struct function *f)
{
  const struct cfg *cfg = &a->cfg;

  if (f->name != NULL || (f->from & ~(FUNC_FROM_CALL | FUNC_FROM_RELOC)) != 0)
    return false;
  for (uint32_t b = f->first_block; b < f->first_block + f->n_blocks; b++)
    for (uint32_t at = cfg->blocks[b].start; at < cfg->blocks[b].end; at += 4)
      {
	const struct insn *insn = code_insn_at (&a->code, at);
	if (insn != NULL && insn->kind != INSN_INVALID
	    && ((insn->reads | insn->writes) & REG_BIT (REG_GP)) != 0)
	  return false;
      }
  return true;
}

static int
compare_island (const void *pa, const void *pb)
{
  const struct code_island *x = pa, *y = pb;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* The island of the N sorted ISLANDS that holds ADDR, or NULL.  */

static struct code_island *
island_at (struct code_island *islands, size_t n, uint32_t addr)
{
  size_t lo = 0, hi = n;

  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (addr < islands[mid].start)
	hi = mid;
      else if (addr >= islands[mid].end)
	lo = mid + 1;
      else
	return &islands[mid];
    }
  return NULL;
}

/* Drop from the N islands of V those marked BAD (n_funcs 0); the count
   left.  */

static size_t
drop_bad (struct code_island *v, size_t n)
{
  size_t m = 0;

  for (size_t i = 0; i < n; i++)
    if (v[i].n_funcs != 0)
      v[m++] = v[i];
  return m;
}

bool
analysis_find_islands (const struct analysis *a, struct code_island **out,
		       size_t *n_out)
{
  const struct cfg *cfg = &a->cfg;
  const struct code *code = &a->code;
  const struct reloc_table *t = &a->relocs;
  struct code_island *v = NULL;
  size_t n = 0, cap = 0;

  *out = NULL;
  *n_out = 0;
  /* The runs of candidates, entered from data at their first word.  */
  for (size_t i = 0; i < cfg->n_funcs;)
    {
      size_t j = i;
      while (j < cfg->n_funcs && island_candidate (a, &cfg->funcs[j]))
	j++;
      if (j - i >= ISLAND_FUNCS && (cfg->funcs[i].from & FUNC_FROM_RELOC))
	{
	  if (n == cap)
	    {
	      struct code_island *w;
	      cap = cap ? 2 * cap : 4;
	      w = realloc (v, cap * sizeof *v);
	      if (w == NULL)
		{
		  free (v);
		  return false;
		}
	      v = w;
	    }
	  v[n].start = cfg->funcs[i].entry;
	  v[n].end = cfg->funcs[j - 1].end;
	  v[n].n_funcs = j - i;
	  n++;
	}
      i = j > i ? j : i + 1;
    }
  if (n == 0)
    return true;
  qsort (v, n, sizeof *v, compare_island);

  /* Inside one section (code_exclude takes it out of that one).  */
  for (size_t i = 0; i < n; i++)
    {
      bool inside = false;
      for (size_t k = 0; k < code->n_sections; k++)
	if (v[i].start >= code->sections[k].start
	    && v[i].end <= code->sections[k].end)
	  inside = true;
      if (!inside)
	v[i].n_funcs = 0;
    }

  /* Entered by data words at the first word only; no symbol inside.  */
  for (size_t i = 0; i < t->n_entries; i++)
    {
      const struct reloc_entry *e = &t->entries[i];
      struct code_island *is = island_at (v, n, e->target);
      if (is != NULL && (e->type != RELOC_DATA || e->target != is->start
			 || (e->flags & RELOC_F_TABLE_SLOT)))
	is->n_funcs = 0;
    }
  for (size_t i = 0; i < a->obj.n_symbols; i++)
    {
      const struct object_symbol *s = &a->obj.symbols[i];
      struct code_island *is;
      if (s->type == STT_SECTION || s->type == STT_FILE
	  || s->shndx == SHN_ABS)
	continue;
      is = island_at (v, n, s->value);
      if (is != NULL)
	is->n_funcs = 0;
    }
  for (size_t i = 0; i < a->n_landing_pads; i++)
    {
      struct code_island *is = island_at (v, n, a->landing_pads[i]);
      if (is != NULL)
	is->n_funcs = 0;
    }

  /* No direct transfer across an island's edge, either way.  */
  for (size_t s = 0; s < code->n_sections; s++)
    {
      const struct insn_section *sec = &code->sections[s];
      for (size_t k = 0; k < sec->n_insns; k++)
	{
	  const struct insn *insn = &sec->insns[k];
	  uint32_t at = sec->start + 4 * (uint32_t) k;
	  struct code_island *from, *to;
	  if (insn->kind != INSN_BRANCH && insn->kind != INSN_JUMP
	      && insn->kind != INSN_CALL)
	    continue;
	  if (insn->target == 0)
	    continue;
	  from = island_at (v, n, at);
	  to = island_at (v, n, insn->target);
	  if (from != to)
	    {
	      if (from != NULL)
		from->n_funcs = 0;
	      if (to != NULL)
		to->n_funcs = 0;
	    }
	}
    }
  n = drop_bad (v, n);
  if (n == 0)
    {
      free (v);
      v = NULL;
    }
  *out = v;
  *n_out = n;
  return true;
}
