/* version.h -- the --version text of profcopy and profreport.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_VERSION_H
#define PROFCOPY_VERSION_H

/* Print PROGRAM's version, as the GNU tools do, on standard output and
   exit with EXIT_SUCCESS.  */
void print_version (const char *program) __attribute__ ((noreturn));

#endif /* PROFCOPY_VERSION_H */
