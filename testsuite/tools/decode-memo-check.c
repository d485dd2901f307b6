/* decode-memo-check.c -- check code_decode's memo key against libopcodes.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   code_decode asks libopcodes once per memo key (code_memo_key) and
   gives every word with that key the same classification.  This program
   draws pairs of words with equal keys (a word, then the same word with
   some of its register and immediate fields drawn again) and asks
   libopcodes about both, for each byte order and each machine code_decode
   uses.  Usage: decode-memo-check [PAIRS [SEED]].  It prints how many
   pairs it checked and the first pairs libopcodes tells apart, and exits
   1 if there were any.  */

#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cfg-int.h"
#include "quiet-dis.h"

static uint64_t rng_state;

static uint32_t
draw (void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (uint32_t) (rng_state >> 16);
}

/* One machine and byte order to ask libopcodes in.  */
struct asker
{
  struct disassemble_info info;
  disassembler_ftype print;
  bfd_byte bytes[4];
  bool big;
};

static bool
asker_init (struct asker *a, bool big, unsigned long mach)
{
  memset (a, 0, sizeof *a);
  a->big = big;
  a->print = code_quiet_disassembler (&a->info, big, mach, NULL);
  a->info.buffer = a->bytes;
  a->info.buffer_vma = 0x10000;
  a->info.buffer_length = 4;
  return a->print != NULL;
}

/* What libopcodes says about WORD: valid, type and delay slot, packed
   into one number.  */

static unsigned
ask (struct asker *a, uint32_t word)
{
  for (int i = 0; i < 4; i++)
    a->bytes[a->big ? i : 3 - i] = (bfd_byte) (word >> (24 - 8 * i));
  a->info.insn_info_valid = 0;
  a->info.insn_type = dis_noninsn;
  a->info.branch_delay_insns = 0;
  a->print (a->info.buffer_vma, &a->info);
  if (!a->info.insn_info_valid)
    return 0;
  return 1 | (unsigned) a->info.insn_type << 1
	 | (a->info.branch_delay_insns != 0) << 9;
}

/* A value for a 5-bit field: often one that encodings single out ($0,
   $31, the DSP accumulators 1 to 3), else any.  */

static uint32_t
draw_field (void)
{
  uint32_t r = draw ();

  switch (r & 7)
    {
    case 0: case 1:
      return 0;
    case 2:
      return 31;
    case 3:
      return 1 + (r >> 3) % 3;
    default:
      return (r >> 3) & 31;
    }
}

static const unsigned field_shift[4] = { 21, 16, 11, 6 };

/* A word to start a pair from: any opcode, but half of them SPECIAL,
   whose register fields vary most; its rs, rt, rd and shamt fields
   from draw_field.  */

static uint32_t
first_word (void)
{
  uint32_t w = draw ();

  if (w & 0x80)
    w &= 0x03ffffffu;
  for (int f = 0; f < 4; f++)
    w = (w & ~(31u << field_shift[f])) | draw_field () << field_shift[f];
  return w;
}

/* W with each of its rs, rt and rd fields drawn again or kept, and its
   low half drawn again or kept.  */

static uint32_t
second_word (uint32_t w)
{
  uint32_t how = draw ();

  for (int f = 0; f < 3; f++)
    if (how & (1u << f))
      w = (w & ~(31u << field_shift[f])) | draw_field () << field_shift[f];
  if (how & 8)
    w = (w & 0xffff0000u) | (draw () & 0xffff);
  return w;
}

int
main (int argc, char **argv)
{
  static const unsigned long machs[] = {
    bfd_mach_mipsisa32r2, bfd_mach_mipsisa32, bfd_mach_mips3000
  };
  unsigned long pairs = argc > 1 ? strtoul (argv[1], NULL, 0) : 200000;
  unsigned long checked = 0, differ = 0;

  rng_state = argc > 2 ? strtoull (argv[2], NULL, 0) : 0x2545f4914f6cdd1dull;
  if (rng_state == 0)
    rng_state = 1;
  for (int big = 0; big < 2; big++)
    for (size_t m = 0; m < sizeof machs / sizeof *machs; m++)
      {
	struct asker a;

	if (!asker_init (&a, big, machs[m]))
	  {
	    fprintf (stderr, "decode-memo-check: libopcodes has no MIPS "
		     "disassembler\n");
	    return 2;
	  }
	for (unsigned long i = 0; i < pairs;)
	  {
	    uint32_t w1 = first_word (), w2 = second_word (w1);
	    unsigned c1, c2;

	    if (code_memo_key (w1) != code_memo_key (w2))
	      continue;
	    i++;
	    checked++;
	    c1 = ask (&a, w1);
	    c2 = ask (&a, w2);
	    if (c1 != c2 && differ++ < 10)
	      printf ("differ: %s mach %lu: %08x (%#x) and %08x (%#x), "
		      "key %08x\n", big ? "big" : "little", machs[m],
		      w1, c1, w2, c2, code_memo_key (w1));
	  }
	disassemble_free_target (&a.info);
      }
  printf ("%lu pairs checked, %lu differ\n", checked, differ);
  return differ != 0;
}
