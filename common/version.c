/* version.c -- the --version text of profcopy and profreport.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include "version.h"

void
print_version (const char *program)
{
  printf ("%s (%s) %s\n", program, PACKAGE_NAME, PACKAGE_VERSION);
  printf ("Copyright (C) 2026 The profcopy authors.\n\
This program is free software; you may redistribute it under the terms of\n\
the GNU General Public License version 3 or (at your option) any later version.\n\
This program has absolutely no warranty.\n");
  exit (EXIT_SUCCESS);
}
