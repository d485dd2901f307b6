/* errmsg.h -- the malloc'd reason a failing function hands back.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_ERRMSG_H
#define PROFCOPY_ERRMSG_H

#include <stdarg.h>
#include <stdbool.h>

/* Set *ERRMSG to a malloc'd string made from FORMAT (NULL when out of
   memory) and return false, so that a reader can say
   `return errmsg_format (errmsg, ...);'.  */
bool errmsg_format (char **errmsg, const char *format, ...)
  __attribute__ ((format (printf, 2, 3)));

/* A bad command line of PROGRAM, as both tools report one: `PROGRAM:
   MESSAGE' (made from FORMAT) and "Try 'PROGRAM --help' for more
   information." on standard error.  Return EXIT_FAILURE.  */
int errmsg_usage (const char *program, const char *format, ...)
  __attribute__ ((format (printf, 2, 3)));

/* A problem that PROGRAM reports: `PROGRAM: MESSAGE' (made from
   FORMAT) on standard error.  */
void errmsg_print (const char *program, const char *format, ...)
  __attribute__ ((format (printf, 2, 3)));

#endif /* PROFCOPY_ERRMSG_H */
