/* report.h -- attribute the blocks of a profile to functions and print
   the reports.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_REPORT_H
#define PROFCOPY_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "profile-read.h"

enum report_format
{
  REPORT_TEXT,
  REPORT_CSV
};

struct report_options
{
  bool blocks;			/* Per-block rather than flat.  */
  bool calls;			/* The call graph rather than flat.  */
  bool lines;			/* Source lines (lines.h) rather than
				   flat.  */
  enum report_format format;
  const char *dot;		/* Write a Graphviz graph here, or NULL.  */
  double node_thres;		/* --node-thres, percent.  */
  double edge_thres;		/* --edge-thres, percent.  */
  /* --object and --function: shell patterns (fnmatch) that the rows of
     the flat profile and of --blocks must match, or NULL.  An object
     matches by its path or its base name.  */
  const char *object;
  const char *function;
  bool zeros;			/* --zeros: --blocks and --lines have the
				   blocks and lines that never ran too.  */
  const char *annotate;		/* --annotate: a shell pattern of the
				   functions to disassemble, or NULL.  */
};

/* One function of an original object: a symbol, or a run of blocks no
   symbol covers (named func_0xADDR).  */
struct report_function
{
  char *name;
  uint32_t addr;		/* Entry address.  */
  size_t object;		/* Index in report.objects.  */
  uint64_t calls;		/* Count of the block at ADDR.  */
  uint64_t insns;		/* Sum of count x words over its blocks.  */
};

/* A defined dynamic symbol of an object, for resolving the calls that
   other objects make through their GOT.  */
struct report_dynsym
{
  char *name;
  size_t func;			/* Index in report.functions.  */
};

/* One object whose original was found and matches.  */
struct report_object
{
  const struct prof_object *prof;
  uint32_t *order;		/* Block indices sorted by address.  */
  size_t *block_func;		/* Block index -> index in functions.  */
  struct report_dynsym *dynsyms; /* Sorted by name.  */
  size_t n_dynsyms;
};

/* No function: the callee of an indirect call, or of a call to a
   symbol that no profiled object defines.  */
#define REPORT_NO_FUNC ((size_t) -1)

/* One call site: a block that ends in a call (and its delay slot).  It
   ran as often as its block.  */
struct report_call
{
  size_t object;		/* Index in report.objects.  */
  uint32_t block;		/* Block index in the object's profile.  */
  uint32_t addr;		/* Address of the call instruction.  */
  size_t caller;		/* Index in report.functions.  */
  size_t callee;		/* Index in report.functions, or
				   REPORT_NO_FUNC.  */
  char *symbol;			/* The dynamic symbol called through the
				   GOT, or NULL.  */
  bool resolved;		/* SYMBOL was looked up in all objects.  */
  uint32_t source, line;	/* Where the call is in the sources
				   (lines.h), LINE 0 when unknown.  */
};

struct report
{
  struct report_object *objects;
  size_t n_objects;
  struct report_function *functions;
  size_t n_functions;
  uint64_t total;		/* Instructions executed, all objects.  */
  struct report_call *calls;
  size_t n_calls;
  struct report_lines *lines;	/* Per source line (lines.h), or NULL
				   when not asked for.  */
  struct report_inclusive *inclusive; /* The inclusive estimate that the
				   call views share (inclusive.h), made
				   once by report_prepare_inclusive, or
				   NULL.  */
};

/* Open the original of OBJ, check that it is the file that was
   profiled, and attribute OBJ's blocks to its functions in R.  On
   failure return false and set *ERRMSG to a malloc'd reason (without
   the object's name).  OBJ must outlive R.  */
/* The sysroot in which separate debug files are looked for first
   (profreport --sysroot), or NULL.  */
extern const char *report_sysroot;

/* Name OBJ's functions from its separate debug file too when OBJ has
   no .symtab of its own (a stripped library of a distribution, whose
   -dbg package holds the symbols; object_find_debug_file says where it
   is looked for, REPORT_SYSROOT first).  Nothing when there is none.  */
struct mips_object;
void report_add_debug_symbols (struct mips_object *obj);

/* Whether function names are shown demangled (the default; profreport
   --no-demangle clears it).  */
extern bool report_demangle;

/* The name to show for symbol SYM: without its version when that is
   the default one (NAME@@VERSION), demangled when it is a C++ name and
   REPORT_DEMANGLE is set.  malloc'd; NULL when out of memory.  */
char *report_symbol_name (const char *sym);

bool report_add_object (struct report *r, const struct prof_object *obj,
			char **errmsg);

/* Print R to OUT as OPTS says.  */
void report_print (FILE *out, const struct report *r,
		   const struct report_options *opts);

/* Free everything R owns.  */
void report_free (struct report *r);

/* Whether the rows of function F of object PATH are wanted by OPTS
   (--object, --function).  */
bool report_wanted (const struct report_options *opts, const char *path,
		    const struct report_function *f);

/* The writers of output.c.  */

/* Print S to OUT as one CSV field, quoted when it must be.  */
void csv_field (FILE *out, const char *s);

/* Print S to OUT inside a DOT or JSON string, escaped.  */
void quoted_string (FILE *out, const char *s);

/* The base name of PATH.  */
const char *base_name (const char *path);

/* The DOT graphs of --dot (calls-print.c and trace-output.c): the
   header of the digraph NAME, whose title is TITLE (a line saying what
   ran, and how much), and LEGEND, which says what the colours measure,
   the hottest being MAX_PCT percent of it.  */
void report_dot_begin (FILE *out, const char *name, const char *title,
		       const char *legend, double max_pct);

/* The fill and font colours of a node whose heat is HEAT, from 0 (the
   coldest drawn) to 1 (the hottest): pale yellow through orange to dark
   red, one hue ramp in which every step is hotter than the one
   before.  */
void report_dot_colour (FILE *out, double heat);

/* The arrow from node fFROM to node fTO, labelled with its COUNT calls
   and as thick as COUNT is to MAX_COUNT, the most of an arrow drawn.  */
void report_dot_edge (FILE *out, size_t from, size_t to, uint64_t count,
		      uint64_t max_count);

#endif /* PROFCOPY_REPORT_H */
