/* trace-read.c -- read the call traces that libprofcopy.so writes.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The whole file is read into memory; every record size and count of
   the binary form is checked against what is left of the file, and
   every line of the text form must parse, so that a truncated or
   corrupt trace gives an error naming the offset or the line.  */

#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errmsg.h"
#include "trace-format.h"
#include "trace-read.h"

/* The first line of the text form, up to the version.  */
#define TEXT_MAGIC "# profcopy trace "

static uint32_t
get32 (const unsigned char *p)
{
  return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16
	 | (uint32_t) p[3] << 24;
}

bool
trace_file_p (const char *file)
{
  char buf[sizeof TEXT_MAGIC];
  struct stat st;
  ssize_t n;
  /* Not blocking, and only a regular file: the first bytes of a FIFO
     would be gone (and opening one waits for a writer).  */
  int fd = open (file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

  if (fd < 0)
    return false;
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      return false;
    }
  n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n < 0)
    return false;
  return (((size_t) n >= PCTRACE_MAGIC_LEN
	   && memcmp (buf, PCTRACE_MAGIC, PCTRACE_MAGIC_LEN) == 0)
	  || ((size_t) n == sizeof TEXT_MAGIC - 1
	      && memcmp (buf, TEXT_MAGIC, sizeof TEXT_MAGIC - 1) == 0));
}

/* Read all of FILE into a malloc'd, NUL-terminated buffer.  */

static bool
slurp (const char *file, unsigned char **data, size_t *size, char **errmsg)
{
  FILE *f = fopen (file, "rb");
  unsigned char *buf = NULL;
  size_t len = 0, cap = 0;

  if (f == NULL)
    return errmsg_format (errmsg, "cannot open: %s", strerror (errno));
  for (;;)
    {
      size_t n;
      if (cap - len < 65536)
	{
	  unsigned char *p = realloc (buf, cap + 65536 + 1);
	  if (p == NULL)
	    {
	      free (buf);
	      fclose (f);
	      return errmsg_format (errmsg, "out of memory");
	    }
	  buf = p;
	  cap += 65536;
	}
      n = fread (buf + len, 1, cap - len, f);
      len += n;
      if (n == 0)
	break;
    }
  if (ferror (f))
    {
      int err = errno;
      free (buf);
      fclose (f);
      return errmsg_format (errmsg, "cannot read: %s", strerror (err));
    }
  fclose (f);
  buf[len] = '\0';
  *data = buf;
  *size = len;
  return true;
}

/* Return the stream of T for PID and TID, made if new; NULL when out of
   memory.  */

static struct trace_stream *
get_stream (struct trace *t, uint32_t pid, uint32_t tid)
{
  struct trace_stream *s;

  for (size_t i = 0; i < t->n_streams; i++)
    if (t->streams[i].pid == pid && t->streams[i].tid == tid)
      return &t->streams[i];
  s = realloc (t->streams, (t->n_streams + 1) * sizeof *s);
  if (s == NULL)
    return NULL;
  t->streams = s;
  s = &t->streams[t->n_streams++];
  memset (s, 0, sizeof *s);
  s->pid = pid;
  s->tid = tid;
  return s;
}

/* Append an event to stream S.  */

static bool
add_event (struct trace_stream *s, uint32_t func, uint32_t site,
	   uint64_t time, bool exit)
{
  struct trace_event *e;

  if (s->n_events == s->cap)
    {
      size_t cap = s->cap ? s->cap * 2 : 1024;
      e = realloc (s->events, cap * sizeof *e);
      if (e == NULL)
	return false;
      s->events = e;
      s->cap = cap;
    }
  e = &s->events[s->n_events++];
  e->func = func;
  e->site = site;
  e->time = time;
  e->exit = exit;
  return true;
}

/* Add an object record to T.  */

static bool
add_object (struct trace *t, uint32_t bias, uint32_t low, uint32_t high,
	    const char *path, size_t path_len)
{
  struct trace_object *o = realloc (t->objects,
				    (t->n_objects + 1) * sizeof *o);

  if (o == NULL)
    return false;
  t->objects = o;
  /* Later records first, so that trace_object_at finds the newest.  */
  memmove (o + 1, o, t->n_objects * sizeof *o);
  o->bias = bias;
  o->low = low;
  o->high = high;
  o->path = strndup (path, path_len);
  if (o->path == NULL)
    return false;
  t->n_objects++;
  return true;
}

static bool
read_binary (struct trace *t, const unsigned char *data, size_t size,
	     char **errmsg)
{
  uint32_t version, header_size;
  size_t pos;

  if (size < PCTRACE_HEADER_SIZE)
    return errmsg_format (errmsg, "truncated file header");
  version = get32 (data + PCTRACE_H_VERSION);
  if (version != PCTRACE_VERSION)
    return errmsg_format (errmsg, "trace format version %" PRIu32
			  " (this profreport reads version %d)",
			  version, PCTRACE_VERSION);
  header_size = get32 (data + PCTRACE_H_HEADER_SIZE);
  if (header_size < PCTRACE_HEADER_SIZE || header_size > size
      || header_size % 8 != 0)
    return errmsg_format (errmsg, "bad header size %" PRIu32, header_size);
  if (get32 (data + PCTRACE_H_CLOCK) != PCTRACE_CLOCK_MONOTONIC_NS)
    return errmsg_format (errmsg, "unknown clock %" PRIu32,
			  get32 (data + PCTRACE_H_CLOCK));

  for (pos = header_size; pos < size; )
    {
      const unsigned char *r = data + pos;
      uint32_t type, rsize;

      if (size - pos < PCTRACE_RECORD_SIZE)
	return errmsg_format (errmsg, "truncated record at offset %zu", pos);
      type = get32 (r + PCTRACE_R_TYPE);
      rsize = get32 (r + PCTRACE_R_SIZE);
      if (rsize < PCTRACE_RECORD_SIZE || rsize % 8 != 0 || rsize > size - pos)
	return errmsg_format (errmsg, "record at offset %zu: bad size %" PRIu32
			      " (%zu bytes left)", pos, rsize, size - pos);
      if (type == PCTRACE_REC_OBJECT)
	{
	  uint32_t len;
	  if (rsize < PCTRACE_O_SIZE)
	    return errmsg_format (errmsg, "object record at offset %zu: too"
				  " short", pos);
	  len = get32 (r + PCTRACE_O_PATH_LEN);
	  if (len > PCTRACE_MAX_PATH_LEN || len >= rsize - PCTRACE_O_SIZE
	      || get32 (r + PCTRACE_O_LOW) > get32 (r + PCTRACE_O_HIGH))
	    return errmsg_format (errmsg, "object record at offset %zu: bad"
				  " path length or range", pos);
	  if (!add_object (t, get32 (r + PCTRACE_O_BIAS),
			   get32 (r + PCTRACE_O_LOW),
			   get32 (r + PCTRACE_O_HIGH),
			   (const char *) r + PCTRACE_O_SIZE, len))
	    return errmsg_format (errmsg, "out of memory");
	}
      else if (type == PCTRACE_REC_EVENTS)
	{
	  uint32_t n;
	  struct trace_stream *s;
	  if (rsize < PCTRACE_E_SIZE)
	    return errmsg_format (errmsg, "event record at offset %zu: too"
				  " short", pos);
	  n = get32 (r + PCTRACE_E_N_EVENTS);
	  if (n != (rsize - PCTRACE_E_SIZE) / PCTRACE_EVENT_SIZE
	      || (rsize - PCTRACE_E_SIZE) % PCTRACE_EVENT_SIZE != 0)
	    return errmsg_format (errmsg, "event record at offset %zu: %"
				  PRIu32 " events do not fill its %" PRIu32
				  " bytes", pos, n, rsize);
	  s = get_stream (t, get32 (r + PCTRACE_E_PID),
			  get32 (r + PCTRACE_E_TID));
	  if (s == NULL)
	    return errmsg_format (errmsg, "out of memory");
	  s->lost += get32 (r + PCTRACE_E_N_LOST);
	  for (uint32_t i = 0; i < n; i++)
	    {
	      const unsigned char *e = r + PCTRACE_E_SIZE
				       + (size_t) i * PCTRACE_EVENT_SIZE;
	      uint64_t stamp = get32 (e + PCTRACE_V_STAMP)
			       | (uint64_t) get32 (e + PCTRACE_V_STAMP + 4) << 32;
	      if (!add_event (s, get32 (e + PCTRACE_V_FUNC),
			      get32 (e + PCTRACE_V_SITE), stamp >> 1,
			      (stamp & 1) == PCTRACE_EXIT))
		return errmsg_format (errmsg, "out of memory");
	    }
	}
      /* Other record types are skipped.  */
      pos += rsize;
    }
  return true;
}

/* Parse the hexadecimal address at *P (with its 0x), advancing *P.  */

static bool
parse_hex (char **p, uint32_t *v)
{
  char *end;
  unsigned long long x;

  while (**p == ' ')
    ++*p;
  if ((*p)[0] != '0' || ((*p)[1] != 'x' && (*p)[1] != 'X'))
    return false;
  errno = 0;
  x = strtoull (*p, &end, 16);
  if (end == *p + 2 || errno != 0 || x > UINT32_MAX)
    return false;
  *p = end;
  *v = (uint32_t) x;
  return true;
}

static bool
parse_decimal (char **p, uint64_t *v)
{
  char *end;

  while (**p == ' ')
    ++*p;
  if (**p < '0' || **p > '9')
    return false;
  errno = 0;
  *v = strtoull (*p, &end, 10);
  if (errno != 0)
    return false;
  *p = end;
  return true;
}

static bool
read_text (struct trace *t, char *data, char **errmsg)
{
  struct trace_stream *s = NULL;
  size_t line_no = 0;
  char *line = data, *next;

  for (; *line != '\0'; line = next)
    {
      char *p = line;
      uint32_t a, b, c;
      uint64_t n, pid, tid;

      line_no++;
      next = strchr (line, '\n');
      if (next != NULL)
	*next++ = '\0';
      else
	next = line + strlen (line);
      if (line_no == 1)
	{
	  if (strncmp (line, TEXT_MAGIC, sizeof TEXT_MAGIC - 1) != 0
	      || strncmp (line + sizeof TEXT_MAGIC - 1, "1 ", 2) != 0)
	    return errmsg_format (errmsg, "line 1: not version 1 of the text"
				  " trace form");
	  continue;
	}
      if (strncmp (line, "# lost ", 7) == 0)
	{
	  p = line + 7;
	  if (!parse_decimal (&p, &n) || *p != '\0')
	    goto bad;
	  if (s == NULL && (s = get_stream (t, 0, 0)) == NULL)
	    goto oom;
	  s->lost += n;
	  continue;
	}
      if (line[0] == '#' || line[0] == '\0')
	continue;
      p = line + 1;
      if (line[1] != ' ')
	goto bad;
      switch (line[0])
	{
	case 'E':
	case 'X':
	  if (!parse_hex (&p, &a) || !parse_decimal (&p, &n)
	      || (*p != '\0' && *p != ' '))
	    goto bad;
	  if (s == NULL && (s = get_stream (t, 0, 0)) == NULL)
	    goto oom;
	  if (!add_event (s, a, 0, n, line[0] == 'X'))
	    goto oom;
	  break;
	case 'T':
	  if (!parse_decimal (&p, &pid) || !parse_decimal (&p, &tid)
	      || *p != '\0' || pid > UINT32_MAX || tid > UINT32_MAX)
	    goto bad;
	  s = get_stream (t, (uint32_t) pid, (uint32_t) tid);
	  if (s == NULL)
	    goto oom;
	  break;
	case 'O':
	  if (!parse_hex (&p, &a) || !parse_hex (&p, &b) || !parse_hex (&p, &c)
	      || *p != ' ' || p[1] == '\0' || a > b)
	    goto bad;
	  if (!add_object (t, c, a, b, p + 1, strlen (p + 1)))
	    goto oom;
	  break;
	default:
	  goto bad;
	}
    }
  return true;

 bad:
  return errmsg_format (errmsg, "line %zu: cannot parse `%.60s'", line_no,
			line);
 oom:
  return errmsg_format (errmsg, "out of memory");
}

bool
trace_read (const char *file, struct trace *t, char **errmsg)
{
  unsigned char *data = NULL;
  size_t size = 0;
  bool ok;

  memset (t, 0, sizeof *t);
  if (!slurp (file, &data, &size, errmsg))
    return false;
  if (size >= PCTRACE_MAGIC_LEN
      && memcmp (data, PCTRACE_MAGIC, PCTRACE_MAGIC_LEN) == 0)
    ok = read_binary (t, data, size, errmsg);
  else if (size >= sizeof TEXT_MAGIC - 1
	   && memcmp (data, TEXT_MAGIC, sizeof TEXT_MAGIC - 1) == 0)
    {
      t->text = true;
      if (memchr (data, '\0', size) != NULL)
	ok = errmsg_format (errmsg, "a NUL byte in the text form");
      else
	ok = read_text (t, (char *) data, errmsg);
    }
  else
    ok = errmsg_format (errmsg, "not a profcopy trace");
  free (data);
  if (ok && (t->file = strdup (file)) == NULL)
    ok = errmsg_format (errmsg, "out of memory");
  if (!ok)
    trace_free (t);
  return ok;
}

const struct trace_object *
trace_object_at (const struct trace *t, uint32_t addr)
{
  for (size_t i = 0; i < t->n_objects; i++)
    if (addr >= t->objects[i].low && addr < t->objects[i].high)
      return &t->objects[i];
  return NULL;
}

void
trace_free (struct trace *t)
{
  for (size_t i = 0; i < t->n_objects; i++)
    free (t->objects[i].path);
  for (size_t i = 0; i < t->n_streams; i++)
    free (t->streams[i].events);
  free (t->objects);
  free (t->streams);
  free (t->file);
  memset (t, 0, sizeof *t);
}
