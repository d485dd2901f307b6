/* cli.h -- what profcopy.c, the command line, shares with whole.c,
   the whole-program rewrite: the options and the helpers that report
   and rewrite one object.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_CLI_H
#define PROFCOPY_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "libsearch.h"
#include "profile-read.h"
#include "scope.h"

#ifndef PROFCOPY_DEFAULT_SYSROOT
#define PROFCOPY_DEFAULT_SYSROOT ""
#endif

#ifndef PROFCOPY_RUNTIME_DIR
#define PROFCOPY_RUNTIME_DIR "/usr/local/lib/profcopy"
#endif

/* The soname of the runtime that profiled programs load.  */
#define RUNTIME_SONAME "libprofcopy.so"

static const char *program_name = "profcopy";

enum action
{
  ACTION_REWRITE,
  ACTION_DUMP_RELOCS,
  ACTION_DUMP_BLOCKS,
  ACTION_LIST_NEEDED
};

/* How counters are incremented (--counter-update).  */
enum counter_update
{
  UPDATE_AUTO,			/* Single when no thread can run them.  */
  UPDATE_ATOMIC,
  UPDATE_SINGLE
};

/* Who carries a count out of a counter's low word (--counter-carry).  */
enum counter_carry
{
  CARRY_AUTO,			/* The watcher with --whole-program.  */
  CARRY_WATCHER,		/* The runtime's watcher thread.  */
  CARRY_INLINE			/* Every increment, with a test.  */
};

/* Everything the command line says.  */
struct options
{
  enum action action;
  const char *sysroot;
  const char **library_path;
  size_t n_library_path;
  bool verbose;
  bool whole_program;
  bool poison_original;
  bool all_blocks;
  bool calls;
  enum counter_update update;	/* --counter-update.  */
  enum counter_carry carry;	/* --counter-carry.  */
  const char *output;		/* -o: file, or directory with --whole-program.  */
  const char *runtime;		/* --runtime: the runtime library to copy.  */
  const char *run_dir;		/* --run-dir: where the copies will run.  */
  long jobs;			/* -j: objects rewritten at once, 0: one per
				   processor.  */
  struct profile_set used;	/* The profiles of --use-profile.  */
  const char **profiles;	/* Their names, N_PROFILES of them.  */
  size_t n_profiles;
  const char **copy_dirs;	/* --copy-dir, N_COPY_DIRS of them.  */
  size_t n_copy_dirs;
  /* With --whole-program: the closure's dynamic symbols, the program
     first, then the runtime, then the libraries (struct job's
     SCOPE_INDEX).  */
  const struct symbol_scope *scope;
  /* With --whole-program, when the dynamic linker is profiled too
     (musl's): the absolute path of its copy, which the program's copy
     names in PT_INTERP.  */
  const char *interp;
};

/* The name the program was run by, for messages.  */
extern const char *program_name;

/* Report a problem with FILE: `profcopy: FILE: MESSAGE'.  */
void file_error (const char *file, const char *format, ...)
  __attribute__ ((format (printf, 2, 3)));

/* Whether OPTS have the runtime's watcher carry the counters' low
   words of an object (a program if MAIN_PROGRAM).  */
bool folded_carry (const struct options *opts, bool main_program);

/* What -v says of FOLDED.  */
const char *carry_said (bool folded);

/* Rewrite IN to OUT; see profcopy.c.  */
int rewrite_one (const struct options *opts, const char *in, const char *out,
		 bool main_program, size_t scope_index);

/* The shared objects FILE needs, into *CLOSURE, searched as OPTS say
   for the byte order BIG_ENDIAN; false, said, when FILE cannot be
   read.  */
bool find_needed (const struct options *opts, const char *file,
		  bool big_endian, struct needed_closure *closure);

/* Say that the dynamic linker LOADER of the program FILE is not in the
   sysroot of OPTS.  */
void loader_not_found (const struct options *opts, const char *file,
		       const struct needed_lib *loader);

/* whole.c: rewrite the program EXE and every shared object it needs
   into the directory OPTS->output, with the runtime.  Return the exit
   status it earns.  */
int whole_program (const struct options *opts, const char *exe);

#endif /* PROFCOPY_CLI_H */
