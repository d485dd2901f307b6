/* fold.c -- carry the low words of the counters into their high words.
   Part of libprofcopy.so.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   An object whose segment has PC_SEGMENT_F_FOLDED (profcopy
   --whole-program) increments only the low word of each 64-bit counter
   (lw, addiu, sw, or ll, addiu, sc): no test for a carry out of it, one
   instruction fewer per count.  The runtime keeps the high words.  It
   remembers the low word of every such counter as it last saw it; a
   low word now below that has wrapped, once, provided fewer than 2^32
   counts were added in between, and its high word gets one more.  A
   watcher thread wakes every second and looks when the process has
   used LOOK_CPU_NS of processor time since its last look, and the
   snapshot (snapshot.c) looks once more as it copies the counters.
   2^32 counts of one counter take the fastest MIPS cores over five
   seconds of the time of the thread that counts (an increment waits
   for the store of the one before it), which the process's time
   includes; a look costs some instructions per counter of the
   program, so looking by the clock would cost a program that sleeps,
   and one slowed down (under QEMU), for nothing.

   Only the objects loaded at start-up are watched (the constructor
   registers them): they are never unloaded, so the watcher never reads
   memory that goes away.  An object with the flag that dlopen loads
   later is not watched; a counter of it that passes 2^32 loses 2^32
   counts for each wrap.

   The watcher is a bare thread: made with the clone system call, it
   calls no libc function, has no thread-local storage of its own (it
   shares its creator's thread pointer, which it never uses) and blocks
   every signal, so that signals go where they would go without it and
   libc never learns of it (the program's view of its own threads,
   __libc_single_threaded included, does not change).  It reads the
   low words, writes the high words and the remembered low words, and
   sleeps on a futex.  A lock keeps it and the snapshot apart.  fork
   (pthread_atfork): the watcher is stopped before, and the parent and
   the child each start one after, so that no thread of the runtime is
   lost in the child (QEMU 7.2 with a plugin aborts when a child made
   by fork from a process of two threads starts a thread).  */

#define _GNU_SOURCE 1

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime.h"
#include "segment.h"

/* Counter arrays watched: two per object (blocks and edges, window).  */
#define MAX_ARRAYS 512

/* What the carry test (PROFCOPY_TEST_CARRY) adds to every watched low
   word at start: 16 counts later it wraps.  */
#define TEST_BIAS 0xfffffff0u

#define WATCHER_STACK 16384

#define LOOK_CPU_NS 1500000000ll

/* N counters: the low word of counter I at LOW[I * STRIDE], its high
   word that of HIGH[INDEX[I]] (HIGH[I] without INDEX).  */
struct fold_array
{
  volatile uint32_t *low;
  uint32_t stride;
  uint32_t n;
  volatile struct pc_counter *high;
  const uint32_t *index;
  uint32_t *seen;		/* The low words as last seen.  */
};

static struct fold_array arrays[MAX_ARRAYS];
static size_t n_arrays;

/* Nonzero while the watcher looks or a snapshot copies.  */
static int lock_word;

/* The carry test is on: the low words were biased by TEST_BIAS.  */
static bool test_bias;

/* For the carry test: the wraps found by the watcher and by the
   snapshots (pcrt_fold_note_wraps), and the counters biased.  */
static uint32_t wraps_watcher, wraps_other;
static uint32_t n_biased;

/* The watcher's sleep between two wakes, in nanoseconds, and the
   processor time of the process, in all its threads, after which it
   looks again (LOOK_CPU_NS; a millisecond of each in the carry
   test).  */
static long interval_ns = 1000000000;
static long long look_cpu_ns = LOOK_CPU_NS;

/* The watcher's stack (a fork child reuses its copy of it).  */
static char *watcher_stack;

/* The watcher's thread id while it runs: the kernel writes it when it
   starts (CLONE_PARENT_SETTID) and clears it, waking futex waiters,
   when it ends (CLONE_CHILD_CLEARTID).  */
static int watcher_tid;

/* Nonzero: the watcher must end (stop_watcher).  */
static int stop_word;

/* The carry test without a watcher (PROFCOPY_TEST_CARRY=2).  */
static bool no_watcher;

/* o32's struct timespec of nanosleep and futex.  */
struct raw_timespec
{
  long sec, nsec;
};

/* Sleep NS nanoseconds.  */

static void
raw_sleep (long ns)
{
  struct raw_timespec ts = { ns / 1000000000, ns % 1000000000 };

  RAW_SYSCALL4 (__NR_nanosleep, (long) &ts, 0, 0, 0);
}

/* Wait while *WORD is VALUE, NS nanoseconds at most (forever if NS is
   negative), or until a futex wake.  Not a private futex: the kernel's
   wake at a thread's end (CLONE_CHILD_CLEARTID) is not one.  */

static void
futex_wait (int *word, int value, long ns)
{
  struct raw_timespec ts = { ns / 1000000000, ns % 1000000000 };

  RAW_SYSCALL4 (__NR_futex, (long) word, FUTEX_WAIT, value,
	       ns < 0 ? 0 : (long) &ts);
}

/* The counter whose high word is that of counter I of F.  */

static inline volatile struct pc_counter *
high_of (const struct fold_array *f, uint32_t i)
{
  return &f->high[f->index != NULL ? f->index[i] : i];
}

/* The registered array whose low words start at LOW, or NULL.  */

static const struct fold_array *
find_array (const volatile void *low)
{
  for (size_t a = 0; a < n_arrays; a++)
    if ((const volatile void *) arrays[a].low == low)
      return &arrays[a];
  return NULL;
}

static bool
try_lock (void)
{
  return __atomic_exchange_n (&lock_word, 1, __ATOMIC_ACQUIRE) == 0;
}

/* Fold every watched counter; count the wraps in *WRAPS.  Under the
   lock.  */

static void
fold_all (uint32_t *wraps)
{
  for (size_t a = 0; a < n_arrays; a++)
    {
      const struct fold_array *f = &arrays[a];
      volatile uint32_t *low = f->low;
      uint32_t *seen = f->seen;

      for (uint32_t i = 0; i < f->n; i++, low += f->stride)
	if (*low != seen[i])
	  {
	    if (*low < seen[i])
	      {
		high_of (f, i)->high++;
		++*wraps;
	      }
	    seen[i] = *low;
	  }
    }
}

/* The processor time of the process so far, in nanoseconds.  */

static long long
process_cpu_ns (void)
{
  struct raw_timespec ts = { 0, 0 };

  RAW_SYSCALL4 (__NR_clock_gettime, CLOCK_PROCESS_CPUTIME_ID, (long) &ts, 0,
	       0);
  return ts.sec * 1000000000ll + ts.nsec;
}

/* The watcher thread: sleep, look, until stop_watcher wakes it or the
   process ends (exit_group, exec).  */

static void __attribute__ ((noreturn, used))
watcher (void)
{
  long long last = process_cpu_ns (), now;

  for (;;)
    {
      futex_wait (&stop_word, 0, interval_ns);
      if (__atomic_load_n (&stop_word, __ATOMIC_ACQUIRE) != 0)
	for (;;)
	  RAW_SYSCALL4 (__NR_exit, 0, 0, 0, 0);
      now = process_cpu_ns ();
      if (now - last >= look_cpu_ns && try_lock ())
	{
	  fold_all (&wraps_watcher);
	  __atomic_store_n (&lock_word, 0, __ATOMIC_RELEASE);
	  last = now;
	}
    }
}

/* Start a thread running FN on the stack that ends at SP: clone with
   the flags of a thread of this process (it keeps its creator's thread
   pointer, which it never uses), its id in watcher_tid until it ends.
   Return its thread id, or -errno.  */

static long
raw_thread (void *sp, void (*fn) (void))
{
#if defined __mips__ && _MIPS_SIM == _ABIO32
  register long v0 __asm__ ("$2") = __NR_clone;
  register long a0 __asm__ ("$4") = (CLONE_VM | CLONE_FS | CLONE_FILES
				     | CLONE_SIGHAND | CLONE_THREAD
				     | CLONE_SYSVSEM | CLONE_PARENT_SETTID
				     | CLONE_CHILD_CLEARTID);
  register long a1 __asm__ ("$5") = (long) sp;
  register long a2 __asm__ ("$6") = (long) &watcher_tid;
  register long a3 __asm__ ("$7") = 0;
  register long t9 __asm__ ("$25") = (long) fn;
  register long t0 __asm__ ("$8") = (long) &watcher_tid;

  /* The fifth argument (the child's tid pointer) on the stack; the
     child returns on its own stack with v0 = 0 and calls FN, through
     t9 as the ABI wants, with the creator's gp (this object's).  */
  __asm__ volatile (".set push\n\t"
		    ".set noreorder\n\t"
		    "addiu $sp,$sp,-32\n\t"
		    "sw $8,16($sp)\n\t"
		    "syscall\n\t"
		    "bnez $7,1f\n\t"
		    " nop\n\t"
		    "bnez $2,1f\n\t"
		    " nop\n\t"
		    "jalr $25\n\t"
		    " nop\n"
		    "1:\n\t"
		    "addiu $sp,$sp,32\n\t"
		    ".set pop"
		    : "+r" (v0), "+r" (a3), "+r" (t9), "+r" (t0)
		    : "r" (a0), "r" (a1), "r" (a2)
		    : "$1", "$3", "$9", "$10", "$11", "$12", "$13",
		      "$14", "$15", "$24", "hi", "lo", "memory");
  return a3 != 0 ? -v0 : v0;
#else
  (void) sp;
  (void) fn;
  return -ENOSYS;
#endif
}

/* Start the watcher with every signal blocked: the creating thread
   blocks them all around the clone, and the thread inherits that.  */

static void
start_watcher (void)
{
  unsigned long all[4], old[4];	/* The kernel's 128-signal sets.  */

  if (no_watcher)
    return;
  if (watcher_stack == NULL)
    watcher_stack = pcrt_mmap (WATCHER_STACK);
  if (watcher_stack == NULL)
    return;
  __atomic_store_n (&stop_word, 0, __ATOMIC_RELAXED);
  for (size_t i = 0; i < 4; i++)
    all[i] = ~0ul;
  if (RAW_SYSCALL4 (__NR_rt_sigprocmask, SIG_SETMASK, (long) all, (long) old,
		   sizeof all) < 0)
    return;
  raw_thread (watcher_stack + WATCHER_STACK - 32, watcher);
  RAW_SYSCALL4 (__NR_rt_sigprocmask, SIG_SETMASK, (long) old, 0, sizeof old);
}

/* End the watcher, if it runs, and wait until it has.  */

static void
stop_watcher (void)
{
  int tid;

  if (__atomic_load_n (&watcher_tid, __ATOMIC_ACQUIRE) == 0)
    return;
  __atomic_store_n (&stop_word, 1, __ATOMIC_RELEASE);
  RAW_SYSCALL4 (__NR_futex, (long) &stop_word, FUTEX_WAKE, 1, 0);
  while ((tid = __atomic_load_n (&watcher_tid, __ATOMIC_ACQUIRE)) != 0)
    futex_wait (&watcher_tid, tid, -1);
}

static void
fork_prepare (void)
{
  stop_watcher ();
}

static void
fork_parent (void)
{
  if (n_arrays != 0)
    start_watcher ();
}

/* The child: the lock may have been held by a thread it does not
   have.  */

static void
fork_child (void)
{
  pcrt_fold_unlock ();
  if (n_arrays != 0)
    start_watcher ();
}

/* Register N counters (struct fold_array).  */

static void
add_array (volatile uint32_t *low, uint32_t stride, uint32_t n,
	   volatile struct pc_counter *high, const uint32_t *index)
{
  if (n == 0 || n_arrays == MAX_ARRAYS)
    return;
  arrays[n_arrays].low = low;
  arrays[n_arrays].stride = stride;
  arrays[n_arrays].n = n;
  arrays[n_arrays].high = high;
  arrays[n_arrays].index = index;
  n_arrays++;
}

void
pcrt_fold_add (volatile struct pc_counter *counters, uint32_t n)
{
  add_array (&counters->low, 2, n, counters, NULL);
}

void
pcrt_fold_add_window (volatile uint32_t *low, uint32_t n,
		      volatile struct pc_counter *counters,
		      const uint32_t *index)
{
  add_array (low, 1, n, counters, index);
}

void
pcrt_fold_start (const char *test)
{
  size_t total = 0;
  char *seen;

  /* Even with nothing to watch, so that libc runs the same code with
     the runtime whether the objects are profiled or not (the test
     suite's oracle runs the original programs with the runtime).  */
  pcrt_atfork (fork_prepare, fork_parent, fork_child);
  if (n_arrays == 0)
    return;
  for (size_t a = 0; a < n_arrays; a++)
    total += arrays[a].n;
  seen = pcrt_mmap ((total * sizeof (uint32_t) + 4095) & ~(size_t) 4095);
  if (seen == NULL)
    {
      n_arrays = 0;
      return;
    }
  /* The counters started at zero, as SEEN does: fewer than 2^32
     counts since.  */
  test_bias = (test != NULL && (test[0] == '1' || test[0] == '2')
	       && test[1] == '\0');
  if (test_bias)
    interval_ns = look_cpu_ns = 1000000;
  for (size_t a = 0; a < n_arrays; a++)
    {
      arrays[a].seen = (uint32_t *) seen;
      seen += arrays[a].n * sizeof (uint32_t);
      for (uint32_t i = 0; test_bias && i < arrays[a].n; i++)
	{
	  const struct fold_array *f = &arrays[a];
	  uint32_t low = __atomic_add_fetch (&f->low[i * f->stride], TEST_BIAS,
					     __ATOMIC_RELAXED);
	  if (low < TEST_BIAS)
	    high_of (f, i)->high++;
	  arrays[a].seen[i] = low;
	  n_biased++;
	}
    }
  /* The carry test of the last look alone.  */
  no_watcher = test_bias && test[0] == '2';
  start_watcher ();
}

void
pcrt_fold_lock (void)
{
  /* A watcher holds the lock for a look at the counters, a few
     milliseconds; one that never lets go was in the parent of a fork
     that did not go through libc.  */
  for (unsigned i = 0; !try_lock (); i++)
    {
      if (i == 2000)
	break;
      raw_sleep (1000000);
    }
}

const uint32_t *
pcrt_fold_seen (const volatile void *low)
{
  const struct fold_array *f = find_array (low);

  return f != NULL ? f->seen : NULL;
}

void
pcrt_fold_note_wraps (uint32_t n)
{
  wraps_other += n;
}

void
pcrt_fold_unlock (void)
{
  __atomic_store_n (&lock_word, 0, __ATOMIC_RELEASE);
}

uint32_t
pcrt_fold_bias (const volatile void *low)
{
  return test_bias && find_array (low) != NULL ? TEST_BIAS : 0;
}

bool
pcrt_fold_test_figures (uint32_t *biased, uint32_t *watcher_wraps,
			uint32_t *other_wraps)
{
  *biased = n_biased;
  *watcher_wraps = __atomic_load_n (&wraps_watcher, __ATOMIC_RELAXED);
  *other_wraps = wraps_other;
  return test_bias;
}
