/* got.c -- the GOTs of an object: the primary one, the secondary ones
   of GNU ld's multi-GOT, and the value of gp.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#include <config.h>

#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "object-int.h"

/* The bytes of OBJ's .got that are its primary GOT: all of it but for
   the secondary GOTs of a multi-GOT object, which follow the primary
   one and whose entries, unlike the primary one's, ld.so relocates
   through R_MIPS_REL32 relocations (GNU ld, elfxx-mips.c): all but
   their first two words.  */

static uint32_t
primary_got_size (const struct mips_object *obj)
{
  uint64_t abi = obj->dyn.local_gotno;
  uint32_t size = obj->got_size;

  if (obj->dyn.symtabno > obj->dyn.gotsym)
    abi += obj->dyn.symtabno - obj->dyn.gotsym;
  for (size_t i = 0; i < obj->n_dynrelocs; i++)
    {
      uint32_t off = obj->dynrelocs[i].offset - obj->got_addr;
      if (obj->dynrelocs[i].type == R_MIPS_REL32 && off < size
	  && off >= 4 * abi)
	size = off & ~3u;
    }
  /* A secondary GOT starts with two reserved words, as the primary
     does, which have no relocation.  */
  if (size < obj->got_size && size >= 4 * abi + 8)
    size -= 8;
  return size;
}

static int
compare_u64 (const void *pa, const void *pb)
{
  uint64_t a = *(const uint64_t *) pa, b = *(const uint64_t *) pb;
  return a < b ? -1 : a > b;
}

/* Index the relocations of OBJ's secondary GOTs by offset
   (object_got_slot) and find where each of them starts.  False when
   out of memory.  */

static bool
index_got_relocs (struct mips_object *obj)
{
  size_t n = 0;

  if (obj->got_primary >= obj->got_size)
    return true;
  obj->got_relocs = malloc ((obj->n_dynrelocs + 1) * sizeof *obj->got_relocs);
  if (obj->got_relocs == NULL)
    return false;
  for (size_t i = 0; i < obj->n_dynrelocs; i++)
    if (obj->dynrelocs[i].offset - obj->got_addr >= obj->got_primary
	&& obj->dynrelocs[i].offset - obj->got_addr < obj->got_size)
      obj->got_relocs[n++] = (uint64_t) obj->dynrelocs[i].offset << 32 | i;
  qsort (obj->got_relocs, n, sizeof *obj->got_relocs, compare_u64);
  obj->n_got_relocs = n;
  /* Each secondary GOT starts with two reserved words, the only ones
     with no relocation but for the second word of a TLS entry: the
     last two of every run of two or more words without one.  */
  obj->got_starts = malloc ((obj->got_size - obj->got_primary) / 8
			    * sizeof *obj->got_starts + 1);
  if (obj->got_starts == NULL)
    return false;
  obj->n_got_starts = 0;
  for (uint64_t off = obj->got_primary, run = 0, k = 0;
       off + 4 <= obj->got_size; off += 4)
    {
      uint32_t a = obj->got_addr + (uint32_t) off;
      while (k < n && obj->got_relocs[k] >> 32 < a)
	k++;
      if (k == n || obj->got_relocs[k] >> 32 != a)
	{
	  run++;
	  continue;
	}
      if (run >= 2)
	obj->got_starts[obj->n_got_starts++] = a - 8;
      run = 0;
    }
  return true;
}

bool
object_find_got (struct mips_object *obj, char **errmsg)
{
  const struct object_section *got = object_section_named (obj, ".got");
  size_t i;

  if (obj->dyn.gotsym > obj->dyn.symtabno && obj->dyn.symtabno != 0)
    return object_error (errmsg, "DT_MIPS_GOTSYM (%u) is past "
			 "DT_MIPS_SYMTABNO (%u)", (unsigned) obj->dyn.gotsym,
			 (unsigned) obj->dyn.symtabno);
  /* A static executable's GOT has no dynamic section to describe it:
     every entry is local, its value fixed by the link.  */
  if (obj->static_exe && got != NULL && got->type != SHT_NOBITS)
    obj->dyn.local_gotno = got->size / 4;
  if (got != NULL && got->type != SHT_NOBITS)
    {
      uint64_t n = obj->dyn.local_gotno;
      if (obj->dyn.symtabno > obj->dyn.gotsym)
	n += obj->dyn.symtabno - obj->dyn.gotsym;
      obj->got_addr = got->addr;
      obj->got_size = got->size;
      if (n > got->size / 4)
	return object_error (errmsg, "the GOT has %u entries, fewer than "
			     "DT_MIPS_LOCAL_GOTNO (%u) and the global "
			     "entries (%u) say", (unsigned) (got->size / 4),
			     (unsigned) obj->dyn.local_gotno,
			     (unsigned) (n - obj->dyn.local_gotno));
    }
  else if (obj->dyn.pltgot != 0)
    {
      /* The MIPS ABI fixes the GOT's length: the local entries, then one
	 entry for each .dynsym symbol from DT_MIPS_GOTSYM on.  */
      uint64_t n = obj->dyn.local_gotno;
      if (obj->dyn.symtabno > obj->dyn.gotsym)
	n += obj->dyn.symtabno - obj->dyn.gotsym;
      if (n * 4 > UINT32_MAX)
	return object_error (errmsg, "DT_MIPS_LOCAL_GOTNO (%u) and the "
			     "global entries (%u) make a GOT of more than "
			     "4 GB", (unsigned) obj->dyn.local_gotno,
			     (unsigned) (n - obj->dyn.local_gotno));
      obj->got_addr = obj->dyn.pltgot;
      obj->got_size = (uint32_t) (n * 4);
    }
  /* Every reader of the GOT takes its local entries to be in it.  */
  if (obj->dyn.local_gotno > obj->got_size / 4)
    return object_error (errmsg, "DT_MIPS_LOCAL_GOTNO says %u local GOT "
			 "entries, but the object has %s",
			 (unsigned) obj->dyn.local_gotno,
			 obj->got_size == 0 ? "no GOT" : "fewer");
  /* The copy reads the GOT and writes entries of it, and lays its new
     segment out past it: a GOT that no loadable segment holds (a .got
     section header at 0xff010e30 in an object loaded below 0x20000)
     had it reserve 4 GB.  */
  if (obj->got_size != 0)
    {
      size_t off;
      if (!object_vaddr_to_offset (obj, obj->got_addr, obj->got_size, &off)
	  || (got != NULL && got->type != SHT_NOBITS && off != got->offset))
	return object_error (errmsg, "the GOT (%u bytes at 0x%08x) is not "
			     "where a loadable segment maps it",
			     (unsigned) obj->got_size,
			     (unsigned) obj->got_addr);
    }
  obj->got_primary = primary_got_size (obj);
  if (!index_got_relocs (obj))
    return object_error (errmsg, "out of memory");

  for (i = 0; i < obj->n_symbols; i++)
    if (!obj->symbols[i].dynamic && strcmp (obj->symbols[i].name, "_gp") == 0)
      {
	obj->gp = obj->symbols[i].value;
	return true;
      }
  for (i = 0; i < obj->n_sections; i++)
    if (obj->sections[i].type == SHT_MIPS_REGINFO
	&& obj->sections[i].size >= 24)
      {
	obj->gp = object_get32 (obj, obj->image + obj->sections[i].offset
				+ 20);
	if (obj->gp != 0)
	  return true;
      }
  obj->gp = obj->got_addr + 0x7ff0;
  return true;
}

enum got_slot_kind
object_got_slot (const struct mips_object *obj, uint32_t slot,
		 uint32_t *value, uint32_t *primary)
{
  uint32_t off = slot - obj->got_addr, n_local = obj->dyn.local_gotno;
  uint32_t n_global = obj->dyn.symtabno > obj->dyn.gotsym
		      ? obj->dyn.symtabno - obj->dyn.gotsym : 0;
  const struct object_dynreloc *r;
  size_t lo = 0, hi = obj->n_got_relocs;
  uint32_t word;

  *primary = (uint32_t) -1;
  if ((off & 3) != 0 || off >= obj->got_size
      || !object_read_word (obj, slot, &word))
    return GOT_SLOT_NONE;
  if (off < obj->got_primary)
    {
      *value = word;
      if (off / 4 < n_local)
	return GOT_SLOT_LOCAL;
      if (off / 4 - n_local >= n_global)
	return GOT_SLOT_NONE;
      *primary = off / 4;
      return GOT_SLOT_GLOBAL;
    }
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (obj->got_relocs[mid] >> 32 < slot)
	lo = mid + 1;
      else
	hi = mid;
    }
  if (lo == obj->n_got_relocs || obj->got_relocs[lo] >> 32 != slot)
    return GOT_SLOT_NONE;
  r = &obj->dynrelocs[(uint32_t) obj->got_relocs[lo]];
  if (r->type != R_MIPS_REL32)
    return GOT_SLOT_NONE;
  if (r->sym == 0)
    {
      *value = word;
      return GOT_SLOT_LOCAL;
    }
  /* ld.so adds a symbol from DT_MIPS_GOTSYM on its primary GOT entry,
     any other its value (glibc's elf_machine_reloc).  */
  if (r->sym >= obj->dyn.gotsym && r->sym - obj->dyn.gotsym < n_global)
    {
      *primary = n_local + (r->sym - obj->dyn.gotsym);
      if (!object_got_entry (obj, *primary, value))
	return GOT_SLOT_NONE;
      *value += word;
      return GOT_SLOT_GLOBAL;
    }
  return GOT_SLOT_NONE;
}

/* Set *VALUE to the I'th GOT word of OBJ.  */

bool
object_got_entry (const struct mips_object *obj, uint32_t i, uint32_t *value)
{
  if (i >= obj->got_size / 4)
    return false;
  return object_read_word (obj, obj->got_addr + 4 * i, value);
}
