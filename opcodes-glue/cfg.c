/* cfg.c -- split decoded code into functions and basic blocks.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   Function entries are the addresses the caller marks as such, the
   start of every executable section, and the targets of direct calls
   (except the `bal 1f' idiom that only reads the PC, whose target is
   the word after its own delay slot).  A function runs to the next
   entry or to the end of its section.

   Block leaders are the function entries, every address the caller
   gives, the targets of direct branches, jumps and calls, the word after
   the delay slot of every control transfer, and the first word of every
   run of invalid words and the first word after one.  A block therefore
   ends after the delay slot of its branch.  A leader that falls in a
   delay slot (a branch to a slot) would separate the slot from its
   branch; it is dropped and counted instead, and the block is marked
   BLOCK_F_SLOT_ENTRY.  Only a function entry may split a slot from its
   branch (that is counted too): then the "branch" is almost certainly
   data that decodes as one.

   Successors are the fall-through block and the block holding the
   target of a direct branch or jump; a call's successor is its return
   point.  A successor may lie in another function (a tail call, or code
   shared between entries).  */

#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "cfg-int.h"

/* Per-word marks used while building.  */
#define MARK_LEADER	0x01	/* The word starts a block.  */
#define MARK_SLOT_ENTRY	0x02	/* A dropped leader fell on this slot.  */

/* What cfg_build needs while it works: for every word of CODE, in
   section order, its marks and its FUNC_FROM_* bits.  */
struct builder
{
  const struct code *code;
  unsigned char *mark;
  unsigned *from;
};

/* Set *INDEX to the word index of ADDR in B (code_word_index); false
   if ADDR is not a word of an executable section.  */

static bool
word_index (const struct builder *b, uint32_t addr, size_t *index)
{
  long w = code_word_index (b->code, addr);

  if (w < 0)
    return false;
  *index = (size_t) w;
  return true;
}

/* Mark the leaders and function entries of section S (whose first word
   has index BASE) in B.  */

static void
mark_section (struct builder *b, size_t s)
{
  const struct insn_section *is = &b->code->sections[s];
  size_t base = is->base;

  b->from[base] |= FUNC_FROM_SECTION;
  for (size_t i = 0; i < is->n_insns; i++)
    {
      const struct insn *insn = &is->insns[i];
      size_t t;

      if (insn->kind == INSN_INVALID)
	{
	  if (i == 0 || is->insns[i - 1].kind != INSN_INVALID)
	    b->mark[base + i] |= MARK_LEADER;
	  if (i + 1 < is->n_insns && is->insns[i + 1].kind != INSN_INVALID)
	    b->mark[base + i + 1] |= MARK_LEADER;
	  continue;
	}
      if (!insn_kind_is_control (insn->kind))
	continue;
      if ((insn->kind == INSN_BRANCH || insn->kind == INSN_JUMP
	   || insn->kind == INSN_CALL)
	  && word_index (b, insn->target, &t))
	{
	  b->mark[t] |= MARK_LEADER;
	  if (insn->kind == INSN_CALL && insn->target != insn->addr + 8)
	    b->from[t] |= FUNC_FROM_CALL;
	}
      t = i + 1 + ((insn->flags & INSN_F_DELAY) != 0);
      if (t < is->n_insns)
	b->mark[base + t] |= MARK_LEADER;
      /* Zero words after a transfer that does not fall through are
	 padding: the code after them starts a block of its own, even
	 when nothing names it (pandoc's runtime has a function at
	 0x3965200, reached only through a pointer, after `j; nop' and
	 two words of padding).  */
      if (insn->kind == INSN_JUMP || insn->kind == INSN_IJUMP
	  || insn->kind == INSN_RETURN)
	{
	  size_t z = t;
	  while (z < is->n_insns && is->insns[z].word == 0)
	    z++;
	  if (z > t && z < is->n_insns)
	    b->mark[base + z] |= MARK_LEADER;
	}
    }
}

/* Find every leader and function entry of B's code, from ADDRS too.
   Drop the leaders that fall in delay slots, counting them in CFG.  */

static void
mark_all (struct builder *b, const struct code_addr *addrs, size_t n_addrs,
	  struct cfg *cfg)
{
  const struct code *code = b->code;

  for (size_t s = 0; s < code->n_sections; s++)
    mark_section (b, s);
  for (size_t i = 0; i < n_addrs; i++)
    {
      size_t t;

      if (word_index (b, addrs[i].addr, &t))
	{
	  b->mark[t] |= MARK_LEADER;
	  b->from[t] |= addrs[i].func_from;
	}
    }
  for (size_t s = 0; s < code->n_sections; s++)
    {
      const struct insn_section *is = &code->sections[s];

      for (size_t i = 0; i < is->n_insns; i++)
	{
	  size_t w = b->code->sections[s].base + i;

	  if (b->from[w] != 0)
	    {
	      b->mark[w] |= MARK_LEADER;
	      if (is->insns[i].flags & INSN_F_SLOT)
		cfg->n_slot_splits++;
	    }
	  else if ((b->mark[w] & MARK_LEADER)
		   && (is->insns[i].flags & INSN_F_SLOT))
	    {
	      b->mark[w] = MARK_SLOT_ENTRY;
	      cfg->n_slot_leaders++;
	    }
	}
    }
}

/* The granule of block_index's table: one word, so that the search
   sees at most two blocks (4 bytes of table per word of code; a libc's
   analysis asks about 400,000 times).  */
#define GRANULE_SHIFT 2

/* The index of the block of CFG that contains ADDR, or -1.  */

static long
block_index (const struct cfg *cfg, uint32_t addr)
{
  size_t lo = 0, hi = cfg->n_blocks;

  if (cfg->page_first != NULL && addr >= cfg->page_base)
    {
      size_t p = (addr - cfg->page_base) >> GRANULE_SHIFT;
      if (p >= cfg->n_pages)
	return -1;
      lo = cfg->page_first[p];
      /* The granule is one word: its first block holds it, if any.  */
      if (lo < hi && addr >= cfg->blocks[lo].start
	  && addr < cfg->blocks[lo].end)
	return (long) lo;
      if (p + 1 < cfg->n_pages && cfg->page_first[p + 1] < hi)
	hi = cfg->page_first[p + 1] + 1;
    }
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;

      if (addr < cfg->blocks[mid].start)
	hi = mid;
      else if (addr >= cfg->blocks[mid].end)
	lo = mid + 1;
      else
	return (long) mid;
    }
  return -1;
}

/* Build CFG's granule index for block_index: the first block that ends
   after the start of each granule (none when out of memory: the search
   is then over all blocks).  */

static void
index_pages (struct cfg *cfg)
{
  uint32_t first, last;
  size_t b = 0;

  if (cfg->n_blocks == 0)
    return;
  first = cfg->blocks[0].start & ~((1u << GRANULE_SHIFT) - 1);
  last = cfg->blocks[cfg->n_blocks - 1].end;
  cfg->n_pages = ((size_t) (last - first) >> GRANULE_SHIFT) + 1;
  cfg->page_first = malloc (cfg->n_pages * sizeof *cfg->page_first);
  if (cfg->page_first == NULL)
    {
      cfg->n_pages = 0;
      return;
    }
  cfg->page_base = first;
  for (size_t p = 0; p < cfg->n_pages; p++)
    {
      uint32_t page = first + (uint32_t) (p << GRANULE_SHIFT);
      while (b < cfg->n_blocks && cfg->blocks[b].end <= page)
	b++;
      cfg->page_first[p] = (uint32_t) b;
    }
}

/* Add block index SUCC to the successors of block B, once.  */

static void
add_succ (struct block *b, long succ)
{
  if (succ < 0)
    return;
  for (uint32_t i = 0; i < b->n_succ; i++)
    if (b->succ[i] == (uint32_t) succ)
      return;
  if (b->n_succ < 2)
    b->succ[b->n_succ++] = (uint32_t) succ;
}

/* Set the flags and successors of block I of CFG over CODE.  SECTION_END
   is the end of its section.  */

static void
link_block (const struct code *code, struct cfg *cfg, size_t i,
	    uint32_t section_end)
{
  struct block *b = &cfg->blocks[i];
  const struct insn *slot;
  const struct insn *ctl = cfg_block_control (code, b, &slot);
  long next = (b->end < section_end && i + 1 < cfg->n_blocks
	       ? (long) i + 1 : -1);
  bool falls = true;

  for (uint32_t a = b->start; a < b->end; a += 4)
    if (code_insn_at (code, a)->kind == INSN_INVALID)
      b->flags |= BLOCK_F_INVALID;
  if (code_insn_at (code, b->start)->kind == INSN_INVALID)
    return;			/* Data: no successors.  */

  if (ctl != NULL)
    switch (ctl->kind)
      {
      case INSN_BRANCH:
	add_succ (b, block_index (cfg, ctl->target));
	break;
      case INSN_JUMP:
	add_succ (b, block_index (cfg, ctl->target));
	falls = false;
	break;
      case INSN_CALL:
      case INSN_ICALL:
	b->flags |= BLOCK_F_CALL;
	break;
      case INSN_RETURN:
	b->flags |= BLOCK_F_RETURN;
	falls = false;
	break;
      default:
	b->flags |= BLOCK_F_INDIRECT;
	falls = false;
	break;
      }
  if (b->flags & BLOCK_F_SLOT_ENTRY)
    falls = true;
  if (!falls)
    return;
  if (next < 0 || (cfg->blocks[next].flags & BLOCK_F_INVALID))
    b->flags |= BLOCK_F_FALLTHRU_EXIT;
  add_succ (b, next);
}

/* Create the functions and blocks of CFG from the marks of B.  NAME_OF
   and CTX name the functions.  */

static bool
make_blocks (struct builder *b, struct cfg *cfg,
	     const char *(*name_of) (void *ctx, uint32_t addr), void *ctx)
{
  const struct code *code = b->code;
  size_t n_funcs = 0, n_blocks = 0;

  for (size_t w = 0; w < b->code->n_words; w++)
    {
      n_funcs += b->from[w] != 0;
      n_blocks += (b->mark[w] & MARK_LEADER) != 0;
    }
  cfg->funcs = calloc (n_funcs + 1, sizeof *cfg->funcs);
  cfg->blocks = calloc (n_blocks + 1, sizeof *cfg->blocks);
  if (cfg->funcs == NULL || cfg->blocks == NULL)
    return false;

  for (size_t s = 0; s < code->n_sections; s++)
    {
      const struct insn_section *is = &code->sections[s];

      for (size_t i = 0; i < is->n_insns; i++)
	{
	  size_t w = b->code->sections[s].base + i;
	  uint32_t addr = is->start + 4 * (uint32_t) i;

	  if (b->from[w] != 0)
	    {
	      struct function *f = &cfg->funcs[cfg->n_funcs++];

	      f->entry = addr;
	      f->from = b->from[w];
	      f->name = name_of != NULL ? name_of (ctx, addr) : NULL;
	      f->first_block = (uint32_t) cfg->n_blocks;
	    }
	  if (b->mark[w] & MARK_LEADER)
	    {
	      struct block *bl = &cfg->blocks[cfg->n_blocks++];

	      bl->start = addr;
	      bl->func = (uint32_t) cfg->n_funcs - 1;
	      cfg->funcs[cfg->n_funcs - 1].n_blocks++;
	    }
	  cfg->blocks[cfg->n_blocks - 1].end = addr + 4;
	  cfg->funcs[cfg->n_funcs - 1].end = addr + 4;
	  if (b->mark[w] & MARK_SLOT_ENTRY)
	    cfg->blocks[cfg->n_blocks - 1].flags |= BLOCK_F_SLOT_ENTRY;
	}
    }

  index_pages (cfg);
  for (size_t s = 0, i = 0; s < code->n_sections; s++)
    for (; i < cfg->n_blocks && cfg->blocks[i].start < code->sections[s].end;
	 i++)
      link_block (code, cfg, i, code->sections[s].end);
  return true;
}

/* Build CFG over CODE from the N_ADDRS addresses ADDRS; NAME_OF (with
   CTX) names the functions.  On failure return false with *ERRMSG.  */

bool
cfg_build (const struct code *code, const struct code_addr *addrs,
	   size_t n_addrs,
	   const char *(*name_of) (void *ctx, uint32_t addr), void *ctx,
	   struct cfg *cfg, char **errmsg)
{
  struct builder b;
  bool ok = false;

  memset (cfg, 0, sizeof *cfg);
  memset (&b, 0, sizeof b);
  b.code = code;
  b.mark = calloc (code->n_words + 1, sizeof *b.mark);
  b.from = calloc (code->n_words + 1, sizeof *b.from);
  if (b.mark == NULL || b.from == NULL)
    goto cleanup;

  mark_all (&b, addrs, n_addrs, cfg);
  ok = make_blocks (&b, cfg, name_of, ctx);

 cleanup:
  free (b.mark);
  free (b.from);
  if (!ok)
    {
      cfg_free (cfg);
      return glue_error (errmsg, "out of memory");
    }
  return true;
}

/* Free everything CFG owns.  */

void
cfg_free (struct cfg *cfg)
{
  free (cfg->page_first);
  free (cfg->funcs);
  free (cfg->blocks);
  memset (cfg, 0, sizeof *cfg);
}

/* Return the block of CFG that contains ADDR, or NULL.  */

const struct block *
cfg_block_at (const struct cfg *cfg, uint32_t addr)
{
  long i = block_index (cfg, addr);

  return i < 0 ? NULL : &cfg->blocks[i];
}

long
cfg_block_starting (const struct cfg *cfg, uint32_t addr)
{
  long i = block_index (cfg, addr);

  return i >= 0 && cfg->blocks[i].start == addr ? i : -1;
}

/* Return the function of CFG that contains ADDR, or NULL.  */

const struct function *
cfg_function_at (const struct cfg *cfg, uint32_t addr)
{
  size_t lo = 0, hi = cfg->n_funcs;
  long b = block_index (cfg, addr);

  /* A word of code: its block knows (a function is the run of blocks
     from its entry to the next).  */
  if (b >= 0)
    return &cfg->funcs[cfg->blocks[b].func];

  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;

      if (addr < cfg->funcs[mid].entry)
	hi = mid;
      else if (addr >= cfg->funcs[mid].end)
	lo = mid + 1;
      else
	return &cfg->funcs[mid];
    }
  return NULL;
}
