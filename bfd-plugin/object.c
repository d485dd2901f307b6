/* object.c -- open and identify a MIPS o32 ELF object.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The file is read into memory whole.  Its ELF header is checked here
   first, by hand, so that every reason for refusing a file gets its
   own precise message; then the program and section headers are
   converted, and dynamic.c, symbols.c and ehframe.c read the rest.
   BFD identifies the file last and stays open for libopcodes.  Every
   offset and size taken from the file is checked against the file
   size before it is used.  */

#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <elf.h>

#include "file-image.h"
#include "object-int.h"
#include "segment.h"

/* Set *ERRMSG from FMT and return false.  */

bool
object_error (char **errmsg, const char *fmt, ...)
{
  va_list ap;
  char *msg;

  va_start (ap, fmt);
  if (vasprintf (&msg, fmt, ap) < 0)
    msg = NULL;
  va_end (ap);
  if (errmsg != NULL)
    {
      /* Keep the first reason given.  */
      if (*errmsg == NULL)
	*errmsg = msg != NULL ? msg : strdup ("out of memory");
      else
	free (msg);
    }
  else
    free (msg);
  return false;
}

/* True if the string at OFF of the LEN-byte TABLE ends inside it.  */

bool
object_string_ok (const unsigned char *table, size_t len, size_t off)
{
  return off < len && memchr (table + off, '\0', len - off) != NULL;
}

/* Read the 16-bit field at P in the byte order of OBJ.  */

uint16_t
object_get16 (const struct mips_object *obj, const unsigned char *p)
{
  if (obj->big_endian)
    return (uint16_t) ((p[0] << 8) | p[1]);
  return (uint16_t) ((p[1] << 8) | p[0]);
}

/* Read the 32-bit field at P in the byte order of OBJ.  */

const unsigned char *
object_profcopy_header (const struct mips_object *obj,
			const struct object_segment **seg)
{
  for (size_t i = 0; i < obj->n_segments; i++)
    {
      const struct object_segment *s = &obj->segments[i];
      if (s->type == PT_LOAD && s->filesz >= sizeof (struct pc_segment_header)
	  && s->offset <= obj->size
	  && obj->size - s->offset >= sizeof (struct pc_segment_header)
	  && memcmp (obj->image + s->offset, PC_SEGMENT_MAGIC,
		     sizeof PC_SEGMENT_MAGIC) == 0)
	{
	  if (seg != NULL)
	    *seg = s;
	  return obj->image + s->offset;
	}
    }
  return NULL;
}

uint32_t
object_get32 (const struct mips_object *obj, const unsigned char *p)
{
  if (obj->big_endian)
    return ((uint32_t) p[0] << 24) | ((uint32_t) p[1] << 16)
	   | ((uint32_t) p[2] << 8) | p[3];
  return ((uint32_t) p[3] << 24) | ((uint32_t) p[2] << 16)
	 | ((uint32_t) p[1] << 8) | p[0];
}

/* Read the whole of PATH into OBJ->image.  */

bool
object_read_file (const char *path, struct mips_object *obj, char **errmsg)
{
  struct file_image fi;
  int err = file_image_read (path, &fi);

  if (err != 0)
    return object_error (errmsg, "%s", file_image_error (err));
  obj->image = fi.data;
  obj->size = fi.size;
  obj->mapped = fi.mapped;
  return true;
}

/* The name of ELF machine MACHINE, or NULL if we do not know it.  */

static const char *
machine_name (unsigned machine)
{
  switch (machine)
    {
    case EM_SPARC: return "SPARC";
    case EM_386: return "Intel 80386";
    case EM_68K: return "m68k";
    case EM_MIPS_RS3_LE: return "MIPS R3000 little-endian (old)";
    case EM_PARISC: return "PA-RISC";
    case EM_SPARC32PLUS: return "SPARC32PLUS";
    case EM_PPC: return "PowerPC";
    case EM_PPC64: return "PowerPC64";
    case EM_S390: return "IBM S/390";
    case EM_ARM: return "ARM";
    case EM_SH: return "SuperH";
    case EM_SPARCV9: return "SPARC v9";
    case EM_IA_64: return "IA-64";
    case EM_X86_64: return "x86-64";
    case EM_AARCH64: return "AArch64";
    case EM_RISCV: return "RISC-V";
    case 258: return "LoongArch";
    default: return NULL;
    }
}

/* Check the ELF header of OBJ and fill the header fields.  */

bool
object_check_header (struct mips_object *obj, char **errmsg)
{
  const unsigned char *h = obj->image;
  unsigned machine, type;
  uint32_t abi;

  if (obj->size < SELFMAG || memcmp (h, ELFMAG, SELFMAG) != 0)
    return object_error (errmsg, "not an ELF file");
  if (obj->size < 20)
    return object_error (errmsg, "truncated ELF file: the ELF header is "
			 "incomplete");
  if (h[EI_DATA] != ELFDATA2LSB && h[EI_DATA] != ELFDATA2MSB)
    return object_error (errmsg, "invalid ELF byte order (EI_DATA %u)",
			 h[EI_DATA]);
  obj->big_endian = h[EI_DATA] == ELFDATA2MSB;

  /* e_machine sits at the same offset in ELF32 and ELF64, so the
     machine is named even for a 64-bit file of another architecture.  */
  machine = object_get16 (obj, h + 18);
  if (machine != EM_MIPS)
    {
      const char *name = machine_name (machine);
      if (name != NULL)
	return object_error (errmsg, "not a MIPS object (machine %u: %s)",
			     machine, name);
      return object_error (errmsg, "not a MIPS object (machine %u)", machine);
    }
  if (h[EI_CLASS] == ELFCLASS64)
    return object_error (errmsg, "64-bit ELF object: profcopy handles MIPS "
			 "o32 (ELF32) objects only");
  if (h[EI_CLASS] != ELFCLASS32)
    return object_error (errmsg, "invalid ELF class (EI_CLASS %u)",
			 h[EI_CLASS]);
  if (obj->size < sizeof (Elf32_Ehdr))
    return object_error (errmsg, "truncated ELF file: the ELF header is "
			 "incomplete");
  if (h[EI_VERSION] != EV_CURRENT || object_get32 (obj, h + 20) != EV_CURRENT)
    return object_error (errmsg, "unsupported ELF version");

  /* The ABI and ISA come before the file type: an n32 or MIPS16
     relocatable object is refused for what it contains.  */
  obj->e_flags = object_get32 (obj, h + 36);
  if (obj->e_flags & EF_MIPS_ABI2)
    return object_error (errmsg, "n32 ABI object: profcopy handles MIPS "
			 "o32 only");
  abi = obj->e_flags & OBJ_EF_MIPS_ABI;
  if (abi == OBJ_E_MIPS_ABI_O64)
    return object_error (errmsg, "o64 ABI object: profcopy handles MIPS "
			 "o32 only");
  if (abi == OBJ_E_MIPS_ABI_EABI32)
    return object_error (errmsg, "EABI32 ABI object: profcopy handles MIPS "
			 "o32 only");
  if (abi == OBJ_E_MIPS_ABI_EABI64)
    return object_error (errmsg, "EABI64 ABI object: profcopy handles MIPS "
			 "o32 only");
  if (abi != 0 && abi != OBJ_E_MIPS_ABI_O32)
    return object_error (errmsg, "unknown MIPS ABI (e_flags 0x%08x): "
			 "profcopy handles MIPS o32 only", obj->e_flags);
  if (obj->e_flags & OBJ_EF_MIPS_ARCH_ASE_M16)
    return object_error (errmsg, "contains MIPS16 code: not supported");
  if (obj->e_flags & OBJ_EF_MIPS_ARCH_ASE_MICROMIPS)
    return object_error (errmsg, "contains microMIPS code: not supported");

  type = object_get16 (obj, h + 16);
  if (type == ET_REL)
    return object_error (errmsg, "relocatable object: profcopy needs a "
			 "linked executable or shared object");
  if (type != ET_EXEC && type != ET_DYN)
    return object_error (errmsg, "not an executable or shared object "
			 "(ELF type %u%s)", type,
			 type == ET_CORE ? ": core file" : "");
  obj->e_type = (uint16_t) type;
  obj->e_entry = object_get32 (obj, h + 24);
  obj->e_phoff = object_get32 (obj, h + 28);
  obj->e_shoff = object_get32 (obj, h + 32);

  return true;
}

/* Convert the program header table of OBJ.  */

static bool
read_segments (struct mips_object *obj, char **errmsg)
{
  const unsigned char *h = obj->image;
  unsigned phentsize = object_get16 (obj, h + 42);
  unsigned phnum = object_get16 (obj, h + 44);
  const struct object_segment *prev;
  size_t i;

  if (phnum == 0)
    return true;
  if (phnum == PN_XNUM)
    return object_error (errmsg, "extended program header numbering "
			 "(PN_XNUM) is not supported");
  if (phentsize != sizeof (Elf32_Phdr))
    return object_error (errmsg, "invalid program header entry size %u",
			 phentsize);
  if (!object_range_ok (obj, obj->e_phoff, (size_t) phnum * phentsize))
    return object_error (errmsg, "truncated ELF file: the program header "
			 "table extends past the end of the file");
  obj->segments = calloc (phnum, sizeof *obj->segments);
  if (obj->segments == NULL)
    return object_error (errmsg, "out of memory");
  obj->n_segments = phnum;
  for (i = 0; i < phnum; i++)
    {
      const unsigned char *p = h + obj->e_phoff + i * phentsize;
      struct object_segment *s = &obj->segments[i];

      s->type = object_get32 (obj, p);
      s->offset = object_get32 (obj, p + 4);
      s->vaddr = object_get32 (obj, p + 8);
      s->paddr = object_get32 (obj, p + 12);
      s->filesz = object_get32 (obj, p + 16);
      s->memsz = object_get32 (obj, p + 20);
      s->flags = object_get32 (obj, p + 24);
      s->align = object_get32 (obj, p + 28);
      if (s->type == PT_LOAD || s->type == PT_DYNAMIC
	  || s->type == PT_INTERP || s->type == PT_NOTE)
	{
	  if (!object_range_ok (obj, s->offset, s->filesz))
	    return object_error (errmsg, "truncated ELF file: segment %zu "
				 "extends past the end of the file", i);
	}
      if (s->type == PT_LOAD
	  && (s->filesz > s->memsz || s->memsz - 1 > UINT32_MAX - s->vaddr))
	return object_error (errmsg, "invalid PT_LOAD segment %zu "
			     "(file size 0x%x, memory size 0x%x at 0x%x)",
			     i, s->filesz, s->memsz, s->vaddr);
      /* A loader maps whole pages: a segment's address and file offset
	 must agree within the smallest page (the rewrite places its new
	 segments at the first one's distance between the two, and an
	 odd one put its code at odd addresses).  */
      if (s->type == PT_LOAD && (s->vaddr - s->offset) % 4096 != 0)
	return object_error (errmsg, "invalid PT_LOAD segment %zu: its "
			     "address 0x%x and file offset 0x%x differ by "
			     "a fraction of a page", i, s->vaddr, s->offset);
    }
  /* The loader maps the PT_LOADs in the order of their addresses, one
     after the other (the ELF ABI requires them sorted).  One that
     overlaps the next, say by a memory size of gigabytes, would also
     put the new segments of a rewrite past its end, and that far into
     the output file.  */
  for (i = 0, prev = NULL; i < phnum; i++)
    {
      const struct object_segment *s = &obj->segments[i];

      if (s->type != PT_LOAD || s->memsz == 0)
	continue;
      if (prev != NULL && s->vaddr - prev->vaddr < prev->memsz)
	return object_error (errmsg, "invalid PT_LOAD segment %zu at 0x%x: "
			     "it overlaps or precedes the one before it "
			     "(0x%x bytes at 0x%x)", i, s->vaddr,
			     prev->memsz, prev->vaddr);
      prev = s;
    }
  return true;
}

/* Convert the section header table of OBJ and name the sections.  */

bool
object_read_sections (struct mips_object *obj, char **errmsg)
{
  const unsigned char *h = obj->image;
  unsigned shentsize = object_get16 (obj, h + 46);
  size_t shnum = object_get16 (obj, h + 48);
  size_t shstrndx = object_get16 (obj, h + 50);
  const struct object_section *strsec;
  size_t i;

  if (obj->e_shoff == 0)
    return true;
  if (shentsize != sizeof (Elf32_Shdr))
    return object_error (errmsg, "invalid section header entry size %u",
			 shentsize);
  if (!object_range_ok (obj, obj->e_shoff, shentsize))
    return object_error (errmsg, "truncated ELF file: the section header "
			 "table extends past the end of the file");
  /* With more than SHN_LORESERVE sections the real count and string
     table index live in section header 0.  */
  if (shnum == 0)
    shnum = object_get32 (obj, h + obj->e_shoff + 20);
  if (shstrndx == SHN_XINDEX)
    shstrndx = object_get32 (obj, h + obj->e_shoff + 24);
  if (shnum == 0)
    return true;
  if (shnum > obj->size / shentsize
      || !object_range_ok (obj, obj->e_shoff, shnum * shentsize))
    return object_error (errmsg, "truncated ELF file: the section header "
			 "table extends past the end of the file");
  obj->sections = calloc (shnum, sizeof *obj->sections);
  if (obj->sections == NULL)
    return object_error (errmsg, "out of memory");
  obj->n_sections = shnum;
  for (i = 0; i < shnum; i++)
    {
      const unsigned char *p = h + obj->e_shoff + i * shentsize;
      struct object_section *s = &obj->sections[i];

      s->index = (unsigned) i;
      s->name = "";
      s->type = object_get32 (obj, p + 4);
      s->flags = object_get32 (obj, p + 8);
      s->addr = object_get32 (obj, p + 12);
      s->offset = object_get32 (obj, p + 16);
      s->size = object_get32 (obj, p + 20);
      s->link = object_get32 (obj, p + 24);
      s->info = object_get32 (obj, p + 28);
      s->align = object_get32 (obj, p + 32);
      s->entsize = object_get32 (obj, p + 36);
      /* Section 0 is reserved: its size and link may hold the extended
	 counts read above, not bytes of the file, so nothing else of it
	 is checked.  Whatever looks for a table by type or name must
	 not find it there.  */
      if (i == 0)
	{
	  if (s->type != SHT_NULL)
	    return object_error (errmsg, "section 0 has type %u, not "
				 "SHT_NULL", s->type);
	  s->flags = s->addr = s->offset = s->size = 0;
	}
      /* SHT_NULL sections are checked too: one can still be named as
	 the section name table, or by its name.  */
      if (i != 0 && s->type != SHT_NOBITS
	  && !object_range_ok (obj, s->offset, s->size))
	return object_error (errmsg, "truncated ELF file: section %zu "
			     "extends past the end of the file", i);
      if ((s->flags & SHF_ALLOC) && s->size != 0
	  && s->size - 1 > UINT32_MAX - s->addr)
	return object_error (errmsg, "section %zu wraps around the address "
			     "space", i);
      /* The copy's writes into a section (.reginfo's gp, the GOT) would
	 go into the ELF header.  */
      if (i != 0 && (s->flags & SHF_ALLOC) && s->type != SHT_NOBITS
	  && s->size != 0 && s->offset < sizeof (Elf32_Ehdr))
	return object_error (errmsg, "section %zu overlaps the ELF header",
			     i);
    }

  if (shstrndx == SHN_UNDEF)
    return true;
  if (shstrndx >= shnum)
    return object_error (errmsg, "invalid section name string table "
			 "index %zu", shstrndx);
  strsec = &obj->sections[shstrndx];
  if (strsec->type == SHT_NOBITS)
    return object_error (errmsg, "invalid section name string table");
  for (i = 0; i < shnum; i++)
    {
      size_t name = object_get32 (obj, h + obj->e_shoff + i * shentsize);
      if (!object_string_ok (h + strsec->offset, strsec->size, name))
	return object_error (errmsg, "truncated ELF file: the name of "
			     "section %zu is outside the section name "
			     "string table", i);
      obj->sections[i].name = (const char *) h + strsec->offset + name;
    }
  return true;
}

/* Refuse OBJ if its .MIPS.abiflags record lists the MIPS16 or
   microMIPS ASE.  */

static bool
check_abiflags (struct mips_object *obj, char **errmsg)
{
  size_t off = 0, len = 0, i;
  uint32_t ases;

  for (i = 0; i < obj->n_sections; i++)
    if (obj->sections[i].type == OBJ_SHT_MIPS_ABIFLAGS)
      {
	off = obj->sections[i].offset;
	len = obj->sections[i].size;
      }
  if (len == 0)
    for (i = 0; i < obj->n_segments; i++)
      if (obj->segments[i].type == PT_MIPS_ABIFLAGS)
	{
	  off = obj->segments[i].offset;
	  len = obj->segments[i].filesz;
	}
  if (len < 24 || !object_range_ok (obj, off, len))
    return true;
  ases = object_get32 (obj, obj->image + off + 12);
  if (ases & OBJ_ABIFLAGS_ASE_MIPS16)
    return object_error (errmsg, "contains MIPS16 code: not supported");
  if (ases & OBJ_ABIFLAGS_ASE_MICROMIPS)
    return object_error (errmsg, "contains microMIPS code: not supported");
  return true;
}

/* Find PT_INTERP and PT_DYNAMIC; note a static executable; refuse an
   object with two dynamic sections, or that needs one and has none.  */

static bool
check_dynamic_linking (struct mips_object *obj, char **errmsg)
{
  bool has_dynamic = false;
  size_t i;

  for (i = 0; i < obj->n_segments; i++)
    {
      const struct object_segment *s = &obj->segments[i];
      if (s->type == PT_DYNAMIC && has_dynamic)
	/* The dynamic linker would take one and the copy rewrite
	   another.  */
	return object_error (errmsg, "more than one PT_DYNAMIC segment");
      if (s->type == PT_DYNAMIC)
	has_dynamic = true;
      else if (s->type == PT_INTERP)
	{
	  const unsigned char *p = obj->image + s->offset;
	  if (s->filesz == 0 || memchr (p, '\0', s->filesz) == NULL)
	    return object_error (errmsg, "invalid PT_INTERP segment (the "
				 "interpreter name is not terminated)");
	  obj->interp = (const char *) p;
	}
    }
  /* A static executable: its copy gets the static runtime inside it
     (rewrite.c).  A shared object or PIE without a dynamic section
     cannot be loaded at all.  */
  if (!has_dynamic && (obj->e_type != ET_EXEC || obj->interp != NULL))
    return object_error (errmsg, "no dynamic section in a %s",
			 obj->e_type == ET_EXEC ? "program with a dynamic "
			 "linker (PT_INTERP)" : "position-independent object");
  obj->static_exe = !has_dynamic;
  return true;
}

/* Find the NT_GNU_BUILD_ID note among the N bytes at file offset OFF.  */

static void
find_build_id (struct mips_object *obj, size_t off, size_t n)
{
  size_t pos = 0;

  while (obj->build_id == NULL && n - pos >= 12)
    {
      const unsigned char *p = obj->image + off + pos;
      size_t namesz = object_get32 (obj, p);
      size_t descsz = object_get32 (obj, p + 4);
      uint32_t type = object_get32 (obj, p + 8);
      size_t name_pad = (namesz + 3) & ~(size_t) 3;
      size_t desc_pad = (descsz + 3) & ~(size_t) 3;

      pos += 12;
      if (name_pad > n - pos || desc_pad > n - pos - name_pad)
	return;
      if (type == NT_GNU_BUILD_ID && namesz == 4
	  && memcmp (p + 12, "GNU", 4) == 0 && descsz > 0)
	{
	  obj->build_id = p + 12 + name_pad;
	  obj->build_id_len = (uint32_t) descsz;
	}
      pos += name_pad + desc_pad;
    }
}

/* Set OBJ->build_id from its PT_NOTE segments, else its note sections.  */

void
object_read_build_id (struct mips_object *obj)
{
  size_t i;

  for (i = 0; i < obj->n_segments && obj->build_id == NULL; i++)
    if (obj->segments[i].type == PT_NOTE)
      find_build_id (obj, obj->segments[i].offset, obj->segments[i].filesz);
  for (i = 0; i < obj->n_sections && obj->build_id == NULL; i++)
    if (obj->sections[i].type == SHT_NOTE)
      find_build_id (obj, obj->sections[i].offset, obj->sections[i].size);
}


/* Order sections by address for qsort.  */

static int
compare_section_addr (const void *a, const void *b)
{
  const struct object_section *x = *(const struct object_section *const *) a;
  const struct object_section *y = *(const struct object_section *const *) b;

  if (x->addr != y->addr)
    return x->addr < y->addr ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* Build the address-sorted index of allocated sections.  A .tbss
   section takes no address space of its own, so it is left out.  */

static bool
build_section_index (struct mips_object *obj, char **errmsg)
{
  size_t i, n = 0;

  if (obj->n_sections == 0)
    return true;
  obj->alloc_by_addr = calloc (obj->n_sections, sizeof *obj->alloc_by_addr);
  if (obj->alloc_by_addr == NULL)
    return object_error (errmsg, "out of memory");
  for (i = 0; i < obj->n_sections; i++)
    {
      const struct object_section *s = &obj->sections[i];
      if ((s->flags & SHF_ALLOC) && s->size != 0
	  && !((s->flags & SHF_TLS) && s->type == SHT_NOBITS))
	obj->alloc_by_addr[n++] = s;
    }
  qsort (obj->alloc_by_addr, n, sizeof *obj->alloc_by_addr,
	 compare_section_addr);
  obj->n_alloc_by_addr = n;
  return true;
}

/* Read the structures of the image in OBJ, as much as LEVEL asks; on
   failure set *ERRMSG.  OBJ->image, size and path are set.  */

static bool
read_image (struct mips_object *obj, enum object_open_level level,
	    char **errmsg)
{
  if (!object_check_header (obj, errmsg)
      || !read_segments (obj, errmsg)
      || !object_read_sections (obj, errmsg)
      || !check_abiflags (obj, errmsg)
      || !check_dynamic_linking (obj, errmsg)
      || !object_read_dynamic (obj, errmsg))
    return false;
  /* glibc's libc.so.6 has a PT_INTERP too, so that it can be run; a
     DT_SONAME tells such a library from a PIE linked without
     DF_1_PIE.  */
  obj->pie = obj->e_type == ET_DYN
	     && ((obj->dyn.flags_1 & DF_1_PIE) != 0
		 || (obj->interp != NULL && obj->dyn.soname == NULL));
  /* A PIE that needs libraries but names no loader is run by one
     (ld.so.1 ./prog): not a static PIE.  */
  obj->static_pie = obj->pie && obj->interp == NULL
		    && obj->dyn.n_needed == 0;

  if (level == OBJECT_OPEN_FULL
      && (!object_read_symbols (obj, errmsg)
	  || !object_read_dynrelocs (obj, errmsg)))
    return false;
  if (!object_find_got (obj, errmsg))
    return false;
  object_read_build_id (obj);
  if (!build_section_index (obj, errmsg))
    return false;
  if (level == OBJECT_OPEN_FULL && !object_read_eh_frame (obj, errmsg))
    return false;
  return true;
}

/* Open PATH into OBJ, reading as much as LEVEL asks; see object.h
   for object_open.  */

bool
object_open_1 (const char *path, struct mips_object *obj,
	       enum object_open_level level, char **errmsg)
{
  memset (obj, 0, sizeof *obj);
  if (errmsg != NULL)
    *errmsg = NULL;
  obj->path = strdup (path);
  if (obj->path == NULL)
    return object_error (errmsg, "out of memory");

  if (!object_read_file (path, obj, errmsg)
      || !read_image (obj, level, errmsg))
    {
      object_close (obj);
      return false;
    }
  return true;
}

/* Open PATH into OBJ without a BFD; on failure set *ERRMSG.  */

bool
object_read (const char *path, struct mips_object *obj, char **errmsg)
{
  return object_open_1 (path, obj, OBJECT_OPEN_FULL, errmsg);
}

/* Read a copy of the SIZE bytes at DATA into OBJ, under the name NAME;
   on failure set *ERRMSG.  */

bool
object_read_image (const char *name, const void *data, size_t size,
		   struct mips_object *obj, char **errmsg)
{
  memset (obj, 0, sizeof *obj);
  if (errmsg != NULL)
    *errmsg = NULL;
  obj->path = strdup (name);
  /* Exactly SIZE bytes, so that a read past the end is out of bounds
     for a memory checker too.  */
  obj->image = malloc (size > 0 ? size : 1);
  if (obj->path == NULL || obj->image == NULL)
    {
      object_close (obj);
      return object_error (errmsg, "out of memory");
    }
  memcpy (obj->image, data, size);
  obj->size = size;
  if (!read_image (obj, OBJECT_OPEN_FULL, errmsg))
    {
      object_close (obj);
      return false;
    }
  return true;
}

/* Free everything OBJ owns, and close its BFD.  */

void
object_close (struct mips_object *obj)
{
  if (obj->abfd != NULL)
    obj->close_abfd (obj->abfd);
  free (obj->path);
  if (obj->image != NULL)
    {
      struct file_image fi = { obj->image, obj->size, obj->mapped };

      file_image_free (&fi);
    }
  if (obj->debug_image != NULL)
    {
      struct file_image fi = { obj->debug_image, obj->debug_size,
			       obj->debug_mapped };

      file_image_free (&fi);
    }
  free (obj->sections);
  free (obj->segments);
  free (obj->dyn.needed);
  free (obj->symbols);
  free (obj->dynrelocs);
  free (obj->got_relocs);
  free (obj->got_starts);
  free (obj->fdes);
  free (obj->alloc_by_addr);
  memset (obj, 0, sizeof *obj);
}

/* Set *OFFSET to the file offset of the LEN bytes at VADDR in OBJ,
   when they are file-backed bytes of one PT_LOAD segment.  */

bool
object_vaddr_to_offset (const struct mips_object *obj, uint32_t vaddr,
			uint32_t len, size_t *offset)
{
  size_t i;

  for (i = 0; i < obj->n_segments; i++)
    {
      const struct object_segment *s = &obj->segments[i];
      uint32_t delta;

      if (s->type != PT_LOAD || vaddr < s->vaddr)
	continue;
      delta = vaddr - s->vaddr;
      if (delta < s->filesz && len <= s->filesz - delta)
	{
	  *offset = (size_t) s->offset + delta;
	  return true;
	}
    }
  return false;
}

/* The image bytes of OBJ for the LEN bytes at VADDR, or NULL.  */

const unsigned char *
object_vaddr_ptr (const struct mips_object *obj, uint32_t vaddr, uint32_t len)
{
  size_t off;

  if (!object_vaddr_to_offset (obj, vaddr, len, &off))
    return NULL;
  return obj->image + off;
}

/* Read the word of OBJ at VADDR into *WORD.  */

bool
object_read_word (const struct mips_object *obj, uint32_t vaddr,
		  uint32_t *word)
{
  const unsigned char *p = object_vaddr_ptr (obj, vaddr, 4);

  if (p == NULL)
    return false;
  *word = object_get32 (obj, p);
  return true;
}

/* The allocated section of OBJ containing VADDR, by binary search
   over the address-sorted index.  */

const struct object_section *
object_section_at (const struct mips_object *obj, uint32_t vaddr)
{
  size_t lo = 0, hi = obj->n_alloc_by_addr;

  /* Find the last section starting at or below VADDR.  */
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (obj->alloc_by_addr[mid]->addr <= vaddr)
	lo = mid + 1;
      else
	hi = mid;
    }
  if (lo == 0)
    return NULL;
  if (vaddr - obj->alloc_by_addr[lo - 1]->addr
      < obj->alloc_by_addr[lo - 1]->size)
    return obj->alloc_by_addr[lo - 1];
  return NULL;
}

const struct object_symbol **
object_dynsyms_by_index (const struct mips_object *obj, size_t *n)
{
  const struct object_symbol **map;
  size_t len = 0;

  for (size_t i = 0; i < obj->n_symbols; i++)
    if (obj->symbols[i].dynamic && obj->symbols[i].index >= len)
      len = obj->symbols[i].index + 1;
  *n = len;
  map = calloc (len + 1, sizeof *map);
  if (map == NULL)
    return NULL;
  for (size_t i = 0; i < obj->n_symbols; i++)
    if (obj->symbols[i].dynamic)
      map[obj->symbols[i].index] = &obj->symbols[i];
  return map;
}

/* The first section of OBJ named NAME, or NULL.  */

const struct object_section *
object_section_named (const struct mips_object *obj, const char *name)
{
  size_t i;

  for (i = 0; i < obj->n_sections; i++)
    if (strcmp (obj->sections[i].name, name) == 0)
      return &obj->sections[i];
  return NULL;
}

/* True if VADDR lies in an executable section of OBJ.  */

bool
object_is_code (const struct mips_object *obj, uint32_t vaddr)
{
  const struct object_section *s = object_section_at (obj, vaddr);

  return s != NULL && (s->flags & SHF_EXECINSTR) != 0;
}
