/* dwarf-units.c -- the compilation directories of the units of
   .debug_info.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The first entry of each unit is decoded with its abbreviation
   (DWARF 5, 7.5); of its attributes only DW_AT_stmt_list,
   DW_AT_comp_dir and DW_AT_str_offsets_base are kept, the others are
   skipped by the size of their form.  Every read is bounded by its
   unit or its section.  */

#include <config.h>

#include <stdlib.h>

#include "array.h"
#include "dwarf-read.h"
#include "dwarf-units.h"

#define AT_stmt_list		0x10
#define AT_comp_dir		0x1b
#define AT_str_offsets_base	0x72

#define UT_compile		0x01
#define UT_partial		0x03
#define UT_skeleton		0x04

enum
{
  FORM_addr = 0x01, FORM_block2 = 0x03, FORM_block4, FORM_data2, FORM_data4,
  FORM_data8, FORM_string, FORM_block, FORM_block1, FORM_data1, FORM_flag,
  FORM_sdata, FORM_strp, FORM_udata, FORM_ref_addr, FORM_ref1, FORM_ref2,
  FORM_ref4, FORM_ref8, FORM_ref_udata, FORM_indirect, FORM_sec_offset,
  FORM_exprloc, FORM_flag_present, FORM_strx, FORM_addrx, FORM_ref_sup4,
  FORM_strp_sup, FORM_data16, FORM_line_strp, FORM_ref_sig8,
  FORM_implicit_const, FORM_loclistx, FORM_rnglistx, FORM_ref_sup8,
  FORM_strx1, FORM_strx2, FORM_strx3, FORM_strx4, FORM_addrx1, FORM_addrx2,
  FORM_addrx3, FORM_addrx4,
  FORM_GNU_addr_index = 0x1f01, FORM_GNU_str_index = 0x1f02,
  FORM_GNU_ref_alt = 0x1f20, FORM_GNU_strp_alt = 0x1f21
};

/* What a unit's first entry says.  */
struct unit_entry
{
  bool has_line;
  uint64_t line_offset;
  const char *dir;		/* A string form that could be read.  */
  bool dir_strx;		/* Or an index in .debug_str_offsets.  */
  uint64_t dir_index;
  uint64_t str_offsets_base;
  bool has_str_offsets_base;
};

/* The size of the fixed-size FORM, or -1 when it has a variable size.  */

static int
fixed_size (uint64_t form, unsigned addr_size, unsigned offset_size,
	    unsigned version)
{
  switch (form)
    {
    case FORM_flag_present:
    case FORM_implicit_const:
      return 0;
    case FORM_data1: case FORM_ref1: case FORM_flag: case FORM_strx1:
    case FORM_addrx1:
      return 1;
    case FORM_data2: case FORM_ref2: case FORM_strx2: case FORM_addrx2:
      return 2;
    case FORM_strx3: case FORM_addrx3:
      return 3;
    case FORM_data4: case FORM_ref4: case FORM_ref_sup4: case FORM_strx4:
    case FORM_addrx4:
      return 4;
    case FORM_data8: case FORM_ref8: case FORM_ref_sig8: case FORM_ref_sup8:
      return 8;
    case FORM_data16:
      return 16;
    case FORM_addr:
      return (int) addr_size;
    case FORM_ref_addr:
      return (int) (version <= 2 ? addr_size : offset_size);
    case FORM_strp: case FORM_sec_offset: case FORM_strp_sup:
    case FORM_line_strp: case FORM_GNU_ref_alt: case FORM_GNU_strp_alt:
      return (int) offset_size;
    default:
      return -1;
    }
}

/* Read the value of attribute ATTR of form FORM at C into E (or skip
   it); false if it is malformed or of a form this reader does not
   know.  */

static bool
read_attribute (const struct dwarf_sections *s, struct dwarf_cursor *c,
		uint64_t attr, uint64_t form, unsigned addr_size,
		unsigned offset_size, unsigned version, struct unit_entry *e)
{
  int size;
  uint64_t v = 0;

  for (int depth = 0; form == FORM_indirect; depth++)
    if (depth > 4 || !dwarf_get_uleb (c, &form))
      return false;
  size = fixed_size (form, addr_size, offset_size, version);
  if (size > 0 && size <= 8)
    {
      if (!dwarf_get_bytes (c, (size_t) size, &v))
	return false;
    }
  else if (size >= 0)
    {
      if (!dwarf_skip (c, (uint64_t) size))
	return false;
    }
  else
    switch (form)
      {
      case FORM_string:
	{
	  const char *str = dwarf_get_string (c);
	  if (str == NULL)
	    return false;
	  if (attr == AT_comp_dir)
	    e->dir = str;
	  return true;
	}
      case FORM_sdata:
	{
	  int64_t sv;
	  return dwarf_get_sleb (c, &sv);
	}
      case FORM_udata: case FORM_ref_udata: case FORM_strx: case FORM_addrx:
      case FORM_loclistx: case FORM_rnglistx: case FORM_GNU_addr_index:
      case FORM_GNU_str_index:
	if (!dwarf_get_uleb (c, &v))
	  return false;
	break;
      case FORM_block: case FORM_exprloc:
	return dwarf_get_uleb (c, &v) && dwarf_skip (c, v);
      case FORM_block1:
	return dwarf_get_bytes (c, 1, &v) && dwarf_skip (c, v);
      case FORM_block2:
	return dwarf_get_bytes (c, 2, &v) && dwarf_skip (c, v);
      case FORM_block4:
	return dwarf_get_bytes (c, 4, &v) && dwarf_skip (c, v);
      default:
	return false;
      }

  if (attr == AT_stmt_list)
    {
      e->has_line = true;
      e->line_offset = v;
    }
  else if (attr == AT_str_offsets_base)
    {
      e->has_str_offsets_base = true;
      e->str_offsets_base = v;
    }
  else if (attr == AT_comp_dir)
    switch (form)
      {
      case FORM_strp:
	e->dir = dwarf_section_string (s->str, s->str_size, v);
	break;
      case FORM_line_strp:
	e->dir = dwarf_section_string (s->line_str, s->line_str_size, v);
	break;
      case FORM_strx: case FORM_strx1: case FORM_strx2: case FORM_strx3:
      case FORM_strx4:
	e->dir_strx = true;
	e->dir_index = v;
	break;
      default:
	/* In another file (dwz, a supplementary file) or not a string.  */
	break;
      }
  return true;
}

/* Find abbreviation CODE in the table at OFFSET of S->abbrev: a cursor
   at its attribute specifications.  */

static bool
find_abbrev (const struct dwarf_sections *s, uint64_t offset,
	     uint64_t code, struct dwarf_cursor *c)
{
  if (offset >= s->abbrev_size)
    return false;
  *c = (struct dwarf_cursor) { s->abbrev, (size_t) offset, s->abbrev_size,
			       s->big_endian };
  for (;;)
    {
      uint64_t this_code, tag, attr, form, children;
      int64_t value;
      if (!dwarf_get_uleb (c, &this_code) || this_code == 0
	  || !dwarf_get_uleb (c, &tag) || !dwarf_get_bytes (c, 1, &children))
	return false;
      if (this_code == code)
	return true;
      do
	{
	  if (!dwarf_get_uleb (c, &attr) || !dwarf_get_uleb (c, &form)
	      || (form == FORM_implicit_const && !dwarf_get_sleb (c, &value)))
	    return false;
	}
      while (attr != 0 || form != 0);
    }
}

/* Read the first entry of the unit at C (its header read: VERSION,
   ADDR_SIZE, OFFSET_SIZE, abbreviations at ABBREV) into E.  */

static bool
read_unit_entry (const struct dwarf_sections *s, struct dwarf_cursor *c,
		 unsigned version, unsigned addr_size, unsigned offset_size,
		 uint64_t abbrev, struct unit_entry *e)
{
  struct dwarf_cursor a;
  uint64_t code;

  if (!dwarf_get_uleb (c, &code) || !find_abbrev (s, abbrev, code, &a))
    return false;
  for (;;)
    {
      uint64_t attr, form;
      int64_t value;
      if (!dwarf_get_uleb (&a, &attr) || !dwarf_get_uleb (&a, &form))
	return false;
      if (attr == 0 && form == 0)
	break;
      if (form == FORM_implicit_const && !dwarf_get_sleb (&a, &value))
	return false;
      if (!read_attribute (s, c, attr, form, addr_size, offset_size, version,
			   e))
	return false;
    }
  if (e->dir_strx && e->has_str_offsets_base && s->str_offsets != NULL)
    {
      /* DWARF 5, 7.26: the base points past the table's header.  */
      struct dwarf_cursor o = { s->str_offsets, 0, s->str_offsets_size,
				s->big_endian };
      uint64_t at, off;
      if (e->dir_index <= (UINT64_MAX - e->str_offsets_base) / offset_size)
	{
	  at = e->str_offsets_base + e->dir_index * offset_size;
	  if (at < o.end)
	    {
	      o.pos = (size_t) at;
	      if (dwarf_get_bytes (&o, offset_size, &off))
		e->dir = dwarf_section_string (s->str, s->str_size, off);
	    }
	}
    }
  return true;
}

static int
compare_dir (const void *a, const void *b)
{
  const struct dwarf_comp_dir *x = a, *y = b;

  return x->line_offset < y->line_offset ? -1
	 : x->line_offset > y->line_offset;
}

struct dwarf_comp_dir *
dwarf_comp_dirs (const struct dwarf_sections *s, size_t *n)
{
  struct dwarf_comp_dir *dirs = NULL;
  size_t cap = 0;
  size_t offset = 0;

  *n = 0;
  while (s->info != NULL && offset < s->info_size)
    {
      struct dwarf_cursor c = { s->info, offset, s->info_size, s->big_endian };
      uint64_t length, version, abbrev, addr_size, type = UT_compile;
      unsigned offset_size = 4;
      struct unit_entry e = { 0 };

      if (!dwarf_get_bytes (&c, 4, &length))
	break;
      if (length == 0xffffffff)
	{
	  offset_size = 8;
	  if (!dwarf_get_bytes (&c, 8, &length))
	    break;
	}
      if (length > c.end - c.pos || length < 2)
	break;
      c.end = c.pos + (size_t) length;
      offset = c.end;
      if (!dwarf_get_bytes (&c, 2, &version) || version < 2 || version > 5)
	continue;
      if (version >= 5
	  ? !dwarf_get_bytes (&c, 1, &type) || !dwarf_get_bytes (&c, 1, &addr_size)
	    || !dwarf_get_bytes (&c, offset_size, &abbrev)
	  : !dwarf_get_bytes (&c, offset_size, &abbrev)
	    || !dwarf_get_bytes (&c, 1, &addr_size))
	continue;
      if ((type != UT_compile && type != UT_partial && type != UT_skeleton)
	  || addr_size == 0 || addr_size > 8)
	continue;
      if (type == UT_skeleton && !dwarf_skip (&c, 8))
	continue;
      if (!read_unit_entry (s, &c, (unsigned) version, (unsigned) addr_size,
			    offset_size, abbrev, &e)
	  || !e.has_line || e.dir == NULL)
	continue;
      if (!array_room (&dirs, &cap, *n, sizeof *dirs, 64))
	{
	  free (dirs);
	  *n = 0;
	  return NULL;
	}
      dirs[(*n)++] = (struct dwarf_comp_dir) { e.line_offset, e.dir };
    }
  if (*n > 0)
    qsort (dirs, *n, sizeof *dirs, compare_dir);
  return dirs;
}

const char *
dwarf_comp_dir_of (const struct dwarf_comp_dir *dirs, size_t n,
		   uint64_t line_offset)
{
  size_t lo = 0, hi = n;

  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (dirs[mid].line_offset < line_offset)
	lo = mid + 1;
      else
	hi = mid;
    }
  return lo < n && dirs[lo].line_offset == line_offset ? dirs[lo].dir : NULL;
}
