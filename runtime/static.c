/* static.c -- the start of the runtime inside a static executable.
   Part of libprofcopy-static.so.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   A static executable has no dynamic linker to load libprofcopy.so and
   run its constructor.  profcopy places the segments of this flavour
   of the runtime (built with PCRT_STATIC) after the copy's own, applies
   its relocations for the address it chose (the entry moves them by the
   load bias of a static PIE), and makes its entry (static-entry.S) the
   copy's: the entry calls pcrt_static_start with
   the initial stack, then goes on to the copy of the program's own
   entry.  The program is then the one object of the process
   (objects.c); the system call hook and the signal handlers write the
   profile as they do for a dynamic program.  What needs the dynamic
   linker does nothing here: call traces (profcopy refuses --calls for
   a static program), libc's exit handlers and fork handlers (the exit
   is hooked: profcopy counts libc with the program), dlclose.  */

#define _GNU_SOURCE 1

#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <sys/mman.h>

#include "profile.h"
#include "runtime.h"
#include "trace.h"

PCRT_HIDDEN void pcrt_static_start (long *sp, uintptr_t phdr,
				    uintptr_t phnum, uintptr_t ehdr,
				    uintptr_t bias);

/* glibc's static start-up takes the program headers from the ELF
   header that the first segment maps (__ehdr_start), not from the
   auxiliary vector: give the one at EHDR the table to show, PHDR and
   PHNUM (the original's, or the copy of it that finds the copy's
   unwind tables), for as long as it takes to write it (the page is
   the program's code, read-only again after).  */

static void
original_header (ElfW (Ehdr) *ehdr, uintptr_t phdr, uintptr_t phnum)
{
  uintptr_t page = (uintptr_t) ehdr & ~(uintptr_t) (pcrt_page_size () - 1);
  size_t len = (uintptr_t) (ehdr + 1) - page;

  if (phdr < (uintptr_t) ehdr
      || RAW_SYSCALL4 (__NR_mprotect, page, len, PROT_READ | PROT_WRITE, 0)
	 != 0)
    return;
  ehdr->e_phoff = (ElfW (Off)) (phdr - (uintptr_t) ehdr);
  ehdr->e_phnum = (ElfW (Half)) phnum;
  RAW_SYSCALL4 (__NR_mprotect, page, len, PROT_READ | PROT_EXEC, 0);
}

/* SP is the initial stack: argc, the arguments and a null pointer, the
   environment and a null pointer, the auxiliary vector.  BIAS is the
   program's load bias (0 but for a static PIE); PHDR and EHDR are
   link-time addresses.  PHNUM, when not 0, is the number of entries of
   the original's program header table at PHDR, which stays where the
   original has it, or of profcopy's copy of it that finds the copy's
   unwind tables (emit/segment.c, show_phdrs).  Once the runtime has
   noted the copy's table, the auxiliary vector gives the program that
   one: a static libc reads its own program headers at start-up (TLS,
   the stack's permissions, dl_iterate_phdr) and the copy's four more
   would run its loops over them more often than the original's do.
   The kernel's copy of the vector (/proc/self/auxv) stays as it is.
   EHDR is that of the ELF header in memory, or all ones for none.  */

void
pcrt_static_start (long *sp, uintptr_t phdr, uintptr_t phnum, uintptr_t ehdr,
		   uintptr_t bias)
{
  int argc = (int) sp[0];
  char **argv = (char **) (sp + 1);
  char **envp = argv + argc + 1;

  pcrt_static_bias (bias);
  pcrt_start (argc, argv, envp);
  if (phnum == 0)
    return;
  phdr += bias;
  for (ElfW (auxv_t) *auxv = pcrt_auxv_after (envp); auxv->a_type != AT_NULL;
       auxv++)
    if (auxv->a_type == AT_PHDR)
      auxv->a_un.a_val = phdr;
    else if (auxv->a_type == AT_PHNUM)
      auxv->a_un.a_val = phnum;
  if (ehdr != UINTPTR_MAX)
    original_header ((ElfW (Ehdr) *) (ehdr + bias), phdr, phnum);
}

void
pcrt_trace_enter (uint32_t func, uint32_t site)
{
  (void) func;
  (void) site;
}

void
pcrt_trace_exit (uint32_t func, uint32_t site)
{
  (void) func;
  (void) site;
}

void
pcrt_trace_flush (void)
{
}

void
pcrt_trace_fork (void)
{
}

uintptr_t
pcrt_next_definition (const char *name)
{
  (void) name;
  return 0;
}

int
pcrt_cxa_atexit (void (*fn) (void *), void *arg)
{
  (void) fn;
  (void) arg;
  return -1;
}

int
pcrt_atfork (void (*prepare) (void), void (*parent) (void),
	     void (*child) (void))
{
  (void) prepare;
  (void) parent;
  (void) child;
  return -1;
}
