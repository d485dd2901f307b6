/* copy-tables.c -- find the tables a profiled copy holds for its
   profiles.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   Only the ELF header, the program headers and the profcopy segment
   are read, each field checked against the file, so that a damaged or
   foreign file gives a reason and no crash.  */

#include <config.h>

#include <elf.h>
#include <stddef.h>
#include <string.h>

#include "byte-order.h"
#include "copy-tables.h"
#include "crc32.h"
#include "errmsg.h"
#include "segment.h"

#define FIELD(f) offsetof (struct pc_segment_header, f)

/* The file's program headers, as get_phdrs found them.  */
struct phdrs
{
  const unsigned char *data;
  size_t size;
  bool be;
  const unsigned char *ph;
  uint16_t n;
};

/* The file bytes of the LEN bytes at link-time address ADDR, inside
   one PT_LOAD's file contents, or NULL.  */

static const unsigned char *
at_vaddr (const struct phdrs *p, uint32_t addr, uint64_t len)
{
  for (uint16_t i = 0; i < p->n; i++)
    {
      const unsigned char *ph = p->ph + 32 * (size_t) i;
      uint32_t offset = get32 (p->be, ph + 4), vaddr = get32 (p->be, ph + 8);
      uint32_t filesz = get32 (p->be, ph + 16);
      if (get32 (p->be, ph) != PT_LOAD || addr < vaddr
	  || (uint64_t) addr - vaddr + len > filesz
	  || (uint64_t) offset + filesz > p->size)
	continue;
      return p->data + offset + (addr - vaddr);
    }
  return NULL;
}

bool
copy_tables_find (const unsigned char *data, size_t size,
		  struct copy_tables *t, char **errmsg)
{
  struct phdrs p;
  const unsigned char *h = NULL;
  uint32_t phoff, crc;

  memset (t, 0, sizeof *t);
  if (size < sizeof (Elf32_Ehdr) || memcmp (data, ELFMAG, SELFMAG) != 0
      || data[EI_CLASS] != ELFCLASS32
      || (data[EI_DATA] != ELFDATA2LSB && data[EI_DATA] != ELFDATA2MSB))
    return errmsg_format (errmsg, "not a 32-bit ELF file");
  p.data = data;
  p.size = size;
  p.be = data[EI_DATA] == ELFDATA2MSB;
  phoff = get32 (p.be, data + offsetof (Elf32_Ehdr, e_phoff));
  p.n = get16 (p.be, data + offsetof (Elf32_Ehdr, e_phnum));
  if (get16 (p.be, data + offsetof (Elf32_Ehdr, e_phentsize)) != 32
      || phoff > size || (size - phoff) / 32 < p.n)
    return errmsg_format (errmsg, "bad program headers");
  p.ph = data + phoff;

  /* The segment that starts with the header.  */
  for (uint16_t i = 0; i < p.n && h == NULL; i++)
    {
      const unsigned char *ph = p.ph + 32 * (size_t) i;
      uint32_t offset = get32 (p.be, ph + 4);
      uint32_t filesz = get32 (p.be, ph + 16);
      if (get32 (p.be, ph) == PT_LOAD
	  && filesz >= sizeof (struct pc_segment_header)
	  && offset <= size && size - offset >= filesz
	  && memcmp (data + offset, PC_SEGMENT_MAGIC,
		     sizeof PC_SEGMENT_MAGIC) == 0)
	h = data + offset;
    }
  if (h == NULL)
    return errmsg_format (errmsg, "not a profiled copy (no profcopy"
			  " segment)");
  if (get32 (p.be, h + FIELD (version)) != PC_SEGMENT_VERSION
      || get32 (p.be, h + FIELD (header_size))
	 < sizeof (struct pc_segment_header))
    return errmsg_format (errmsg, "a profiled copy of another version"
			  " (%u; this one reads %u)",
			  get32 (p.be, h + FIELD (version)),
			  PC_SEGMENT_VERSION);

  t->big_endian = p.be;
  t->checksum = get32 (p.be, h + FIELD (checksum));
  t->file_size = get32 (p.be, h + FIELD (file_size));
  t->n_blocks = get32 (p.be, h + FIELD (n_blocks));
  t->n_window = get32 (p.be, h + FIELD (n_window));
  t->tables_crc = get32 (p.be, h + FIELD (tables_crc));
  t->blocks = at_vaddr (&p, get32 (p.be, h + FIELD (blocks)),
			8 * (uint64_t) t->n_blocks);
  if (t->blocks == NULL)
    return errmsg_format (errmsg, "profcopy segment: bad block table");
  if (t->n_window > 0)
    {
      t->window_blocks = at_vaddr (&p, get32 (p.be, h + FIELD (window_blocks)),
				   4 * (uint64_t) t->n_window);
      if (t->window_blocks == NULL)
	return errmsg_format (errmsg, "profcopy segment: bad window list");
    }
  if (get32 (p.be, h + FIELD (derive)) != 0)
    {
      uint32_t addr = get32 (p.be, h + FIELD (derive));
      const unsigned char *d = at_vaddr (&p, addr, 12);
      uint64_t len;
      if (d == NULL)
	return errmsg_format (errmsg, "profcopy segment: bad derivation"
			      " table");
      len = 12 + 4 * (uint64_t) t->n_blocks
	    + 8 * (uint64_t) get32 (p.be, d + 4)
	    + 8 * (uint64_t) get32 (p.be, d + 8);
      if (len > UINT32_MAX || at_vaddr (&p, addr, len) == NULL)
	return errmsg_format (errmsg, "profcopy segment: bad derivation"
			      " table");
      t->derive = d;
      t->derive_size = (uint32_t) len;
    }
  crc = crc32_ieee_add (0, t->blocks, 8 * (size_t) t->n_blocks);
  if (t->derive != NULL)
    crc = crc32_ieee_add (crc, t->derive, t->derive_size);
  crc = crc32_ieee_add (crc, t->window_blocks != NULL ? t->window_blocks
			: (const unsigned char *) "", 4 * (size_t) t->n_window);
  if (crc != t->tables_crc)
    return errmsg_format (errmsg, "profcopy segment: its tables do not"
			  " match their CRC (damaged)");
  return true;
}
