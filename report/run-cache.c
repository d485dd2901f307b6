/* run-cache.c -- profrun's cache of profiled copies.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   An entry is CACHE/NAME-KEY, KEY a 64-bit FNV-1a hash of profcopy's
   version and file, the sysroot, and the contents of the runtime, the
   program and every object `profcopy --list-needed' names.  It is
   written as CACHE/NAME-KEY.tmp.PID and renamed into place, so that an
   entry that is there is whole, and two profruns of one program at
   once both end with the same copies.  */

#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profrun.h"

/* The cache key: a 64-bit FNV-1a hash.  */

static uint64_t
hash_bytes (uint64_t h, const void *data, size_t n)
{
  const unsigned char *p = data;

  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}

static uint64_t
hash_string (uint64_t h, const char *s)
{
  return hash_bytes (h, s, strlen (s) + 1);
}

/* Add the path and contents of file PATH to H; false when it cannot be
   read.  */

static bool
hash_file (uint64_t *h, const char *path)
{
  unsigned char buf[65536];
  FILE *f = fopen (path, "rb");
  size_t n;

  if (f == NULL)
    {
      error_message ("%s: %s", path, strerror (errno));
      return false;
    }
  *h = hash_string (*h, path);
  while ((n = fread (buf, 1, sizeof buf, f)) > 0)
    *h = hash_bytes (*h, buf, n);
  if (ferror (f))
    {
      error_message ("%s: read error", path);
      fclose (f);
      return false;
    }
  fclose (f);
  return true;
}

/* The key of S's copies: profcopy's version and options, the sysroot,
   and the contents of the runtime, the program and every object that
   `profcopy --list-needed' names.  */

static bool
cache_key (const struct run_setup *s, uint64_t *key)
{
  char *argv[] = { s->profcopy, (char *) "--list-needed", NULL, NULL, NULL };
  char *sysroot_opt = concat ("--sysroot=", s->sysroot, NULL);
  char tmpl[] = "/tmp/profrun-needed.XXXXXX";
  int fd = mkstemp (tmpl);
  uint64_t h = 14695981039346656037ULL;
  char *line = NULL;
  size_t cap = 0;
  bool ok = false;
  FILE *f = NULL;

  argv[2] = sysroot_opt;
  argv[3] = s->program;
  if (fd < 0)
    {
      error_message ("cannot make a temporary file: %s", strerror (errno));
      free (sysroot_opt);
      return false;
    }
  unlink (tmpl);
  if (run (argv, false, fd, NULL) != 0)
    {
      error_message ("%s: profcopy cannot find the libraries it needs "
		     "(see above); try --sysroot=DIR", s->program);
      goto done;
    }
  h = hash_string (h, PACKAGE_VERSION);
  h = hash_string (h, s->sysroot);
  if (!hash_file (&h, s->runtime) || !hash_file (&h, s->program)
      || !hash_file (&h, s->profcopy))
    goto done;
  f = fdopen (fd, "r");
  if (f == NULL)
    goto done;
  fd = -1;
  rewind (f);
  while (getline (&line, &cap, f) > 0)
    {
      char *arrow = strstr (line, " => ");
      char *end;
      if (arrow == NULL)
	continue;
      end = arrow + 4 + strcspn (arrow + 4, "\n");
      *end = '\0';
      if (!hash_file (&h, arrow + 4))
	goto done;
    }
  *key = h;
  ok = true;

 done:
  free (line);
  if (f != NULL)
    fclose (f);
  if (fd >= 0)
    close (fd);
  free (sysroot_opt);
  return ok;
}

bool
make_dirs (const char *path)
{
  char *p = concat (path, NULL);

  for (char *q = p + 1; *q != '\0'; q++)
    if (*q == '/')
      {
	*q = '\0';
	if (mkdir (p, 0777) != 0 && errno != EEXIST)
	  break;
	*q = '/';
      }
  if (mkdir (p, 0777) != 0 && errno != EEXIST)
    {
      error_message ("%s: cannot make the directory: %s", p, strerror (errno));
      free (p);
      return false;
    }
  free (p);
  return true;
}

/* The cache directory of O.  */

static char *
cache_dir (const struct run_options *o)
{
  const char *env = getenv ("PROFCOPY_CACHE");
  const char *xdg = getenv ("XDG_CACHE_HOME");
  const char *home = getenv ("HOME");

  if (o->cache != NULL)
    return concat (o->cache, NULL);
  if (env != NULL && env[0] != '\0')
    return concat (env, NULL);
  if (xdg != NULL && xdg[0] == '/')
    return concat (xdg, "/profcopy", NULL);
  if (home != NULL && home[0] != '\0')
    return concat (home, "/.cache/profcopy", NULL);
  return concat ("/tmp/profcopy-cache-", NULL);
}

/* Remove directory PATH and the files in it (the copies of a rewrite
   that failed or lost a race).  */

static void
remove_dir (const char *path)
{
  DIR *d = opendir (path);
  struct dirent *e;

  if (d == NULL)
    return;
  while ((e = readdir (d)) != NULL)
    if (strcmp (e->d_name, ".") != 0 && strcmp (e->d_name, "..") != 0)
      {
	char *f = concat (path, "/", e->d_name, NULL);
	unlink (f);
	free (f);
      }
  closedir (d);
  rmdir (path);
}

bool
run_cache_copies (struct run_setup *s, const struct run_options *o)
{
  char key_hex[17], pid[24];
  char *dir = cache_dir (o), *tmp, *copy, *cwd;
  bool cached;
  uint64_t key;
  char *argv[12];
  size_t n = 0;
  int status;

  if (!cache_key (s, &key))
    {
      free (dir);
      return false;
    }
  snprintf (key_hex, sizeof key_hex, "%016" PRIx64, key);
  s->cache_entry = concat (dir, "/", s->name, "-", key_hex, NULL);
  copy = concat (s->cache_entry, "/", s->name, NULL);
  cached = is_file (copy);
  free (copy);
  if (cached)
    {
      if (o->verbose)
	fprintf (stderr, "%s: the copies of %s are in %s already\n",
		 program_name, s->program, s->cache_entry);
      free (dir);
      return true;
    }
  if (!make_dirs (dir))
    {
      free (dir);
      return false;
    }
  free (dir);
  snprintf (pid, sizeof pid, "%ld", (long) getpid ());
  tmp = concat (s->cache_entry, ".tmp.", pid, NULL);
  remove_dir (tmp);
  argv[n++] = s->profcopy;
  argv[n++] = (char *) "--whole-program";
  argv[n++] = concat ("--sysroot=", s->sysroot, NULL);
  argv[n++] = concat ("--runtime=", s->runtime, NULL);
  if (o->jobs != NULL)
    argv[n++] = concat ("--jobs=", o->jobs, NULL);
  /* The copies of a program linked with musl name the directory they
     run from by its absolute path: the entry's, not TMP's.  */
  cwd = s->cache_entry[0] == '/' ? NULL : getcwd (NULL, 0);
  argv[n++] = concat ("--run-dir=", cwd != NULL ? cwd : "",
		      cwd != NULL ? "/" : "", s->cache_entry, NULL);
  free (cwd);
  argv[n++] = (char *) "-o";
  argv[n++] = tmp;
  argv[n++] = s->program;
  argv[n] = NULL;
  if (o->verbose)
    fprintf (stderr, "%s: rewriting %s and its libraries into %s\n",
	     program_name, s->program, s->cache_entry);
  status = run (argv, !o->verbose, -1, NULL);
  if (status != 0)
    {
      error_message ("%s: profcopy failed (see above)", s->program);
      remove_dir (tmp);
      free (tmp);
      return false;
    }
  /* Another profrun may have made the same entry meanwhile: its copies
     are the same.  */
  if (rename (tmp, s->cache_entry) != 0)
    {
      if (!is_dir (s->cache_entry))
	{
	  error_message ("%s: cannot rename it to %s: %s", tmp,
			 s->cache_entry, strerror (errno));
	  remove_dir (tmp);
	  free (tmp);
	  return false;
	}
      remove_dir (tmp);
    }
  free (tmp);
  return true;
}
