/* elf-write.h -- write a rewritten object with its new segment.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_ELF_WRITE_H
#define PROFCOPY_ELF_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A section header to add for a part of the new segment, so that tools
   (objdump -d, readelf -S) see the new code and tables.  */
struct new_section
{
  const char *name;
  uint32_t type, flags, addr, size, align, entsize;
};

/* A further PT_LOAD after the new segments (struct new_segment):
   FILESZ BYTES at file offset OFFSET, mapped at VADDR (congruent modulo
   64 KiB) up to MEMSZ, with the permissions FLAGS (PF_*): the static
   runtime's segments (elf-write.c also writes the new segments' own
   entries from it).  */
struct extra_load
{
  uint32_t vaddr, offset, filesz, memsz, flags;
  const unsigned char *bytes;
};

/* The new loadable segments: BYTES, mapped at VADDR from OFFSET, hold
   the code segment (read and execute; RX_SIZE bytes, starting with room
   for the new program header table: 32 bytes for each old entry and two
   more) and, from RW_START on (64 KiB aligned), the data segment (read
   and write; up to MEMSZ in memory), which is in the file at OFFSET +
   RW_FILE (RW_FILE 64 KiB aligned, at least RX_SIZE).  The bytes
   between the two are mapped by neither, and are not in the file.  */
struct new_segment
{
  uint32_t vaddr;		/* Link-time address, 64 KiB aligned.  */
  uint32_t offset;		/* File offset, congruent to vaddr.  */
  unsigned char *bytes;		/* filesz bytes.  */
  uint32_t filesz, memsz;
  uint32_t rx_size, rw_start, rw_file;
  const struct new_section *sections;	/* Section headers to add.  */
  size_t n_sections;
  /* Further PT_LOADs, in the file after the data segment, in order of
     their offsets; RX_SIZE's room for the program header table has one
     more entry for each.  */
  const struct extra_load *extra;
  size_t n_extra;
};

/* Write IMAGE, a modified copy of an ELF32 object, followed by SEG as
   two new PT_LOADs, to OUT_PATH.  The program header table moves to the
   start of SEG's code segment (the old one stays in the file, unused),
   with the two new entries after the old ones, but for PT_NULL ones;
   PT_PHDR describes the new table.  When SEG has sections, a new section name table and
   section header table that add them are written after the segment
   (the old ones stay in the file, unused).  The file is written to a
   temporary file in OUT_PATH's directory and renamed into place only
   when all went well (a device or FIFO is written into as it is, a
   FIFO without a reader is an error); MODE gives its permissions.  IMAGE's program header table is updated in place.
   False with a malloc'd reason in *ERRMSG.  */
bool elf_write_with_segment (const char *out_path, unsigned char *image,
			     size_t size, bool big_endian,
			     const struct new_segment *seg, mode_t mode,
			     char **errmsg);

/* Copy the file FROM to TO the same way (a temporary file renamed into
   place, a device or FIFO written into), with FROM's permissions.
   False with a malloc'd reason in *ERRMSG.  */
bool elf_copy_file (const char *from, const char *to, char **errmsg);

/* Make SIGINT, SIGTERM and SIGHUP remove the temporary files being
   written before they end the process.  */
void elf_write_cleanup_on_signals (void);

#endif /* PROFCOPY_ELF_WRITE_H */
