/* errmsg.c -- the malloc'd reason a failing function hands back.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "errmsg.h"

bool
errmsg_format (char **errmsg, const char *format, ...)
{
  va_list ap;

  va_start (ap, format);
  if (vasprintf (errmsg, format, ap) < 0)
    *errmsg = NULL;
  va_end (ap);
  return false;
}

/* `PROGRAM: MESSAGE' without its newline on standard error.  */

static void
print_message (const char *program, const char *format, va_list ap)
{
  fprintf (stderr, "%s: ", program);
  vfprintf (stderr, format, ap);
}

int
errmsg_usage (const char *program, const char *format, ...)
{
  va_list ap;

  va_start (ap, format);
  print_message (program, format, ap);
  va_end (ap);
  fprintf (stderr, "\nTry '%s --help' for more information.\n", program);
  return EXIT_FAILURE;
}

void
errmsg_print (const char *program, const char *format, ...)
{
  va_list ap;

  va_start (ap, format);
  print_message (program, format, ap);
  va_end (ap);
  putc ('\n', stderr);
}
