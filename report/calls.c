/* calls.c -- find the call sites of the profiled objects and their
   callees.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The original object is decoded with opcodes-glue.  A block of the
   profile whose next-to-last word is a call (jal, bal, bgezal, jalr)
   is a call site; its last word is the delay slot.  The callee of
   `jalr t9' is known when the same block set t9 with `lw t9,OFF(gp)'
   (and perhaps `addiu t9,t9,IMM' after it): a global GOT entry names a
   dynamic symbol, which the dynamic linker looks up in the program,
   then in its libraries; a local GOT entry holds an address in this
   object.  Anything else is an indirect call.  */

#include <config.h>

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "insn.h"
#include "mips-ops.h"
#include "object.h"


/* Return the function of object RO that holds ADDR (the function of the
   block containing it), or REPORT_NO_FUNC.  */

static size_t
func_at (const struct report_object *ro, uint32_t addr)
{
  const struct prof_object *prof = ro->prof;
  size_t lo = 0, hi = prof->n_blocks;

  /* Find the last block starting at or below ADDR.  */
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (prof->blocks[ro->order[mid]].start <= addr)
	lo = mid + 1;
      else
	hi = mid;
    }
  if (lo == 0)
    return REPORT_NO_FUNC;
  const struct prof_block *blk = &prof->blocks[ro->order[lo - 1]];
  if (addr - blk->start >= blk->size)
    return REPORT_NO_FUNC;
  return ro->block_func[ro->order[lo - 1]];
}

/* Decode the code word at ADDR of OBJ into *INSN with our own field
   decoder (insn_fields; code_decode's counters show it agreeing with
   libopcodes on every word of the Debian cross libc, both byte orders,
   and of libstdc++); false when ADDR is no word of an executable
   section.  Only the words a report looks at are read: decoding all of
   libc took three quarters of profreport's time.  */

static void
decode_word (uint32_t word, uint32_t addr, struct insn *insn)
{
  insn_fields (word, addr, insn);
  if (insn->kind != INSN_JUMP && insn->kind != INSN_CALL
      && insn->kind != INSN_BRANCH)
    insn->target = 0;
  if (insn->kind == INSN_OTHER || insn->kind == INSN_INVALID)
    insn->flags &= ~(INSN_F_DELAY | INSN_F_LIKELY | INSN_F_COND);
}

static bool
code_word (const struct mips_object *obj, uint32_t addr, struct insn *insn)
{
  const struct object_section *sec = object_section_at (obj, addr);
  uint32_t word;

  if (sec == NULL || addr % 4 != 0 || sec->type == SHT_NOBITS
      || !(sec->flags & SHF_EXECINSTR) || !object_read_word (obj, addr, &word))
    return false;
  decode_word (word, addr, insn);
  return true;
}

/* What the `jalr t9' at CALL of block BLK of OBJ calls, when the block
   loads t9 from the GOT: a code address of OBJ (a local entry, perhaps
   plus an addiu) in *ADDR, or the index in .dynsym of a global entry's
   symbol in *SYM; 0 and -1 when not known.  */

static void
t9_source (const struct mips_object *obj, const struct prof_block *blk,
	   uint32_t call, uint32_t *addr, long *sym)
{
  uint32_t add = 0;

  *addr = 0;
  *sym = -1;
  for (uint32_t a = call; a > blk->start; a -= 4)
    {
      struct insn rec;
      const struct insn *in = &rec;
      int64_t off;
      uint32_t got_index, value;

      if (!code_word (obj, a - 4, &rec))
	return;
      if (!(in->writes & REG_BIT (REG_T9)))
	continue;
      if (in->op == OP_ADDIU && in->rs == REG_T9 && in->rt == REG_T9)
	{
	  add += (uint32_t) in->imm;
	  continue;
	}
      if (in->op != OP_LW || in->rs != REG_GP || in->rt != REG_T9)
	return;

      off = (int64_t) obj->gp + in->imm - obj->got_addr;
      if (off < 0 || off % 4 != 0 || obj->got_addr == 0)
	return;
      got_index = (uint32_t) (off / 4);
      if (got_index < obj->dyn.local_gotno)
	{
	  if (object_got_entry (obj, got_index, &value)
	      && object_is_code (obj, value + add))
	    *addr = value + add;
	  return;
	}
      /* A global entry: the address of a dynamic symbol, which an
	 addiu would not change.  */
      if (add == 0 && got_index < obj->got_size / 4)
	*sym = (long) obj->dyn.gotsym + got_index - obj->dyn.local_gotno;
      return;
    }
}

/* Fill SITE's callee for the `jalr t9' at CALL of block BLK of object
   RO (original OBJ, dynamic symbols DYNSYMS, N_DYNSYMS).  Return false
   when out of memory.  */

static bool
jalr_t9_callee (struct report_call *site, const struct report_object *ro,
		const struct mips_object *obj, const struct prof_block *blk,
		uint32_t call, const struct object_symbol **dynsyms,
		size_t n_dynsyms)
{
  uint32_t addr;
  long sym;

  t9_source (obj, blk, call, &addr, &sym);
  if (addr != 0)
    site->callee = func_at (ro, addr);
  if (sym < 0 || (size_t) sym >= n_dynsyms || dynsyms[sym] == NULL
      || dynsyms[sym]->name == NULL || dynsyms[sym]->name[0] == '\0')
    return true;
  site->symbol = strdup (dynsyms[sym]->name);
  return site->symbol != NULL;
}

/* The section of OBJ's last block_call, so that the blocks, which come
   in address order, seldom need a search.  */
struct call_reader
{
  const struct mips_object *obj;
  const struct object_section *sec;
};

/* Whether WORD may be a call: jal, jalr, or bltzal, bgezal and their
   likely forms.  */

static bool
call_word (uint32_t word)
{
  unsigned op = word >> 26, rt = (word >> 16) & 0x1f;

  return op == OP_JAL || (op == OP_SPECIAL && (word & 0x3f) == FUNCT_JALR)
	 || (op == OP_REGIMM && rt >= REGIMM_BLTZAL && rt <= REGIMM_BGEZALL);
}

/* The call at the end of block BLK of CR's object (its next-to-last
   word, the last its delay slot) in *IN, or false.  */

static bool
block_call (struct call_reader *cr, const struct prof_block *blk,
	    struct insn *in)
{
  const struct object_section *sec = cr->sec;
  uint32_t addr = blk->start + blk->size - 8, word;

  if (blk->size < 8 || blk->size % 4 != 0
      || blk->start + (uint64_t) blk->size > UINT32_MAX)
    return false;
  /* Most blocks end in no call: their word is read from the section
     directly, and decoded only when it may be one.  */
  if (sec == NULL || addr - sec->addr > sec->size - 4 || sec->size < 4)
    {
      sec = object_section_at (cr->obj, addr);
      if (sec == NULL)
	return false;
      cr->sec = sec;
    }
  if (sec->type == SHT_NOBITS || !(sec->flags & SHF_EXECINSTR)
      || (uint64_t) sec->offset + (addr - sec->addr) + 4 > cr->obj->size)
    return false;
  word = object_get32 (cr->obj,
		       cr->obj->image + sec->offset + (addr - sec->addr));
  if (!call_word (word))
    return false;
  decode_word (word, addr, in);
  return (in->flags & INSN_F_DELAY)
	 && (in->kind == INSN_CALL || in->kind == INSN_ICALL);
}

/* Sort the N addresses A through TMP (N words): a radix sort, 11 bits
   at a time.  */

static void
sort_addresses (uint32_t *a, uint32_t *tmp, size_t n)
{
  size_t count[(1 << 11) + 1];

  for (unsigned shift = 0; shift < 32; shift += 11)
    {
      memset (count, 0, sizeof count);
      for (size_t k = 0; k < n; k++)
	count[((a[k] >> shift) & 0x7ff) + 1]++;
      for (size_t d = 0; d < 0x7ff; d++)
	count[d + 1] += count[d];
      for (size_t k = 0; k < n; k++)
	tmp[count[(a[k] >> shift) & 0x7ff]++] = a[k];
      memcpy (a, tmp, n * sizeof *a);
    }
}

uint32_t *
calls_entries (const struct prof_object *prof, const struct mips_object *obj,
	       size_t *n)
{
  uint32_t *entries = malloc ((prof->n_blocks + 1) * sizeof *entries);
  uint32_t *tmp;
  struct call_reader cr = { obj, NULL };
  size_t count = 0, out = 0;

  *n = 0;
  if (entries == NULL)
    return NULL;
  for (uint32_t b = 0; b < prof->n_blocks; b++)
    {
      const struct prof_block *blk = &prof->blocks[b];
      struct insn in;
      uint32_t addr = 0;
      long sym;

      if (!block_call (&cr, blk, &in))
	continue;
      if (in.kind == INSN_CALL && in.target != in.addr + 8)
	addr = in.target;
      else if (in.kind == INSN_ICALL && in.rs == REG_T9)
	t9_source (obj, blk, in.addr, &addr, &sym);
      if (addr != 0)
	entries[count++] = addr;
    }
  tmp = malloc ((count + 1) * sizeof *tmp);
  if (tmp == NULL)
    {
      free (entries);
      return NULL;
    }
  sort_addresses (entries, tmp, count);
  free (tmp);
  for (size_t i = 0; i < count; i++)
    if (out == 0 || entries[out - 1] != entries[i])
      entries[out++] = entries[i];
  *n = out;
  return entries;
}

static int
compare_dynsym (const void *a, const void *b)
{
  const struct report_dynsym *x = a, *y = b;

  return strcmp (x->name, y->name);
}

/* Record the defined function symbols of .dynsym of OBJ in RO.  */

static bool
record_dynsyms (struct report_object *ro, const struct mips_object *obj)
{
  size_t n = 0;

  ro->dynsyms = malloc ((obj->n_symbols + 1) * sizeof *ro->dynsyms);
  if (ro->dynsyms == NULL)
    return false;
  for (size_t i = 0; i < obj->n_symbols; i++)
    {
      const struct object_symbol *s = &obj->symbols[i];
      size_t f;
      if (!s->dynamic || s->shndx == SHN_UNDEF
	  || (s->type != STT_FUNC && s->type != STT_GNU_IFUNC)
	  || s->name == NULL || s->name[0] == '\0')
	continue;
      f = func_at (ro, s->value & ~(uint32_t) 1);
      if (f == REPORT_NO_FUNC)
	continue;
      ro->dynsyms[n].name = strdup (s->name);
      if (ro->dynsyms[n].name == NULL)
	{
	  ro->n_dynsyms = n;
	  return false;
	}
      ro->dynsyms[n++].func = f;
      ro->n_dynsyms = n;
    }
  qsort (ro->dynsyms, n, sizeof *ro->dynsyms, compare_dynsym);
  return true;
}

/* Append a copy of SITE to R's calls.  */

static bool
add_call (struct report *r, const struct report_call *site)
{
  if (r->n_calls % 256 == 0)
    {
      struct report_call *c = realloc (r->calls,
				       (r->n_calls + 256) * sizeof *c);
      if (c == NULL)
	return false;
      r->calls = c;
    }
  r->calls[r->n_calls++] = *site;
  return true;
}

bool
calls_find (struct report *r, size_t index, const struct mips_object *obj,
	    char **errmsg)
{
  struct report_object *ro = &r->objects[index];
  const struct prof_object *prof = ro->prof;
  const struct object_symbol **dynsyms = NULL;
  struct call_reader cr = { obj, NULL };
  size_t n_dynsyms = 0;
  bool ok = false;

  *errmsg = NULL;
  dynsyms = object_dynsyms_by_index (obj, &n_dynsyms);
  if (dynsyms == NULL || !record_dynsyms (ro, obj))
    goto cleanup;

  for (uint32_t b = 0; b < prof->n_blocks; b++)
    {
      const struct prof_block *blk = &prof->blocks[b];
      struct insn rec;
      const struct insn *in = &rec;
      struct report_call site;

      if (!block_call (&cr, blk, &rec))
	continue;
      memset (&site, 0, sizeof site);
      site.object = index;
      site.block = b;
      site.addr = in->addr;
      site.caller = ro->block_func[b];
      site.callee = REPORT_NO_FUNC;
      if (in->kind == INSN_CALL)
	{
	  site.callee = func_at (ro, in->target);
	  /* A `bal' into the middle of its own function reads the PC (the
	     gp set-up of start-up code): it is no call.  */
	  if (site.callee == site.caller
	      && in->target != r->functions[site.caller].addr)
	    continue;
	}
      else if (in->rs == REG_T9
	       && !jalr_t9_callee (&site, ro, obj, blk, in->addr, dynsyms,
				   n_dynsyms))
	goto cleanup;
      if (!add_call (r, &site))
	{
	  free (site.symbol);
	  goto cleanup;
	}
    }
  ok = true;

 cleanup:
  if (!ok && *errmsg == NULL)
    *errmsg = strdup ("out of memory");
  free (dynsyms);
  return ok;
}

void
calls_resolve (struct report *r)
{
  for (size_t i = 0; i < r->n_calls; i++)
    {
      struct report_call *c = &r->calls[i];
      if (c->symbol == NULL || c->resolved)
	continue;
      c->resolved = true;
      for (size_t o = 0; o < r->n_objects; o++)
	{
	  const struct report_object *ro = &r->objects[o];
	  struct report_dynsym key = { c->symbol, 0 };
	  const struct report_dynsym *d;

	  if (ro->n_dynsyms == 0)
	    continue;
	  d = bsearch (&key, ro->dynsyms, ro->n_dynsyms, sizeof key,
		       compare_dynsym);
	  if (d != NULL)
	    {
	      c->callee = d->func;
	      break;
	    }
	}
    }
}
