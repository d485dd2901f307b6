/* reloc-table.h -- the relocation information table.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   One entry per place in an object that holds or computes a text
   address (the seed patent's FIG. 6: type, address, information).  The
   rewriter applies every entry so that all code addresses lead into the
   profiled text; --dump-relocs prints the table.  */

#ifndef PROFCOPY_RELOC_TABLE_H
#define PROFCOPY_RELOC_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mips_object;
struct code;

/* Entry types, in the order --dump-relocs prints them.  */
enum reloc_type
{
  RELOC_PROLOGUE,		/* lui gp / addiu gp,gp / addu gp,gp,t9|ra,
				   or LLVM's in any register.  */
  RELOC_DATA,			/* A text address held in data.  */
  RELOC_GOT_REF,		/* lw x,off(gp) ... addiu y,x,lo.  */
  RELOC_GOT,			/* A local GOT slot holding a text address.  */
  RELOC_JUMP_TABLE,		/* One entry of a switch table.  */
  RELOC_HI_LO,			/* Non-PIC lui x,%hi ... addiu y,x,%lo.  */
  RELOC_SYMBOL,			/* A .symtab or .dynsym value.  */
  RELOC_ENTRY,			/* e_entry.  */
  RELOC_INIT,			/* DT_INIT.  */
  RELOC_FINI,			/* DT_FINI.  */
  RELOC_FDE,			/* An .eh_frame FDE's pc_begin.  */
  RELOC_N_TYPES
};

/* How an entry was found, where a type has several ways.  */
enum reloc_via
{
  VIA_NONE,
  VIA_T9,			/* Prologue computed from t9.  */
  VIA_RA,			/* Prologue computed from ra (bal form).  */
  VIA_REL32,			/* Data word with an R_MIPS_REL32.  */
  VIA_SCAN,			/* Data word found by scanning.  */
  VIA_ARRAY,			/* Init/fini array word without relocation.  */
  VIA_GPREL,			/* Jump table of gp-relative words.  */
  VIA_ABS,			/* Jump table of absolute words.  */
  VIA_LABEL,			/* Jump table of offsets from a code label.  */
  VIA_SYMTAB,
  VIA_DYNSYM
};

struct reloc_entry
{
  uint32_t addr;		/* Where: instruction, data word or symbol.  */
  uint32_t target;		/* The text address it holds or computes.  */
  uint32_t info;		/* Type-dependent: see reloc_table_print.  */
  uint32_t aux;			/* Second instruction (addiu) or table base.  */
  uint32_t aux2;		/* GOT slot contents, jr address, pc_end.  */
  uint32_t index;		/* Symbol index; a gp-relative switch table's
				   entry: the addu of gp.  */
  uint32_t base;		/* VIA_LABEL: the label the offsets start at;
				   VIA_GPREL: the gp they are from.  */
  const char *name;		/* Symbol name.  */
  uint8_t type;			/* enum reloc_type.  */
  uint8_t via;			/* enum reloc_via.  */
  uint8_t flags;		/* RELOC_F_*.  */
};

/* A RELOC_DATA word that is also an entry of a switch table (the
   table's own relocation, in a position-independent object): the
   table's jumps are what reads it, so its target is a case label, not
   a function.  */
#define RELOC_F_TABLE_SLOT	0x01

/* A RELOC_JUMP_TABLE entry of a table whose number of entries no check
   of the index proves: the entries found are those a scan of the table
   finds, and the table's jump may meet others, which the rewriter
   translates at run time (plan/got.c, plan_translations).  */
#define RELOC_F_UNPROVEN	0x02

/* A RELOC_JUMP_TABLE entry of a table whose number of entries no check
   proves, but whose scan ended at a word that leads into no code (or
   at the next table, or at the end of the data): the program cannot
   read past it, so the entries found are all (used as proven ones;
   only --dump-relocs tells them apart).  */
#define RELOC_F_CLOSED	0x04

struct reloc_table
{
  struct reloc_entry *entries;
  size_t n_entries, alloc;
  size_t n_by_type[RELOC_N_TYPES];
  /* Fixed-address executables: the code addresses that code uses as
     values (stores, compares, passes on), not only as the target of an
     indirect jump or call (find_code_refs); sorted by the data scan.  */
  uint32_t *values;
  size_t n_values, alloc_values;
  /* The loads and stores whose base register holds this object's gp
     though it is not gp, and the addus that add such a register to
     another: LLVM's prologue puts gp in any register (find_code_refs);
     each the address << 8 | the register, sorted.  */
  uint64_t *gp_bases;
  size_t n_gp_bases, alloc_gp_bases;
  /* Code addresses that code may make of a GOT page and %lo where the
     copy cannot be sure and leaves the page plus %lo as it is: their
     functions may be entered through the run-time translation from
     anywhere (find_narrowable).  */
  uint32_t *unsure;
  size_t n_unsure, alloc_unsure;
  /* The object's gp, and where its code uses another: a multi-GOT
     object's functions that set gp to a secondary GOT's (gp-regions.c),
     each region its start << 32 | its gp, sorted.  */
  uint32_t gp;
  uint64_t *gp_regions;
  size_t n_gp_regions;
  /* A gp prologue of a multi-GOT object whose GOT cannot be told
     (find_prologues), or 0.  */
  uint32_t bad_prologue;
};

/* Build the relocation information table of OBJ, whose executable
   sections are decoded in CODE.  False with *ERRMSG on failure.  */
bool reloc_table_build (const struct mips_object *obj, const struct code *code,
			struct reloc_table *table, char **errmsg);

void reloc_table_free (struct reloc_table *table);

/* Add ADDR to TABLE's unsure code addresses.  False on allocation
   failure.  */
bool reloc_table_add_unsure (struct reloc_table *table, uint32_t addr);

/* The register of the instruction at ADDR that holds gp though it is
   not gp (struct reloc_table, gp_bases), or 0.  */
unsigned reloc_table_gp_base (const struct reloc_table *table,
			      uint32_t addr);

/* Whether REG (not zero) is the register of the instruction at ADDR
   that holds gp (reloc_table_gp_base).  */
static inline bool
reloc_table_holds_gp (const struct reloc_table *table, uint32_t addr,
		      unsigned reg)
{
  return reg != 0 && reloc_table_gp_base (table, addr) == reg;
}

/* The gp that the code at ADDR uses: the object's, or a secondary
   GOT's (struct reloc_table, gp_regions).  */
uint32_t reloc_table_gp_at (const struct reloc_table *table, uint32_t addr);

/* The name --dump-relocs uses for TYPE.  */
const char *reloc_type_name (enum reloc_type type);

#endif /* PROFCOPY_RELOC_TABLE_H */
