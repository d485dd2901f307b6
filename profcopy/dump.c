/* dump.c -- the --dump-relocs and --dump-blocks listings.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#include <config.h>

#include <inttypes.h>

#include "dump.h"

/* Print one entry E: TYPE ADDR, then the fields of its type.  */

static void
dump_entry (FILE *out, const struct reloc_entry *e)
{
  fprintf (out, "%s 0x%08" PRIx32, reloc_type_name (e->type), e->addr);
  switch (e->type)
    {
    case RELOC_PROLOGUE:
      fprintf (out, " info=0x%08" PRIx32 " gp=0x%08" PRIx32
	       " func=0x%08" PRIx32 " reg=%s", e->info, e->aux, e->target,
	       e->via == VIA_RA ? "ra" : "t9");
      if (e->aux2 != 0)
	fprintf (out, " pair=$%" PRIu32 " addu=0x%08" PRIx32, e->index,
		 e->aux2);
      break;
    case RELOC_DATA:
      fprintf (out, " target=0x%08" PRIx32 " via=%s", e->target,
	       e->via == VIA_SCAN ? "scan" : e->via == VIA_ARRAY ? "array"
	       : "rel32");
      if (e->index != 0)
	fprintf (out, " sym=%s", e->name != NULL ? e->name : "");
      break;
    case RELOC_GOT_REF:
      fprintf (out, " target=0x%08" PRIx32 " got=0x%08" PRIx32
	       " page=0x%08" PRIx32 " addiu=0x%08" PRIx32 " info=0x%08" PRIx32,
	       e->target, e->index, e->aux2, e->aux, e->info);
      break;
    case RELOC_GOT:
      fprintf (out, " target=0x%08" PRIx32 " index=%" PRIu32, e->target,
	       e->index);
      break;
    case RELOC_JUMP_TABLE:
      fprintf (out, " target=0x%08" PRIx32 " table=0x%08" PRIx32
	       " jr=0x%08" PRIx32 " kind=%s", e->target, e->aux, e->aux2,
	       e->via == VIA_ABS ? "abs" : e->via == VIA_LABEL ? "label"
	       : "gprel");
      if (e->via == VIA_LABEL)
	fprintf (out, " base=0x%08" PRIx32, e->base);
      fprintf (out, " bound=%s",
	       (e->flags & RELOC_F_UNPROVEN) ? "scan"
	       : (e->flags & RELOC_F_CLOSED) ? "closed" : "proven");
      break;
    case RELOC_HI_LO:
      fprintf (out, " target=0x%08" PRIx32 " addiu=0x%08" PRIx32,
	       e->target, e->aux);
      break;
    case RELOC_SYMBOL:
      fprintf (out, " table=%s index=%" PRIu32 " name=%s",
	       e->via == VIA_DYNSYM ? "dynsym" : "symtab", e->index,
	       e->name != NULL ? e->name : "");
      break;
    case RELOC_FDE:
      fprintf (out, " target=0x%08" PRIx32 " end=0x%08" PRIx32, e->target,
	       e->aux2);
      break;
    default:
      break;
    }
  fputc ('\n', out);
}

void
dump_relocs (FILE *out, const struct analysis *a)
{
  for (size_t i = 0; i < a->relocs.n_entries; i++)
    dump_entry (out, &a->relocs.entries[i]);
}

/* Print the FUNC_FROM_* bits of FROM as a comma-separated list.  */

static void
dump_from (FILE *out, unsigned from)
{
  static const struct
  {
    unsigned bit;
    const char *name;
  } names[] = {
    { FUNC_FROM_SYMTAB, "symtab" }, { FUNC_FROM_DYNSYM, "dynsym" },
    { FUNC_FROM_FDE, "fde" }, { FUNC_FROM_PROLOGUE, "prologue" },
    { FUNC_FROM_CALL, "call" }, { FUNC_FROM_RELOC, "reloc" },
    { FUNC_FROM_ENTRY, "entry" }, { FUNC_FROM_SECTION, "section" },
  };
  const char *sep = "";

  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (from & names[i].bit)
      {
	fprintf (out, "%s%s", sep, names[i].name);
	sep = ",";
      }
  if (*sep == '\0')
    fputc ('-', out);
}

void
dump_blocks (FILE *out, const struct analysis *a)
{
  const struct cfg *cfg = &a->cfg;
  char regs[256];

  for (size_t i = 0; i < a->n_islands; i++)
    fprintf (out, "island 0x%08" PRIx32 " 0x%08" PRIx32 " functions=%zu "
	     "(left as it is)\n", a->islands[i].start, a->islands[i].end,
	     a->islands[i].n_funcs);
  for (size_t f = 0; f < cfg->n_funcs; f++)
    {
      const struct function *fn = &cfg->funcs[f];
      fprintf (out, "function 0x%08" PRIx32 " 0x%08" PRIx32 " name=%s from=",
	       fn->entry, fn->end, fn->name != NULL ? fn->name : "");
      dump_from (out, fn->from);
      fputc ('\n', out);
      for (uint32_t b = fn->first_block; b < fn->first_block + fn->n_blocks;
	   b++)
	{
	  const struct block *bl = &cfg->blocks[b];
	  fprintf (out, "  block 0x%08" PRIx32 " 0x%08" PRIx32 " insns=%" PRIu32
		   " succ=", bl->start, bl->end, (bl->end - bl->start) / 4);
	  if (bl->n_succ == 0)
	    fputc ('-', out);
	  for (uint32_t s = 0; s < bl->n_succ && s < 2; s++)
	    fprintf (out, "%s0x%08" PRIx32, s ? "," : "",
		     cfg->blocks[bl->succ[s]].start);
	  reg_mask_string (bl->live_in, regs, sizeof regs);
	  fprintf (out, " live-in=%s\n", regs[0] != '\0' ? regs : "-");
	}
    }
}
