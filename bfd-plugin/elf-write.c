/* elf-write.c -- write a rewritten object with its new segment.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   Like objcopy's smart_rename: the output goes to a temporary file in
   the output's directory, which is renamed over the output only when it
   has been written completely; on any failure the temporary file is
   removed and no partial output exists.  */

#include <config.h>

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf-write.h"

static uint32_t
get32 (const unsigned char *p, bool big_endian)
{
  return big_endian
	 ? ((uint32_t) p[0] << 24) | ((uint32_t) p[1] << 16)
	   | ((uint32_t) p[2] << 8) | p[3]
	 : ((uint32_t) p[3] << 24) | ((uint32_t) p[2] << 16)
	   | ((uint32_t) p[1] << 8) | p[0];
}

static uint16_t
get16 (const unsigned char *p, bool big_endian)
{
  return big_endian ? (uint16_t) ((p[0] << 8) | p[1])
		    : (uint16_t) ((p[1] << 8) | p[0]);
}

static void
put32 (unsigned char *p, uint32_t v, bool big_endian)
{
  for (int i = 0; i < 4; i++)
    p[big_endian ? i : 3 - i] = (unsigned char) (v >> (24 - 8 * i));
}

static void
put16 (unsigned char *p, uint16_t v, bool big_endian)
{
  p[big_endian ? 0 : 1] = (unsigned char) (v >> 8);
  p[big_endian ? 1 : 0] = (unsigned char) v;
}

/* The file offset of byte OFF of SEG.  */

static uint32_t
segment_offset (const struct new_segment *seg, uint32_t off)
{
  if (off < seg->rw_start)
    return seg->offset + off;
  return seg->offset + seg->rw_file + (off - seg->rw_start);
}

/* Build the file tail that adds SEG's sections: a copy of the section
   name table with their names appended, then a copy of the section
   header table with them added, placed at file offset AT (4-aligned).
   Update IMAGE's ELF header to use them.  Return the tail (malloc'd, its
   size in *LEN), or NULL when IMAGE has no usable section table.  */

static unsigned char *
section_tail (unsigned char *image, size_t size, bool be,
	      const struct new_segment *seg, uint32_t at, size_t *len)
{
  uint32_t shoff = get32 (image + 32, be);
  uint16_t shentsize = get16 (image + 46, be);
  uint16_t shnum = get16 (image + 48, be);
  uint16_t shstrndx = get16 (image + 50, be);
  const unsigned char *strsh;
  uint32_t stroff, strsize, names, tab;
  size_t n_names = 0, total;
  unsigned char *tail;

  if (shentsize != sizeof (Elf32_Shdr) || shnum == 0 || shstrndx >= shnum
      || shoff > size || (size_t) shnum * shentsize > size - shoff)
    return NULL;
  strsh = image + shoff + shstrndx * shentsize;
  stroff = get32 (strsh + 16, be);
  strsize = get32 (strsh + 20, be);
  if (stroff > size || strsize > size - stroff)
    return NULL;
  for (size_t i = 0; i < seg->n_sections; i++)
    n_names += strlen (seg->sections[i].name) + 1;
  names = strsize + (uint32_t) n_names;
  tab = (names + 3) & ~3u;
  total = tab + (size_t) (shnum + seg->n_sections) * shentsize;
  tail = calloc (1, total);
  if (tail == NULL)
    return NULL;

  memcpy (tail, image + stroff, strsize);
  memcpy (tail + tab, image + shoff, (size_t) shnum * shentsize);
  /* The name table's own header now describes the copy.  */
  put32 (tail + tab + shstrndx * shentsize + 16, at, be);
  put32 (tail + tab + shstrndx * shentsize + 20, names, be);
  {
    uint32_t name = strsize;
    for (size_t i = 0; i < seg->n_sections; i++)
      {
	const struct new_section *ns = &seg->sections[i];
	unsigned char *sh = tail + tab + (shnum + i) * shentsize;
	strcpy ((char *) tail + name, ns->name);
	put32 (sh + 0, name, be);
	put32 (sh + 4, ns->type, be);
	put32 (sh + 8, ns->flags, be);
	put32 (sh + 12, ns->addr, be);
	put32 (sh + 16, segment_offset (seg, ns->type == SHT_NOBITS
				       ? seg->filesz : ns->addr - seg->vaddr),
	       be);
	put32 (sh + 20, ns->size, be);
	put32 (sh + 32, ns->align, be);
	put32 (sh + 36, ns->entsize, be);
	name += (uint32_t) strlen (ns->name) + 1;
      }
  }
  put32 (image + 32, at + tab, be);
  put16 (image + 48, (uint16_t) (shnum + seg->n_sections), be);
  *len = total;
  return tail;
}

/* Write LEN bytes of BUF to FD.  */

static bool
write_all (int fd, const unsigned char *buf, size_t len)
{
  while (len > 0)
    {
      ssize_t n = write (fd, buf, len);
      if (n < 0)
	{
	  if (errno == EINTR)
	    continue;
	  return false;
	}
      buf += n;
      len -= (size_t) n;
    }
  return true;
}

/* Write LEN zero bytes to FD.  The file is new and written in order:
   a hole (lseek past its end) reads as zeros and costs neither disk nor
   time, which matters for an image whose memory extends far beyond its
   file (a large .bss puts the new segments as far into the file).
   Zeros are written where FD cannot seek.  */

static bool
write_zeros (int fd, size_t len)
{
  static const unsigned char zeros[4096];

  if (len == 0)
    return true;
  if (len <= (size_t) INT32_MAX
      && lseek (fd, (off_t) len, SEEK_CUR) != (off_t) -1)
    return true;
  for (size_t pad = len; pad > 0;)
    {
      size_t n = pad < sizeof zeros ? pad : sizeof zeros;
      if (!write_all (fd, zeros, n))
	return false;
      pad -= n;
    }
  return true;
}

/* Write to FD the file IMAGE of SIZE bytes, then zeros up to SEG's
   offset, SEG's bytes and the TAIL of TAIL_LEN bytes (when not NULL).  */

static bool
write_image (int fd, const unsigned char *image, size_t size,
	     const struct new_segment *seg, const unsigned char *tail,
	     size_t tail_len)
{
  uint32_t at = segment_offset (seg, seg->filesz);

  if (!(write_all (fd, image, size)
	&& write_zeros (fd, seg->offset - size)
	&& write_all (fd, seg->bytes, seg->rx_size)
	&& write_zeros (fd, seg->rw_file - seg->rx_size)
	&& write_all (fd, seg->bytes + seg->rw_start,
		      seg->filesz - seg->rw_start)))
    return false;
  for (size_t i = 0; i < seg->n_extra; i++)
    {
      if (!write_zeros (fd, seg->extra[i].offset - at)
	  || !write_all (fd, seg->extra[i].bytes, seg->extra[i].filesz))
	return false;
      at = seg->extra[i].offset + seg->extra[i].filesz;
    }
  return tail == NULL || write_all (fd, tail, tail_len);
}

/* Write the PT_LOAD entry for X at PH.  */

static void
put_load (unsigned char *ph, const struct extra_load *x, bool big_endian)
{
  put32 (ph + 0, PT_LOAD, big_endian);
  put32 (ph + 4, x->offset, big_endian);
  put32 (ph + 8, x->vaddr, big_endian);
  put32 (ph + 12, x->vaddr, big_endian);
  put32 (ph + 16, x->filesz, big_endian);
  put32 (ph + 20, x->memsz, big_endian);
  put32 (ph + 24, x->flags, big_endian);
  put32 (ph + 28, 0x10000, big_endian);
}

/* The file offset where SEG's last bytes end (extra loads included).  */

static uint32_t
segments_end (const struct new_segment *seg)
{
  uint32_t at = segment_offset (seg, seg->filesz);

  for (size_t i = 0; i < seg->n_extra; i++)
    at = seg->extra[i].offset + seg->extra[i].filesz;
  return at;
}

/* The temporary files this process is writing, removed by
   cleanup_handler when a signal ends it.  */
#define MAX_TEMPS 4
static char *volatile temps[MAX_TEMPS];

static void
temp_register (char *path)
{
  for (int i = 0; i < MAX_TEMPS; i++)
    if (temps[i] == NULL)
      {
	temps[i] = path;
	return;
      }
}

static void
temp_forget (const char *path)
{
  for (int i = 0; i < MAX_TEMPS; i++)
    if (temps[i] == path)
      temps[i] = NULL;
}

/* SIGINT, SIGTERM, SIGHUP: remove the temporary files, then die of
   the signal.  */

static void
cleanup_handler (int signo)
{
  for (int i = 0; i < MAX_TEMPS; i++)
    if (temps[i] != NULL)
      unlink (temps[i]);
  signal (signo, SIG_DFL);
  raise (signo);
}

void
elf_write_cleanup_on_signals (void)
{
  static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
  struct sigaction sa, old;

  memset (&sa, 0, sizeof sa);
  sa.sa_handler = cleanup_handler;
  sigemptyset (&sa.sa_mask);
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
    if (sigaction (sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
      sigaction (sigs[i], &sa, NULL);
}

/* Set *ERRMSG to "cannot write PATH: " and the reason ERR.  */

static bool
write_error (char **errmsg, const char *what, const char *path, int err)
{
  if (asprintf (errmsg, "%s %s: %s", what, path, strerror (err)) < 0)
    *errmsg = NULL;
  return false;
}

/* Write the file OUT_PATH with MODE through WRITER (called with the
   file descriptor and ARG): into a temporary file of its directory
   renamed into place when all went well, or, when OUT_PATH is a
   device or a FIFO, into it as it is (a rename would replace the node,
   the device itself when root runs us; a FIFO without a reader is an
   error, not a wait).  */

static bool
write_output (const char *out_path, mode_t mode,
	      bool (*writer) (int fd, void *arg), void *arg, char **errmsg)
{
  char *tmp = NULL;
  const char *slash;
  int fd, err;
  struct stat st;

  if (stat (out_path, &st) == 0 && S_ISDIR (st.st_mode))
    return write_error (errmsg, "cannot write", out_path, EISDIR);
  if (stat (out_path, &st) == 0 && !S_ISREG (st.st_mode))
    {
      fd = open (out_path, O_WRONLY | O_NONBLOCK | O_NOCTTY);
      if (fd < 0 && errno == ENXIO)
	{
	  if (asprintf (errmsg, "cannot write %s: no process reads the FIFO",
			out_path) < 0)
	    *errmsg = NULL;
	  return false;
	}
      if (fd < 0)
	return write_error (errmsg, "cannot write", out_path, errno);
      if (fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK) != 0
	  || !writer (fd, arg))
	{
	  err = errno;
	  close (fd);
	  return write_error (errmsg, "cannot write", out_path, err);
	}
      if (close (fd) != 0)
	return write_error (errmsg, "cannot write", out_path, errno);
      return true;
    }

  slash = strrchr (out_path, '/');
  if (asprintf (&tmp, "%.*sprofcopyXXXXXX",
		slash != NULL ? (int) (slash - out_path + 1) : 0,
		out_path) < 0)
    {
      *errmsg = strdup ("out of memory");
      return false;
    }
  fd = mkstemp (tmp);
  if (fd < 0)
    {
      err = errno;
      free (tmp);
      return write_error (errmsg, "cannot create a temporary file for",
			  out_path, err);
    }
  temp_register (tmp);
  if (!writer (fd, arg) || fchmod (fd, mode & 07777) != 0)
    {
      err = errno;
      close (fd);
      goto fail;
    }
  if (close (fd) != 0 || rename (tmp, out_path) != 0)
    {
      err = errno;
      goto fail;
    }
  temp_forget (tmp);
  free (tmp);
  return true;

 fail:
  unlink (tmp);
  temp_forget (tmp);
  free (tmp);
  return write_error (errmsg, "cannot write", out_path, err);
}

/* What write_image needs, for write_output.  */
struct image_job
{
  const unsigned char *image;
  size_t size;
  const struct new_segment *seg;
  const unsigned char *tail;
  size_t tail_len;
};

static bool
image_writer (int fd, void *arg)
{
  const struct image_job *j = arg;

  return write_image (fd, j->image, j->size, j->seg, j->tail, j->tail_len);
}

bool
elf_write_with_segment (const char *out_path, unsigned char *image,
			size_t size, bool big_endian,
			const struct new_segment *seg, mode_t mode,
			char **errmsg)
{
  unsigned char *ph;
  unsigned char *tail = NULL;
  size_t tail_len = 0;
  struct image_job job;
  bool ok;

  if (seg->offset < size)
    {
      *errmsg = strdup ("internal error: new segment overlaps the file");
      return false;
    }
  {
    uint32_t phoff = get32 (image + 28, big_endian);
    uint16_t phnum = get16 (image + 44, big_endian), n = 0;
    unsigned char *table = seg->bytes;

    if (get16 (image + 42, big_endian) != sizeof (Elf32_Phdr)
	|| phoff > size || (size_t) phnum * sizeof (Elf32_Phdr) > size - phoff
	|| seg->rx_size < 32 * ((size_t) phnum + 2 + seg->n_extra))
      {
	*errmsg = strdup ("internal error: no room for the program headers");
	return false;
      }
    for (uint16_t i = 0; i < phnum; i++)
      {
	const unsigned char *old = image + phoff + i * sizeof (Elf32_Phdr);
	ph = table + n * sizeof (Elf32_Phdr);
	if (get32 (old, big_endian) == PT_NULL)
	  continue;
	memcpy (ph, old, sizeof (Elf32_Phdr));
	n++;
      }
    for (uint16_t i = 0; i < n; i++)
      {
	ph = table + i * sizeof (Elf32_Phdr);
	if (get32 (ph, big_endian) == PT_PHDR)
	  {
	    put32 (ph + 4, seg->offset, big_endian);
	    put32 (ph + 8, seg->vaddr, big_endian);
	    put32 (ph + 12, seg->vaddr, big_endian);
	    put32 (ph + 16, (n + 2 + seg->n_extra) * sizeof (Elf32_Phdr),
		   big_endian);
	    put32 (ph + 20, (n + 2 + seg->n_extra) * sizeof (Elf32_Phdr),
		   big_endian);
	  }
      }
    {
      struct extra_load rx = { seg->vaddr, seg->offset, seg->rx_size,
			       seg->rx_size, PF_R | PF_X, NULL };
      struct extra_load rw = { seg->vaddr + seg->rw_start,
			       seg->offset + seg->rw_file,
			       seg->filesz - seg->rw_start,
			       seg->memsz - seg->rw_start, PF_R | PF_W, NULL };
      put_load (table + n++ * sizeof (Elf32_Phdr), &rx, big_endian);
      put_load (table + n++ * sizeof (Elf32_Phdr), &rw, big_endian);
      for (size_t i = 0; i < seg->n_extra; i++)
	put_load (table + n++ * sizeof (Elf32_Phdr), &seg->extra[i],
		  big_endian);
    }
    put32 (image + 28, seg->offset, big_endian);
    put16 (image + 44, n, big_endian);
  }
  if (seg->n_sections > 0)
    tail = section_tail (image, size, big_endian, seg,
			 segments_end (seg), &tail_len);
  job.image = image;
  job.size = size;
  job.seg = seg;
  job.tail = tail;
  job.tail_len = tail_len;
  ok = write_output (out_path, mode, image_writer, &job, errmsg);
  free (tail);
  return ok;
}

/* What bytes_writer writes.  */
struct bytes_job
{
  const unsigned char *bytes;
  size_t len;
};

static bool
bytes_writer (int fd, void *arg)
{
  const struct bytes_job *j = arg;

  return write_all (fd, j->bytes, j->len);
}

bool
elf_copy_file (const char *from, const char *to, char **errmsg)
{
  struct bytes_job job;
  struct stat st;
  unsigned char *buf = NULL;
  size_t len = 0, cap = 0;
  int fd = open (from, O_RDONLY);
  bool ok;

  if (fd < 0 || fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      int err = fd < 0 ? errno : EINVAL;
      if (fd >= 0)
	close (fd);
      return write_error (errmsg, "cannot read", from, err);
    }
  for (;;)
    {
      ssize_t n;
      if (len == cap)
	{
	  unsigned char *b;
	  cap = cap ? 2 * cap : 1 << 16;
	  b = realloc (buf, cap);
	  if (b == NULL)
	    {
	      free (buf);
	      close (fd);
	      *errmsg = strdup ("out of memory");
	      return false;
	    }
	  buf = b;
	}
      n = read (fd, buf + len, cap - len);
      if (n < 0 && errno == EINTR)
	continue;
      if (n < 0)
	{
	  int err = errno;
	  free (buf);
	  close (fd);
	  return write_error (errmsg, "cannot read", from, err);
	}
      if (n == 0)
	break;
      len += (size_t) n;
    }
  close (fd);
  job.bytes = buf;
  job.len = len;
  ok = write_output (to, st.st_mode, bytes_writer, &job, errmsg);
  free (buf);
  return ok;
}
