/* profile.c -- the runtime's start-up, its syscall hook and signal
   handlers, and the one entry that writes a profile.  Part of
   libprofcopy.so, the runtime that profcopy adds to every profiled
   program as its first DT_NEEDED; profile.h lists the other parts.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The runtime's work must not show in the profile: it calls no libc
   function (sys.h), allocates nothing from the heap and keeps errno as
   it was.  When and how the profile is written (the syscall hook,
   signals, vfork children, the exit handler without a rewritten libc,
   the snapshot) is in doc/internals.md, "Whole programs and the
   runtime".  */

#define _GNU_SOURCE 1

#include <elf.h>
#include <errno.h>
#include <link.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "profile-format.h"
#include "profile.h"
#include "runtime.h"
#include "segment.h"
#include "sys.h"
#include "trace.h"

/* Nonzero while one thread writes a profile or a dlclose record; a
   second writer (another thread, or a signal arriving during the
   write) gives up (pcrt_try_busy).  */
static int busy;

/* The process whose profile was written for a fatal signal: nothing is
   written after that.  */
static long final_pid;

/* The pid of the process that last asked for a child that shares its
   memory (clone with CLONE_VM but not CLONE_THREAD: vfork,
   posix_spawn), or 0 when its last child was an ordinary fork.  A
   process whose pid differs is that child.  */
static long vm_clone_parent;

/* Some loaded object has the exit_group system call hooked
   (PC_SEGMENT_F_EXIT_HOOK): the hook writes the profile at exit.  */
static bool exit_hooked;

/* Some loaded object is poisoned (PC_SEGMENT_F_POISONED): its jumps
   note themselves in JUMP_NOTE, and a fatal signal at an address that
   is not code is explained (explain_poison_trap).  With threads, the
   note is the last any thread wrote.  */
static bool poisoned;
static struct pc_jump_note jump_note;

/* Some profiled object is loaded: the runtime has work to do.  */
static bool active;

/* The environment and the program's name, from the constructor.  */
static char *const *env;
static const char *program_name;

/* The memory page size, from the auxiliary vector.  */
static size_t page_size = 4096;

/* Fill the slots of the profcopy segment of every loaded object that
   does not have them yet: the syscall hook of every object, the probe
   routines of the objects rewritten with --calls.  Done when the
   dynamic linker's list of objects changed since the last call (always
   the first time).  No libc call, no lock.  */

static unsigned slots_objects_seen;

void
pcrt_fill_probe_slots (void)
{
  unsigned n = 0;

  for (const struct link_map *l = pcrt_objects (); l != NULL; l = l->l_next)
    n++;
  if (n == __atomic_load_n (&slots_objects_seen, __ATOMIC_RELAXED))
    return;
  __atomic_store_n (&slots_objects_seen, n, __ATOMIC_RELAXED);
  for (const struct link_map *l = pcrt_objects (); l != NULL; l = l->l_next)
    {
      const ElfW (Phdr) *phdr;
      size_t phnum;
      const struct pc_segment_header *ch;
      struct pc_segment_header *h;

      if (!pcrt_phdrs (l->l_addr, &phdr, &phnum)
	  || (ch = pcrt_find_header (l->l_addr, phdr, phnum)) == NULL)
	continue;
      /* Its segment is writable.  */
      h = (struct pc_segment_header *) (uintptr_t) ch;
      if (h->syscall_hook == 0)
	h->syscall_hook = (uint32_t) (uintptr_t) profcopy_syscall_hook;
      if (h->flags & PC_SEGMENT_F_POISONED)
	{
	  poisoned = true;
	  if (h->jump_note == 0)
	    h->jump_note = (uint32_t) (uintptr_t) &jump_note;
	}
      if ((h->flags & PC_SEGMENT_F_CALLS) && h->probe_enter == 0)
	{
	  h->probe_enter = (uint32_t) (uintptr_t) pcrt_trace_enter;
	  h->probe_exit = (uint32_t) (uintptr_t) pcrt_trace_exit;
	}
    }
}

/* The auxiliary vector's value for TYPE, from AUXV, or 0.  */

static uintptr_t
aux_value (const ElfW (auxv_t) *auxv, uintptr_t type)
{
  for (; auxv != NULL && auxv->a_type != AT_NULL; auxv++)
    if (auxv->a_type == type)
      return auxv->a_un.a_val;
  return 0;
}

ElfW (auxv_t) *
pcrt_auxv_after (char *const *envp)
{
  while (*envp != NULL)
    envp++;
  return (ElfW (auxv_t) *) (envp + 1);
}

/* True in a child that shares its parent's memory (see
   vm_clone_parent): its counts are its parent's.  */

static bool
in_vm_child (long pid)
{
  long parent = __atomic_load_n (&vm_clone_parent, __ATOMIC_RELAXED);

  return parent != 0 && parent != pid;
}

void
pcrt_write_profile (unsigned reason, int signo)
{
  struct snapshot *s;
  long pid;

  if (!active || !pcrt_try_busy ())
    return;
  /* First of all, so that the counts are those of this moment.  */
  s = pcrt_snapshot ();
  pid = sys_getpid ();
  if (final_pid != pid && !in_vm_child (pid)
      && pcrt_write_file (pid, reason, signo, s)
      && reason == PCPROF_REASON_SIGNAL)
    final_pid = pid;
  pcrt_snapshot_free (s);
  pcrt_end_busy ();
}

/* The syscall hook (hook.S): the rewritten code is about to make
   system call NR with the arguments A0, A1 and A2.  */

#ifndef CLONE_VM
#define CLONE_VM 0x00000100
#endif
#ifndef CLONE_THREAD
#define CLONE_THREAD 0x00010000
#endif

PCRT_HIDDEN void pcrt_syscall_hook (long nr, long a0, long a1, long a2);

void
pcrt_syscall_hook (long nr, long a0, long a1, long a2)
{
  uint64_t flags;

  (void) a1;
  (void) a2;
  switch (nr)
    {
    case __NR_exit_group:
      pcrt_trace_flush ();
      pcrt_write_profile (PCPROF_REASON_EXIT, 0);
      break;
    case __NR_execve:
#ifdef __NR_execveat
    case __NR_execveat:
#endif
      pcrt_trace_flush ();
      pcrt_write_profile (PCPROF_REASON_EXEC, 0);
      break;
    case __NR_fork:
      __atomic_store_n (&vm_clone_parent, 0, __ATOMIC_RELAXED);
      pcrt_trace_fork ();
      break;
    case __NR_clone:
#ifdef __NR_clone3
    case __NR_clone3:
#endif
      flags = (uint32_t) a0;
#ifdef __NR_clone3
      if (nr == __NR_clone3)
	{
	  if (a0 == 0)
	    break;
	  rt_memcpy (&flags, (const void *) a0, sizeof flags);
	}
#endif
      if (flags & CLONE_THREAD)
	break;
      __atomic_store_n (&vm_clone_parent,
			(flags & CLONE_VM) ? sys_getpid () : 0,
			__ATOMIC_RELAXED);
      if (!(flags & CLONE_VM))
	pcrt_trace_fork ();
      break;
#ifdef PCRT_STATIC
    case __NR_sigaction:
    case __NR_rt_sigaction:
      pcrt_give_signal ((int) a0);
      break;
#endif
    default:
      break;
    }
}

/* The object of the link map with ADDR in one of its PT_LOAD segments
   (an executable one, with EXEC), or NULL.  No libc call.  */

static const struct link_map *
object_at (uintptr_t addr, bool exec)
{
  for (const struct link_map *l = pcrt_objects (); l != NULL; l = l->l_next)
    {
      const ElfW (Phdr) *phdr;
      size_t phnum;

      if (!pcrt_phdrs (l->l_addr, &phdr, &phnum))
	continue;
      for (size_t i = 0; i < phnum; i++)
	if (phdr[i].p_type == PT_LOAD && (!exec || (phdr[i].p_flags & PF_X))
	    && addr - (l->l_addr + phdr[i].p_vaddr) < phdr[i].p_memsz)
	  return l;
    }
  return NULL;
}

/* The name of the object L for a message: the original's, if L is a
   profiled copy, else its own.  */

static const char *
object_name (const struct link_map *l)
{
  const ElfW (Phdr) *phdr;
  size_t phnum;
  const struct pc_segment_header *h;

  if (pcrt_phdrs (l->l_addr, &phdr, &phnum)
      && (h = pcrt_find_header (l->l_addr, phdr, phnum)) != NULL)
    return (const char *) (l->l_addr + h->path);
  if (l->l_name != NULL && l->l_name[0] != '\0')
    return l->l_name;
  return program_name != NULL ? program_name : "the program";
}

/* The program counter in the kernel's ucontext that a handler with
   SA_SIGINFO gets (asm/ucontext.h and asm/sigcontext.h of o32 MIPS:
   uc_mcontext 24 bytes in, its 64-bit sc_pc 8 bytes into that).  */

static uint32_t
context_pc (const void *context)
{
  uint64_t pc;

  rt_memcpy (&pc, (const char *) context + 32, sizeof pc);
  return (uint32_t) pc;
}

/* In a process with a poisoned object, say why the signal SIGNO came
   when it came at an address that is not code: the poisoned original
   code of a profiled object, or no executable segment of any object
   (data, or nothing mapped).  The message names the last indirect
   jump, call or return noted, which is the one that went there unless
   a direct branch did (or another thread jumped since).  */

static void
explain_poison_trap (int signo, const void *context)
{
  uint32_t pc = context_pc (context);
  char pc_hex[11], link_hex[11], jump_hex[11];
  const char *where = "which is not code", *where_obj = "";
  const char *jump_obj;
  const struct link_map *l;

  if (signo != SIGTRAP && signo != SIGILL && signo != SIGSEGV
      && signo != SIGBUS)
    return;
  rt_format_hex (pc_hex, pc);
  link_hex[0] = '\0';
  for (l = pcrt_objects (); l != NULL; l = l->l_next)
    {
      const ElfW (Phdr) *phdr;
      size_t phnum;
      const struct pc_segment_header *h;

      if (pcrt_phdrs (l->l_addr, &phdr, &phnum)
	  && (h = pcrt_find_header (l->l_addr, phdr, phnum)) != NULL
	  && (h->flags & PC_SEGMENT_F_POISONED)
	  && pc - l->l_addr >= h->text_start && pc - l->l_addr < h->text_end)
	{
	  rt_format_hex (link_hex, (uint32_t) (pc - l->l_addr));
	  where = "the poisoned original code at ";
	  where_obj = object_name (l);
	  break;
	}
    }
  if (l == NULL)
    {
      if (object_at (pc, true) != NULL)
	return;
      /* Data of some object, or nothing mapped.  */
      l = object_at (pc, false);
      if (l != NULL)
	{
	  rt_format_hex (link_hex, (uint32_t) (pc - l->l_addr));
	  where = "which is not code: ";
	  where_obj = object_name (l);
	}
    }
  if (jump_note.at == 0)
    {
      const char *parts[] = { "--poison-original: ", pc_hex, " was reached, ",
			      where, link_hex[0] != '\0' ? link_hex : "",
			      where_obj[0] != '\0' ? " of " : "", where_obj,
			      ", and no indirect jump, call or return was"
			      " noted before: a branch went there", NULL };
      rt_say (parts);
      return;
    }
  rt_format_hex (jump_hex, jump_note.jump);
  l = object_at (jump_note.at, true);
  jump_obj = l != NULL ? object_name (l) : "an unknown object";
  {
    const char *parts[] = { "--poison-original: the jump at ", jump_hex,
			    " of ", jump_obj, " went to ", pc_hex, ", ",
			    where, link_hex[0] != '\0' ? link_hex : "",
			    where_obj[0] != '\0' ? " of " : "", where_obj,
			    NULL };
    rt_say (parts);
  }
}

/* The handler of the signals the runtime writes the profile for: write
   it, then let signal SIGNO do what it would have done without the
   runtime.  SA_RESETHAND has restored the default action already and
   SA_NODEFER lets the signal sent again through at once; a fault
   repeats when the handler returns.  */

static void
signal_handler (int signo, siginfo_t *info, void *context)
{
  (void) info;
  if (poisoned)
    explain_poison_trap (signo, context);
  pcrt_trace_flush ();
  pcrt_write_profile (PCPROF_REASON_SIGNAL, signo);
  sys_tgkill (sys_getpid (), sys_gettid (), signo);
}

/* Write the profile at exit when no system call of the process is
   hooked (libc was not rewritten).  */

static void
exit_handler (void *unused)
{
  (void) unused;
  pcrt_trace_flush ();
  pcrt_write_profile (PCPROF_REASON_EXIT, 0);
}

/* Set when the profile is written by this object's destructor
   (pcrt_fini) rather than by an exit handler: under musl, whose exit
   runs the atexit handlers first and the destructors after them (the
   program's _fini and fini arrays, __libc_exit_fini), so that an exit
   handler would miss every destructor's counts.  This object is the
   profiled program's first DT_NEEDED entry (or preloaded), which musl
   initializes first and so finalizes last, after every other object
   that was loaded at start-up.  */
static bool write_at_fini;

#ifndef PCRT_STATIC
static void __attribute__ ((destructor))
pcrt_fini (void)
{
  if (write_at_fini)
    exit_handler (NULL);
}
#endif

/* The base name of PATH.  */

static const char *
base_name (const char *path)
{
  const char *b = path;

  if (path == NULL)
    return NULL;
  for (const char *p = path; *p != '\0'; p++)
    if (*p == '/')
      b = p + 1;
  return b;
}

/* musl's name of the program (glibc has it too), weak.  */
extern char *program_invocation_short_name __attribute__ ((weak));

/* The constructor.  glibc passes init functions the program's
   arguments and environment; musl passes nothing, but has set environ
   and program_invocation_short_name by then.  The auxiliary vector
   follows the environment on the initial stack.  In a process without
   profiled objects it does nothing.  */

#ifndef PCRT_STATIC
static void __attribute__ ((constructor))
pcrt_init (int argc, char **argv, char **envp)
{
  if (!pcrt_glibc_loader ())
    {
      argc = 0;
      argv = NULL;
      envp = NULL;
    }
  pcrt_start (argc, argv, envp);
}
#endif

void
pcrt_start (int argc, char **argv, char **envp)
{
  const ElfW (auxv_t) *auxv = NULL;

  env = envp != NULL ? envp : PCRT_WEAK_PRESENT (environ) ? environ : NULL;
  if (env != NULL)
    auxv = pcrt_auxv_after (env);
  program_name = argc > 0 && argv != NULL ? base_name (argv[0])
		 : PCRT_WEAK_PRESENT (program_invocation_short_name)
		 ? program_invocation_short_name : NULL;
  if (aux_value (auxv, AT_PAGESZ) != 0)
    page_size = aux_value (auxv, AT_PAGESZ);
  if (!pcrt_note_objects ((const ElfW (Phdr) *) aux_value (auxv, AT_PHDR),
			  aux_value (auxv, AT_PHNUM), &exit_hooked))
    return;
  active = true;
  pcrt_note_program_file ((const char *) aux_value (auxv, AT_EXECFN));
  pcrt_writer_init (env);
  pcrt_fill_probe_slots ();
  pcrt_watch_folded_objects (rt_setting ("PROFCOPY_TEST_CARRY"));
  pcrt_take_signals (signal_handler);
  /* With the exit hooked, the profile is written at exit_group, and
     the exec functions go on to libc's, found when first called
     (pcrt_exec_resolve).  */
  if (!exit_hooked)
    {
      if (!pcrt_glibc_loader ())
	write_at_fini = true;
      else
	pcrt_cxa_atexit (exit_handler, NULL);
    }
}

bool
pcrt_exit_hooked (void)
{
  return exit_hooked;
}

char *const *
pcrt_environment (void)
{
  return env != NULL ? env : PCRT_WEAK_PRESENT (environ) ? environ : NULL;
}

const char *
pcrt_program_name (void)
{
  return program_name;
}

bool
pcrt_active (void)
{
  return active;
}

size_t
pcrt_page_size (void)
{
  return page_size;
}

bool
pcrt_try_busy (void)
{
  return __atomic_exchange_n (&busy, 1, __ATOMIC_ACQUIRE) == 0;
}

void
pcrt_end_busy (void)
{
  __atomic_store_n (&busy, 0, __ATOMIC_RELEASE);
}

/* The handle of this object for __cxa_atexit and pthread_atfork
   (crtbeginS.o, which would define it, is left out).  */
PCRT_HIDDEN void *__dso_handle = &__dso_handle;
