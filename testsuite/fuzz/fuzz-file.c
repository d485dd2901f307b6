/* fuzz-file.c -- the harness's input file and output directory.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The directory is made under $TMPDIR (else /tmp) at the first call,
   one per process, and removed with what is in it when the process
   exits normally; a target that crashes leaves it behind for a look.  */

#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

static char *fuzz_dir;

/* Remove the harness's directory and the files in it.  */

static void
remove_dir (void)
{
  DIR *d = opendir (fuzz_dir);
  struct dirent *e;

  if (d != NULL)
    {
      while ((e = readdir (d)) != NULL)
	if (strcmp (e->d_name, ".") != 0 && strcmp (e->d_name, "..") != 0)
	  unlinkat (dirfd (d), e->d_name, 0);
      closedir (d);
    }
  rmdir (fuzz_dir);
}

/* The harness's directory, made at the first call.  */

static const char *
dir (void)
{
  const char *tmp = getenv ("TMPDIR");

  if (fuzz_dir != NULL)
    return fuzz_dir;
  if (tmp == NULL || tmp[0] == '\0')
    tmp = "/tmp";
  if (asprintf (&fuzz_dir, "%s/profcopy-fuzz.XXXXXX", tmp) < 0
      || mkdtemp (fuzz_dir) == NULL)
    {
      fprintf (stderr, "fuzz: cannot make a directory in %s: %s\n", tmp,
	       strerror (errno));
      exit (2);
    }
  atexit (remove_dir);
  return fuzz_dir;
}

const char *
fuzz_output_file (const char *name)
{
  /* A few names, each made once.  */
  static struct { const char *name; char *path; } known[8];
  size_t i;

  for (i = 0; i < sizeof known / sizeof known[0] && known[i].name; i++)
    if (strcmp (known[i].name, name) == 0)
      return known[i].path;
  if (i == sizeof known / sizeof known[0]
      || asprintf (&known[i].path, "%s/%s", dir (), name) < 0)
    {
      fprintf (stderr, "fuzz: too many output files\n");
      exit (2);
    }
  known[i].name = name;
  return known[i].path;
}

const char *
fuzz_input_file (const uint8_t *data, size_t size)
{
  const char *path = fuzz_output_file ("input");
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  size_t done = 0;

  while (fd >= 0 && done < size)
    {
      ssize_t n = write (fd, data + done, size - done);
      if (n < 0 && errno == EINTR)
	continue;
      if (n <= 0)
	break;
      done += (size_t) n;
    }
  if (fd < 0 || done < size || close (fd) != 0)
    {
      fprintf (stderr, "fuzz: %s: cannot write: %s\n", path,
	       strerror (errno));
      exit (2);
    }
  return path;
}
