/* annotate.c -- annotated disassembly (--annotate): the instructions of
   chosen functions with their counts and source lines.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   Every instruction of a block ran as often as the block.  The words
   are read from the original object again and disassembled by
   libopcodes, which is loaded here (dlopen) and only here: the other
   reports need no disassembler, and loading libopcodes and libbfd
   costs every run of profreport a third of its start-up.  */

#include <config.h>

#include <dlfcn.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bfd.h>
#include <dis-asm.h>

#include "annotate.h"
#include "debug-lines.h"
#include "errmsg.h"
#include "object.h"

/* libopcodes' entry points, as dlsym finds them.  */
struct opcodes
{
  void *handle;
  disassembler_ftype (*disassembler) (enum bfd_architecture, bool,
				      unsigned long, bfd *);
#ifdef HAVE_INIT_DISASSEMBLE_INFO_4
  void (*init) (struct disassemble_info *, void *, fprintf_ftype,
		fprintf_styled_ftype);
#else
  void (*init) (struct disassemble_info *, void *, fprintf_ftype);
#endif
  void (*init_for_target) (struct disassemble_info *);
  void (*free_target) (struct disassemble_info *);
};

/* The text of one instruction, as libopcodes prints it.  */
struct insn_text
{
  char buf[160];
  size_t len;
};

static void
text_add (struct insn_text *t, const char *format, va_list ap)
{
  int n;

  if (t->len >= sizeof t->buf - 1)
    return;
  n = vsnprintf (t->buf + t->len, sizeof t->buf - t->len, format, ap);
  if (n > 0)
    t->len += (size_t) n < sizeof t->buf - t->len ? (size_t) n
	      : sizeof t->buf - 1 - t->len;
}

static int
text_printf (void *stream, const char *format, ...)
{
  va_list ap;

  va_start (ap, format);
  text_add (stream, format, ap);
  va_end (ap);
  return 0;
}

#ifdef HAVE_INIT_DISASSEMBLE_INFO_4
static int
text_styled_printf (void *stream, enum disassembler_style style,
		    const char *format, ...)
{
  va_list ap;

  (void) style;
  va_start (ap, format);
  text_add (stream, format, ap);
  va_end (ap);
  return 0;
}
#endif

/* Branch and jump targets as objdump prints them: hexadecimal.  */

static void
text_address (bfd_vma addr, struct disassemble_info *info)
{
  text_printf (info->stream, "%" PRIx64, (uint64_t) addr);
}

/* Load libopcodes into *OP.  */

static bool
load_opcodes (struct opcodes *op, char **errmsg)
{
#ifndef OPCODES_SONAME
  (void) op;
  return errmsg_format (errmsg, "profreport was built without the file "
			"name of libopcodes: --annotate is not available");
#else
  memset (op, 0, sizeof *op);
  op->handle = dlopen (OPCODES_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (op->handle == NULL)
    return errmsg_format (errmsg, "cannot load %s (binutils-multiarch): %s",
			  OPCODES_SONAME, dlerror ());
  *(void **) &op->disassembler = dlsym (op->handle, "disassembler");
  *(void **) &op->init = dlsym (op->handle, "init_disassemble_info");
  *(void **) &op->init_for_target = dlsym (op->handle,
					   "disassemble_init_for_target");
  *(void **) &op->free_target = dlsym (op->handle, "disassemble_free_target");
  if (op->disassembler == NULL || op->init == NULL
      || op->init_for_target == NULL || op->free_target == NULL)
    {
      dlclose (op->handle);
      op->handle = NULL;
      return errmsg_format (errmsg, "%s has no disassembler", OPCODES_SONAME);
    }
  return true;
#endif
}

/* The source line of ADDR in LINES, printed when it is not LAST's.  */

static void
print_line (FILE *out, const struct dwarf_lines *lines, uint32_t addr,
	    const struct dwarf_line_range **last)
{
  const struct dwarf_line_range *rg = dwarf_lines_find (lines, addr);

  if (rg == NULL || (*last != NULL && (*last)->file == rg->file
		     && (*last)->line == rg->line))
    return;
  fprintf (out, "  %s:%" PRIu32 "\n", lines->files[rg->file], rg->line);
  *last = rg;
}

/* Print the instructions of function F of R, whose original is OBJ
   (line table LINES, maybe empty), disassembled by PRINT with INFO.  */

static void
print_function (FILE *out, const struct report *r, size_t f,
		const struct mips_object *obj, const struct dwarf_lines *lines,
		disassembler_ftype print, struct disassemble_info *info)
{
  const struct report_function *fn = &r->functions[f];
  const struct report_object *ro = &r->objects[fn->object];
  const struct prof_object *prof = ro->prof;
  const struct dwarf_line_range *last = NULL;

  fprintf (out, "\n%s (%s): %" PRIu64 " instructions, %" PRIu64 " %s\n",
	   fn->name, prof->path, fn->insns, fn->calls,
	   fn->calls == 1 ? "entry" : "entries");
  for (uint32_t i = 0; i < prof->n_blocks; i++)
    {
      uint32_t b = ro->order[i];
      const struct prof_block *blk = &prof->blocks[b];
      if (ro->block_func[b] != f)
	continue;
      for (uint32_t a = blk->start; a - blk->start < blk->size; a += 4)
	{
	  const unsigned char *p = object_vaddr_ptr (obj, a, 4);
	  struct insn_text text = { .len = 0 };
	  if (p == NULL)
	    break;
	  print_line (out, lines, a, &last);
	  info->buffer = (bfd_byte *) p;
	  info->buffer_vma = a;
	  info->buffer_length = 4;
	  info->stream = &text;
	  text.buf[0] = '\0';
	  if (print (a, info) != 4)
	    snprintf (text.buf, sizeof text.buf, ".word 0x%08" PRIx32,
		      object_get32 (obj, p));
	  if (prof->counts[b] != 0)
	    fprintf (out, "%16" PRIu64, prof->counts[b]);
	  else
	    fprintf (out, "%16s", "-");
	  fprintf (out, "  %08" PRIx32 ":  %s\n", a, text.buf);
	}
    }
}

/* Whether OPTS asks for the instructions of function F of R.  */

static bool
annotated (const struct report *r, const struct report_options *opts,
	   size_t f)
{
  const struct report_function *fn = &r->functions[f];

  return fnmatch (opts->annotate, fn->name, 0) == 0
	 && report_wanted (opts, r->objects[fn->object].prof->path, fn);
}

bool
annotate_print (FILE *out, const struct report *r,
		const struct report_options *opts, char **errmsg)
{
  struct opcodes op;
  size_t n_printed = 0;
  bool ok = true;

  *errmsg = NULL;
  if (!load_opcodes (&op, errmsg))
    return false;
  for (size_t o = 0; ok && o < r->n_objects; o++)
    {
      const struct prof_object *prof = r->objects[o].prof;
      struct mips_object obj;
      struct dwarf_lines lines;
      struct disassemble_info info;
      disassembler_ftype print;
      char *from = NULL, *err = NULL;
      bool any = false;

      for (size_t f = 0; f < r->n_functions && !any; f++)
	any = r->functions[f].object == o && annotated (r, opts, f);
      if (!any)
	continue;
      if (!object_read (prof->path, &obj, &err))
	{
	  errmsg_format (errmsg, "%s: %s", prof->path, err);
	  free (err);
	  ok = false;
	  break;
	}
      /* Lines are a help: an object without them is still shown.  */
      if (!object_read_lines (&obj, report_sysroot, &lines, &from, &err))
	{
	  fprintf (stderr, "profreport: %s: no source lines: %s\n",
		   from != NULL ? from : prof->path, err);
	  free (err);
	  memset (&lines, 0, sizeof lines);
	}
      free (from);
#ifdef HAVE_INIT_DISASSEMBLE_INFO_4
      op.init (&info, NULL, text_printf, text_styled_printf);
#else
      op.init (&info, NULL, text_printf);
#endif
      info.print_address_func = text_address;
      info.arch = bfd_arch_mips;
      info.mach = bfd_mach_mipsisa32r2;
      info.endian = obj.big_endian ? BFD_ENDIAN_BIG : BFD_ENDIAN_LITTLE;
      info.endian_code = info.endian;
      op.init_for_target (&info);
      print = op.disassembler (bfd_arch_mips, obj.big_endian, info.mach,
			       NULL);
      if (print == NULL)
	{
	  errmsg_format (errmsg, "libopcodes has no MIPS disassembler");
	  ok = false;
	}
      for (size_t f = 0; ok && f < r->n_functions; f++)
	if (r->functions[f].object == o && annotated (r, opts, f))
	  {
	    print_function (out, r, f, &obj, &lines, print, &info);
	    n_printed++;
	  }
      op.free_target (&info);
      dwarf_lines_free (&lines);
      object_close (&obj);
    }
  if (ok && n_printed == 0)
    {
      errmsg_format (errmsg, "no function matches `%s'", opts->annotate);
      ok = false;
    }
  dlclose (op.handle);
  return ok;
}
