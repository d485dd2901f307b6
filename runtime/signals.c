/* signals.c -- the runtime's signal handlers, out of the program's sight.
   Part of libprofcopy.so.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The runtime writes the profile from a handler of the signals that
   would end the process with their default action (profile.c).  A
   program that asks what such a signal does must still be told "the
   default": Rust's standard library installs its stack overflow guard
   only where SIGSEGV and SIGBUS have it, Python its KeyboardInterrupt
   only where SIGINT has it, shells decide by it which signals to
   handle.  libprofcopy.so, which the dynamic linker searches before
   libc, defines sigaction and the signal functions: each goes on to
   libc's (so libc runs what it runs without the runtime, and its
   counts stay the program's), then tells the program what it would
   have been told, the action that the runtime's handler stands in
   for.  Setting a signal that the runtime handles back to its default
   puts the runtime's handler back behind it; setting any other action
   gives the signal up to the program.  A program that calls the
   rt_sigaction system call itself sees the runtime's handler.  */

#define _GNU_SOURCE 1

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"
#include "runtime.h"
#include "sys.h"

/* The signals that the runtime writes the profile for where they have
   their default action: those that kill the process because the
   program went wrong, and the usual requests to end it.  */
static const int handled_signals[] =
  { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGSYS, SIGTRAP,
    SIGINT, SIGTERM, SIGHUP };

#define N_HANDLED (sizeof handled_signals / sizeof handled_signals[0])

/* The runtime's action, once pcrt_take_signals has installed it (its
   handler is NULL before).  */
static struct k_sigaction own;

/* Per handled signal: whether the runtime's action is the kernel's
   (here or the trace's, chained to it), and then the action it stands
   in for, as the kernel would have it.  */
static bool taken[N_HANDLED];
static struct k_sigaction stood_for[N_HANDLED];

/* The index of SIGNO in handled_signals, or -1.  */

static int
handled_index (int signo)
{
  for (size_t i = 0; i < N_HANDLED; i++)
    if (handled_signals[i] == signo)
      return (int) i;
  return -1;
}

void
pcrt_take_signals (void (*handler) (int, siginfo_t *, void *))
{
  struct k_sigaction old;

  rt_memset (&own, 0, sizeof own);
  own.handler = (void (*) (int)) (void (*) (void)) handler;
  own.flags = K_SA_SIGINFO | K_SA_RESETHAND | K_SA_NODEFER;
  for (size_t i = 0; i < N_HANDLED; i++)
    if (sys_sigaction (handled_signals[i], NULL, &old) == 0
	&& !(old.flags & K_SA_SIGINFO) && old.handler == SIG_DFL
	&& sys_sigaction (handled_signals[i], &own, NULL) == 0)
      {
	taken[i] = true;
	stood_for[i] = old;
      }
}

void
pcrt_give_signal (int signo)
{
  int i = handled_index (signo);

  if (i < 0 || !taken[i])
    return;
  taken[i] = false;
  sys_sigaction (signo, &stood_for[i], NULL);
}

/* The functions below stand in for libc's; a static executable's
   libc cannot be interposed, and its copy calls the syscall hook
   before its sigaction system calls instead (pcrt_give_signal).  */
#ifndef PCRT_STATIC

/* The layouts of struct sigaction on o32 MIPS: glibc's puts the flags
   first, musl's the handler, a set of 1024 signals, then the flags.
   The kernel's 128 signals are the first 16 bytes of either set.  */
#define GLIBC_FLAGS 0
#define GLIBC_HANDLER 4
#define GLIBC_MASK 8
#define MUSL_HANDLER 0
#define MUSL_MASK 4
#define MUSL_FLAGS 132
#define USER_MASK_SIZE 128

/* Put the action K into the program's struct sigaction at USER.  */

static void
tell_action (void *user, const struct k_sigaction *k)
{
  unsigned char *u = user;
  bool glibc = pcrt_glibc_loader ();
  unsigned char *mask = u + (glibc ? GLIBC_MASK : MUSL_MASK);
  unsigned int flags = k->flags;
  void (*handler) (int) = k->handler;

  rt_memcpy (u + (glibc ? GLIBC_FLAGS : MUSL_FLAGS), &flags, sizeof flags);
  rt_memcpy (u + (glibc ? GLIBC_HANDLER : MUSL_HANDLER), &handler,
	     sizeof handler);
  rt_memset (mask, 0, USER_MASK_SIZE);
  rt_memcpy (mask, k->mask, K_SIGSET_SIZE);
}

/* After libc set signal I's action as the program asked, with SET_DFL
   true when it asked for the default: keep or put the runtime's
   handler behind a default, and give the signal up otherwise.  */

static void
after_set (int i, bool set_dfl)
{
  struct k_sigaction now;

  if (!set_dfl)
    {
      taken[i] = false;
      return;
    }
  if (own.handler == NULL || sys_sigaction (handled_signals[i], NULL, &now) != 0
      || now.handler != SIG_DFL)
    return;
  if (sys_sigaction (handled_signals[i], &own, NULL) == 0)
    {
      taken[i] = true;
      stood_for[i] = now;
    }
}

typedef int sigaction_fn (int, const struct sigaction *, struct sigaction *);
typedef __sighandler_t signal_fn (int, __sighandler_t);

/* libc's definition of NAME, looked up once into *CACHE.  */

static uintptr_t
real (const char *name, uintptr_t *cache)
{
  uintptr_t a = __atomic_load_n (cache, __ATOMIC_ACQUIRE);

  if (a == 0)
    {
      a = pcrt_next_definition (name);
      __atomic_store_n (cache, a, __ATOMIC_RELEASE);
    }
  return a;
}

PCRT_EXPORT int
sigaction (int signo, const struct sigaction *act, struct sigaction *oact)
{
  static uintptr_t next;
  sigaction_fn *f = (sigaction_fn *) real ("sigaction", &next);
  int i = handled_index (signo);
  bool was_taken = i >= 0 && taken[i];
  bool set_dfl = false;
  int r;

  if (f == NULL)
    {
      errno = ENOSYS;
      return -1;
    }
  if (act != NULL)
    {
      const unsigned char *u = (const unsigned char *) act;
      void (*handler) (int);
      rt_memcpy (&handler, u + (pcrt_glibc_loader () ? GLIBC_HANDLER
				: MUSL_HANDLER), sizeof handler);
      set_dfl = handler == SIG_DFL;
    }
  r = f (signo, act, oact);
  if (r != 0 || i < 0)
    return r;
  if (was_taken && oact != NULL)
    tell_action (oact, &stood_for[i]);
  if (act != NULL)
    after_set (i, set_dfl);
  return r;
}

/* The signal functions: call libc's NAME (cached in *CACHE) to set
   SIGNO's handler to HANDLER, and return what the program would have
   been told.  */

static __sighandler_t
set_handler (const char *name, uintptr_t *cache, int signo,
	     __sighandler_t handler)
{
  signal_fn *f = (signal_fn *) real (name, cache);
  int i = handled_index (signo);
  bool was_taken = i >= 0 && taken[i];
  __sighandler_t r;

  if (f == NULL)
    {
      errno = ENOSYS;
      return SIG_ERR;
    }
  r = f (signo, handler);
  if (r == SIG_ERR || i < 0)
    return r;
  if (was_taken)
    r = stood_for[i].handler;
  after_set (i, handler == SIG_DFL);
  return r;
}

PCRT_EXPORT __sighandler_t
signal (int signo, __sighandler_t handler)
{
  static uintptr_t next;
  return set_handler ("signal", &next, signo, handler);
}

PCRT_EXPORT __sighandler_t
bsd_signal (int signo, __sighandler_t handler)
{
  static uintptr_t next;
  return set_handler ("bsd_signal", &next, signo, handler);
}

PCRT_EXPORT __sighandler_t
__sysv_signal (int signo, __sighandler_t handler)
{
  static uintptr_t next;
  return set_handler ("__sysv_signal", &next, signo, handler);
}

PCRT_EXPORT __sighandler_t
sysv_signal (int signo, __sighandler_t handler)
{
  static uintptr_t next;
  return set_handler ("sysv_signal", &next, signo, handler);
}

#endif /* !PCRT_STATIC */
