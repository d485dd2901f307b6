/* fuzz-decode.c -- fuzz target: the instruction decoder (code_decode),
   and the blocks and liveness built on its records.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The input is raw code, not an object, so that every mutation reaches
   the decoder: an 8-byte header, then the words of one executable
   section.  Header byte 0: bit 0 set for big-endian words, bits 1-2
   the architecture level in e_flags (MIPS I, II, MIPS32, MIPS32r2);
   bytes 4-7: the section's address, big-endian.  The ELF path to the
   decoder is fuzz-relocs' (sections that overlap, are not aligned or
   spread over the address space).  */

#include <config.h>

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "fuzz.h"
#include "insn.h"
#include "object.h"

#define HEADER_SIZE 8

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static const uint32_t arch[4] = { EF_MIPS_ARCH_1, EF_MIPS_ARCH_2,
				    EF_MIPS_ARCH_32, EF_MIPS_ARCH_32R2 };
  struct object_section sec;
  struct mips_object obj;
  struct code code;
  struct cfg cfg;
  struct code_addr entry;
  char *err = NULL;

  if (size < HEADER_SIZE)
    return 0;
  memset (&obj, 0, sizeof obj);
  memset (&sec, 0, sizeof sec);
  obj.path = (char *) "input";
  obj.image = (unsigned char *) data;
  obj.size = size;
  obj.big_endian = data[0] & 1;
  obj.e_type = ET_DYN;
  obj.e_flags = arch[(data[0] >> 1) & 3];
  sec.name = ".text";
  sec.type = SHT_PROGBITS;
  sec.flags = SHF_ALLOC | SHF_EXECINSTR;
  sec.addr = ((uint32_t) data[4] << 24 | (uint32_t) data[5] << 16
	      | (uint32_t) data[6] << 8 | data[7]);
  sec.offset = HEADER_SIZE;
  sec.size = (uint32_t) (size - HEADER_SIZE);
  sec.align = 4;
  obj.sections = &sec;
  obj.n_sections = 1;

  if (!code_decode (&obj, &code, &err))
    {
      /* Every refusal says why.  */
      if (err == NULL)
	abort ();
      free (err);
      return 0;
    }
  /* Every word of the section has its record.  */
  for (size_t i = 0; i < code.n_sections; i++)
    for (uint32_t a = code.sections[i].start; a < code.sections[i].end; a += 4)
      if (code_insn_at (&code, a) == NULL)
	abort ();
  entry.addr = sec.addr;
  entry.func_from = FUNC_FROM_SYMTAB;
  if (cfg_build (&code, &entry, 1, NULL, NULL, &cfg, &err))
    {
      cfg_liveness (&code, &cfg);
      for (size_t i = 0; i < cfg.n_blocks; i++)
	if (cfg_block_at (&cfg, cfg.blocks[i].start) != &cfg.blocks[i])
	  abort ();
      cfg_free (&cfg);
    }
  else
    free (err);
  code_free (&code);
  return 0;
}
