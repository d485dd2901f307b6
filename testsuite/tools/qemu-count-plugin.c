/* qemu-count-plugin.c -- a QEMU TCG plugin that counts how many times
   every guest instruction ran.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General Public
   License version 3 or later; see COPYING.

   Usage:
     qemu-mips -plugin qemu-count-plugin.so,out=FILE[,mode=MODE]
       [,stop=0xADDR[,stop_at=first|last]] PROG...

   At exit FILE holds a few `# KEY 0xVALUE' lines (start_code, end_code
   and entry of the guest image: QEMU's own view of where it loaded the
   main program and the dynamic linker) followed by one `0xADDR COUNT'
   line per guest instruction address that ran, sorted by address, COUNT
   in decimal.  qemu-log-counts writes the same format from a single-step
   log, so the two can be compared with cmp.

   MODE says how executions are counted:
     tb   (default) one inline 64-bit add per translation block at its
	  start; every instruction of the block is credited with the
	  block's count.  Fastest.  A block left in the middle (a faulting
	  load delivered as a guest signal, an exception) over-counts the
	  instructions after the exit point.  On MIPS a syscall ends its
	  block, so ordinary programs are exact; the test suite proves it
	  against the single-step log.  The inline add is not atomic: a
	  multi-threaded guest may lose counts.
     cb   like tb, but through a callback doing an atomic add: right for
	  multi-threaded guests, slower.
     insn one inline add per instruction: exact even when a block is left
	  early (an instruction is counted when it starts), slower.

   stop=0xADDR freezes the counts when the guest instruction at ADDR
   runs: the file then holds the counts as they were just before that
   instruction ran for the first time (stop_at=first, the default) or
   for the last time (stop_at=last: every run of ADDR takes a new copy
   of the counts).  (The test suite once stopped at the runtime's
   snapshot of its counters; it now counts to exit_group.)  A file with a stop address holds a
   `# stops N' line (N runs of ADDR; 0 means the counts are those at
   exit).  In mode tb and cb the block that holds ADDR is counted once
   more at its start; ADDR starts its block when it is a call target.

   Each translation of a block gets a record holding the instruction
   addresses and the counters; a retranslation of the same instructions
   reuses the record, so memory stays proportional to the code run.  */

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu-plugin-api.h"

PROFCOPY_PLUGIN_EXPORT int qemu_plugin_version
  = PROFCOPY_QEMU_PLUGIN_API_VERSION;

enum count_mode
{
  MODE_TB,
  MODE_CB,
  MODE_INSN
};

/* One translated block: its instruction addresses and its counters.  */
struct tb_record
{
  struct tb_record *next;	/* Next record in the same hash bucket.  */
  uint64_t count;		/* Executions of the block (tb, cb).  */
  uint64_t *insn_counts;	/* Executions per instruction (insn).  */
  uint64_t saved;		/* COUNT at the stop (tb, cb).  */
  uint64_t *insn_saved;		/* INSN_COUNTS at the stop (insn).  */
  size_t n_insns;
  uint64_t vaddr[];		/* N_INSNS instruction addresses.  */
};

#define TB_BUCKETS (1u << 16)

static struct tb_record *tb_table[TB_BUCKETS];
static pthread_mutex_t tb_lock = PTHREAD_MUTEX_INITIALIZER;
static enum count_mode mode = MODE_TB;
static char *out_path;
static int image_known;
static uint64_t image_start_code, image_end_code, image_entry;
static int out_of_memory;

/* The stop address (stop=) and whether one was given; how many times
   it ran; whether the last (rather than the first) run counts.  */
static uint64_t stop_addr;
static int stop_given;
static uint64_t stop_hits;
static int stop_at_last;

/* One address and its total count, for the table built at exit.  */
struct addr_count
{
  uint64_t addr;
  uint64_t count;
};

/* Return the hash bucket of a block starting at VADDR.  */
static size_t
tb_bucket (uint64_t vaddr)
{
  return (size_t) ((vaddr >> 2) * 0x9e3779b97f4a7c15ull >> 48) % TB_BUCKETS;
}

/* Return the record of a block with the N instruction addresses VADDR,
   creating it if no earlier translation had exactly these.  Return NULL
   when out of memory.  Called with TB_LOCK held.  */
static struct tb_record *
tb_record_get (const uint64_t *vaddr, size_t n)
{
  size_t b = tb_bucket (vaddr[0]);
  struct tb_record *r;

  for (r = tb_table[b]; r != NULL; r = r->next)
    if (r->n_insns == n && memcmp (r->vaddr, vaddr, n * sizeof *vaddr) == 0)
      return r;
  r = calloc (1, sizeof *r + n * sizeof *vaddr);
  if (r == NULL)
    return NULL;
  if (mode == MODE_INSN)
    {
      r->insn_counts = calloc (n, sizeof *r->insn_counts);
      r->insn_saved = calloc (n, sizeof *r->insn_saved);
      if (r->insn_counts == NULL || r->insn_saved == NULL)
	{
	  free (r->insn_counts);
	  free (r->insn_saved);
	  free (r);
	  return NULL;
	}
    }
  r->n_insns = n;
  memcpy (r->vaddr, vaddr, n * sizeof *vaddr);
  r->next = tb_table[b];
  tb_table[b] = r;
  return r;
}

/* Execution callback of mode cb: count one run of the block whose
   record is USERDATA.  VCPU_INDEX is unused.  */
static void
tb_exec (unsigned int vcpu_index, void *userdata)
{
  struct tb_record *r = userdata;

  (void) vcpu_index;
  __atomic_fetch_add (&r->count, 1, __ATOMIC_RELAXED);
}

/* Execution callback of the instruction at the stop address: copy
   every count into its saved field, the first time only unless
   stop_at=last.  VCPU_INDEX and USERDATA are unused.  */
static void
stop_exec (unsigned int vcpu_index, void *userdata)
{
  struct tb_record *r;
  size_t i, k;

  (void) vcpu_index;
  (void) userdata;
  pthread_mutex_lock (&tb_lock);
  if (stop_hits++ == 0 || stop_at_last)
    for (i = 0; i < TB_BUCKETS; i++)
      for (r = tb_table[i]; r != NULL; r = r->next)
	{
	  r->saved = __atomic_load_n (&r->count, __ATOMIC_RELAXED);
	  if (r->insn_counts != NULL)
	    for (k = 0; k < r->n_insns; k++)
	      r->insn_saved[k] = r->insn_counts[k];
	}
  pthread_mutex_unlock (&tb_lock);
}

/* Translation callback: instrument block TB.  ID is unused.  */
static void
tb_trans (qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
  static uint64_t *buf;
  static size_t buf_size;
  size_t n = qemu_plugin_tb_n_insns (tb);
  struct tb_record *r;
  size_t i;

  (void) id;
  if (n == 0)
    return;
  pthread_mutex_lock (&tb_lock);
  if (!image_known)
    {
      /* Ask here rather than at install time: these need a running
	 vCPU.  */
      image_start_code = qemu_plugin_start_code ();
      image_end_code = qemu_plugin_end_code ();
      image_entry = qemu_plugin_entry_code ();
      image_known = 1;
    }
  if (n > buf_size)
    {
      uint64_t *nb = realloc (buf, n * sizeof *buf);
      if (nb == NULL)
	{
	  out_of_memory = 1;
	  goto out;
	}
      buf = nb;
      buf_size = n;
    }
  for (i = 0; i < n; i++)
    buf[i] = qemu_plugin_insn_vaddr (qemu_plugin_tb_get_insn (tb, i));
  r = tb_record_get (buf, n);
  if (r == NULL)
    {
      out_of_memory = 1;
      goto out;
    }
  switch (mode)
    {
    case MODE_TB:
      qemu_plugin_register_vcpu_tb_exec_inline (tb, QEMU_PLUGIN_INLINE_ADD_U64,
						&r->count, 1);
      break;
    case MODE_CB:
      qemu_plugin_register_vcpu_tb_exec_cb (tb, tb_exec,
					    QEMU_PLUGIN_CB_NO_REGS, r);
      break;
    case MODE_INSN:
      for (i = 0; i < n; i++)
	qemu_plugin_register_vcpu_insn_exec_inline
	  (qemu_plugin_tb_get_insn (tb, i), QEMU_PLUGIN_INLINE_ADD_U64,
	   &r->insn_counts[i], 1);
      break;
    }
  if (stop_given)
    for (i = 0; i < n; i++)
      if (buf[i] == stop_addr)
	qemu_plugin_register_vcpu_insn_exec_cb
	  (qemu_plugin_tb_get_insn (tb, i), stop_exec, QEMU_PLUGIN_CB_NO_REGS,
	   NULL);
 out:
  pthread_mutex_unlock (&tb_lock);
}

/* Add COUNT to address ADDR in the open-addressing table TAB of SIZE
   slots (a power of two, never full).  A slot with count 0 and address
   UINT64_MAX is free.  */
static void
addr_table_add (struct addr_count *tab, size_t size, uint64_t addr,
		uint64_t count)
{
  size_t i = (size_t) ((addr >> 2) * 0x9e3779b97f4a7c15ull >> 32) & (size - 1);

  while (tab[i].addr != UINT64_MAX && tab[i].addr != addr)
    i = (i + 1) & (size - 1);
  tab[i].addr = addr;
  tab[i].count += count;
}

/* qsort comparison of two struct addr_count A and B by address.  */
static int
addr_count_cmp (const void *a, const void *b)
{
  const struct addr_count *x = a, *y = b;

  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Write the counts to OUT_PATH.  Return 0 on success, -1 on failure.  */
static int
write_counts (void)
{
  struct addr_count *tab = NULL;
  size_t total = 0, size = 1024, i, k, used;
  struct tb_record *r;
  FILE *f = NULL;
  int ret = -1;

  for (i = 0; i < TB_BUCKETS; i++)
    for (r = tb_table[i]; r != NULL; r = r->next)
      total += r->n_insns;
  while (size < 2 * total)
    size *= 2;
  tab = malloc (size * sizeof *tab);
  if (tab == NULL)
    goto cleanup;
  for (i = 0; i < size; i++)
    {
      tab[i].addr = UINT64_MAX;
      tab[i].count = 0;
    }
  for (i = 0; i < TB_BUCKETS; i++)
    for (r = tb_table[i]; r != NULL; r = r->next)
      for (k = 0; k < r->n_insns; k++)
	{
	  uint64_t c;
	  if (stop_given && stop_hits > 0)
	    c = mode == MODE_INSN ? r->insn_saved[k] : r->saved;
	  else
	    c = mode == MODE_INSN ? r->insn_counts[k] : r->count;
	  addr_table_add (tab, size, r->vaddr[k], c);
	}
  /* Keep the addresses that ran, packed at the front.  */
  used = 0;
  for (i = 0; i < size; i++)
    if (tab[i].addr != UINT64_MAX && tab[i].count != 0)
      tab[used++] = tab[i];
  qsort (tab, used, sizeof *tab, addr_count_cmp);

  f = fopen (out_path, "w");
  if (f == NULL)
    goto cleanup;
  fprintf (f, "# start_code 0x%08" PRIx64 "\n", image_start_code);
  fprintf (f, "# end_code 0x%08" PRIx64 "\n", image_end_code);
  fprintf (f, "# entry 0x%08" PRIx64 "\n", image_entry);
  if (stop_given)
    fprintf (f, "# stops 0x%" PRIx64 "\n", stop_hits);
  for (i = 0; i < used; i++)
    fprintf (f, "0x%08" PRIx64 " %" PRIu64 "\n", tab[i].addr, tab[i].count);
  if (fclose (f) == 0)
    ret = 0;
  f = NULL;

 cleanup:
  if (f != NULL)
    fclose (f);
  free (tab);
  return ret;
}

/* At-exit callback: write the counts and report a failure through
   QEMU's log.  ID and USERDATA are unused.  */
static void
plugin_exit (qemu_plugin_id_t id, void *userdata)
{
  (void) id;
  (void) userdata;
  if (out_of_memory)
    qemu_plugin_outs ("qemu-count-plugin: out of memory; counts incomplete\n");
  if (write_counts () != 0)
    {
      fprintf (stderr, "qemu-count-plugin: cannot write %s\n", out_path);
      /* Remove a partial file so that no one reads it as counts.  */
      remove (out_path);
    }
}

/* Install the plugin: parse the ARGC arguments ARGV (`out=FILE',
   `mode=tb|cb|insn', `stop=0xADDR', `stop_at=first|last') and register the callbacks with ID.  INFO must say
   user-mode emulation.  Return 0 on success, non-zero to refuse.  */
PROFCOPY_PLUGIN_EXPORT int
qemu_plugin_install (qemu_plugin_id_t id, const qemu_info_t *info,
		     int argc, char **argv)
{
  int i;

  for (i = 0; i < argc; i++)
    {
      const char *a = argv[i];

      if (strncmp (a, "out=", 4) == 0 && a[4] != '\0')
	out_path = strdup (a + 4);
      else if (strcmp (a, "mode=tb") == 0)
	mode = MODE_TB;
      else if (strcmp (a, "mode=cb") == 0)
	mode = MODE_CB;
      else if (strcmp (a, "mode=insn") == 0)
	mode = MODE_INSN;
      else if (strncmp (a, "stop=", 5) == 0 && a[5] != '\0')
	{
	  char *end;
	  stop_addr = strtoull (a + 5, &end, 0);
	  if (*end != '\0')
	    {
	      fprintf (stderr, "qemu-count-plugin: bad address `%s'\n", a);
	      return 1;
	    }
	  stop_given = 1;
	}
      else if (strcmp (a, "stop_at=first") == 0)
	stop_at_last = 0;
      else if (strcmp (a, "stop_at=last") == 0)
	stop_at_last = 1;
      else
	{
	  fprintf (stderr, "qemu-count-plugin: unknown argument `%s'\n", a);
	  return 1;
	}
    }
  if (out_path == NULL)
    {
      fprintf (stderr, "qemu-count-plugin: missing out=FILE\n");
      return 1;
    }
  if (info != NULL && info->system_emulation)
    {
      fprintf (stderr, "qemu-count-plugin: needs user-mode emulation\n");
      return 1;
    }
  qemu_plugin_register_vcpu_tb_trans_cb (id, tb_trans);
  qemu_plugin_register_atexit_cb (id, plugin_exit, NULL);
  return 0;
}
