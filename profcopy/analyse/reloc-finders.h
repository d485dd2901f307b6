/* reloc-finders.h -- shared by the files that build the relocation
   information table.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_RELOC_FINDERS_H
#define PROFCOPY_RELOC_FINDERS_H

#include "reloc-table.h"

struct object_symbol;

/* Append a copy of ENTRY to TABLE.  False on allocation failure.  */
bool reloc_table_add (struct reloc_table *table,
		      const struct reloc_entry *entry);

/* Record in TABLE that code uses the code address ADDR as a value.
   False on allocation failure.  */
bool reloc_table_add_value (struct reloc_table *table, uint32_t addr);

/* The .dynsym symbol with index INDEX, or NULL.  */
const struct object_symbol *reloc_dynsym (const struct mips_object *obj,
					  uint32_t index);

/* GOT references, jump tables, GOT slots used as code pointers and
   non-PIC lui/addiu pairs, found by following registers (got-ref.c).  */
bool find_code_refs (const struct mips_object *obj, const struct code *code,
		     struct reloc_table *table);

/* The gp regions of a multi-GOT object, from TABLE's prologues, FDEs
   and entries and OBJ's function symbols (gp-regions.c); also sets
   TABLE's gp.  False on allocation failure.  */
bool find_gp_regions (const struct mips_object *obj, const struct code *code,
		      struct reloc_table *table);

#endif /* PROFCOPY_RELOC_FINDERS_H */
