/* file-image.c -- the whole of a file in memory, mapped where it can be.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   Both programs read their inputs whole: the objects, and the profiles
   profreport merges.  A mapping spares the copy that read makes into
   memory which the kernel must first clear; for profreport on a
   whole-program profile of lua5.4 those two were a third of its
   time.  */

#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file-image.h"

/* Under AddressSanitizer the bytes are read into a buffer of their
   exact size: a mapping's last page would hide a read past the end of
   the file from it (the fuzzing harness, testsuite/fuzz/).  */
#if defined __SANITIZE_ADDRESS__
# define FILE_IMAGE_MAP 0
#elif defined __has_feature
# if __has_feature (address_sanitizer)
#  define FILE_IMAGE_MAP 0
# endif
#endif
#ifndef FILE_IMAGE_MAP
# define FILE_IMAGE_MAP 1
#endif

/* Read the SIZE bytes of FD into a malloc'd IMAGE->data.  */

static int
read_copy (int fd, size_t size, struct file_image *image)
{
  size_t got = 0;

  image->data = malloc (size ? size : 1);
  if (image->data == NULL)
    return ENOMEM;
  while (got < size)
    {
      ssize_t n = read (fd, image->data + got, size - got);

      if (n < 0 && errno == EINTR)
	continue;
      if (n <= 0)
	{
	  int err = n < 0 ? errno : FILE_IMAGE_SHRANK;

	  free (image->data);
	  image->data = NULL;
	  return err;
	}
      got += (size_t) n;
    }
  image->size = size;
  return 0;
}

int
file_image_read (const char *path, struct file_image *image)
{
  struct stat st;
  int fd, err = 0;

  memset (image, 0, sizeof *image);
  /* Not blocking: a FIFO is refused below, not waited on.  */
  fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return errno;
  if (fstat (fd, &st) != 0)
    err = errno;
  else if (S_ISDIR (st.st_mode))
    err = EISDIR;
  else if (!S_ISREG (st.st_mode))
    err = FILE_IMAGE_NOT_REGULAR;
  else
    {
      size_t size = (size_t) st.st_size;
      void *map = size == 0 || !FILE_IMAGE_MAP ? MAP_FAILED
		  : mmap (NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE,
			  fd, 0);

      if (map != MAP_FAILED)
	{
	  image->data = map;
	  image->size = size;
	  image->mapped = true;
	}
      else
	err = read_copy (fd, size, image);
    }
  close (fd);
  return err;
}

const char *
file_image_error (int err)
{
  switch (err)
    {
    case FILE_IMAGE_NOT_REGULAR:
      return "not a regular file";
    case FILE_IMAGE_SHRANK:
      return "file shrank while being read";
    case EISDIR:
      return "is a directory";
    default:
      return strerror (err);
    }
}

void
file_image_free (struct file_image *image)
{
  if (image->mapped)
    munmap (image->data, image->size);
  else
    free (image->data);
  memset (image, 0, sizeof *image);
}
