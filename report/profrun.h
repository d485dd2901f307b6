/* profrun.h -- what profrun.c and run-cache.c share.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_PROFRUN_H
#define PROFCOPY_PROFRUN_H

#include <stdbool.h>
#include <stddef.h>

#include "errmsg.h"

/* What the command line says.  */
struct run_options
{
  const char *sysroot;		/* NULL: by byte order.  */
  const char *runtime;		/* NULL: installed, else the build's.  */
  const char *cache;		/* NULL: $PROFCOPY_CACHE, XDG's.  */
  const char *profile_dir;	/* Where the profiles go.  */
  const char *qemu;		/* NULL: qemu-mips or qemu-mipsel.  */
  const char *jobs;		/* profcopy -j, or NULL.  */
  bool native;			/* Run the copy directly (on a board).  */
  bool report;			/* Run profreport at the end.  */
  bool verbose;
  const char **report_args;	/* Options for profreport.  */
  size_t n_report_args;
};

/* The tools and files of one run, as found.  */
struct run_setup
{
  char *self_dir;		/* Where profrun is.  */
  char *prefix;			/* Of its name: "mips-linux-gnu-".  */
  char *profcopy, *profreport;
  char *program;		/* The original, as found.  */
  const char *name;		/* Its base name.  */
  bool big_endian;
  char *sysroot, *runtime, *qemu;
  char *cache_entry;		/* The copies' directory.  */
};

/* profrun's name, for its messages.  */
extern const char *program_name;

/* Print `profrun: MESSAGE' (from FORMAT) on standard error.  */
#define error_message(...) errmsg_print (program_name, __VA_ARGS__)

/* A malloc'd copy of the concatenation of the strings given, up to a
   NULL; exits when out of memory.  */
char *concat (const char *first, ...) __attribute__ ((sentinel));

bool is_file (const char *path);
bool is_dir (const char *path);

/* Run ARGV (ARGV[0] searched in $PATH), its standard output to
   /dev/null when QUIET and to FD_OUT (when not -1) else; with the
   variable SETENV_VAR (NAME=VALUE, or NULL) added to the environment.
   Return its exit status as a shell gives it (128 + N for signal N),
   or -1 when it could not be run.  */
int run (char *const *argv, bool quiet, int fd_out, const char *setenv_var);

/* Make directory PATH and its parents; false with a message.  */
bool make_dirs (const char *path);

/* Rewrite S's program with profcopy --whole-program into its entry of
   the cache (S->cache_entry, set here), unless the entry is there:
   its name holds a hash of every input.  False with a message.  */
bool run_cache_copies (struct run_setup *s, const struct run_options *o);

#endif /* PROFCOPY_PROFRUN_H */
