/* dwarf-line.c -- run the DWARF line-number programs of .debug_line.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   Every read is checked against the end of its unit, so a malformed
   section gives an error, never a read past its end; every table grows
   at most by one entry per byte read, so no input makes it eat memory
   out of proportion to its size.  */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "dwarf-line.h"
#include "dwarf-read.h"
#include "dwarf-units.h"
#include "errmsg.h"

/* Standard opcodes (DWARF 5, 6.2.5.2).  */
enum
{
  LNS_copy = 1,
  LNS_advance_pc,
  LNS_advance_line,
  LNS_set_file,
  LNS_set_column,
  LNS_negate_stmt,
  LNS_set_basic_block,
  LNS_const_add_pc,
  LNS_fixed_advance_pc
};

/* Extended opcodes.  */
#define LNE_end_sequence	1
#define LNE_set_address		2
#define LNE_define_file		3

/* Entry contents and forms of a DWARF 5 line header.  */
#define LNCT_path		1
#define LNCT_directory_index	2
#define FORM_block		0x09
#define FORM_data1		0x0b
#define FORM_data2		0x05
#define FORM_data4		0x06
#define FORM_data8		0x07
#define FORM_data16		0x1e
#define FORM_string		0x08
#define FORM_strp		0x0e
#define FORM_line_strp		0x1f
#define FORM_udata		0x0f

/* The files of one unit, as indices in dwarf_lines.files.  */
struct unit_files
{
  char **dirs;			/* malloc'd; the first may be NULL.  */
  size_t n_dirs;
  uint32_t *files;
  size_t n_files;
};

/* What dwarf_lines_read builds.  */
struct builder
{
  const struct dwarf_sections *s;
  const struct dwarf_comp_dir *comp_dirs; /* Of the units, sorted.  */
  size_t n_comp_dirs;
  struct dwarf_lines *lines;
  size_t cap_ranges, cap_files;
  /* Open-addressing index of LINES->files by path (0 = empty, else
     index + 1).  */
  uint32_t *file_index;
  size_t file_index_size;
};

static uint64_t
hash_path (const char *s)
{
  uint64_t h = 14695981039346656037ULL;

  while (*s != '\0')
    h = (h ^ (unsigned char) *s++) * 1099511628211ULL;
  return h;
}

/* Grow B's path index to hold twice as many files as it does.  */

static bool
grow_file_index (struct builder *b)
{
  size_t size = b->file_index_size != 0 ? b->file_index_size * 2 : 64;
  uint32_t *index = calloc (size, sizeof *index);

  if (index == NULL)
    return false;
  for (size_t i = 0; i < b->lines->n_files; i++)
    {
      size_t h = (size_t) hash_path (b->lines->files[i]) & (size - 1);
      while (index[h] != 0)
	h = (h + 1) & (size - 1);
      index[h] = (uint32_t) i + 1;
    }
  free (b->file_index);
  b->file_index = index;
  b->file_index_size = size;
  return true;
}

/* The index of path DIR/NAME (NAME alone when it is absolute or DIR is
   NULL or empty) in B's files, added if new; -1 when out of memory.  */

static int64_t
intern_path (struct builder *b, const char *dir, const char *name)
{
  struct dwarf_lines *l = b->lines;
  char *path;
  size_t h;

  if (name[0] == '/' || dir == NULL || dir[0] == '\0')
    path = strdup (name);
  else if (asprintf (&path, "%s/%s", dir, name) < 0)
    path = NULL;
  if (path == NULL)
    return -1;
  if (2 * (l->n_files + 1) > b->file_index_size && !grow_file_index (b))
    {
      free (path);
      return -1;
    }
  for (h = (size_t) hash_path (path) & (b->file_index_size - 1);
       b->file_index[h] != 0; h = (h + 1) & (b->file_index_size - 1))
    if (strcmp (l->files[b->file_index[h] - 1], path) == 0)
      {
	free (path);
	return b->file_index[h] - 1;
      }
  if (!array_room (&l->files, &b->cap_files, l->n_files, sizeof *l->files,
		   16))
    {
      free (path);
      return -1;
    }
  l->files[l->n_files] = path;
  b->file_index[h] = (uint32_t) l->n_files + 1;
  return (int64_t) l->n_files++;
}

/* Add the range [LO, HI) of LINE in FILE to B.  */

static bool
add_range (struct builder *b, uint32_t lo, uint32_t hi, uint32_t line,
	   uint32_t file)
{
  struct dwarf_lines *l = b->lines;

  if (!array_room (&l->ranges, &b->cap_ranges, l->n_ranges,
		   sizeof *l->ranges, 256))
    return false;
  l->ranges[l->n_ranges++] = (struct dwarf_line_range) { lo, hi, line, file };
  return true;
}

/* Read one attribute of FORM at C into *STR (a string form) or *NUM;
   false if malformed or of a form a line header cannot have.  */

static bool
read_form (struct builder *b, struct dwarf_cursor *c, uint64_t form, bool dwarf64,
	   const char **str, uint64_t *num)
{
  uint64_t v;

  *str = NULL;
  *num = 0;
  switch (form)
    {
    case FORM_string:
      return (*str = dwarf_get_string (c)) != NULL;
    case FORM_line_strp:
    case FORM_strp:
      if (!dwarf_get_bytes (c, dwarf64 ? 8 : 4, &v))
	return false;
      *str = form == FORM_strp
	     ? dwarf_section_string (b->s->str, b->s->str_size, v)
	     : dwarf_section_string (b->s->line_str, b->s->line_str_size, v);
      return *str != NULL;
    case FORM_udata:
      return dwarf_get_uleb (c, num);
    case FORM_data1:
      return dwarf_get_bytes (c, 1, num);
    case FORM_data2:
      return dwarf_get_bytes (c, 2, num);
    case FORM_data4:
      return dwarf_get_bytes (c, 4, num);
    case FORM_data8:
      return dwarf_get_bytes (c, 8, num);
    case FORM_data16:
      if (c->end - c->pos < 16)
	return false;
      c->pos += 16;
      return true;
    case FORM_block:
      if (!dwarf_get_uleb (c, &v) || v > c->end - c->pos)
	return false;
      c->pos += (size_t) v;
      return true;
    default:
      return false;
    }
}

/* Read a DWARF 5 entry list (directories when FILES is NULL, else file
   names) at C into U.  */

static bool
read_entries_v5 (struct builder *b, struct dwarf_cursor *c, bool dwarf64,
		 struct unit_files *u, bool files)
{
  uint64_t format[2 * 16], n_format, count;

  if (!dwarf_get_bytes (c, 1, &n_format) || n_format > 16)
    return false;
  for (uint64_t i = 0; i < 2 * n_format; i++)
    if (!dwarf_get_uleb (c, &format[i]))
      return false;
  if (!dwarf_get_uleb (c, &count) || count > c->end - c->pos)
    return false;
  if (files)
    u->files = calloc ((size_t) count + 1, sizeof *u->files);
  else
    u->dirs = calloc ((size_t) count + 1, sizeof *u->dirs);
  if (files ? u->files == NULL : u->dirs == NULL)
    return false;
  for (uint64_t i = 0; i < count; i++)
    {
      const char *path = NULL, *s;
      uint64_t dir = 0, num;
      for (uint64_t f = 0; f < n_format; f++)
	{
	  if (!read_form (b, c, format[2 * f + 1], dwarf64, &s, &num))
	    return false;
	  if (format[2 * f] == LNCT_path)
	    path = s;
	  else if (format[2 * f] == LNCT_directory_index)
	    dir = num;
	}
      if (path == NULL)
	return false;
      if (!files)
	{
	  /* Directories after the first (the compilation directory) may
	     be relative to it.  */
	  char *d;
	  if (path[0] != '/' && u->n_dirs > 0 && u->dirs[0] != NULL)
	    {
	      if (asprintf (&d, "%s/%s", u->dirs[0], path) < 0)
		d = NULL;
	    }
	  else
	    d = strdup (path);
	  if (d == NULL)
	    return false;
	  u->dirs[u->n_dirs++] = d;
	}
      else
	{
	  int64_t id = intern_path (b, dir < u->n_dirs ? u->dirs[dir] : NULL,
				    path);
	  if (id < 0)
	    return false;
	  u->files[u->n_files++] = (uint32_t) id;
	}
    }
  return true;
}

/* Read the include directories and file names of a header of version 2
   to 4 at C into U.  Index 0 stands for the compilation directory
   COMP_DIR (NULL when unknown) and the primary file, which these
   versions do not list; relative directories are relative to
   COMP_DIR.  */

static bool
read_entries_v4 (struct builder *b, struct dwarf_cursor *c,
		 struct unit_files *u, const char *comp_dir)
{
  size_t start = c->pos, n = 0;
  const char *s;

  while ((s = dwarf_get_string (c)) != NULL && s[0] != '\0')
    n++;
  if (s == NULL)
    return false;
  u->dirs = calloc (n + 1, sizeof *u->dirs);
  if (u->dirs == NULL)
    return false;
  if (comp_dir != NULL && (u->dirs[0] = strdup (comp_dir)) == NULL)
    return false;
  u->n_dirs++;
  c->pos = start;
  while ((s = dwarf_get_string (c)) != NULL && s[0] != '\0')
    {
      char *d;
      if (s[0] != '/' && comp_dir != NULL)
	{
	  if (asprintf (&d, "%s/%s", comp_dir, s) < 0)
	    d = NULL;
	}
      else
	d = strdup (s);
      if ((u->dirs[u->n_dirs++] = d) == NULL)
	return false;
    }

  u->files = calloc (c->end - c->pos + 1, sizeof *u->files);
  if (u->files == NULL)
    return false;
  u->files[u->n_files++] = UINT32_MAX;
  while ((s = dwarf_get_string (c)) != NULL && s[0] != '\0')
    {
      uint64_t dir, skip;
      int64_t id;
      if (!dwarf_get_uleb (c, &dir) || !dwarf_get_uleb (c, &skip) || !dwarf_get_uleb (c, &skip))
	return false;
      id = intern_path (b, dir < u->n_dirs ? u->dirs[dir] : NULL, s);
      if (id < 0)
	return false;
      u->files[u->n_files++] = (uint32_t) id;
    }
  return s != NULL;
}

/* Whether a sequence that starts at ADDR is code that was kept: the
   linker leaves a discarded function's sequence at 0 or at a tombstone
   near the top of the address space.  */

static bool
kept_sequence (uint32_t addr)
{
  return addr != 0 && addr < 0xfffffff0u;
}

/* The state of the line-number machine that rows are made from.  */
struct row_state
{
  uint32_t addr;
  uint64_t file, line;
  bool in_sequence;		/* A row of this sequence was made.  */
  bool kept;			/* kept_sequence of its first row.  */
  uint32_t row_addr;		/* The last row's address, line, file.  */
  uint64_t row_line, row_file;
};

/* Make a row of the current state: it ends the range of the row before
   it.  END says it ends the sequence.  */

static bool
emit_row (struct builder *b, struct row_state *st,
	  const struct unit_files *u, bool end)
{
  if (!st->in_sequence)
    {
      st->kept = kept_sequence (st->addr);
      st->in_sequence = true;
    }
  else if (st->kept && st->addr > st->row_addr && st->row_file < u->n_files
	   && u->files[st->row_file] != UINT32_MAX && st->row_line != 0
	   && st->row_line <= UINT32_MAX
	   && !add_range (b, st->row_addr, st->addr, (uint32_t) st->row_line,
			  u->files[st->row_file]))
    return false;
  st->row_addr = st->addr;
  st->row_line = st->line;
  st->row_file = st->file;
  if (end)
    st->in_sequence = false;
  return true;
}

/* Run the line-number program at C (one unit) with header fields as
   given.  */

static bool
run_program (struct builder *b, struct dwarf_cursor *c, const struct unit_files *u,
	     unsigned min_len, int line_base, unsigned line_range,
	     unsigned opcode_base, const unsigned char *op_lengths)
{
  struct row_state st;
  uint64_t v;
  int64_t sv;

  memset (&st, 0, sizeof st);
  st.file = 1;
  st.line = 1;
  while (c->pos < c->end)
    {
      unsigned op = c->base[c->pos++];
      if (op >= opcode_base)
	{
	  unsigned adj = op - opcode_base;
	  st.addr += (adj / line_range) * min_len;
	  st.line += (uint64_t) ((int64_t) line_base + adj % line_range);
	  if (!emit_row (b, &st, u, false))
	    return false;
	  continue;
	}
      switch (op)
	{
	case 0:
	  {
	    uint64_t len;
	    size_t next;
	    unsigned sub;
	    if (!dwarf_get_uleb (c, &len) || len == 0 || len > c->end - c->pos)
	      return false;
	    next = c->pos + (size_t) len;
	    sub = c->base[c->pos++];
	    if (sub == LNE_end_sequence)
	      {
		if (!emit_row (b, &st, u, true))
		  return false;
		st.addr = 0;
		st.file = 1;
		st.line = 1;
	      }
	    else if (sub == LNE_set_address)
	      {
		if (len - 1 > 8 || !dwarf_get_bytes (c, (size_t) len - 1, &v))
		  return false;
		st.addr = (uint32_t) v;
	      }
	    /* DW_LNE_define_file (versions 2 to 4) is obsolete and GCC
	       never emits it; its file gets no name here, and the
	       discriminator and vendor opcodes do not matter.  */
	    c->pos = next;
	    break;
	  }
	case LNS_copy:
	  if (!emit_row (b, &st, u, false))
	    return false;
	  break;
	case LNS_advance_pc:
	  if (!dwarf_get_uleb (c, &v))
	    return false;
	  st.addr += (uint32_t) (v * min_len);
	  break;
	case LNS_advance_line:
	  if (!dwarf_get_sleb (c, &sv))
	    return false;
	  st.line += (uint64_t) sv;
	  break;
	case LNS_set_file:
	  if (!dwarf_get_uleb (c, &st.file))
	    return false;
	  break;
	case LNS_const_add_pc:
	  st.addr += ((255 - opcode_base) / line_range) * min_len;
	  break;
	case LNS_fixed_advance_pc:
	  if (!dwarf_get_bytes (c, 2, &v))
	    return false;
	  st.addr += (uint32_t) v;
	  break;
	default:
	  /* Operands of the others (and of opcodes this reader does not
	     know) are ULEB128 numbers, as many as the header says.  */
	  for (unsigned i = 0; i < op_lengths[op - 1]; i++)
	    if (!dwarf_get_uleb (c, &v))
	      return false;
	  break;
	}
    }
  return true;
}

/* Read the unit of .debug_line at *OFFSET and advance *OFFSET past it;
   false with *WHAT set if it is malformed.  */

static bool
read_unit (struct builder *b, size_t *offset, const char **what)
{
  const struct dwarf_sections *s = b->s;
  struct dwarf_cursor c = { s->line, *offset, s->line_size, s->big_endian };
  uint64_t unit_offset = *offset;
  struct unit_files u;
  uint64_t length, version, header_length, v;
  unsigned min_len, line_range, opcode_base;
  int line_base;
  bool dwarf64 = false, ok = false;
  const unsigned char *op_lengths;
  size_t program;

  memset (&u, 0, sizeof u);
  *what = "truncated unit";
  if (!dwarf_get_bytes (&c, 4, &length))
    return false;
  if (length == 0xffffffff)
    {
      dwarf64 = true;
      if (!dwarf_get_bytes (&c, 8, &length))
	return false;
    }
  if (length > c.end - c.pos)
    return false;
  c.end = c.pos + (size_t) length;
  *offset = c.end;
  *what = "unknown version";
  if (!dwarf_get_bytes (&c, 2, &version) || version < 2 || version > 5)
    return false;
  *what = "malformed header";
  if (version >= 5 && (!dwarf_get_bytes (&c, 1, &v) || v != 4
		       || !dwarf_get_bytes (&c, 1, &v)))
    return false;
  if (!dwarf_get_bytes (&c, dwarf64 ? 8 : 4, &header_length)
      || header_length > c.end - c.pos)
    return false;
  program = c.pos + (size_t) header_length;
  if (!dwarf_get_bytes (&c, 1, &v))
    return false;
  min_len = (unsigned) v;
  if (version >= 4 && (!dwarf_get_bytes (&c, 1, &v) || v != 1))
    {
      *what = "VLIW operations in a line table";
      return false;
    }
  /* default_is_stmt: every row counts, statement or not, as for
     addr2line.  */
  if (!dwarf_get_bytes (&c, 1, &v))
    return false;
  if (!dwarf_get_bytes (&c, 1, &v))
    return false;
  line_base = (int) (signed char) v;
  if (!dwarf_get_bytes (&c, 1, &v) || v == 0)
    return false;
  line_range = (unsigned) v;
  if (!dwarf_get_bytes (&c, 1, &v) || v == 0 || v - 1 > c.end - c.pos)
    return false;
  opcode_base = (unsigned) v;
  op_lengths = c.base + c.pos;
  c.pos += opcode_base - 1;
  if (version >= 5
      ? !read_entries_v5 (b, &c, dwarf64, &u, false)
	|| !read_entries_v5 (b, &c, dwarf64, &u, true)
      : !read_entries_v4 (b, &c, &u,
			    dwarf_comp_dir_of (b->comp_dirs, b->n_comp_dirs,
					       unit_offset)))
    goto done;
  if (c.pos > program)
    goto done;
  c.pos = program;
  *what = "out of memory or malformed line program";
  ok = run_program (b, &c, &u, min_len, line_base, line_range, opcode_base,
		    op_lengths);

 done:
  for (size_t i = 0; i < u.n_dirs; i++)
    free (u.dirs[i]);
  free (u.dirs);
  free (u.files);
  return ok;
}

static int
compare_range (const void *a, const void *b)
{
  const struct dwarf_line_range *x = a, *y = b;

  if (x->lo != y->lo)
    return x->lo < y->lo ? -1 : 1;
  /* The same start from two units: keep the longer first.  */
  if (x->hi != y->hi)
    return x->hi > y->hi ? -1 : 1;
  return 0;
}

/* Sort the ranges of L and cut them so that none overlaps the next.  */

static void
settle_ranges (struct dwarf_lines *l)
{
  size_t n = 0;

  if (l->n_ranges == 0)
    return;
  qsort (l->ranges, l->n_ranges, sizeof *l->ranges, compare_range);
  for (size_t i = 0; i < l->n_ranges; i++)
    {
      struct dwarf_line_range r = l->ranges[i];
      if (n > 0 && r.lo < l->ranges[n - 1].hi)
	{
	  /* Inside the range before: the earlier one stands.  */
	  if (r.hi <= l->ranges[n - 1].hi)
	    continue;
	  r.lo = l->ranges[n - 1].hi;
	}
      l->ranges[n++] = r;
    }
  l->n_ranges = n;
}

bool
dwarf_lines_read (const struct dwarf_sections *s,
		  struct dwarf_lines *lines, char **errmsg)
{
  struct builder b;
  struct dwarf_comp_dir *dirs;
  size_t offset = 0;
  bool ok = true;

  memset (lines, 0, sizeof *lines);
  memset (&b, 0, sizeof b);
  b.s = s;
  b.lines = lines;
  b.comp_dirs = dirs = dwarf_comp_dirs (s, &b.n_comp_dirs);
  *errmsg = NULL;
  while (ok && offset < s->line_size)
    {
      size_t at = offset;
      const char *what;
      if (!read_unit (&b, &offset, &what))
	{
	  errmsg_format (errmsg, ".debug_line: %s at offset 0x%zx", what, at);
	  dwarf_lines_free (lines);
	  ok = false;
	}
    }
  free (b.file_index);
  free (dirs);
  if (ok)
    settle_ranges (lines);
  return ok;
}

const struct dwarf_line_range *
dwarf_lines_find (const struct dwarf_lines *lines, uint32_t addr)
{
  size_t lo = 0, hi = lines->n_ranges;

  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (lines->ranges[mid].lo <= addr)
	lo = mid + 1;
      else
	hi = mid;
    }
  if (lo == 0 || addr >= lines->ranges[lo - 1].hi)
    return NULL;
  return &lines->ranges[lo - 1];
}

void
dwarf_lines_free (struct dwarf_lines *lines)
{
  for (size_t i = 0; i < lines->n_files; i++)
    free (lines->files[i]);
  free (lines->files);
  free (lines->ranges);
  memset (lines, 0, sizeof *lines);
}
