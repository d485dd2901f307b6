/* analysis.c -- run the analysis passes over one object.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#include <config.h>

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "ehframe-write.h"

/* Whether ADDR is one of the N labels of BASES.  */

static bool
label_base (const uint32_t *bases, size_t n, uint32_t addr)
{
  for (size_t i = 0; i < n; i++)
    if (bases[i] == addr)
      return true;
  return false;
}

/* The code addresses that the relocation table and the symbols know,
   as function entries or plain block leaders for cfg_build.  Only
   function symbols start functions; other symbols in code (labels,
   lazy-binding stubs) start blocks.  A GOT reference to the label of
   a computed-goto table (glibc's vfprintf loads its jump_table's base
   so) is the function's own: it starts a block, not a function.  */

static struct code_addr *
code_addresses (const struct analysis *a, size_t *n)
{
  const struct reloc_table *t = &a->relocs;
  const struct mips_object *obj = &a->obj;
  struct code_addr *v = malloc ((t->n_entries + obj->n_symbols
				 + a->n_landing_pads + 1) * sizeof *v);
  uint32_t *bases = malloc ((t->n_entries + 1) * sizeof *bases);
  size_t k = 0, n_bases = 0;

  if (v == NULL || bases == NULL)
    {
      free (v);
      free (bases);
      return NULL;
    }
  /* The labels of the computed-goto tables (VIA_LABEL), each once.  */
  for (size_t i = 0; i < t->n_entries; i++)
    if (t->entries[i].type == RELOC_JUMP_TABLE
	&& t->entries[i].via == VIA_LABEL
	&& !label_base (bases, n_bases, t->entries[i].base))
      bases[n_bases++] = t->entries[i].base;
  /* The unwinder enters landing pads: each starts a block.  */
  for (size_t i = 0; i < a->n_landing_pads; i++)
    {
      v[k].addr = a->landing_pads[i];
      v[k].func_from = 0;
      k++;
    }
  for (size_t i = 0; i < t->n_entries; i++)
    {
      const struct reloc_entry *e = &t->entries[i];
      unsigned from;

      switch (e->type)
	{
	case RELOC_PROLOGUE:
	  from = FUNC_FROM_PROLOGUE;
	  break;
	case RELOC_FDE:
	  from = FUNC_FROM_FDE;
	  break;
	case RELOC_ENTRY:
	case RELOC_INIT:
	case RELOC_FINI:
	  from = FUNC_FROM_ENTRY;
	  break;
	case RELOC_DATA:
	  from = e->flags & RELOC_F_TABLE_SLOT ? 0 : FUNC_FROM_RELOC;
	  break;
	case RELOC_GOT_REF:
	  from = label_base (bases, n_bases, e->target) ? 0 : FUNC_FROM_RELOC;
	  break;
	case RELOC_GOT:
	case RELOC_HI_LO:
	  from = FUNC_FROM_RELOC;
	  break;
	case RELOC_SYMBOL:
	  continue;
	case RELOC_JUMP_TABLE:
	default:
	  from = 0;
	  break;
	}
      v[k].addr = e->target;
      v[k].func_from = from;
      k++;
    }
  for (size_t i = 0; i < obj->n_symbols; i++)
    {
      const struct object_symbol *s = &obj->symbols[i];
      if (s->type == STT_SECTION || s->type == STT_FILE
	  || s->shndx == SHN_ABS || !object_is_code (obj, s->value))
	continue;
      v[k].addr = s->value;
      v[k].func_from = s->type != STT_FUNC ? 0
	: s->dynamic ? FUNC_FROM_DYNSYM : FUNC_FROM_SYMTAB;
      k++;
    }
  *n = k;
  free (bases);
  return v;
}

/* Symbols sorted by value, for naming functions.  */
struct symbol_index
{
  const struct object_symbol **by_value;
  size_t n;
};

static int
compare_symbol_value (const void *pa, const void *pb)
{
  const struct object_symbol *a = *(const struct object_symbol *const *) pa;
  const struct object_symbol *b = *(const struct object_symbol *const *) pb;
  return a->value < b->value ? -1 : a->value > b->value;
}

/* Name the function at ADDR from the symbol index CTX: a .symtab
   function first, then a .dynsym one, then any other symbol.  */

static const char *
name_of (void *ctx, uint32_t addr)
{
  const struct symbol_index *ix = ctx;
  const char *best = NULL;
  int best_rank = 0;
  size_t lo = 0, hi = ix->n;

  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (ix->by_value[mid]->value < addr)
	lo = mid + 1;
      else
	hi = mid;
    }
  for (size_t i = lo; i < ix->n && ix->by_value[i]->value == addr; i++)
    {
      const struct object_symbol *s = ix->by_value[i];
      int rank;
      if (s->name == NULL || s->name[0] == '\0'
	  || s->type == STT_SECTION || s->type == STT_FILE)
	continue;
      rank = (s->type == STT_FUNC ? 4 : 1) + (s->dynamic ? 0 : 2)
	+ (s->bind == STB_GLOBAL ? 1 : 0);
      if (rank > best_rank)
	{
	  best = s->name;
	  best_rank = rank;
	}
    }
  return best;
}

bool
analysis_run (const char *path, enum analysis_depth depth, struct analysis *a,
	      char **errmsg)
{
  memset (a, 0, sizeof *a);
  if (!object_open (path, &a->obj, errmsg))
    return false;
  a->have_obj = true;
  return analysis_run_object (depth, a, errmsg);
}

/* Find A's functions and blocks (A->cfg) from what its relocation table
   and symbols know, naming them from IX.  False with *ERRMSG on
   failure.  */

static bool
build_cfg (struct analysis *a, struct symbol_index *ix, char **errmsg)
{
  size_t n_addrs = 0;
  struct code_addr *addrs = code_addresses (a, &n_addrs);
  bool ok;

  if (addrs == NULL)
    {
      *errmsg = strdup ("out of memory");
      return false;
    }
  ok = cfg_build (&a->code, addrs, n_addrs, name_of, ix, &a->cfg, errmsg);
  a->have_cfg = ok;
  free (addrs);
  return ok;
}

bool
analysis_run_object (enum analysis_depth depth, struct analysis *a,
		     char **errmsg)
{
  struct symbol_index ix = { NULL, 0 };
  bool ok = false;

  if (!code_decode (&a->obj, &a->code, errmsg))
    goto cleanup;
  a->have_code = true;
  if (!reloc_table_build (&a->obj, &a->code, &a->relocs, errmsg))
    goto cleanup;
  a->have_relocs = true;
  if (depth >= ANALYSE_CFG)
    {
      if (!eh_landing_pads (&a->obj, &a->landing_pads, &a->n_landing_pads,
			    errmsg))
	goto cleanup;
      ix.by_value = malloc ((a->obj.n_symbols + 1) * sizeof *ix.by_value);
      if (ix.by_value == NULL)
	{
	  *errmsg = strdup ("out of memory");
	  goto cleanup;
	}
      for (size_t i = 0; i < a->obj.n_symbols; i++)
	ix.by_value[ix.n++] = &a->obj.symbols[i];
      qsort (ix.by_value, ix.n, sizeof *ix.by_value, compare_symbol_value);
      if (!build_cfg (a, &ix, errmsg))
	goto cleanup;
      if (!analysis_find_islands (a, &a->islands, &a->n_islands))
	{
	  *errmsg = strdup ("out of memory");
	  goto cleanup;
	}
      if (a->n_islands > 0)
	{
	  /* Without the islands' words, the relocation table no longer
	     takes the data words that enter them for code addresses, and
	     the functions are found again around them.  */
	  for (size_t i = 0; i < a->n_islands; i++)
	    if (!code_exclude (&a->code, a->islands[i].start,
			       a->islands[i].end))
	      {
		*errmsg = strdup ("out of memory");
		goto cleanup;
	      }
	  cfg_free (&a->cfg);
	  a->have_cfg = false;
	  reloc_table_free (&a->relocs);
	  a->have_relocs = false;
	  if (!reloc_table_build (&a->obj, &a->code, &a->relocs, errmsg))
	    goto cleanup;
	  a->have_relocs = true;
	  if (!build_cfg (a, &ix, errmsg))
	    goto cleanup;
	}
      if (depth >= ANALYSE_BLOCKS && !cfg_liveness (&a->code, &a->cfg))
	{
	  *errmsg = strdup ("out of memory");
	  goto cleanup;
	}
    }
  ok = true;

 cleanup:
  free (ix.by_value);
  return ok;
}

static int
compare_addr (const void *pa, const void *pb)
{
  uint32_t a = *(const uint32_t *) pa, b = *(const uint32_t *) pb;
  return a < b ? -1 : a > b;
}

bool
analysis_table_edges (const struct analysis *a, struct cfg_edge **edges,
		      size_t *n)
{
  const struct cfg *cfg = &a->cfg;
  unsigned char *bad = calloc (cfg->n_blocks + 1, 1);
  struct cfg_edge *e = malloc ((a->relocs.n_by_type[RELOC_JUMP_TABLE] + 1)
			       * sizeof *e);
  size_t k = 0, m = 0;

  *edges = NULL;
  *n = 0;
  if (bad == NULL || e == NULL)
    {
      free (bad);
      free (e);
      return false;
    }
  for (size_t i = 0; i < a->relocs.n_entries; i++)
    {
      const struct reloc_entry *r = &a->relocs.entries[i];
      const struct block *from, *to;

      if (r->type != RELOC_JUMP_TABLE
	  || k == a->relocs.n_by_type[RELOC_JUMP_TABLE])
	continue;
      from = cfg_block_at (cfg, r->aux2);
      to = cfg_block_at (cfg, r->target);
      if (from == NULL)
	continue;
      /* A table whose size is not proven may send its jump elsewhere
	 too: the jump is no edge of the flow graph.  */
      if (to == NULL || to->start != r->target
	  || (r->flags & RELOC_F_UNPROVEN))
	bad[from - cfg->blocks] = 1;
      else
	{
	  e[k].from = (uint32_t) (from - cfg->blocks);
	  e[k++].to = (uint32_t) (to - cfg->blocks);
	}
    }
  for (size_t i = 0; i < k; i++)
    if (!bad[e[i].from])
      e[m++] = e[i];
  free (bad);
  *edges = e;
  *n = m;
  return true;
}

unsigned char *
analysis_unknown_entries (const struct analysis *a)
{
  const struct cfg *cfg = &a->cfg;
  const struct code *code = &a->code;
  unsigned char *unknown = calloc (cfg->n_funcs + 1, 1);
  uint32_t *known = malloc ((a->relocs.n_entries + 1) * sizeof *known);
  size_t n_known = 0;

  if (unknown == NULL || known == NULL)
    {
      free (unknown);
      free (known);
      return NULL;
    }
  for (size_t k = 0; k < a->relocs.n_entries; k++)
    {
      const struct reloc_entry *r = &a->relocs.entries[k];
      const struct block *b;
      if (r->type != RELOC_JUMP_TABLE)
	continue;
      if (r->via == VIA_GPREL)
	known[n_known++] = r->index;
      if ((r->flags & RELOC_F_UNPROVEN) && r->via != VIA_ABS
	  && (b = cfg_block_at (cfg, r->aux2)) != NULL)
	unknown[b->func] = 1;
    }
  qsort (known, n_known, sizeof *known, compare_addr);
  for (size_t i = 0; i < cfg->n_blocks; i++)
    {
      const struct block *b = &cfg->blocks[i];
      if (unknown[b->func])
	continue;
      for (uint32_t at = b->start; at < b->end; at += 4)
	{
	  const struct insn *insn = code_insn_at (code, at);
	  unsigned other;
	  if (insn == NULL || insn->op != 0 || (insn->word & 0x3f) != 0x21
	      || insn->rd == REG_ZERO || insn->rd == REG_GP
	      || (insn->rs != REG_GP && insn->rt != REG_GP))
	    continue;
	  other = insn->rs == REG_GP ? insn->rt : insn->rs;
	  if (other == REG_ZERO || other == REG_GP
	      || bsearch (&at, known, n_known, sizeof *known, compare_addr))
	    continue;
	  unknown[b->func] = 1;
	  break;
	}
    }
  free (known);
  return unknown;
}

void
analysis_free (struct analysis *a)
{
  if (a->have_cfg)
    cfg_free (&a->cfg);
  if (a->have_relocs)
    reloc_table_free (&a->relocs);
  if (a->have_code)
    code_free (&a->code);
  free (a->landing_pads);
  free (a->islands);
  if (a->have_obj)
    object_close (&a->obj);
  memset (a, 0, sizeof *a);
}
