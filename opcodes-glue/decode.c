/* decode.c -- decode the executable sections of an object.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   Every word of every allocated executable section becomes one struct
   insn.  libopcodes classifies it: through dis-asm.h we run the MIPS
   disassembler with printers that print nothing and read back
   insn_info_valid, insn_type and branch_delay_insns.  fields.c supplies
   the operand fields, the target and the registers from the word.
   When the two disagree, the kind stays libopcodes' and the fields stay
   the word's; the disagreements are counted in struct code.

   Disassembling costs far more than decoding fields, and the same words
   recur (a libc has a few hundred thousand words but far fewer distinct
   ones), so the classification is memoised by the word with its
   immediate or jump index masked out and its registers renamed:
   libopcodes' answer for a MIPS32 word never depends on those bits,
   and on a register only through whether it is $0 or $31 and equal to
   another field.  Debian's cross libc has 14,103 distinct words by the
   first key and 1,295 by both.  */

#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <bfd.h>
#include <dis-asm.h>

#include "cfg-int.h"
#include "object.h"
#include "quiet-dis.h"

/* One memoised classification: the masked word and what libopcodes
   said about it (MEMO_* bits; 0 is an empty slot).  */
struct memo_slot
{
  uint32_t key;
  uint32_t value;
};

#define MEMO_USED	0x100u	/* The slot is in use.  */
#define MEMO_VALID	0x200u	/* insn_info_valid was set.  */
#define MEMO_DELAY	0x400u	/* branch_delay_insns != 0.  */
#define MEMO_TYPE(v)	((v) & 0xffu) /* enum dis_insn_type.  */

/* What code_decode needs while it works.  */
struct decoder
{
  struct disassemble_info info;
  disassembler_ftype print;
  struct memo_slot *memo;
  uint32_t memo_mask;
  size_t memo_used;
};

/* Printers that print nothing: only the classification is wanted.  */

static int
null_fprintf (void *stream, const char *fmt, ...)
{
  (void) stream;
  (void) fmt;
  return 0;
}

#ifdef HAVE_INIT_DISASSEMBLE_INFO_4
static int
null_styled_fprintf (void *stream, enum disassembler_style style,
		     const char *fmt, ...)
{
  (void) stream;
  (void) style;
  (void) fmt;
  return 0;
}
#endif

static void
null_print_address (bfd_vma addr, struct disassemble_info *info)
{
  (void) addr;
  (void) info;
}

disassembler_ftype
code_quiet_disassembler (struct disassemble_info *info, bool big,
			 unsigned long mach, bfd *abfd)
{
#ifdef HAVE_INIT_DISASSEMBLE_INFO_4
  init_disassemble_info (info, NULL, null_fprintf, null_styled_fprintf);
#else
  init_disassemble_info (info, NULL, null_fprintf);
#endif
  info->print_address_func = null_print_address;
  info->arch = bfd_arch_mips;
  info->mach = mach;
  info->endian = big ? BFD_ENDIAN_BIG : BFD_ENDIAN_LITTLE;
  info->endian_code = info->endian;
  disassemble_init_for_target (info);
  return disassembler (bfd_arch_mips, big, mach, abfd);
}

/* Set *ERRMSG (when not NULL) to a malloc'd message formatted from FMT
   and return false.  */

bool
glue_error (char **errmsg, const char *fmt, ...)
{
  va_list ap;
  int len;

  if (errmsg == NULL)
    return false;
  *errmsg = NULL;
  va_start (ap, fmt);
  len = vsnprintf (NULL, 0, fmt, ap);
  va_end (ap);
  if (len < 0 || (*errmsg = malloc ((size_t) len + 1)) == NULL)
    return false;
  va_start (ap, fmt);
  vsnprintf (*errmsg, (size_t) len + 1, fmt, ap);
  va_end (ap);
  return false;
}

/* Which register fields of WORD canonical_registers may rename: bit 0
   rs, bit 1 rt, bit 2 rd.  Only fields that name a general register
   (or must be zero) in every MIPS32 instruction of WORD's opcode and
   function, where libopcodes' answer can depend on a register only
   through whether it is $0, whether it is $31 and which other fields
   name the same register.  Fields that hold codes, sizes, hints or
   condition bits (syscall, trap codes, movf/movt, the shift's rotate
   bit, SPECIAL2 and SPECIAL3, coprocessor words) are kept.  */

static unsigned
renamable_fields (uint32_t word)
{
  unsigned op = word >> 26;

  if (op == 0)
    switch (word & 0x3f)
      {
      case 0: case 2: case 3:	/* sll, srl, sra: rs is the rotate bit.  */
	return 6;
      case 4: case 6: case 7:	/* sllv, srlv, srav */
      case 8: case 9:		/* jr, jalr */
      case 10: case 11:		/* movz, movn */
      case 32: case 33: case 34: case 35: /* add, addu, sub, subu */
      case 36: case 37: case 38: case 39: /* and, or, xor, nor */
      case 42: case 43:		/* slt, sltu */
	return 7;
      case 16: case 18:		/* mfhi, mflo: rs holds a DSP accumulator.  */
	return 4;
      case 17: case 19:		/* mthi, mtlo: so does rd.  */
	return 1;
      case 24: case 25:		/* mult, multu */
      case 26: case 27:		/* div, divu */
      case 48: case 49: case 50: case 51: /* tge, tgeu, tlt, tltu */
      case 52: case 54:		/* teq, tne: rd is part of the code.  */
	return 3;
      default:
	return 0;
      }
  if ((op >= 4 && op <= 15)	/* beq ... lui */
      || (op >= 20 && op <= 23)	/* beql ... bgtzl */
      || (op >= 32 && op <= 38)	/* lb ... lwr */
      || (op >= 40 && op <= 43) || op == 46 /* sb, sh, swl, sw, swr */
      || op == 48 || op == 56)	/* ll, sc */
    return 3;
  return 0;
}

/* WORD with the register fields renamable_fields allows renamed in
   order of first appearance (rs, rt, rd) to 1, 2, 3, keeping $0 and
   $31.  Two words with the same result differ only in which registers
   they use, which libopcodes' classification does not see.  */

static uint32_t
canonical_registers (uint32_t word)
{
  static const unsigned shift[3] = { 21, 16, 11 };
  unsigned fields = renamable_fields (word);
  unsigned seen[3], n_seen = 0;

  for (unsigned f = 0; f < 3; f++)
    {
      unsigned reg, name = 0;

      if (!(fields & (1u << f)))
	continue;
      reg = (word >> shift[f]) & 31;
      if (reg == 0 || reg == 31)
	continue;
      for (unsigned k = 0; k < n_seen && name == 0; k++)
	if (seen[k] == reg)
	  name = k + 1;
      if (name == 0)
	{
	  seen[n_seen++] = reg;
	  name = n_seen;
	}
      word = (word & ~(31u << shift[f])) | (uint32_t) name << shift[f];
    }
  return word;
}

/* The key under which the classification of WORD is memoised: WORD
   without the fields that only give a branch offset, a jump index or an
   immediate operand, and with its registers renamed
   (canonical_registers).  */

uint32_t
code_memo_key (uint32_t word)
{
  unsigned op = word >> 26;
  unsigned rs = (word >> 21) & 31;

  word = canonical_registers (word);
  if (op == 2 || op == 3 || op == 29)	/* j, jal, jalx */
    return word & 0xfc000000u;
  if (op == 1 || (op >= 4 && op <= 15) || (op >= 20 && op <= 23)
      || (op >= 32 && op <= 63)
      || ((op == 17 || op == 18) && rs == 8)) /* bc1*, bc2* */
    return word & 0xffff0000u;
  return word;
}

/* The BFD machine number for libopcodes when OBJ has no BFD: from the
   architecture level in e_flags.  */

static unsigned long
mach_from_flags (const struct mips_object *obj)
{
  switch (obj->e_flags & EF_MIPS_ARCH)
    {
    case EF_MIPS_ARCH_1:
      return bfd_mach_mips3000;
    case EF_MIPS_ARCH_32:
      return bfd_mach_mipsisa32;
    default:
      return bfd_mach_mipsisa32r2;
    }
}

/* Prepare D to disassemble OBJ.  */

static bool
decoder_init (struct decoder *d, const struct mips_object *obj,
	      char **errmsg)
{
  bfd *abfd = obj->abfd;
  unsigned long mach = abfd != NULL ? bfd_get_mach (abfd) : 0;

  if (mach == 0)
    mach = mach_from_flags (obj);
  memset (d, 0, sizeof *d);
  d->print = code_quiet_disassembler (&d->info, obj->big_endian, mach, abfd);
  if (d->print == NULL)
    return glue_error (errmsg, "libopcodes has no MIPS disassembler");

  /* The memo starts small and grows (memo_grow): by its key a libc
     has about 1,300 distinct words.  */
  d->memo = calloc (4096, sizeof *d->memo);
  if (d->memo == NULL)
    return glue_error (errmsg, "out of memory");
  d->memo_mask = 4096 - 1;
  return true;
}

/* Ask libopcodes about the word at ADDR of the section whose bytes D's
   buffer holds; return its answer as MEMO_* bits and its target in
   *TARGET.  */

static uint32_t
classify (struct decoder *d, uint32_t addr, uint32_t *target)
{
  uint32_t value = MEMO_USED;

  d->info.insn_info_valid = 0;
  d->info.insn_type = dis_noninsn;
  d->info.branch_delay_insns = 0;
  d->info.target = 0;
  d->print (addr, &d->info);
  if (d->info.insn_info_valid)
    {
      value |= MEMO_VALID | (uint32_t) d->info.insn_type;
      if (d->info.branch_delay_insns != 0)
	value |= MEMO_DELAY;
    }
  *target = (uint32_t) d->info.target;
  return value;
}

/* The slot of KEY in D's memo: its own, or the empty one it would
   take.  */

static struct memo_slot *
memo_slot (const struct decoder *d, uint32_t key)
{
  uint32_t h = (key * 0x9e3779b1u) >> 7;

  for (;; h++)
    {
      struct memo_slot *slot = &d->memo[h & d->memo_mask];
      if (slot->value == 0 || slot->key == key)
	return slot;
    }
}

/* Double D's memo, keeping what it holds; if memory runs out, keep the
   one it has, which then stops taking new words.  */

static void
memo_grow (struct decoder *d)
{
  struct memo_slot *old = d->memo;
  size_t n_old = (size_t) d->memo_mask + 1;
  struct memo_slot *fresh = calloc (2 * n_old, sizeof *fresh);

  if (fresh == NULL)
    return;
  d->memo = fresh;
  d->memo_mask = (uint32_t) (2 * n_old - 1);
  for (size_t i = 0; i < n_old; i++)
    if (old[i].value != 0)
      *memo_slot (d, old[i].key) = old[i];
  free (old);
}

/* The classification of the word at INSN, from the memo or from
   libopcodes.  Count in CODE how libopcodes and INSN's own fields
   disagree.  */

static uint32_t
lookup (struct decoder *d, struct code *code, const struct insn *insn)
{
  uint32_t key = code_memo_key (insn->word);
  struct memo_slot *slot = memo_slot (d, key);
  uint32_t target, value;

  if (slot->value != 0)
    return slot->value;
  value = classify (d, insn->addr, &target);
  code->n_opcodes_calls++;
  /* libopcodes sets bit 0 of a jalx target, for the ISA mode switch.  */
  if (insn->target != 0 && target != 0 && (target & ~1u) != insn->target)
    code->n_target_mismatch++;
  if (d->memo_used + 1 > (d->memo_mask + 1) / 4 * 3)
    {
      memo_grow (d);
      slot = memo_slot (d, key);
    }
  /* The memo keeps a quarter of its slots empty, so probes end.  */
  if (d->memo_used + 1 <= (d->memo_mask + 1) / 4 * 3)
    {
      slot->key = key;
      slot->value = value;
      d->memo_used++;
    }
  return value;
}

/* The kind that libopcodes' VALUE gives the word of INSN, whose fields
   are already decoded; set INSN_F_DELAY and INSN_F_COND as it says.  */

static enum insn_kind
kind_of (uint32_t value, struct insn *insn)
{
  enum insn_kind own = insn->kind;
  bool direct = own == INSN_JUMP || own == INSN_CALL || own == INSN_BRANCH;

  if (!(value & MEMO_VALID))
    return INSN_INVALID;
  if (value & MEMO_DELAY)
    insn->flags |= INSN_F_DELAY;
  else
    insn->flags &= ~(INSN_F_DELAY | INSN_F_LIKELY);
  switch ((enum dis_insn_type) MEMO_TYPE (value))
    {
    case dis_noninsn:
      return INSN_INVALID;
    case dis_jsr:
      if (direct)
	{
	  insn->flags &= ~INSN_F_COND;
	  return INSN_CALL;
	}
      return INSN_ICALL;
    case dis_condjsr:
      insn->flags |= INSN_F_COND;
      return INSN_CALL;
    case dis_branch:
      if (direct)
	return INSN_JUMP;
      return own == INSN_RETURN ? INSN_RETURN : INSN_IJUMP;
    case dis_condbranch:
      return INSN_BRANCH;
    default:
      return INSN_OTHER;
    }
}

/* Decode the N words at BYTES (the contents of section SEC) into IS.  */

static void
decode_section (struct decoder *d, struct code *code,
		const struct mips_object *obj, const unsigned char *bytes,
		struct insn_section *is)
{
  bool after_delay = false;

  d->info.buffer = (bfd_byte *) bytes;
  d->info.buffer_vma = is->start;
  d->info.buffer_length = is->n_insns * 4;
  for (size_t i = 0; i < is->n_insns; i++)
    {
      struct insn *insn = &is->insns[i];
      uint32_t addr = is->start + 4 * (uint32_t) i;
      uint32_t word = object_get32 (obj, bytes + 4 * i);
      enum insn_kind own, kind;

      insn_fields (word, addr, insn);
      own = insn->kind;
      kind = kind_of (lookup (d, code, insn), insn);
      if (kind != own)
	{
	  if (kind == INSN_INVALID || own == INSN_INVALID)
	    code->n_valid_mismatch++;
	  else
	    code->n_kind_mismatch++;
	}
      insn->kind = kind;
      if (kind != INSN_JUMP && kind != INSN_CALL && kind != INSN_BRANCH)
	insn->target = 0;
      else if (own != INSN_JUMP && own != INSN_CALL && own != INSN_BRANCH)
	{
	  /* A branch only libopcodes knows (an ASE's): its target is the
	     only one there is, and whether its slot is annulled is not
	     known, which INSN_F_LIKELY makes the safe assumption.  */
	  uint32_t target;

	  classify (d, addr, &target);
	  insn->target = target & ~1u;
	  insn->flags |= INSN_F_LIKELY;
	}
      if (kind == INSN_OTHER || kind == INSN_INVALID)
	insn->flags &= ~(INSN_F_DELAY | INSN_F_LIKELY | INSN_F_COND);
      if (after_delay)
	insn->flags |= INSN_F_SLOT;
      after_delay = (insn->flags & INSN_F_DELAY) != 0;
    }
}

/* Compare the start addresses of two sections, for qsort.  */

/* Give the sections of CODE, in order, their code word indexes
   (code_word_index) and count the words.  */

static void
number_words (struct code *code)
{
  code->n_words = 0;
  for (size_t i = 0; i < code->n_sections; i++)
    {
      code->sections[i].base = code->n_words;
      code->n_words += code->sections[i].n_insns;
    }
}

static int
section_cmp (const void *a, const void *b)
{
  const struct insn_section *x = a, *y = b;

  return x->start < y->start ? -1 : x->start > y->start;
}

/* Decode every allocated executable section of OBJ into CODE.  On
   failure return false with a malloc'd reason in *ERRMSG.  */

bool
code_decode (const struct mips_object *obj, struct code *code,
	     char **errmsg)
{
  struct decoder d;
  size_t n = 0;

  memset (code, 0, sizeof *code);
  memset (&d, 0, sizeof d);
  code->sections = calloc (obj->n_sections + 1, sizeof *code->sections);
  if (code->sections == NULL)
    return glue_error (errmsg, "out of memory");

  for (size_t i = 0; i < obj->n_sections; i++)
    {
      const struct object_section *sec = &obj->sections[i];
      struct insn_section *is = &code->sections[n];

      if ((sec->flags & (SHF_ALLOC | SHF_EXECINSTR))
	  != (SHF_ALLOC | SHF_EXECINSTR)
	  || sec->type == SHT_NOBITS || sec->size < 4)
	continue;
      if (sec->addr % 4 != 0)
	{
	  glue_error (errmsg, "section %s is not word-aligned", sec->name);
	  goto fail;
	}
      if (sec->offset > obj->size || sec->size > obj->size - sec->offset
	  || sec->addr + (uint64_t) sec->size > UINT32_MAX)
	{
	  glue_error (errmsg, "section %s lies outside the file",
			sec->name);
	  goto fail;
	}
      is->section = sec;
      is->start = sec->addr;
      is->n_insns = sec->size / 4;
      is->end = is->start + 4 * (uint32_t) is->n_insns;
      n++;
    }
  code->n_sections = n;
  qsort (code->sections, n, sizeof *code->sections, section_cmp);
  number_words (code);
  for (size_t i = 1; i < n; i++)
    if (code->sections[i].start < code->sections[i - 1].end)
      {
	glue_error (errmsg, "executable sections %s and %s overlap",
		      code->sections[i - 1].section->name,
		      code->sections[i].section->name);
	goto fail;
      }
  /* Later stages size tables by the range of code addresses (the map
     of the new text, the CFG's page index): a range much wider than
     the file means addresses no linker would give, and would cost far
     more memory and time than the input is worth.  */
  if (n > 0
      && (uint64_t) code->sections[n - 1].end - code->sections[0].start
	 > 4 * (uint64_t) obj->size + (1u << 20))
    {
      glue_error (errmsg, "the executable sections spread over 0x%x bytes, "
		  "far more than the file's %zu (sections %s at 0x%08x and "
		  "%s at 0x%08x)",
		  (unsigned) (code->sections[n - 1].end
			      - code->sections[0].start), obj->size,
		  code->sections[0].section->name, code->sections[0].start,
		  code->sections[n - 1].section->name,
		  code->sections[n - 1].start);
      goto fail;
    }

  if (!decoder_init (&d, obj, errmsg))
    goto fail;
  for (size_t i = 0; i < n; i++)
    {
      struct insn_section *is = &code->sections[i];

      is->insns = malloc (is->n_insns * sizeof *is->insns);
      if (is->insns == NULL)
	{
	  glue_error (errmsg, "out of memory");
	  goto fail;
	}
      decode_section (&d, code, obj, obj->image + is->section->offset, is);
    }
  disassemble_free_target (&d.info);
  free (d.memo);
  return true;

 fail:
  if (d.print != NULL)
    disassemble_free_target (&d.info);
  free (d.memo);
  code_free (code);
  return false;
}

/* Take the words [START, END) out of CODE: they stop being code words
   (code_insn_at and code_word_index no longer know them).  A range
   inside one section splits it in two.  False when out of memory or
   when the range is not word-aligned and inside one section; CODE is
   unchanged then.  */

bool
code_exclude (struct code *code, uint32_t start, uint32_t end)
{
  struct insn_section *v, *s;
  size_t i, first, last, n_after;
  struct insn *after = NULL;

  if (start >= end || (start | end) % 4 != 0)
    return false;
  for (i = 0; i < code->n_sections; i++)
    if (start >= code->sections[i].start && end <= code->sections[i].end)
      break;
  if (i == code->n_sections)
    return false;
  v = realloc (code->sections, (code->n_sections + 1) * sizeof *v);
  if (v == NULL)
    return false;
  code->sections = v;
  s = &v[i];
  first = (start - s->start) / 4;
  last = (end - s->start) / 4;
  n_after = s->n_insns - last;
  if (n_after > 0)
    {
      after = malloc (n_after * sizeof *after);
      if (after == NULL)
	return false;
      memcpy (after, s->insns + last, n_after * sizeof *after);
    }
  if (first == 0)
    {
      /* Nothing of S is left before the range: the part after it, if
	 any, takes S's place.  */
      free (s->insns);
      if (n_after == 0)
	{
	  memmove (s, s + 1, (code->n_sections - i - 1) * sizeof *s);
	  code->n_sections--;
	}
      else
	{
	  s->insns = after;
	  s->start = end;
	  s->n_insns = n_after;
	}
    }
  else
    {
      s->n_insns = first;
      s->end = start;
      if (n_after > 0)
	{
	  memmove (s + 2, s + 1, (code->n_sections - i - 1) * sizeof *s);
	  s[1] = s[0];
	  s[1].insns = after;
	  s[1].start = end;
	  s[1].end = end + 4 * (uint32_t) n_after;
	  s[1].n_insns = n_after;
	  code->n_sections++;
	}
    }
  number_words (code);
  return true;
}

/* Free everything CODE owns.  */

void
code_free (struct code *code)
{
  if (code->sections != NULL)
    for (size_t i = 0; i < code->n_sections; i++)
      free (code->sections[i].insns);
  free (code->sections);
  memset (code, 0, sizeof *code);
}

/* Return the record of the word at ADDR in CODE, or NULL when ADDR is
   not a word of an executable section (code_insn_at's slow path).  */

const struct insn *
code_insn_at_search (const struct code *code, uint32_t addr)
{
  const struct insn_section *s = code_section_at (code, addr);

  return s != NULL ? &s->insns[(addr - s->start) / 4] : NULL;
}

/* Return a short name for KIND.  */

const char *
insn_kind_name (enum insn_kind kind)
{
  static const char *const names[] =
    {
      "other", "branch", "jump", "call", "ijump", "icall", "return",
      "invalid"
    };

  if ((unsigned) kind < sizeof names / sizeof names[0])
    return names[kind];
  return "?";
}
