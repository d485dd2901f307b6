/* object-int.h -- private helpers shared by the bfd-plugin object readers.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   Nothing here is part of the interface of object.h: these are the
   bounds-checked readers and the per-part parsers that object_open
   calls in turn (dynamic.c, symbols.c, ehframe.c), the steps of
   object.c that object_open_debug (debug-file.c) takes again for a
   separate debug file, and the light loader that libsearch.c uses to
   read the dynamic section of a candidate library without the rest of
   the analysis.  */

#ifndef PROFCOPY_OBJECT_INT_H
#define PROFCOPY_OBJECT_INT_H

#include <stdarg.h>
#include "object.h"

/* MIPS ELF values that glibc's <elf.h> does not define.  */
#define OBJ_EF_MIPS_ABI			0x0000f000
#define OBJ_E_MIPS_ABI_O32		0x00001000
#define OBJ_E_MIPS_ABI_O64		0x00002000
#define OBJ_E_MIPS_ABI_EABI32		0x00003000
#define OBJ_E_MIPS_ABI_EABI64		0x00004000
#define OBJ_EF_MIPS_ARCH_ASE_M16	0x04000000
#define OBJ_EF_MIPS_ARCH_ASE_MICROMIPS	0x02000000
#define OBJ_SHT_MIPS_ABIFLAGS		0x7000002a
#define OBJ_ABIFLAGS_ASE_MIPS16		0x00000400
#define OBJ_ABIFLAGS_ASE_MICROMIPS	0x00000800
#define OBJ_STO_MIPS16_MASK		0xf0
#define OBJ_STO_MIPS16			0xf0
#define OBJ_STO_MIPS_ISA		0xc0
#define OBJ_STO_MICROMIPS		0x80

/* How much of an object object_open_1 reads.  */
enum object_open_level
{
  /* Header checks, segments, sections and the dynamic section: enough
     for the library search to follow DT_NEEDED.  */
  OBJECT_OPEN_DYNAMIC,
  /* Everything object.h promises but the BFD (object-bfd.c opens
     that).  */
  OBJECT_OPEN_FULL
};

/* Set the GOT range, the primary GOT's size, the secondary GOTs' index
   and $gp of OBJ (got.c).  False with *ERRMSG when the dynamic section's
   GOT counts do not fit the GOT it has, or out of memory.  */
bool object_find_got (struct mips_object *obj, char **errmsg);

/* The worker behind object_open and object_read; see object.h.  */
bool object_open_1 (const char *path, struct mips_object *obj,
		    enum object_open_level level, char **errmsg);

/* Steps of object_open_1 (object.c) that object_open_debug
   (debug-file.c) takes too.  */

/* Read the whole of PATH into OBJ->image.  */
bool object_read_file (const char *path, struct mips_object *obj,
		       char **errmsg);

/* Check the ELF header of OBJ and fill the header fields.  */
bool object_check_header (struct mips_object *obj, char **errmsg);

/* Convert the section header table of OBJ and name the sections.  */
bool object_read_sections (struct mips_object *obj, char **errmsg);

/* Set OBJ->build_id from its PT_NOTE segments, else its note sections.  */
void object_read_build_id (struct mips_object *obj);

/* Set *ERRMSG to a malloc'd string made from FMT and return false, so
   that a parser can say "return object_error (errmsg, ...);".  *ERRMSG
   must start out NULL; if a reason is already there it is kept, being
   the more precise one.  */
bool object_error (char **errmsg, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));

/* True if the LEN bytes at file offset OFF lie inside OBJ's image.  */
static inline bool
object_range_ok (const struct mips_object *obj, size_t off, size_t len)
{
  return off <= obj->size && len <= obj->size - off;
}

/* True if the string at offset OFF of the LEN-byte table TABLE is
   NUL-terminated inside the table.  */
bool object_string_ok (const unsigned char *table, size_t len, size_t off);

/* Map the link-time address VADDR to a file offset through the PT_LOAD
   segments of OBJ, requiring LEN file-backed bytes.  False if none.  */
bool object_vaddr_to_offset (const struct mips_object *obj, uint32_t vaddr,
			     uint32_t len, size_t *offset);

/* Parse the PT_DYNAMIC segment into OBJ->dyn.  */
bool object_read_dynamic (struct mips_object *obj, char **errmsg);

/* Read the dynamic relocations (DT_REL, else .rel.dyn) into
   OBJ->dynrelocs.  */
bool object_read_dynrelocs (struct mips_object *obj, char **errmsg);

/* Read .symtab and .dynsym into OBJ->symbols.  */
bool object_read_symbols (struct mips_object *obj, char **errmsg);

/* Parse .eh_frame into OBJ->fdes, sorted by pc_begin.  */
bool object_read_eh_frame (struct mips_object *obj, char **errmsg);

#endif /* PROFCOPY_OBJECT_INT_H */
