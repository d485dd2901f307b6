/* runtime.h -- internal interface of libprofcopy.so.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   profile.c and its parts (profile.h) find the profiled objects of
   the process and write the profile; exec.c interposes the exec
   functions and calls into profile.c before the process image is
   replaced; fold.c keeps the high words of folded counters; trace.c
   records call traces.  Nothing here allocates memory.  */

#ifndef PROFCOPY_RUNTIME_H
#define PROFCOPY_RUNTIME_H

#include <errno.h>
#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "segment.h"

#define PCRT_HIDDEN __attribute__ ((visibility ("hidden")))

/* PCRT_STATIC builds the runtime that profcopy places inside the copy
   of a static executable (libprofcopy-static.so, static.c): no dynamic
   linker relocates it against anything, so it exports and imports
   nothing, and the weak imports of libprofcopy.so (environ, the
   dynamic linker's list) are absent.  */
#ifdef PCRT_STATIC
#define PCRT_EXPORT PCRT_HIDDEN
#define PCRT_WEAK_PRESENT(sym) false
#else
#define PCRT_EXPORT __attribute__ ((visibility ("default")))
#define PCRT_WEAK_PRESENT(sym) (&(sym) != NULL)
#endif

/* Raw system calls, without libc (o32: number in v0, arguments in
   a0..a3, a3 nonzero on error with the error number in v0): the
   result, or -errno.  The kernel may write at, v1, t0-t9, HI and LO.
   The number is loaded inside the asm, next to the syscall
   instruction, for the kernel's system call restart.  */

#if defined __mips__ && _MIPS_SIM == _ABIO32

#define SYSCALL_CLOBBERS \
  "$1", "$3", "$8", "$9", "$10", "$11", "$12", "$13", "$14", "$15", \
  "$24", "$25", "hi", "lo", "memory"

#define RAW_SYSCALL4(nr, x0, x1, x2, x3)				\
  ({									\
    register long v0_ __asm__ ("$2");					\
    register long a0_ __asm__ ("$4") = (long) (x0);			\
    register long a1_ __asm__ ("$5") = (long) (x1);			\
    register long a2_ __asm__ ("$6") = (long) (x2);			\
    register long a3_ __asm__ ("$7") = (long) (x3);			\
    __asm__ volatile (".set push\n\t.set noreorder\n\t"		\
		      "li $2,%2\n\t"					\
		      "syscall\n\t"					\
		      ".set pop"					\
		      : "=r" (v0_), "+r" (a3_)				\
		      : "i" (nr), "r" (a0_), "r" (a1_), "r" (a2_)	\
		      : SYSCALL_CLOBBERS);				\
    a3_ != 0 ? -v0_ : v0_;						\
  })

/* The same with six arguments: o32 passes the fifth and sixth on the
   stack, at 16 and 20 bytes above sp.  */
#define RAW_SYSCALL6(nr, x0, x1, x2, x3, x4, x5)			\
  ({									\
    register long v0_ __asm__ ("$2");					\
    register long a0_ __asm__ ("$4") = (long) (x0);			\
    register long a1_ __asm__ ("$5") = (long) (x1);			\
    register long a2_ __asm__ ("$6") = (long) (x2);			\
    register long a3_ __asm__ ("$7") = (long) (x3);			\
    long x4_ = (long) (x4), x5_ = (long) (x5);				\
    __asm__ volatile (".set push\n\t.set noreorder\n\t"		\
		      "addiu $sp,$sp,-32\n\t"				\
		      "sw %3,16($sp)\n\t"				\
		      "sw %4,20($sp)\n\t"				\
		      "li $2,%2\n\t"					\
		      "syscall\n\t"					\
		      "addiu $sp,$sp,32\n\t"				\
		      ".set pop"					\
		      : "=&r" (v0_), "+r" (a3_)				\
		      : "i" (nr), "r" (x4_), "r" (x5_), "r" (a0_),	\
			"r" (a1_), "r" (a2_)				\
		      : SYSCALL_CLOBBERS);				\
    a3_ != 0 ? -v0_ : v0_;						\
  })

#else

#define RAW_SYSCALL6(nr, x0, x1, x2, x3, x4, x5)			\
  ({									\
    int saved_ = errno;							\
    long r_ = syscall ((nr), (x0), (x1), (x2), (x3), (x4), (x5));	\
    if (r_ == -1)							\
      r_ = -errno;							\
    errno = saved_;							\
    r_;									\
  })

#define RAW_SYSCALL4(nr, x0, x1, x2, x3)				\
  ({									\
    int saved_ = errno;							\
    long r_ = syscall ((nr), (x0), (x1), (x2), (x3));			\
    if (r_ == -1)							\
      r_ = -errno;							\
    errno = saved_;							\
    r_;									\
  })

#endif

/* The first object of the dynamic linker's list (the program), or
   NULL: glibc's _r_debug or musl's _dl_debug_addr, whichever the
   process has (objects.c).  Both lists are made of records that start
   as struct link_map does (l_addr, l_name, l_ld, l_next, l_prev), and
   the runtime reads no other field.  */
PCRT_HIDDEN const struct link_map *pcrt_objects (void);

#ifdef PCRT_STATIC
/* The load bias of the static program, the one object (objects.c): 0
   but for a static PIE.  */
PCRT_HIDDEN void pcrt_static_bias (uintptr_t bias);
#endif

/* True when the dynamic linker is glibc's (it has _r_debug), which
   passes init functions the program's arguments and environment; musl's
   passes nothing.  */
PCRT_HIDDEN bool pcrt_glibc_loader (void);

/* The start of the runtime's work: what the constructor does with the
   program's arguments ARGC and ARGV and its environment ENVP (NULL
   when not known: musl), or what the static runtime's entry does with
   those of the initial stack (static.c).  */
PCRT_HIDDEN void pcrt_start (int argc, char **argv, char **envp);

/* The auxiliary vector, which follows the environment ENVP (its null
   pointer) on the initial stack.  */
PCRT_HIDDEN ElfW (auxv_t) *pcrt_auxv_after (char *const *envp);

/* Write the profile of this process now, for REASON (PCPROF_REASON_*);
   SIGNO is the fatal signal for PCPROF_REASON_SIGNAL, else 0.  errno is
   preserved.  */
PCRT_HIDDEN void pcrt_write_profile (unsigned reason, int signo);

/* Hand the syscall hook to every loaded profiled object, and the probe
   routines to every one rewritten with --calls, that does not have
   them yet, when the dynamic linker's list of objects changed since the
   last call (always the first time).  No libc call, no lock.  */
PCRT_HIDDEN void pcrt_fill_probe_slots (void);

/* The entry that profiled code calls before a system call that may end
   the process or replace its image (hook.S).  */
PCRT_HIDDEN void profcopy_syscall_hook (void);

/* True when a loaded object makes the exit_group system call through
   the syscall hook: the profile is then written there, and the runtime
   may call no libc function, which is profiled too.  */
PCRT_HIDDEN bool pcrt_exit_hooked (void);

/* exec.c: make the exec functions that libprofcopy.so exports go on to
   the next definition (libc's), whose system call the syscall hook
   sees.  */
PCRT_HIDDEN void pcrt_exec_forward (void);

/* Call pcrt_exec_forward the first time an exec function is called,
   when a loaded object makes the exit_group system call through the
   syscall hook (exec-fwd.S).  */
PCRT_HIDDEN void pcrt_exec_resolve (void);

/* The run-time address of the first definition of the function or
   data object NAME after libprofcopy.so's in the dynamic linker's list
   (libc's), or 0.  No libc call.  */
PCRT_HIDDEN uintptr_t pcrt_next_definition (const char *name);

/* libc's __cxa_atexit, and its __register_atfork (what pthread_atfork
   calls, with this object's __dso_handle), found when first called
   rather than imported: every import costs the dynamic linker a symbol
   lookup in every process.  -1 when libc has none.  */
PCRT_HIDDEN int pcrt_cxa_atexit (void (*fn) (void *), void *arg);
PCRT_HIDDEN int pcrt_atfork (void (*prepare) (void), void (*parent) (void),
			     void (*child) (void));

/* The program headers of the object of link map L: false if they
   cannot be found.  No libc call.  */
PCRT_HIDDEN bool pcrt_object_phdrs (const struct link_map *l,
				    const ElfW (Phdr) **phdr, size_t *phnum);

/* libc's environment, weak: the runtime needs no libc by name.  */
extern char **environ __attribute__ ((weak));

/* The environment and the program's base name, as the constructor
   found them (NULL if it did not run yet).  */
PCRT_HIDDEN char *const *pcrt_environment (void);
PCRT_HIDDEN const char *pcrt_program_name (void);

/* The current environment: libc's environ, or without it (or before
   it is set) what the constructor found.  */
static inline char *const *
pcrt_current_environment (void)
{
  return PCRT_WEAK_PRESENT (environ) && environ != NULL ? environ
	 : pcrt_environment ();
}

/* LEN bytes of fresh private memory from the mmap2 system call itself
   (no libc, no heap), or NULL.  */
PCRT_HIDDEN void *pcrt_mmap (size_t len);

/* fold.c: the high words of the counters of objects with
   PC_SEGMENT_F_FOLDED.  The constructor registers the N counters at
   COUNTERS of each such object loaded at start-up with pcrt_fold_add,
   then calls pcrt_fold_start, which starts the watcher thread; TEST
   "1" (PROFCOPY_TEST_CARRY) turns the carry test on: every registered
   low word is biased by 2^32 - 16 and the watcher looks after every
   millisecond of processor time; TEST "2" is the same test with no
   watcher, where only the snapshots fold.  */
PCRT_HIDDEN void pcrt_fold_add (volatile struct pc_counter *counters,
				uint32_t n);
/* The same for the N low words of a folded object's window at LOW, the
   high word of the Ith of which is that of COUNTERS[INDEX[I]] (the
   counter the block or edge would have outside the window).  */
PCRT_HIDDEN void pcrt_fold_add_window (volatile uint32_t *low, uint32_t n,
				       volatile struct pc_counter *counters,
				       const uint32_t *index);
PCRT_HIDDEN void pcrt_fold_start (const char *test);

/* Take the lock that keeps the watcher away; pcrt_fold_unlock lets it
   go on.  No libc call.  */
PCRT_HIDDEN void pcrt_fold_lock (void);
PCRT_HIDDEN void pcrt_fold_unlock (void);

/* The low words as the watcher last saw them of the counters whose low
   words start at LOW (registered with pcrt_fold_add or
   pcrt_fold_add_window), or NULL: a low word below its value there has
   wrapped once more than its high word says.  Under the lock.  */
PCRT_HIDDEN const uint32_t *pcrt_fold_seen (const volatile void *low);

/* Count N wraps found so for the carry test's figures.  */
PCRT_HIDDEN void pcrt_fold_note_wraps (uint32_t n);

/* What the carry test added to the low words at LOW (registered with
   pcrt_fold_add or pcrt_fold_add_window), to be taken off their counts;
   0 without it.  */
PCRT_HIDDEN uint32_t pcrt_fold_bias (const volatile void *low);

/* With the carry test on, set *BIASED to the number of counters
   biased, *WATCHER_WRAPS and *OTHER_WRAPS to the wraps of low words
   that the watcher and pcrt_fold_lock found, and return true.  */
PCRT_HIDDEN bool pcrt_fold_test_figures (uint32_t *biased,
					 uint32_t *watcher_wraps,
					 uint32_t *other_wraps);

#endif /* PROFCOPY_RUNTIME_H */
