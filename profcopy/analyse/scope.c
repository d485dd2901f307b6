/* scope.c -- which object's definition a dynamic symbol names.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#include <config.h>

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "object.h"
#include "scope.h"

static int
compare_names (const void *pa, const void *pb)
{
  const struct scope_name *a = pa, *b = pb;
  int c = strcmp (a->name, b->name);

  /* The first definer first among equal names.  */
  if (c != 0)
    return c;
  return a->object < b->object ? -1 : a->object > b->object;
}

static int
compare_names_only (const void *pa, const void *pb)
{
  const struct scope_name *a = pa, *b = pb;

  return strcmp (a->name, b->name);
}

bool
scope_build (struct symbol_scope *scope, const char *const *paths,
	     size_t n_paths, const char **bad, char **errmsg)
{
  size_t max = 0, n = 0;

  memset (scope, 0, sizeof *scope);
  scope->c_library = calloc (n_paths + 1, sizeof *scope->c_library);
  if (scope->c_library == NULL)
    goto nomem;
  scope->n_objects = n_paths;
  for (size_t k = 0; k < n_paths; k++)
    {
      struct mips_object obj;

      if (!object_read (paths[k], &obj, errmsg))
	{
	  *bad = paths[k];
	  scope_free (scope);
	  return false;
	}
      scope->c_library[k] = obj.dyn.soname != NULL
			    && (strcmp (obj.dyn.soname, "libc.so.6") == 0
				|| strcmp (obj.dyn.soname, "libm.so.6") == 0);
      for (size_t i = 0; i < obj.n_symbols; i++)
	{
	  const struct object_symbol *sym = &obj.symbols[i];
	  if (!sym->dynamic || sym->shndx == SHN_UNDEF
	      || (sym->bind != STB_GLOBAL && sym->bind != STB_WEAK)
	      || sym->name == NULL || sym->name[0] == '\0')
	    continue;
	  if (!array_room (&scope->names, &max, n, sizeof *scope->names,
			   4096))
	    {
	      object_close (&obj);
	      goto nomem;
	    }
	  scope->names[n].object = (uint32_t) k;
	  scope->names[n].name = strdup (sym->name);
	  if (scope->names[n++].name == NULL)
	    {
	      scope->n_names = n - 1;
	      object_close (&obj);
	      goto nomem;
	    }
	  scope->n_names = n;
	}
      object_close (&obj);
    }
  if (n > 0)
    qsort (scope->names, n, sizeof *scope->names, compare_names);
  /* Keep each name's first definer.  */
  n = 0;
  for (size_t i = 0; i < scope->n_names; i++)
    if (n > 0 && strcmp (scope->names[n - 1].name, scope->names[i].name) == 0)
      free (scope->names[i].name);
    else
      scope->names[n++] = scope->names[i];
  scope->n_names = n;
  return true;

 nomem:
  *bad = NULL;
  *errmsg = strdup ("out of memory");
  scope_free (scope);
  return false;
}

long
scope_definer (const struct symbol_scope *scope, const char *name)
{
  struct scope_name key, *hit;

  if (scope->n_names == 0)
    return -1;
  key.name = (char *) name;
  key.object = 0;
  hit = bsearch (&key, scope->names, scope->n_names, sizeof key,
		 compare_names_only);
  return hit != NULL ? (long) hit->object : -1;
}

void
scope_free (struct symbol_scope *scope)
{
  for (size_t i = 0; i < scope->n_names; i++)
    free (scope->names[i].name);
  free (scope->names);
  free (scope->c_library);
  memset (scope, 0, sizeof *scope);
}
