/* file-image.h -- the whole of a file in memory, mapped where it can be.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_FILE_IMAGE_H
#define PROFCOPY_FILE_IMAGE_H

#include <stdbool.h>
#include <stddef.h>

/* The bytes of a regular file.  */
struct file_image
{
  unsigned char *data;		/* SIZE bytes (at least one allocated).  */
  size_t size;
  bool mapped;			/* DATA is a mapping, not malloc'd.  */
};

/* Why file_image_read failed, besides an errno value.  */
#define FILE_IMAGE_NOT_REGULAR	(-1)	/* Neither a file nor a directory.  */
#define FILE_IMAGE_SHRANK	(-2)	/* Shorter than fstat said.  */

/* Read PATH, a regular file, into *IMAGE: a private, writable mapping
   (a store into it reaches neither the file nor another process), or,
   when the file cannot be mapped, a malloc'd copy.  Return 0, or an
   errno value (EISDIR for a directory), or one of the FILE_IMAGE_
   codes; *IMAGE is then empty.  */
int file_image_read (const char *path, struct file_image *image);

/* What the return value ERR of file_image_read means.  */
const char *file_image_error (int err);

/* Give back the bytes of IMAGE and empty it; it can be freed again.  */
void file_image_free (struct file_image *image);

#endif /* PROFCOPY_FILE_IMAGE_H */
