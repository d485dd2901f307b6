/* qemu-log-counts.c -- count guest instruction executions in a QEMU
   single-step execution log.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General Public
   License version 3 or later; see COPYING.

   Usage:
     qemu-mips -singlestep -d page,exec,nochain -D LOG PROG...
     qemu-log-counts [-o OUT] LOG

   With -singlestep every translation block holds one instruction (a
   branch's delay slot gets a block of its own), and with `-d exec,nochain'
   QEMU logs every block it runs as
     Trace 0: 0x7f80e00000c0 [00000000/3f7d9950/000000e2/00000201] ...
   the second bracketed field being the guest PC.  So the number of Trace
   lines of a PC is the number of times the instruction at PC ran.  The
   `-d page' lines start_code, end_code and entry (QEMU's view of where it
   loaded the main program and the dynamic linker) are copied as
   `# KEY 0xVALUE' lines.  The output (to OUT, or stdout) has the format
   of qemu-count-plugin: those three lines, then `0xADDR COUNT' per
   address, sorted.  Exit status 0 on success, 1 on a bad log or an I/O
   error, 2 on a usage error.  */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One address and its count.  A slot with addr UINT64_MAX is free.  */
struct addr_count
{
  uint64_t addr;
  uint64_t count;
};

/* The table of counts: open addressing, SIZE a power of two.  */
struct count_table
{
  struct addr_count *slot;
  size_t size;
  size_t used;
};

/* Make TAB an empty table of SIZE slots.  Return 0, or -1 when out of
   memory.  */
static int
table_init (struct count_table *tab, size_t size)
{
  size_t i;

  tab->slot = malloc (size * sizeof *tab->slot);
  if (tab->slot == NULL)
    return -1;
  for (i = 0; i < size; i++)
    {
      tab->slot[i].addr = UINT64_MAX;
      tab->slot[i].count = 0;
    }
  tab->size = size;
  tab->used = 0;
  return 0;
}

/* Return the slot of ADDR in TAB, a free one if ADDR is absent.  */
static struct addr_count *
table_find (struct count_table *tab, uint64_t addr)
{
  size_t i = (size_t) ((addr >> 2) * 0x9e3779b97f4a7c15ull >> 32)
	     & (tab->size - 1);

  while (tab->slot[i].addr != UINT64_MAX && tab->slot[i].addr != addr)
    i = (i + 1) & (tab->size - 1);
  return &tab->slot[i];
}

/* Add COUNT to ADDR in TAB, growing it when half full.  Return 0, or -1
   when out of memory.  */
static int
table_add (struct count_table *tab, uint64_t addr, uint64_t count)
{
  struct addr_count *s;

  if (2 * (tab->used + 1) > tab->size)
    {
      struct count_table bigger;
      size_t i;

      if (table_init (&bigger, 2 * tab->size) != 0)
	return -1;
      for (i = 0; i < tab->size; i++)
	if (tab->slot[i].addr != UINT64_MAX)
	  *table_find (&bigger, tab->slot[i].addr) = tab->slot[i];
      bigger.used = tab->used;
      free (tab->slot);
      *tab = bigger;
    }
  s = table_find (tab, addr);
  if (s->addr == UINT64_MAX)
    {
      s->addr = addr;
      tab->used++;
    }
  s->count += count;
  return 0;
}

/* qsort comparison of two struct addr_count A and B by address.  */
static int
addr_count_cmp (const void *a, const void *b)
{
  const struct addr_count *x = a, *y = b;

  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* If LINE is an exec trace line, store its guest PC in *PC and return 1;
   otherwise return 0.  */
static int
parse_trace (const char *line, uint64_t *pc)
{
  const char *p;
  char *end;

  if (strncmp (line, "Trace ", 6) != 0)
    return 0;
  p = strchr (line, '[');
  if (p == NULL)
    return 0;
  p = strchr (p, '/');
  if (p == NULL)
    return 0;
  errno = 0;
  *pc = strtoull (p + 1, &end, 16);
  if (end == p + 1 || *end != '/' || errno != 0)
    return 0;
  return 1;
}

/* If LINE is the `-d page' line of KEY (`KEY   0xVALUE'), store VALUE in
   *VALUE and return 1; otherwise return 0.  */
static int
parse_page_value (const char *line, const char *key, uint64_t *value)
{
  size_t n = strlen (key);
  char *end;

  if (strncmp (line, key, n) != 0 || (line[n] != ' ' && line[n] != '\t'))
    return 0;
  errno = 0;
  *value = strtoull (line + n, &end, 16);
  return end != line + n && errno == 0;
}

int
main (int argc, char **argv)
{
  static const char *const keys[] = { "start_code", "end_code", "entry" };
  uint64_t values[3] = { 0, 0, 0 };
  const char *log_path = NULL, *out_path = NULL;
  struct count_table tab = { NULL, 0, 0 };
  FILE *in = NULL, *out = NULL;
  char *line = NULL;
  size_t line_size = 0, i;
  unsigned long long traces = 0;
  int ret = 1, k;

  for (k = 1; k < argc; k++)
    {
      if (strcmp (argv[k], "-o") == 0 && k + 1 < argc)
	out_path = argv[++k];
      else if (argv[k][0] != '-' && log_path == NULL)
	log_path = argv[k];
      else
	{
	  fprintf (stderr, "usage: qemu-log-counts [-o OUT] LOG\n");
	  return 2;
	}
    }
  if (log_path == NULL)
    {
      fprintf (stderr, "usage: qemu-log-counts [-o OUT] LOG\n");
      return 2;
    }

  in = fopen (log_path, "r");
  if (in == NULL)
    {
      fprintf (stderr, "qemu-log-counts: %s: %s\n", log_path, strerror (errno));
      goto cleanup;
    }
  if (table_init (&tab, 4096) != 0)
    goto nomem;
  while (getline (&line, &line_size, in) >= 0)
    {
      uint64_t pc, v;

      if (parse_trace (line, &pc))
	{
	  if (table_add (&tab, pc, 1) != 0)
	    goto nomem;
	  traces++;
	  continue;
	}
      for (i = 0; i < 3; i++)
	if (parse_page_value (line, keys[i], &v))
	  values[i] = v;
    }
  if (ferror (in))
    {
      fprintf (stderr, "qemu-log-counts: %s: read error\n", log_path);
      goto cleanup;
    }
  if (traces == 0)
    {
      fprintf (stderr, "qemu-log-counts: %s: no `Trace' lines (run qemu "
	       "with -singlestep -d exec,nochain)\n", log_path);
      goto cleanup;
    }

  /* Pack the used slots at the front and sort them.  */
  {
    size_t used = 0;
    for (i = 0; i < tab.size; i++)
      if (tab.slot[i].addr != UINT64_MAX)
	tab.slot[used++] = tab.slot[i];
    qsort (tab.slot, used, sizeof *tab.slot, addr_count_cmp);
    tab.used = used;
  }

  out = out_path != NULL ? fopen (out_path, "w") : stdout;
  if (out == NULL)
    {
      fprintf (stderr, "qemu-log-counts: %s: %s\n", out_path, strerror (errno));
      goto cleanup;
    }
  for (i = 0; i < 3; i++)
    fprintf (out, "# %s 0x%08" PRIx64 "\n", keys[i], values[i]);
  for (i = 0; i < tab.used; i++)
    fprintf (out, "0x%08" PRIx64 " %" PRIu64 "\n", tab.slot[i].addr,
	     tab.slot[i].count);
  if (fflush (out) != 0 || ferror (out))
    {
      fprintf (stderr, "qemu-log-counts: write error\n");
      goto cleanup;
    }
  ret = 0;
  goto cleanup;

 nomem:
  fprintf (stderr, "qemu-log-counts: out of memory\n");
 cleanup:
  if (out != NULL && out != stdout && fclose (out) != 0)
    ret = 1;
  if (in != NULL)
    fclose (in);
  free (line);
  free (tab.slot);
  return ret;
}
