/* static-entry.h -- the words at the start of the static runtime's
   entry (runtime/static-entry.S) that profcopy fills
   (profcopy/static-runtime.c).  Macros only: the assembler reads it.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_STATIC_ENTRY_H
#define PROFCOPY_STATIC_ENTRY_H

/* Byte offsets from the entry, after its first two instructions (a
   branch over the words and its delay slot).  Addresses are as
   profcopy placed the program and the runtime (a static PIE's load
   bias is added at run time).  */
#define STATIC_NEXT_ENTRY 8	/* The copy of the program's entry.  */
#define STATIC_PHDR 12		/* The program headers to show.  */
#define STATIC_PHNUM 16		/* Their number, 0 for none.  */
#define STATIC_EHDR 20		/* The ELF header, all ones for none.  */
#define STATIC_GP 24		/* The runtime's gp.  */
/* Two runs of words that hold addresses, each its first word's address
   and its number of words, which the entry moves by the load bias: the
   runtime's local GOT entries that move, then the program's new GOT
   entries (none but in a static PIE).  */
#define STATIC_GOT 28		/* The runtime's first moving GOT entry.  */
#define STATIC_GOT_N 32		/* How many.  */
#define STATIC_PROG_GOT 36	/* The program's first new GOT entry.  */
#define STATIC_PROG_GOT_N 40	/* How many.  */
#define STATIC_N_REL 44		/* Words of the runtime's R_MIPS_REL32.  */
#define STATIC_REL 48		/* Their addresses.  */
#define STATIC_MAX_REL 8	/* Room for that many.  */

/* The entry walks the two runs as (address, count) pairs, one after
   the other.  */
#if STATIC_GOT_N != STATIC_GOT + 4 || STATIC_PROG_GOT != STATIC_GOT + 8 \
    || STATIC_PROG_GOT_N != STATIC_GOT + 12
#error "the two runs of GOT entries must be adjacent (address, count) pairs"
#endif

/* The bytes of it all: the code follows.  */
#define STATIC_ENTRY_SIZE (STATIC_REL + 4 * STATIC_MAX_REL)

#endif /* PROFCOPY_STATIC_ENTRY_H */
