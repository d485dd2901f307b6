/* symbols.c -- the symbol tables of an object.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   .symtab and then .dynsym are converted into one array.  A defined
   symbol marked as MIPS16 or microMIPS code (by st_other, or a function
   by its odd address) makes the object unsupported: its code could not
   be decoded as MIPS32 instructions.  */

#include <config.h>

#include <stdlib.h>
#include <string.h>
#include <elf.h>

#include "object-int.h"

#define SYM_ENTRY_SIZE 16

/* Check the table section TAB and its string table; return the number
   of entries in *COUNT and the string table in *STRS and *STRSZ.  */

static bool
check_table (const struct mips_object *obj, const struct object_section *tab,
	     size_t *count, const unsigned char **strs, size_t *strsz,
	     char **errmsg)
{
  const struct object_section *str;

  if (tab->entsize != SYM_ENTRY_SIZE && tab->entsize != 0)
    return object_error (errmsg, "symbol table %s has entry size %u, not %d",
			 tab->name, tab->entsize, SYM_ENTRY_SIZE);
  if (tab->size % SYM_ENTRY_SIZE != 0)
    return object_error (errmsg, "symbol table %s has size 0x%x, not a "
			 "multiple of %d", tab->name, tab->size,
			 SYM_ENTRY_SIZE);
  if (tab->link == 0 || tab->link >= obj->n_sections)
    return object_error (errmsg, "symbol table %s has an invalid string "
			 "table index %u", tab->name, tab->link);
  str = &obj->sections[tab->link];
  if (str->type != SHT_STRTAB)
    return object_error (errmsg, "symbol table %s links to section %u, "
			 "which is not a string table", tab->name, tab->link);
  *count = tab->size / SYM_ENTRY_SIZE;
  *strs = obj->image + str->offset;
  *strsz = str->size;
  return true;
}

/* Refuse OBJ if a defined symbol marks MIPS16 or microMIPS code: by
   st_other (linkers keep the marking on code labels), else by the odd
   address of a function, which says only that it is one of the two.  */

static bool
check_isa (const struct mips_object *obj, char **errmsg)
{
  const struct object_symbol *odd = NULL;
  size_t i;

  for (i = 0; i < obj->n_symbols; i++)
    {
      const struct object_symbol *sym = &obj->symbols[i];

      if (sym->shndx == SHN_UNDEF)
	continue;
      if ((sym->other & OBJ_STO_MIPS16_MASK) == OBJ_STO_MIPS16)
	return object_error (errmsg, "contains MIPS16 code: not supported "
			     "(symbol %s)", sym->name);
      if ((sym->other & OBJ_STO_MIPS_ISA) == OBJ_STO_MICROMIPS)
	return object_error (errmsg, "contains microMIPS code: not "
			     "supported (symbol %s)", sym->name);
      if (sym->type == STT_FUNC && (sym->value & 1) && odd == NULL)
	odd = sym;
    }
  if (odd != NULL)
    return object_error (errmsg, "contains MIPS16 code: not supported "
			 "(function %s at odd address 0x%x; MIPS16 or "
			 "microMIPS)", odd->name, odd->value);
  return true;
}

/* The .gnu.version section of the dynamic symbol table TAB of OBJ: one
   16-bit entry per symbol, within the file; or NULL.  */

static const unsigned char *
version_table (const struct mips_object *obj, const struct object_section *tab,
	       size_t count)
{
  size_t index = (size_t) (tab - obj->sections);

  for (size_t i = 0; i < obj->n_sections; i++)
    {
      const struct object_section *s = &obj->sections[i];
      if (s->type == SHT_GNU_versym && s->link == index
	  && s->size / 2 >= count && s->offset <= obj->size
	  && obj->size - s->offset >= (size_t) s->size)
	return obj->image + s->offset;
    }
  return NULL;
}

/* Append the symbols of table TAB to OBJ->symbols.  */

static bool
read_table (struct mips_object *obj, const struct object_section *tab,
	    char **errmsg)
{
  const unsigned char *strs = NULL, *versions;
  size_t count = 0, strsz = 0, i;
  struct object_symbol *grown;

  if (!check_table (obj, tab, &count, &strs, &strsz, errmsg))
    return false;
  versions = tab->type == SHT_DYNSYM ? version_table (obj, tab, count) : NULL;
  if (count <= 1)
    return true;
  grown = realloc (obj->symbols,
		   (obj->n_symbols + count - 1) * sizeof *obj->symbols);
  if (grown == NULL)
    return object_error (errmsg, "out of memory");
  obj->symbols = grown;

  for (i = 1; i < count; i++)
    {
      size_t off = (size_t) tab->offset + i * SYM_ENTRY_SIZE;
      const unsigned char *p = obj->image + off;
      struct object_symbol *sym = &obj->symbols[obj->n_symbols];
      uint32_t name = object_get32 (obj, p);

      if (!object_string_ok (strs, strsz, name))
	return object_error (errmsg, "symbol %zu of %s has an invalid name "
			     "offset 0x%x", i, tab->name, name);
      sym->name = (const char *) strs + name;
      sym->value = object_get32 (obj, p + 4);
      sym->size = object_get32 (obj, p + 8);
      sym->type = ELF32_ST_TYPE (p[12]);
      sym->bind = ELF32_ST_BIND (p[12]);
      sym->other = p[13];
      sym->shndx = object_get16 (obj, p + 14);
      sym->dynamic = tab->type == SHT_DYNSYM;
      sym->hidden_version = versions != NULL
			    && (object_get16 (obj, versions + 2 * i) & 0x8000);
      sym->index = (uint32_t) i;
      sym->value_offset = (uint32_t) (off + 4);
      obj->n_symbols++;
    }
  return true;
}

int
object_symbol_rank (const struct object_symbol *s)
{
  size_t underscores = strspn (s->name, "_");
  const char *at = strchr (s->name, '@');
  /* A .symtab name with a version: NAME@@V is the default one, NAME@V
     another (a separate debug file's .symtab has them).  */
  bool other_version = s->hidden_version || (at != NULL && at[1] != '@');

  return (s->dynamic ? 10000 : 0) + (other_version ? 1000 : 0)
	 + (int) (underscores < 9 ? underscores : 9) * 10
	 + (s->bind == STB_GLOBAL ? 0 : s->bind == STB_WEAK ? 1 : 2);
}

/* Read .symtab, then .dynsym, of OBJ into OBJ->symbols.  */

bool
object_read_symbols (struct mips_object *obj, char **errmsg)
{
  size_t i;

  for (i = 0; i < obj->n_sections; i++)
    if (obj->sections[i].type == SHT_SYMTAB
	&& !read_table (obj, &obj->sections[i], errmsg))
      return false;
  for (i = 0; i < obj->n_sections; i++)
    if (obj->sections[i].type == SHT_DYNSYM
	&& !read_table (obj, &obj->sections[i], errmsg))
      return false;
  return check_isa (obj, errmsg);
}
