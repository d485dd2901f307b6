/* libsearch.c -- find the shared objects a program needs, as ld.so would.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The search follows glibc's dynamic linker, but inside a sysroot:
   for each DT_NEEDED name, the DT_RPATH of the requesting object and of
   the objects that loaded it up to the executable (an object's DT_RPATH
   counts only when it has no DT_RUNPATH, and none is used when the
   requesting object has a DT_RUNPATH), then the -L directories (where
   ld.so reads LD_LIBRARY_PATH), then the requesting object's DT_RUNPATH,
   then the directories of the sysroot's /etc/ld.so.conf (which is what
   ld.so.cache is built from), then the multiarch and default
   directories; DF_1_NODEFLIB skips the last two groups.  A candidate
   that is not a MIPS o32 shared object of the right byte order is
   passed over, as ld.so passes over incompatible objects.  Objects are
   visited breadth-first, as ld.so loads them.

   A program whose PT_INTERP is musl's loader (ld-musl-ARCH.so.1) is
   searched as musl's loader searches: the -L directories (its
   LD_LIBRARY_PATH), the DT_RPATH or DT_RUNPATH of the requesting object
   and of the objects that loaded it, then the directories of the
   sysroot's /etc/ld-musl-ARCH.path (separated by newlines or colons),
   or /lib:/usr/local/lib:/usr/lib without it.  musl's libc.so is its
   loader: the names the loader takes for itself (libc, libm,
   libpthread, librt, libdl, libutil, libxnet) are not searched, and
   the loader itself, the PT_INTERP inside the sysroot, is the
   closure's LOADER, profiled with the program (glibc's ld.so is
   not).  */

#include <config.h>

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <elf.h>

#include "libsearch.h"
#include "object-int.h"

/* How deep ld.so.conf "include" directives may nest.  */
#define CONF_MAX_DEPTH 8

/* How many symbolic links a candidate path may go through.  */
#define MAX_SYMLINKS 16

#define NO_LOADER ((size_t) -1)

/* One object of the closure whose own DT_NEEDED list has been read.  */
struct loaded
{
  char *path;			/* Host path.  */
  char *origin;			/* Its directory: $ORIGIN.  */
  char *soname, *rpath, *runpath;
  char **needed;
  size_t n_needed;
  bool nodeflib;
  size_t loader;		/* Index of the object that loaded it.  */
  dev_t dev;
  ino_t ino;
};

/* A list of directories.  */
struct dir_list
{
  char **dirs;
  size_t n;
};

struct search_state
{
  const struct lib_search *search;
  char *sysroot;		/* Without a trailing '/'; "" for none.  */
  const char *interp_base;	/* Basename of the executable's PT_INTERP.  */
  bool musl;			/* The PT_INTERP is musl's loader.  */
  char *musl_path;		/* Its search path, colon-separated (NULL
				   until it is read).  */
  struct loaded *loaded;
  size_t n_loaded;
  struct dir_list conf;		/* From ld.so.conf.  */
  bool conf_read;
  struct needed_closure *out;
};

/* strdup S, or NULL for NULL.  */

static char *
xstrdup_or_null (const char *s)
{
  return s != NULL ? strdup (s) : NULL;
}

/* A malloc'd A, B and C joined, or NULL.  */

static char *
concat3 (const char *a, const char *b, const char *c)
{
  char *s;

  if (asprintf (&s, "%s%s%s", a, b, c) < 0)
    return NULL;
  return s;
}

/* Append DIR (malloc'd; NULL fails) to LIST, which takes it.  */

static bool
dir_list_add (struct dir_list *list, char *dir)
{
  char **grown;

  if (dir == NULL)
    return false;
  grown = realloc (list->dirs, (list->n + 1) * sizeof *list->dirs);
  if (grown == NULL)
    {
      free (dir);
      return false;
    }
  list->dirs = grown;
  list->dirs[list->n++] = dir;
  return true;
}

/* Free LIST's directories.  */

static void
dir_list_free (struct dir_list *list)
{
  size_t i;

  for (i = 0; i < list->n; i++)
    free (list->dirs[i]);
  free (list->dirs);
  list->dirs = NULL;
  list->n = 0;
}

/* Follow symbolic links at the end of PATH, keeping absolute link
   targets inside the sysroot of ST.  Returns a malloc'd path: PATH
   itself unless an absolute link had to be redirected, since ld.so
   takes $ORIGIN from the name it opened, not from the link target.  */

static char *
resolve_in_sysroot (const struct search_state *st, const char *path)
{
  char *cur = strdup (path);
  bool redirected = false;
  int i;

  for (i = 0; cur != NULL && st->sysroot[0] != '\0' && i < MAX_SYMLINKS; i++)
    {
      struct stat sb;
      char target[4096];
      ssize_t len;
      char *next, *slash;

      if (lstat (cur, &sb) != 0 || !S_ISLNK (sb.st_mode))
	break;
      len = readlink (cur, target, sizeof target - 1);
      if (len < 0)
	break;
      target[len] = '\0';
      if (target[0] == '/')
	{
	  next = concat3 (st->sysroot, "", target);
	  redirected = true;
	}
      else
	{
	  slash = strrchr (cur, '/');
	  if (slash == NULL)
	    next = strdup (target);
	  else
	    {
	      *slash = '\0';
	      next = concat3 (cur, "/", target);
	    }
	}
      free (cur);
      cur = next;
    }
  if (cur != NULL && !redirected)
    {
      free (cur);
      cur = strdup (path);
    }
  return cur;
}

/* True if PATH starts with the ELF header of a MIPS o32 shared object
   of the byte order ST asks for.  */

static bool
compatible_object (const struct search_state *st, const char *path)
{
  unsigned char h[sizeof (Elf32_Ehdr)];
  struct mips_object probe;
  struct stat sb;
  FILE *f;
  bool ok;

  if (stat (path, &sb) != 0 || !S_ISREG (sb.st_mode))
    return false;
  f = fopen (path, "rb");
  if (f == NULL)
    return false;
  ok = fread (h, 1, sizeof h, f) == sizeof h;
  fclose (f);
  if (!ok || memcmp (h, ELFMAG, SELFMAG) != 0 || h[EI_CLASS] != ELFCLASS32
      || h[EI_DATA] != (st->search->big_endian ? ELFDATA2MSB : ELFDATA2LSB))
    return false;
  memset (&probe, 0, sizeof probe);
  probe.big_endian = st->search->big_endian;
  probe.e_flags = object_get32 (&probe, h + 36);
  return object_get16 (&probe, h + 18) == EM_MIPS
	 && object_get16 (&probe, h + 16) == ET_DYN
	 && (probe.e_flags & EF_MIPS_ABI2) == 0
	 && ((probe.e_flags & OBJ_EF_MIPS_ABI) == 0
	     || (probe.e_flags & OBJ_EF_MIPS_ABI) == OBJ_E_MIPS_ABI_O32);
}

/* Return the malloc'd path of NAME in DIR if a compatible object is
   there, else NULL.  */

static char *
try_dir (const struct search_state *st, const char *dir, const char *name)
{
  char *path = concat3 (dir, dir[0] != '\0' ? "/" : "", name);
  char *real;

  if (path == NULL)
    return NULL;
  real = resolve_in_sysroot (st, path);
  free (path);
  if (real != NULL && compatible_object (st, real))
    return real;
  free (real);
  return NULL;
}

/* Expand the RPATH or RUNPATH entry ENTRY of an object whose directory
   is ORIGIN into a host directory.  NULL if it names nothing usable.  */

static char *
expand_entry (const struct search_state *st, const char *entry,
	      const char *origin)
{
  static const struct { const char *token, *value; } tokens[] = {
    { "${ORIGIN}", NULL }, { "$ORIGIN", NULL },
    { "${LIB}", "lib" }, { "$LIB", "lib" }
  };
  char *out;
  size_t len = 0, cap;
  bool uses_origin = false;
  const char *p;

  if (entry[0] == '\0')
    return NULL;
  cap = strlen (st->sysroot) + strlen (entry) + 1;
  for (p = entry; *p != '\0'; p++)
    if (*p == '$')
      cap += strlen (origin) + 8;
  out = malloc (cap);
  if (out == NULL)
    return NULL;

  for (p = entry; *p != '\0';)
    {
      size_t t, tlen = 0;
      const char *value = NULL;

      if (*p == '$')
	for (t = 0; t < sizeof tokens / sizeof tokens[0]; t++)
	  if (strncmp (p, tokens[t].token, strlen (tokens[t].token)) == 0)
	    {
	      tlen = strlen (tokens[t].token);
	      value = tokens[t].value != NULL ? tokens[t].value : origin;
	      uses_origin |= tokens[t].value == NULL;
	      break;
	    }
      if (*p == '$' && value == NULL)
	{
	  /* $PLATFORM and unknown tokens: ld.so would expand them from
	     the running machine, which we do not know.  */
	  free (out);
	  return NULL;
	}
      if (value != NULL)
	{
	  memcpy (out + len, value, strlen (value));
	  len += strlen (value);
	  p += tlen;
	}
      else
	out[len++] = *p++;
    }
  out[len] = '\0';

  /* $ORIGIN gives a host path already; other directories are inside
     the sysroot.  */
  if (!uses_origin)
    {
      char *in_root = concat3 (st->sysroot, out[0] == '/' ? "" : "/", out);
      free (out);
      out = in_root;
    }
  return out;
}

/* Search NAME in the colon-separated LIST of the object whose
   directory is ORIGIN.  */

static char *
search_path_list (const struct search_state *st, const char *list,
		  const char *origin, const char *name)
{
  char *copy = strdup (list), *save = NULL, *entry, *found = NULL;

  if (copy == NULL)
    return NULL;
  for (entry = strtok_r (copy, ":", &save); entry != NULL && found == NULL;
       entry = strtok_r (NULL, ":", &save))
    {
      char *dir = expand_entry (st, entry, origin);
      if (dir != NULL)
	found = try_dir (st, dir, name);
      free (dir);
    }
  free (copy);
  return found;
}

/* Add the directories of the ld.so.conf-format file FILE (a host path)
   to ST->conf, following "include" globs.  */

static void
read_conf (struct search_state *st, const char *file, int depth)
{
  FILE *f;
  char *line = NULL;
  size_t cap = 0;

  if (depth > CONF_MAX_DEPTH || (f = fopen (file, "r")) == NULL)
    return;
  while (getline (&line, &cap, f) >= 0)
    {
      char *p = line, *end;

      if ((end = strchr (p, '#')) != NULL)
	*end = '\0';
      p += strspn (p, " \t\r\n");
      end = p + strlen (p);
      while (end > p && strchr (" \t\r\n", end[-1]) != NULL)
	*--end = '\0';
      if (*p == '\0' || strncmp (p, "hwcap", 5) == 0)
	continue;
      if (strncmp (p, "include", 7) == 0 && (p[7] == ' ' || p[7] == '\t'))
	{
	  char *pattern, *slash;
	  glob_t g;
	  size_t i;

	  p += 8 + strspn (p + 8, " \t");
	  if (p[0] == '/')
	    pattern = concat3 (st->sysroot, "", p);
	  else
	    {
	      /* A relative pattern is relative to this file's directory.  */
	      char *dir = strdup (file);
	      if (dir == NULL)
		continue;
	      slash = strrchr (dir, '/');
	      if (slash != NULL)
		*slash = '\0';
	      pattern = concat3 (slash != NULL ? dir : ".", "/", p);
	      free (dir);
	    }
	  if (pattern == NULL)
	    continue;
	  if (glob (pattern, 0, NULL, &g) == 0)
	    {
	      for (i = 0; i < g.gl_pathc; i++)
		read_conf (st, g.gl_pathv[i], depth + 1);
	      globfree (&g);
	    }
	  free (pattern);
	  continue;
	}
      dir_list_add (&st->conf, concat3 (st->sysroot, p[0] == '/' ? "" : "/",
					p));
    }
  free (line);
  fclose (f);
}

/* The search path of musl's loader ST->interp_base, as its path file
   in the sysroot gives it, colon-separated; NULL when out of memory or
   when the file is longer than 64 KiB.  */

static char *
musl_search_path (const struct search_state *st)
{
  const char *base = st->interp_base + strlen ("ld-musl-");
  const char *dot = strstr (base, ".so");
  size_t arch_len = dot != NULL ? (size_t) (dot - base) : strlen (base);
  char *file = NULL, *path;
  FILE *f;

  if (asprintf (&file, "%s/etc/ld-musl-%.*s.path", st->sysroot,
		(int) arch_len, base) < 0)
    return NULL;
  f = fopen (file, "r");
  free (file);
  if (f == NULL)
    return strdup ("/lib:/usr/local/lib:/usr/lib");
  /* At most 64 KiB of it.  */
  path = malloc (65536 + 2);
  if (path != NULL)
    {
      size_t len = fread (path, 1, 65536 + 1, f);
      if (len > 65536)
	{
	  free (path);
	  path = NULL;
	}
      else
	{
	  path[len] = '\0';
	  for (char *p = strchr (path, '\n'); p != NULL; p = strchr (p, '\n'))
	    *p = ':';
	}
    }
  fclose (f);
  return path;
}

/* Find NAME, needed by loaded object REQ, as musl's loader would.  */

static char *
find_library_musl (struct search_state *st, size_t req, const char *name)
{
  char *found = NULL;
  size_t i;

  for (i = 0; found == NULL && i < st->search->n_library_path; i++)
    found = try_dir (st, st->search->library_path[i], name);
  for (i = req; found == NULL && i != NO_LOADER; i = st->loaded[i].loader)
    {
      const struct loaded *l = &st->loaded[i];
      const char *list = l->runpath != NULL ? l->runpath : l->rpath;
      if (list != NULL)
	found = search_path_list (st, list, l->origin, name);
    }
  if (found == NULL && st->musl_path == NULL)
    st->musl_path = musl_search_path (st);
  if (found == NULL && st->musl_path != NULL)
    found = search_path_list (st, st->musl_path, "", name);
  return found;
}

/* Find NAME, needed by loaded object REQ; malloc'd host path or NULL.  */

static char *
find_library (struct search_state *st, size_t req, const char *name)
{
  const struct loaded *r = &st->loaded[req];
  const char *triplet = st->search->big_endian ? "mips-linux-gnu"
						: "mipsel-linux-gnu";
  char *found = NULL;
  size_t i;

  if (strchr (name, '/') != NULL)
    {
      char *path = concat3 (st->sysroot, name[0] == '/' ? "" : "/", name);
      if (path != NULL)
	found = try_dir (st, "", path);
      free (path);
      return found;
    }
  if (st->musl)
    return find_library_musl (st, req, name);

  if (r->runpath == NULL)
    for (i = req; found == NULL && i != NO_LOADER; i = st->loaded[i].loader)
      if (st->loaded[i].rpath != NULL && st->loaded[i].runpath == NULL)
	found = search_path_list (st, st->loaded[i].rpath,
				  st->loaded[i].origin, name);
  for (i = 0; found == NULL && i < st->search->n_library_path; i++)
    found = try_dir (st, st->search->library_path[i], name);
  if (found == NULL && r->runpath != NULL)
    found = search_path_list (st, r->runpath, r->origin, name);
  if (found != NULL || r->nodeflib)
    return found;

  if (!st->conf_read)
    {
      char *conf = concat3 (st->sysroot, "", "/etc/ld.so.conf");
      if (conf != NULL)
	read_conf (st, conf, 0);
      free (conf);
      st->conf_read = true;
    }
  for (i = 0; found == NULL && i < st->conf.n; i++)
    found = try_dir (st, st->conf.dirs[i], name);
  if (found == NULL)
    {
      const char *defaults[] = { "/lib/", "/usr/lib/", "/lib", "/usr/lib" };
      for (i = 0; found == NULL && i < 4; i++)
	{
	  char *dir = concat3 (st->sysroot, defaults[i],
			       i < 2 ? triplet : "");
	  if (dir != NULL)
	    found = try_dir (st, dir, name);
	  free (dir);
	}
    }
  return found;
}

/* Free what L owns.  */

static void
loaded_free (struct loaded *l)
{
  size_t i;

  free (l->path);
  free (l->origin);
  free (l->soname);
  free (l->rpath);
  free (l->runpath);
  for (i = 0; i < l->n_needed; i++)
    free (l->needed[i]);
  free (l->needed);
}

/* Record OBJ, found at PATH and loaded by LOADER, in ST->loaded.  */

static bool
add_loaded (struct search_state *st, const struct mips_object *obj,
	    const char *path, size_t loader)
{
  struct loaded *grown, *l;
  struct stat sb;
  const char *slash;
  size_t i;

  grown = realloc (st->loaded, (st->n_loaded + 1) * sizeof *st->loaded);
  if (grown == NULL)
    return false;
  st->loaded = grown;
  l = &st->loaded[st->n_loaded++];
  memset (l, 0, sizeof *l);
  l->loader = loader;
  l->path = strdup (path);
  slash = strrchr (path, '/');
  l->origin = slash == NULL ? strdup (".")
	      : slash == path ? strdup ("/") : strndup (path, slash - path);
  l->soname = xstrdup_or_null (obj->dyn.soname);
  l->rpath = xstrdup_or_null (obj->dyn.rpath);
  l->runpath = xstrdup_or_null (obj->dyn.runpath);
  l->nodeflib = (obj->dyn.flags_1 & DF_1_NODEFLIB) != 0;
  if (stat (path, &sb) == 0)
    {
      l->dev = sb.st_dev;
      l->ino = sb.st_ino;
    }
  if (obj->dyn.n_needed != 0)
    {
      l->needed = calloc (obj->dyn.n_needed, sizeof *l->needed);
      if (l->needed == NULL)
	return false;
      for (i = 0; i < obj->dyn.n_needed; i++)
	if ((l->needed[l->n_needed++] = strdup (obj->dyn.needed[i])) == NULL)
	  return false;
    }
  return l->path != NULL && l->origin != NULL;
}

/* True if NAME is the dynamic linker, which profcopy leaves alone
   (with musl's, one of the names it takes for itself).  */

static bool
is_dynamic_linker (const struct search_state *st, const char *name)
{
  static const char *const musl_self[] = {
    "c.", "pthread.", "rt.", "m.", "dl.", "util.", "xnet."
  };
  const char *base = strrchr (name, '/');

  base = base != NULL ? base + 1 : name;
  if (st->musl && strncmp (base, "lib", 3) == 0)
    for (size_t i = 0; i < sizeof musl_self / sizeof musl_self[0]; i++)
      if (strncmp (base + 3, musl_self[i], strlen (musl_self[i])) == 0)
	return true;
  return strncmp (base, "ld.so", 5) == 0 || strncmp (base, "ld-linux", 8) == 0
	 || (st->interp_base != NULL && strcmp (base, st->interp_base) == 0);
}

/* True if NAME was already asked for, or is the soname of an object
   already loaded.  */

static bool
already_have (const struct search_state *st, const char *name)
{
  size_t i;

  for (i = 0; i < st->out->n_libs; i++)
    if (strcmp (st->out->libs[i].soname, name) == 0)
      return true;
  for (i = 0; i < st->n_loaded; i++)
    if (st->loaded[i].soname != NULL
	&& strcmp (st->loaded[i].soname, name) == 0)
      return true;
  return false;
}

/* True if the file at PATH is one already loaded under another name.  */

static bool
same_file_loaded (const struct search_state *st, const char *path)
{
  struct stat sb;
  size_t i;

  if (stat (path, &sb) != 0)
    return false;
  for (i = 0; i < st->n_loaded; i++)
    if (st->loaded[i].dev == sb.st_dev && st->loaded[i].ino == sb.st_ino)
      return true;
  return false;
}

/* Append NAME (found at PATH, or not found) to the closure.  */

static bool
add_result (struct search_state *st, const char *name, char *path,
	    size_t requester)
{
  struct needed_lib *grown, *lib;

  grown = realloc (st->out->libs, (st->out->n_libs + 1) * sizeof *grown);
  if (grown == NULL)
    {
      free (path);
      return false;
    }
  st->out->libs = grown;
  lib = &st->out->libs[st->out->n_libs++];
  lib->soname = strdup (name);
  lib->path = path;
  lib->requested_by = strdup (st->loaded[requester].path);
  if (path == NULL)
    st->out->n_missing++;
  return lib->soname != NULL && lib->requested_by != NULL;
}

/* Find musl's dynamic linker INTERP (the PT_INTERP of the program at
   EXE_PATH), which is also its C library and is profiled with the
   program, inside the sysroot of ST: ST->out->loader.  False when out
   of memory.  */

static bool
find_musl_loader (struct search_state *st, const char *interp,
		  const char *exe_path)
{
  struct needed_lib *l = &st->out->loader;
  const char *base = strrchr (interp, '/');
  char *path = concat3 (st->sysroot, interp[0] == '/' ? "" : "/", interp);

  st->out->has_loader = true;
  l->soname = strdup (base != NULL ? base + 1 : interp);
  l->requested_by = strdup (exe_path);
  l->path = path != NULL ? resolve_in_sysroot (st, path) : NULL;
  free (path);
  if (l->soname == NULL || l->requested_by == NULL || l->path == NULL)
    return false;
  if (!compatible_object (st, l->path))
    {
      free (l->path);
      l->path = NULL;
      st->out->n_missing++;
    }
  return true;
}

/* Compute the closure of EXE_PATH's needs in SEARCH into *OUT; see
   libsearch.h.  */

bool
lib_search_closure (const struct lib_search *search, const char *exe_path,
		    struct needed_closure *out, char **errmsg)
{
  struct search_state st;
  struct mips_object exe;
  char *interp_copy = NULL;
  size_t idx, k, len;
  bool ok = true, loader_placed = false;

  memset (out, 0, sizeof *out);
  memset (&st, 0, sizeof st);
  if (errmsg != NULL)
    *errmsg = NULL;
  if (!object_open_1 (exe_path, &exe, OBJECT_OPEN_DYNAMIC, errmsg))
    return false;
  if (exe.big_endian != search->big_endian)
    {
      object_close (&exe);
      return object_error (errmsg, "the executable is %s-endian but the "
			   "library search is for %s-endian objects",
			   search->big_endian ? "little" : "big",
			   search->big_endian ? "big" : "little");
    }

  st.search = search;
  st.out = out;
  st.sysroot = strdup (search->sysroot != NULL ? search->sysroot : "");
  if (st.sysroot != NULL)
    for (len = strlen (st.sysroot); len > 0 && st.sysroot[len - 1] == '/';)
      st.sysroot[--len] = '\0';
  if (exe.interp != NULL)
    {
      const char *slash = strrchr (exe.interp, '/');
      interp_copy = strdup (slash != NULL ? slash + 1 : exe.interp);
      st.interp_base = interp_copy;
      st.musl = interp_copy != NULL
		&& strncmp (interp_copy, "ld-musl-", 8) == 0;
    }
  ok = st.sysroot != NULL && add_loaded (&st, &exe, exe_path, NO_LOADER);
  if (ok && st.musl)
    ok = find_musl_loader (&st, exe.interp, exe_path);
  object_close (&exe);

  /* ST.loaded grows while we walk it: that is the breadth-first queue.  */
  for (idx = 0; ok && idx < st.n_loaded; idx++)
    for (k = 0; ok && k < st.loaded[idx].n_needed; k++)
      {
	const char *name = st.loaded[idx].needed[k];
	char *path;
	struct mips_object lib;
	char *lib_err = NULL;

	if (is_dynamic_linker (&st, name))
	  {
	    if (!loader_placed)
	      out->loader_at = out->n_libs;
	    loader_placed = true;
	    continue;
	  }
	if (already_have (&st, name))
	  continue;
	path = find_library (&st, idx, name);
	if (path != NULL && same_file_loaded (&st, path))
	  {
	    free (path);
	    continue;
	  }
	if (path != NULL
	    && object_open_1 (path, &lib, OBJECT_OPEN_DYNAMIC, &lib_err))
	  {
	    ok = add_loaded (&st, &lib, path, idx);
	    object_close (&lib);
	  }
	/* An object found but unreadable is still reported with its
	   path: opening it for rewriting will say what is wrong.  */
	free (lib_err);
	if (ok)
	  ok = add_result (&st, name, path, idx);
	else
	  free (path);
      }

  if (!loader_placed)
    out->loader_at = out->n_libs;

  for (idx = 0; idx < st.n_loaded; idx++)
    loaded_free (&st.loaded[idx]);
  free (st.loaded);
  dir_list_free (&st.conf);
  free (st.sysroot);
  free (st.musl_path);
  free (interp_copy);
  if (!ok)
    {
      needed_closure_free (out);
      return object_error (errmsg, "out of memory");
    }
  return true;
}

/* Free what CLOSURE owns.  */

void
needed_closure_free (struct needed_closure *closure)
{
  size_t i;

  for (i = 0; i < closure->n_libs; i++)
    {
      free (closure->libs[i].soname);
      free (closure->libs[i].path);
      free (closure->libs[i].requested_by);
    }
  free (closure->libs);
  free (closure->loader.soname);
  free (closure->loader.path);
  free (closure->loader.requested_by);
  memset (closure, 0, sizeof *closure);
}
