/* object.h -- a MIPS o32 ELF object loaded for analysis.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   One struct mips_object holds everything the later passes need to know
   about one executable or shared object: the raw file image, its
   sections and segments, the dynamic section, symbols, dynamic
   relocations and .eh_frame FDE ranges.  The file is identified with
   BFD; the ELF structures are read from the image directly, with every
   offset checked against the file size, so that a malformed file gives
   an error and never a crash.  All addresses are link-time virtual
   addresses (ELF32, so 32 bits).  */

#ifndef PROFCOPY_OBJECT_H
#define PROFCOPY_OBJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One section header, converted to host order.  */
struct object_section
{
  const char *name;		/* Points into the image's .shstrtab.  */
  unsigned index;		/* Index in the section header table.  */
  uint32_t type, flags, addr, offset, size, entsize, link, info, align;
};

/* One program header, converted to host order.  */
struct object_segment
{
  uint32_t type, offset, vaddr, paddr, filesz, memsz, flags, align;
};

/* One symbol of .symtab or .dynsym.  */
struct object_symbol
{
  const char *name;		/* Points into the image's string table.  */
  uint32_t value, size;
  unsigned char type;		/* STT_*.  */
  unsigned char bind;		/* STB_*.  */
  unsigned char other;		/* st_other (visibility, STO_MIPS16...).  */
  uint16_t shndx;
  bool dynamic;			/* From .dynsym rather than .symtab.  */
  bool hidden_version;		/* .dynsym: a version other than the
				   default (.gnu.version's hidden bit:
				   cfree@GLIBC_2.0 beside free@@GLIBC_2.0).  */
  uint32_t index;		/* Index within its own table.  */
  uint32_t value_offset;	/* File offset of the st_value field.  */
};

/* One dynamic relocation (.rel.dyn; MIPS o32 uses REL, not RELA).  */
struct object_dynreloc
{
  uint32_t offset;		/* r_offset: the address relocated.  */
  uint32_t type;		/* R_MIPS_*.  */
  uint32_t sym;			/* .dynsym index, 0 for none.  */
};

/* The code range one .eh_frame FDE covers.  */
struct object_fde
{
  uint32_t pc_begin, pc_end;
  uint32_t field_addr;		/* Address of the encoded pc_begin field.  */
  unsigned char encoding;	/* DW_EH_PE_* of pc_begin.  */
};

/* What the dynamic section says.  Absent tags are 0 (or NULL).  */
struct object_dynamic
{
  bool present;			/* The object has a PT_DYNAMIC.  */
  const char **needed;		/* DT_NEEDED names, in order.  */
  size_t n_needed;
  const char *soname, *rpath, *runpath;
  uint32_t pltgot, local_gotno, gotsym, symtabno, base_address;
  uint32_t init, fini;
  uint32_t init_array, init_arraysz, fini_array, fini_arraysz;
  uint32_t preinit_array, preinit_arraysz;
  uint32_t rel, relsz, symtab, strtab, strsz, hash, gnu_hash, flags, flags_1;
};

struct mips_object
{
  char *path;			/* As given to object_open.  */
  unsigned char *image;		/* The whole file.  */
  size_t size;
  bool mapped;			/* IMAGE is mapped, not read (munmap).  */
  /* The separate debug file whose .symtab object_add_debug_symbols
     added to SYMBOLS (their names point into it), or NULL.  */
  unsigned char *debug_image;
  size_t debug_size;
  bool debug_mapped;
  bool big_endian;
  uint16_t e_type;		/* ET_EXEC or ET_DYN.  */
  uint32_t e_entry, e_flags, e_phoff, e_shoff;
  bool pie;			/* ET_DYN with DF_1_PIE, or with PT_INTERP
				   and no DT_SONAME (libc.so.6 has a
				   PT_INTERP but is no PIE).  */
  bool static_exe;		/* ET_EXEC without PT_DYNAMIC (nor
				   PT_INTERP): a static executable.  */
  bool static_pie;		/* A PIE without PT_INTERP nor DT_NEEDED:
				   it relocates itself (musl's rcrt1.o).  */
  const char *interp;		/* PT_INTERP contents, or NULL.  */
  void *abfd;			/* The BFD (bfd *), kept open for libopcodes;
				   NULL from object_read.  */
  void (*close_abfd) (void *);	/* Closes ABFD (object-bfd.c).  */

  struct object_section *sections;
  size_t n_sections;
  struct object_segment *segments;
  size_t n_segments;
  struct object_dynamic dyn;

  /* .symtab symbols first, then .dynsym; index 0 of each table omitted.  */
  struct object_symbol *symbols;
  size_t n_symbols;
  struct object_dynreloc *dynrelocs;
  size_t n_dynrelocs;
  struct object_fde *fdes;	/* Sorted by pc_begin.  */
  size_t n_fdes;

  uint32_t got_addr, got_size;	/* The .got section (or DT_PLTGOT).  */
  uint32_t got_primary;		/* Bytes of .got from got_addr that are the
				   primary GOT (the one DT_PLTGOT names,
				   TLS entries included); the rest are
				   secondary GOTs (GNU ld's multi-GOT),
				   each with a gp of its own.  */
  uint64_t *got_relocs;		/* Secondary GOTs: their relocations,
				   each its offset << 32 | its index in
				   dynrelocs, sorted.  */
  size_t n_got_relocs;
  uint32_t *got_starts;		/* The secondary GOTs' addresses, sorted.  */
  size_t n_got_starts;
  uint32_t gp;			/* The value of $gp: _gp, else GOT + 0x7ff0.  */
  uint32_t build_id_len;
  const unsigned char *build_id; /* NT_GNU_BUILD_ID descriptor, or NULL.  */

  /* The allocated sections of nonzero size sorted by address, for the
     binary search of object_section_at.  */
  const struct object_section **alloc_by_addr;
  size_t n_alloc_by_addr;
};

/* Open PATH, check that it is a dynamically linked MIPS o32 ELF32
   executable or shared object, and fill *OBJ.  On failure return false
   and set *ERRMSG to a malloc'd sentence saying why (without the file
   name, which the caller prints first); *OBJ then owns nothing.  */
bool object_open (const char *path, struct mips_object *obj, char **errmsg);

/* The same without the BFD (abfd NULL): for a program that does not
   disassemble, which then need not link libbfd.  */
bool object_read (const char *path, struct mips_object *obj, char **errmsg);

/* The same for the SIZE bytes at DATA, the image of an object that is
   in memory already (the fuzzing harness's input); OBJ keeps a copy, and
   NAME as its path.  */
bool object_read_image (const char *name, const void *data, size_t size,
			struct mips_object *obj, char **errmsg);

/* Free everything OBJ owns.  */
void object_close (struct mips_object *obj);

/* The separate debug file of OBJ, as GDB finds one: by OBJ's build-id,
   DIR/.build-id/NN/NNNN....debug, then by its .gnu_debuglink name NAME
   (whose CRC-32 the file must have): next to OBJ, in .debug/ there,
   and DIR/OBJ's directory/NAME; DIR being SYSROOT/usr/lib/debug when
   SYSROOT is not NULL, then that of the sysroot OBJ's path suggests
   (what comes before /usr/lib/ or /lib/ in it), then /usr/lib/debug.
   A malloc'd path, or NULL if there is none.  */
char *object_find_debug_file (const struct mips_object *obj,
			      const char *sysroot);

/* Read the ELF header and the sections of PATH, a separate debug file
   of OBJ, into *DBG: a MIPS ELF32 file of OBJ's byte order whose
   build-id, when OBJ has one, is OBJ's.  False with *ERRMSG (and *DBG
   owning nothing) if it is not.  object_close frees *DBG.  */
bool object_open_debug (const struct mips_object *obj, const char *path,
			struct mips_object *dbg, char **errmsg);

/* Add to OBJ's symbols the .symtab of its separate debug file PATH
   (Debian's -dbg packages; objcopy --only-keep-debug), as .symtab
   symbols: a MIPS ELF32 file of OBJ's byte order whose build-id, when
   OBJ has one, is OBJ's.  False with *ERRMSG if it is not.  */
bool object_add_debug_symbols (struct mips_object *obj, const char *path,
			       char **errmsg);

/* The header of OBJ's profcopy segment (include/segment.h), if OBJ is
   a profiled copy: the first PT_LOAD whose bytes start with its magic,
   with room for the whole header in the file; with SEG not NULL, *SEG
   is that segment.  NULL if OBJ is not a profiled copy.  */
const unsigned char *object_profcopy_header (const struct mips_object *obj,
					     const struct object_segment **seg);

/* How good a name symbol S is for its address, among the symbols of the
   same address: lower is better.  .symtab before .dynsym, the default
   version before another (free@@GLIBC_2.0 over cfree@GLIBC_2.0), fewer
   leading underscores, then global before weak before local, so that
   `malloc' wins over `__libc_malloc' and the weak `puts' over the
   global `_IO_puts': the names that programs call.  A .symtab name
   NAME@V (not NAME@@V) is another version too.  Below 10000 for every
   .symtab symbol.  */
int object_symbol_rank (const struct object_symbol *s);

/* Read a 16- or 32-bit field at P in OBJ's byte order.  */
uint16_t object_get16 (const struct mips_object *obj, const unsigned char *p);
uint32_t object_get32 (const struct mips_object *obj, const unsigned char *p);

/* Return a pointer into the image for the LEN bytes at VADDR, when they
   lie wholly inside the file-backed part of one PT_LOAD segment; else
   NULL.  */
const unsigned char *object_vaddr_ptr (const struct mips_object *obj,
				       uint32_t vaddr, uint32_t len);

/* Read the 32-bit word at VADDR into *WORD.  False if not file-backed.  */
bool object_read_word (const struct mips_object *obj, uint32_t vaddr,
		       uint32_t *word);

/* The allocated section containing VADDR, or NULL.  */
const struct object_section *object_section_at (const struct mips_object *obj,
						uint32_t vaddr);

/* The section named NAME, or NULL.  */
const struct object_section *object_section_named (const struct mips_object *obj,
						   const char *name);

/* A malloc'd array of the .dynsym symbols of OBJ by their index in the
   table (NULL where it has none), *N of them; NULL when out of
   memory.  */
const struct object_symbol **object_dynsyms_by_index
  (const struct mips_object *obj, size_t *n);

/* True if VADDR lies in an allocated executable section (SHF_EXECINSTR).  */
bool object_is_code (const struct mips_object *obj, uint32_t vaddr);

/* What a GOT word holds (object_got_slot).  */
enum got_slot_kind
{
  GOT_SLOT_NONE,		/* Not a GOT entry, or a TLS one.  */
  GOT_SLOT_LOCAL,		/* An address ld.so moves by the load bias.  */
  GOT_SLOT_GLOBAL		/* A symbol's address.  */
};

/* The GOT entry of OBJ at address SLOT, in the primary GOT or in a
   secondary one: its kind, and in *VALUE its link-time contents (a
   global entry of a secondary GOT: its primary entry's, which ld.so
   copies into it).  *PRIMARY is the index of the primary GOT's entry
   that holds the same value (a global entry), or (uint32_t) -1.  */
enum got_slot_kind object_got_slot (const struct mips_object *obj,
				    uint32_t slot, uint32_t *value,
				    uint32_t *primary);

/* Whether OBJ has secondary GOTs (GNU ld's multi-GOT).  */
static inline bool
object_multi_got (const struct mips_object *obj)
{
  return obj->got_primary < obj->got_size;
}

/* Whether GP is the gp of one of OBJ's secondary GOTs: 0x7ff0 past
   its start.  */
static inline bool
object_is_secondary_gp (const struct mips_object *obj, uint32_t gp)
{
  for (size_t i = 0; i < obj->n_got_starts; i++)
    if (obj->got_starts[i] + 0x7ff0 == gp)
      return true;
  return false;
}

/* Whether OBJ is a static executable, fixed-address or PIE: no dynamic
   linker loads a runtime for it, its copy carries the static one.  */
static inline bool
object_is_static (const struct mips_object *obj)
{
  return obj->static_exe || obj->static_pie;
}

/* The I'th GOT entry's link-time contents; false if out of range.  */
bool object_got_entry (const struct mips_object *obj, uint32_t i,
		       uint32_t *value);

#endif /* PROFCOPY_OBJECT_H */
