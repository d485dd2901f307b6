/* dynamic.c -- the dynamic section and dynamic relocations of an object.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The dynamic section is read through PT_DYNAMIC, as the dynamic
   linker reads it, and its strings through DT_STRTAB mapped from its
   address to a file offset by the PT_LOAD segments; section headers
   are not needed.  */

#include <config.h>

#include <stdlib.h>
#include <string.h>
#include <elf.h>

#include "object-int.h"

/* Entries of an Elf32_Dyn or Elf32_Rel.  */
#define DYN_ENTRY_SIZE 8
#define REL_ENTRY_SIZE 8

/* Return in *OUT the dynamic string at offset OFF of the table STRTAB
   of STRSZ bytes; WHAT names the tag for the error message.  */

static bool
dynamic_string (const unsigned char *strtab, uint32_t strsz, uint32_t off,
		const char *what, const char **out, char **errmsg)
{
  if (strtab == NULL)
    return object_error (errmsg, "the dynamic section has %s but no "
			 "usable DT_STRTAB", what);
  if (!object_string_ok (strtab, strsz, off))
    return object_error (errmsg, "invalid %s string offset 0x%x (the "
			 "dynamic string table has 0x%x bytes)", what, off,
			 strsz);
  *out = (const char *) strtab + off;
  return true;
}

/* Read OBJ's PT_DYNAMIC into OBJ->dyn.  */

bool
object_read_dynamic (struct mips_object *obj, char **errmsg)
{
  struct object_dynamic *d = &obj->dyn;
  const struct object_segment *seg = NULL;
  const unsigned char *base, *strtab = NULL;
  uint32_t soname = 0, rpath = 0, runpath = 0;
  bool has_soname = false, has_rpath = false, has_runpath = false;
  size_t i, n, n_needed = 0;

  for (i = 0; i < obj->n_segments; i++)
    if (obj->segments[i].type == PT_DYNAMIC)
      seg = &obj->segments[i];
  if (seg == NULL)
    return true;
  d->present = true;
  base = obj->image + seg->offset;
  n = seg->filesz / DYN_ENTRY_SIZE;

  /* First pass: the scalar tags, and how many DT_NEEDED there are.  */
  for (i = 0; i < n; i++)
    {
      uint32_t tag = object_get32 (obj, base + i * DYN_ENTRY_SIZE);
      uint32_t val = object_get32 (obj, base + i * DYN_ENTRY_SIZE + 4);

      if (tag == DT_NULL)
	break;
      switch (tag)
	{
	case DT_NEEDED: n_needed++; break;
	case DT_SONAME: soname = val; has_soname = true; break;
	case DT_RPATH: rpath = val; has_rpath = true; break;
	case DT_RUNPATH: runpath = val; has_runpath = true; break;
	case DT_PLTGOT: d->pltgot = val; break;
	case DT_MIPS_LOCAL_GOTNO: d->local_gotno = val; break;
	case DT_MIPS_GOTSYM: d->gotsym = val; break;
	case DT_MIPS_SYMTABNO: d->symtabno = val; break;
	case DT_MIPS_BASE_ADDRESS: d->base_address = val; break;
	case DT_INIT: d->init = val; break;
	case DT_FINI: d->fini = val; break;
	case DT_INIT_ARRAY: d->init_array = val; break;
	case DT_INIT_ARRAYSZ: d->init_arraysz = val; break;
	case DT_FINI_ARRAY: d->fini_array = val; break;
	case DT_FINI_ARRAYSZ: d->fini_arraysz = val; break;
	case DT_PREINIT_ARRAY: d->preinit_array = val; break;
	case DT_PREINIT_ARRAYSZ: d->preinit_arraysz = val; break;
	case DT_REL: d->rel = val; break;
	case DT_RELSZ: d->relsz = val; break;
	case DT_SYMTAB: d->symtab = val; break;
	case DT_STRTAB: d->strtab = val; break;
	case DT_STRSZ: d->strsz = val; break;
	case DT_HASH: d->hash = val; break;
	case DT_GNU_HASH: d->gnu_hash = val; break;
	case DT_FLAGS: d->flags = val; break;
	case DT_FLAGS_1: d->flags_1 = val; break;
	default: break;
	}
    }
  n = i;

  if (d->strtab != 0 && d->strsz != 0)
    strtab = object_vaddr_ptr (obj, d->strtab, d->strsz);
  if (strtab == NULL && (n_needed != 0 || has_soname || has_rpath
			 || has_runpath))
    return object_error (errmsg, "the dynamic string table (DT_STRTAB "
			 "0x%x, DT_STRSZ 0x%x) is not inside the file",
			 d->strtab, d->strsz);
  if ((has_soname && !dynamic_string (strtab, d->strsz, soname, "DT_SONAME",
				      &d->soname, errmsg))
      || (has_rpath && !dynamic_string (strtab, d->strsz, rpath, "DT_RPATH",
					&d->rpath, errmsg))
      || (has_runpath && !dynamic_string (strtab, d->strsz, runpath,
					  "DT_RUNPATH", &d->runpath, errmsg)))
    return false;

  /* Second pass: the DT_NEEDED names, in order.  */
  if (n_needed == 0)
    return true;
  d->needed = calloc (n_needed, sizeof *d->needed);
  if (d->needed == NULL)
    return object_error (errmsg, "out of memory");
  for (i = 0; i < n; i++)
    if (object_get32 (obj, base + i * DYN_ENTRY_SIZE) == DT_NEEDED)
      {
	uint32_t val = object_get32 (obj, base + i * DYN_ENTRY_SIZE + 4);
	if (!dynamic_string (strtab, d->strsz, val, "DT_NEEDED",
			     &d->needed[d->n_needed], errmsg))
	  return false;
	d->n_needed++;
      }
  return true;
}

/* Read OBJ's dynamic relocations into OBJ->dynrelocs.  */

bool
object_read_dynrelocs (struct mips_object *obj, char **errmsg)
{
  const struct object_section *dynsym = NULL;
  const unsigned char *table = NULL;
  size_t size = 0, i, n, n_dynsym = 0;

  if (obj->dyn.rel != 0 && obj->dyn.relsz != 0)
    {
      table = object_vaddr_ptr (obj, obj->dyn.rel, obj->dyn.relsz);
      if (table == NULL)
	return object_error (errmsg, "the dynamic relocations (DT_REL 0x%x, "
			     "DT_RELSZ 0x%x) are not inside the file",
			     obj->dyn.rel, obj->dyn.relsz);
      size = obj->dyn.relsz;
    }
  else
    {
      const struct object_section *s = object_section_named (obj, ".rel.dyn");
      if (s != NULL && s->type == SHT_REL)
	{
	  table = obj->image + s->offset;
	  size = s->size;
	}
    }
  if (table == NULL || size == 0)
    return true;
  if (size % REL_ENTRY_SIZE != 0)
    return object_error (errmsg, "the dynamic relocation table size 0x%zx "
			 "is not a multiple of %d", size, REL_ENTRY_SIZE);

  for (i = 0; i < obj->n_sections; i++)
    if (obj->sections[i].type == SHT_DYNSYM)
      {
	dynsym = &obj->sections[i];
	n_dynsym = dynsym->size / 16;
      }

  n = size / REL_ENTRY_SIZE;
  obj->dynrelocs = calloc (n, sizeof *obj->dynrelocs);
  if (obj->dynrelocs == NULL)
    return object_error (errmsg, "out of memory");
  for (i = 0; i < n; i++)
    {
      struct object_dynreloc *r = &obj->dynrelocs[i];
      uint32_t info = object_get32 (obj, table + i * REL_ENTRY_SIZE + 4);

      r->offset = object_get32 (obj, table + i * REL_ENTRY_SIZE);
      r->type = ELF32_R_TYPE (info);
      r->sym = ELF32_R_SYM (info);
      if (dynsym != NULL && r->sym >= n_dynsym)
	return object_error (errmsg, "dynamic relocation %zu refers to "
			     "symbol %u, beyond the %zu of .dynsym", i,
			     r->sym, n_dynsym);
    }
  obj->n_dynrelocs = n;
  return true;
}
