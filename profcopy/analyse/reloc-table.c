/* reloc-table.c -- build the relocation information table.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The seed patent's "relocation information extracting means": every
   place in an object that holds or computes a text address.  The
   finders run in the order of enum reloc_type; GOT references, jump
   tables and non-PIC address pairs live in got-ref.c.  */

#include <config.h>

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "object.h"
#include "insn.h"
#include "mips-ops.h"
#include "reloc-table.h"
#include "reloc-finders.h"

static const char *const type_names[RELOC_N_TYPES] = {
  [RELOC_PROLOGUE] = "prologue",
  [RELOC_DATA] = "data",
  [RELOC_GOT_REF] = "got-ref",
  [RELOC_GOT] = "got",
  [RELOC_JUMP_TABLE] = "jump-table",
  [RELOC_HI_LO] = "hi-lo",
  [RELOC_SYMBOL] = "symbol",
  [RELOC_ENTRY] = "entry",
  [RELOC_INIT] = "init",
  [RELOC_FINI] = "fini",
  [RELOC_FDE] = "fde",
};

const char *
reloc_type_name (enum reloc_type type)
{
  return type < RELOC_N_TYPES ? type_names[type] : "?";
}

/* Append a copy of ENTRY to TABLE.  False on allocation failure.  */

bool
reloc_table_add (struct reloc_table *table, const struct reloc_entry *entry)
{
  if (!array_room (&table->entries, &table->alloc, table->n_entries,
		   sizeof *table->entries, 1024))
    return false;
  table->entries[table->n_entries++] = *entry;
  table->n_by_type[entry->type]++;
  return true;
}

/* Record in TABLE that code uses the code address ADDR as a value.
   False on allocation failure.  */

bool
reloc_table_add_value (struct reloc_table *table, uint32_t addr)
{
  if (!array_room (&table->values, &table->alloc_values, table->n_values,
		   sizeof *table->values, 256))
    return false;
  table->values[table->n_values++] = addr;
  return true;
}

bool
reloc_table_add_unsure (struct reloc_table *table, uint32_t addr)
{
  if (!array_room (&table->unsure, &table->alloc_unsure, table->n_unsure,
		   sizeof *table->unsure, 64))
    return false;
  table->unsure[table->n_unsure++] = addr;
  return true;
}

/* The addu that ends LLVM's gp prologue of the pair `lui R,hi; addiu
   R,R,lo' at I in SEC: `addu X,R,t9' (or t9,R) in the straight-line
   code after the pair, a branch's delay slot the last place looked
   at, before R or t9 is written; NULL if none.  */

static const struct insn *
llvm_prologue_addu (const struct insn_section *sec, size_t i)
{
  unsigned r = sec->insns[i].rt;

  for (size_t k = i + 2; k < sec->n_insns && k < i + 2 + 32; k++)
    {
      const struct insn *x = &sec->insns[k];
      if (x->op == 0 && (x->word & 0x3f) == FUNCT_ADDU
	  && (x->word >> 6 & 0x1f) == 0
	  && ((x->rs == r && x->rt == REG_T9)
	      || (x->rs == REG_T9 && x->rt == r)))
	return x;
      if ((x->writes & (REG_BIT (r) | REG_BIT (REG_T9))) != 0
	  || x->kind == INSN_INVALID || (x->flags & INSN_F_SLOT))
	return NULL;
    }
  return NULL;
}

/* Find every gp prologue: `lui gp,hi; addiu gp,gp,lo; addu gp,gp,R'
   with R = t9 (function entry) or ra (the bal form of start-up code),
   and LLVM's, which puts the pair in any register and adds t9 to it
   later, into gp or any other register that it then takes for gp
   (Rust's programs).  INFO is hi:lo, the distance from the function to
   gp; the function (the value of R) is therefore gp - INFO.  INDEX is
   the pair's register, AUX2 the addu of LLVM's form, whose function
   must start at the lui.  */

static bool
find_prologues (const struct mips_object *obj, const struct code *code,
		struct reloc_table *table)
{
  for (size_t s = 0; s < code->n_sections; s++)
    {
      const struct insn_section *sec = &code->sections[s];
      for (size_t i = 0; i + 2 < sec->n_insns; i++)
	{
	  const struct insn *lui = &sec->insns[i];
	  const struct insn *addu = NULL;
	  uint32_t w2 = sec->insns[i + 1].word, w3 = sec->insns[i + 2].word;
	  struct reloc_entry e = { 0 };

	  if (lui->op != OP_LUI || lui->rt == REG_ZERO
	      || sec->insns[i + 1].op != OP_ADDIU
	      || sec->insns[i + 1].rs != lui->rt
	      || sec->insns[i + 1].rt != lui->rt)
	    continue;
	  e.info = (lui->word << 16) + (uint32_t) (int32_t) (int16_t) w2;
	  e.aux = obj->gp;
	  if ((lui->word & LUI_GP_MASK) == LUI_GP
	      && (w3 == ADDU_GP_GP_T9 || w3 == ADDU_GP_GP_RA))
	    {
	      e.via = w3 == ADDU_GP_GP_T9 ? VIA_T9 : VIA_RA;
	      /* A multi-GOT object's function that uses a secondary GOT
		 computes that GOT's gp, taken to be from its first
		 word (GCC's .cpload).  */
	      if (e.via == VIA_T9
		  && object_is_secondary_gp (obj, lui->addr + e.info))
		e.aux = lui->addr + e.info;
	      /* Else the primary GOT's, from a function just before
		 (GCC puts .cpload first, and _gp_disp is from the lui): in
		 a multi-GOT object, any other could be a secondary GOT's
		 computed from somewhere else, which this cannot tell.  */
	      else if (object_multi_got (obj)
		       && obj->gp - e.info - lui->addr + 64 > 64
		       && table->bad_prologue == 0)
		table->bad_prologue = lui->addr;
	    }
	  else if ((obj->gp - e.info == lui->addr
		    || object_is_secondary_gp (obj, lui->addr + e.info))
		   && (addu = llvm_prologue_addu (sec, i)) != NULL)
	    {
	      e.via = VIA_T9;
	      e.aux = lui->addr + e.info;
	      e.aux2 = addu->addr;
	    }
	  else
	    continue;
	  e.type = RELOC_PROLOGUE;
	  e.addr = lui->addr;
	  e.index = lui->rt;
	  e.target = e.aux - e.info;
	  if (!reloc_table_add (table, &e))
	    return false;
	}
    }
  return true;
}

/* Sections whose words are never code pointers of the program: ELF
   and dynamic-linking metadata, and those that other finders read.  */

static bool
scannable_data (const struct object_section *sec)
{
  static const char *const skip[] = {
    ".dynamic", ".dynsym", ".dynstr", ".hash", ".gnu.hash", ".interp",
    ".gnu.version", ".gnu.version_d", ".gnu.version_r", ".reginfo",
    ".MIPS.abiflags", ".MIPS.options", ".eh_frame", ".eh_frame_hdr",
    ".got", ".rel.dyn", ".rel.plt", ".gcc_except_table", ".tdata",
    NULL
  };

  if (!(sec->flags & SHF_ALLOC) || (sec->flags & SHF_EXECINSTR)
      || sec->type == SHT_NOBITS || sec->type == SHT_NOTE
      || sec->type == SHT_REL || sec->type == SHT_RELA)
    return false;
  for (size_t i = 0; skip[i] != NULL; i++)
    if (strcmp (sec->name, skip[i]) == 0)
      return false;
  return true;
}

/* Text addresses held in data that R_MIPS_REL32 dynamic relocations
   point at (position-independent objects).  */

static bool
find_data (const struct mips_object *obj, struct reloc_table *table)
{
  for (size_t i = 0; i < obj->n_dynrelocs; i++)
    {
      const struct object_dynreloc *r = &obj->dynrelocs[i];
      struct reloc_entry e = { 0 };
      uint32_t word, symval = 0;

      if (r->type != R_MIPS_REL32 || !object_read_word (obj, r->offset, &word))
	continue;
      /* A secondary GOT's page (a multi-GOT object): find_code_refs
	 decides from its uses, as for the primary's (find_got_slots).  */
      if (r->sym == 0 && (word & 0xffff) == 0
	  && r->offset - obj->got_addr >= obj->got_primary
	  && r->offset - obj->got_addr < obj->got_size)
	continue;
      if (r->sym != 0)
	{
	  const struct object_symbol *sym = reloc_dynsym (obj, r->sym);
	  if (sym == NULL || sym->shndx == SHN_UNDEF)
	    continue;
	  symval = sym->value;
	  e.name = sym->name;
	}
      e.type = RELOC_DATA;
      e.via = VIA_REL32;
      e.addr = r->offset;
      e.target = word + symval;
      e.index = r->sym;
      if (object_is_code (obj, e.target) && !reloc_table_add (table, &e))
	return false;
    }

  return true;
}

/* True if C can be a character of a string's text.  */

static bool
text_byte (unsigned char c)
{
  return (c >= 0x20 && c < 0x7f) || c == '\t' || c == '\n';
}

/* True if the word at A, inside section SEC, reads as the end or the
   start of a string rather than as an address: its high byte is zero,
   its other three bytes are text, and the text runs on beyond the word
   (into the byte before it in a little-endian object, where the zero
   ends the string; into the byte after it in a big-endian one, where
   the zero ends the string before).  The "modulus" of Python's
   sys.hash_info ends in the little-endian word 0x0073756c, which is
   also the entry of a function; turning it into the function's new
   address took away the string's end.  */

static bool
string_text (const struct mips_object *obj, const struct object_section *sec,
	     uint32_t a)
{
  const unsigned char *p;

  if (obj->big_endian)
    {
      if (a + 5 > sec->addr + sec->size
	  || (p = object_vaddr_ptr (obj, a, 5)) == NULL)
	return false;
      return (p[0] == 0 && text_byte (p[1]) && text_byte (p[2])
	      && text_byte (p[3]) && text_byte (p[4]));
    }
  if (a < sec->addr + 1 || (p = object_vaddr_ptr (obj, a - 1, 5)) == NULL)
    return false;
  return (p[4] == 0 && text_byte (p[3]) && text_byte (p[2])
	  && text_byte (p[1]) && text_byte (p[0]));
}

/* True if ADDR is a word of the executable's DT_PREINIT_ARRAY,
   DT_INIT_ARRAY or DT_FINI_ARRAY: every one of those is a code pointer
   that libc calls (gcc's crtbegin puts its frame_dummy and
   __do_global_dtors_aux there, which have no symbol in a stripped
   program and no gp prologue).  */

static bool
in_init_fini_array (const struct mips_object *obj, uint32_t addr)
{
  const struct object_dynamic *d = &obj->dyn;

  return (addr - d->preinit_array < d->preinit_arraysz
	  || addr - d->init_array < d->init_arraysz
	  || addr - d->fini_array < d->fini_arraysz);
}

/* Text addresses held in the data of a fixed-address executable, which
   has no relocations left to say where they are: a word scan of the
   data.  Data is full of integers, strings and byte code that look like
   code addresses, so a word is taken only when code also uses that
   address as a value (find_code_refs: a GOT reference, a lui/addiu
   pair or a GOT load whose result is stored, compared or passed on,
   not only called), where it becomes the new address.  The two must
   agree, or they no longer compare equal: CPython tests
   `type->tp_new == object_new' between a static type's slot and the
   address its code builds with %got/%lo.  An address that code only
   calls through is not enough, nor is a function entry (a symbol, a gp
   prologue, an FDE): no value of the program can meet the old address
   in data, the run-time translation at the indirect call leads it into
   the new code, and CPython's frozen byte code holds words such as
   0x0053088c (`SET_ADD 8; RETURN_VALUE 0' is PyType_FromSpecWithBases)
   and 0x006a007c (`LOAD_FAST 0; LOAD_ATTR 0' is a static function).
   Every word of the init and fini arrays is taken: those hold nothing
   but code pointers.  */

static bool
find_data_scan (const struct mips_object *obj, struct reloc_table *table)
{
  const uint32_t *values = table->values;
  size_t n = table->n_values;

  if (obj->e_type != ET_EXEC)
    return true;
  if (n > 0)
    qsort (table->values, n, sizeof *table->values, array_compare_u32);
  for (size_t s = 0; s < obj->n_sections; s++)
    {
      const struct object_section *sec = &obj->sections[s];
      if (!scannable_data (sec))
	continue;
      for (uint32_t a = (sec->addr + 3) & ~3u; a + 4 <= sec->addr + sec->size;
	   a += 4)
	{
	  struct reloc_entry e = { 0 };
	  uint32_t word;
	  bool array = in_init_fini_array (obj, a);
	  if (!object_read_word (obj, a, &word) || (word & 3)
	      || !object_is_code (obj, word)
	      || (!array && (n == 0
			     || bsearch (&word, values, n, sizeof *values,
					 array_compare_u32) == NULL
			     || string_text (obj, sec, a))))
	    continue;
	  e.type = RELOC_DATA;
	  e.via = array ? VIA_ARRAY : VIA_SCAN;
	  e.addr = a;
	  e.target = word;
	  if (!reloc_table_add (table, &e))
	    return false;
	}
    }
  return true;
}

/* Local GOT slots that hold a text address themselves.  ld.so moves
   them by the load bias without a relocation.  */

static bool
find_got_slots (const struct mips_object *obj, struct reloc_table *table)
{
  for (uint32_t i = 0; i < obj->dyn.local_gotno; i++)
    {
      struct reloc_entry e = { 0 };
      uint32_t value;
      if (!object_got_entry (obj, i, &value))
	break;
      /* A 64 KiB-aligned value is a GOT page used with %lo offsets
	 (find_code_refs decides about those from their uses).  */
      if (!object_is_code (obj, value) || (value & 0xffff) == 0)
	continue;
      e.type = RELOC_GOT;
      e.addr = obj->got_addr + 4 * i;
      e.target = value;
      e.index = i;
      if (!reloc_table_add (table, &e))
	return false;
    }
  return true;
}

/* Symbol values that are text addresses, the entry point, DT_INIT and
   DT_FINI, and the code ranges of .eh_frame.  */

static bool
find_symbols (const struct mips_object *obj, struct reloc_table *table)
{
  for (size_t i = 0; i < obj->n_symbols; i++)
    {
      const struct object_symbol *sym = &obj->symbols[i];
      struct reloc_entry e = { 0 };
      if (sym->type == STT_SECTION || sym->type == STT_FILE
	  || sym->shndx == SHN_ABS || !object_is_code (obj, sym->value))
	continue;
      e.type = RELOC_SYMBOL;
      e.via = sym->dynamic ? VIA_DYNSYM : VIA_SYMTAB;
      e.addr = sym->value;
      e.target = sym->value;
      e.index = sym->index;
      e.name = sym->name;
      if (!reloc_table_add (table, &e))
	return false;
    }
  return true;
}

static bool
add_simple (struct reloc_table *table, enum reloc_type type, uint32_t addr,
	    uint32_t target, uint32_t aux2)
{
  struct reloc_entry e = { 0 };
  e.type = type;
  e.addr = addr;
  e.target = target;
  e.aux2 = aux2;
  return reloc_table_add (table, &e);
}

static bool
find_entries (const struct mips_object *obj, struct reloc_table *table)
{
  if (object_is_code (obj, obj->e_entry)
      && !add_simple (table, RELOC_ENTRY, obj->e_entry, obj->e_entry, 0))
    return false;
  if (obj->dyn.init != 0 && object_is_code (obj, obj->dyn.init)
      && !add_simple (table, RELOC_INIT, obj->dyn.init, obj->dyn.init, 0))
    return false;
  if (obj->dyn.fini != 0 && object_is_code (obj, obj->dyn.fini)
      && !add_simple (table, RELOC_FINI, obj->dyn.fini, obj->dyn.fini, 0))
    return false;
  for (size_t i = 0; i < obj->n_fdes; i++)
    {
      const struct object_fde *f = &obj->fdes[i];
      if (!add_simple (table, RELOC_FDE, f->field_addr, f->pc_begin,
		       f->pc_end))
	return false;
    }
  return true;
}

static int
compare_entries (const void *pa, const void *pb)
{
  const struct reloc_entry *a = pa, *b = pb;
  if (a->type != b->type)
    return a->type < b->type ? -1 : 1;
  if (a->addr != b->addr)
    return a->addr < b->addr ? -1 : 1;
  if (a->aux != b->aux)
    return a->aux < b->aux ? -1 : 1;
  if (a->index != b->index)
    return a->index < b->index ? -1 : 1;
  return 0;
}

/* Flag the RELOC_DATA entries of TABLE (sorted) whose word is also an
   entry of a switch table.  */

static void
mark_table_slots (struct reloc_table *table)
{
  size_t data = 0, jump = 0;

  for (int t = 0; t < RELOC_JUMP_TABLE; t++)
    {
      if (t < RELOC_DATA)
	data += table->n_by_type[t];
      jump += table->n_by_type[t];
    }
  for (size_t i = data, j = jump;
       i < data + table->n_by_type[RELOC_DATA]
       && j < jump + table->n_by_type[RELOC_JUMP_TABLE];)
    {
      struct reloc_entry *d = &table->entries[i];
      const struct reloc_entry *s = &table->entries[j];
      if (d->addr < s->addr)
	i++;
      else if (s->addr < d->addr)
	j++;
      else
	{
	  if (d->target == s->target)
	    d->flags |= RELOC_F_TABLE_SLOT;
	  i++;
	}
    }
}

/* The .dynsym symbol with index INDEX, or NULL.  */

const struct object_symbol *
reloc_dynsym (const struct mips_object *obj, uint32_t index)
{
  /* Dynamic symbols follow the .symtab ones, in index order from 1.  */
  size_t lo = 0, hi = obj->n_symbols;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      const struct object_symbol *s = &obj->symbols[mid];
      if (!s->dynamic || s->index < index)
	lo = mid + 1;
      else
	hi = mid;
    }
  if (lo < obj->n_symbols && obj->symbols[lo].dynamic
      && obj->symbols[lo].index == index)
    return &obj->symbols[lo];
  return NULL;
}

bool
reloc_table_build (const struct mips_object *obj, const struct code *code,
		   struct reloc_table *table, char **errmsg)
{
  memset (table, 0, sizeof *table);
  if (!find_prologues (obj, code, table)
      || !find_data (obj, table)
      || !find_got_slots (obj, table)
      || !find_symbols (obj, table)
      || !find_entries (obj, table)
      || !find_gp_regions (obj, code, table)
      /* It bounds jump tables with the function entries above.  */
      || !find_code_refs (obj, code, table)
      /* Last: it takes the addresses that all the others found.  */
      || !find_data_scan (obj, table))
    {
      reloc_table_free (table);
      *errmsg = strdup ("out of memory building the relocation table");
      return false;
    }
  if (table->bad_prologue != 0)
    {
      if (asprintf (errmsg, "0x%08x: a gp prologue of a multi-GOT object "
		    "that gives none of its GOTs' gp from its own address; "
		    "rewriting such an object is not supported yet",
		    table->bad_prologue) < 0)
	*errmsg = NULL;
      reloc_table_free (table);
      return false;
    }
  /* An object without code addresses has no table at all.  */
  if (table->n_entries > 0)
    qsort (table->entries, table->n_entries, sizeof *table->entries,
	   compare_entries);
  mark_table_slots (table);
  return true;
}

unsigned
reloc_table_gp_base (const struct reloc_table *table, uint32_t addr)
{
  size_t lo = array_lower_bound_u64 (table->gp_bases, table->n_gp_bases,
				     addr, 8);

  if (lo < table->n_gp_bases && table->gp_bases[lo] >> 8 == addr)
    return (unsigned) (table->gp_bases[lo] & 0xff);
  return 0;
}

void
reloc_table_free (struct reloc_table *table)
{
  free (table->gp_bases);
  free (table->gp_regions);
  free (table->values);
  free (table->unsure);
  free (table->entries);
  memset (table, 0, sizeof *table);
}
