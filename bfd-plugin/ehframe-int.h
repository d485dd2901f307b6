/* ehframe-int.h -- what the files of the unwind table writer share:
   its builder, its buffers and cursors, and the readers and writers of
   DWARF values and pointers (ehframe-enc.c).

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_EHFRAME_INT_H
#define PROFCOPY_EHFRAME_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "object.h"
#include "ehframe-write.h"

/* What every pointer of the output is written as.  */
#define PE_OUT		(PE_PCREL | PE_SDATA4)

/* Call frame instructions (DW_CFA_*) whose operands need more than a
   copy.  */
#define CFA_NOP			0x00
#define CFA_SET_LOC		0x01
#define CFA_ADVANCE_LOC1	0x02
#define CFA_ADVANCE_LOC2	0x03
#define CFA_ADVANCE_LOC4	0x04
#define CFA_MIPS_ADVANCE_LOC8	0x1d

/* A growable output area.  */
struct buf
{
  unsigned char *p;
  size_t len, cap;
  bool oom;
};

/* A cursor over part of the object's image.  ADDR is the address of
   BASE[0]; reads stay below END.  */
struct cursor
{
  const unsigned char *base;
  uint32_t addr;
  size_t pos, end;
};

/* A CIE as read, and where its copy went.  */
struct cie
{
  size_t old_off, new_off;
  unsigned version;
  uint64_t caf;			/* Code alignment factor.  */
  unsigned r_enc;		/* FDE address encoding.  */
  unsigned l_enc;		/* LSDA pointer encoding, PE_OMIT for none.  */
  bool z;			/* Augmentation data present.  */
};

/* A dynamic relocation's address, and whether it is against a
   symbol.  */
struct reloc_mark
{
  uint32_t addr;
  bool sym;
};

/* One entry of the header's search table.  */
struct hdr_entry
{
  uint32_t loc, fde;
};

/* Everything one build works with.  */
struct builder
{
  const struct mips_object *obj;
  const struct eh_map *m;
  uint32_t eh_vaddr, hdr_vaddr, lsda_vaddr;
  struct cursor sec;		/* The old .eh_frame.  */
  struct buf eh, hdr, lsda;
  struct cie *cies;
  size_t n_cies, cap_cies;
  struct hdr_entry *table;
  size_t n_table, cap_table;
  struct reloc_mark *relocs;	/* Sorted by address.  */
  size_t n_relocs;
  uint32_t *pads;		/* Old landing pads, for eh_landing_pads.  */
  size_t n_pads, cap_pads;
  bool catches;			/* A call site with an action: a catch
				   clause or an exception specification.  */
  char **errmsg;
};
/* Output helpers (ehframe-enc.c): append to a buffer that grows, or
   note that memory ran out (B->oom) and append nothing more.  */
void eh_buf_put (struct buf *b, const void *data, size_t n);
void eh_buf_u8 (struct buf *b, unsigned v);
void eh_store (unsigned char *p, uint64_t v, unsigned n, bool be);
void eh_buf_fixed (struct buf *b, uint64_t v, unsigned n, bool be);
void eh_buf_uleb (struct buf *b, uint64_t v, unsigned min_len);
void eh_buf_sleb (struct buf *b, int64_t v);
unsigned eh_uleb_size (uint64_t v);
void eh_buf_align4 (struct buf *b);

/* Input helpers: false when the value runs past C->end.  */
bool eh_get_u8 (struct cursor *c, unsigned *v);
bool eh_get_fixed (const struct builder *bd, struct cursor *c, unsigned n,
		   uint64_t *v);
bool eh_get_uleb (struct cursor *c, uint64_t *v);
bool eh_get_sleb (struct cursor *c, int64_t *v);

/* Values and pointers in a DW_EH_PE_* encoding ENC.  */
unsigned eh_format_size (unsigned enc);
bool eh_get_value (const struct builder *bd, struct cursor *c, unsigned enc,
		   uint64_t *v);
bool eh_put_value (struct builder *bd, struct buf *b, unsigned enc,
		   uint64_t v);
int eh_reloc_at (const struct builder *bd, uint32_t addr);
bool eh_get_pointer (struct builder *bd, struct cursor *c, unsigned enc,
		     uint32_t *target, bool *indirect, bool *nul);
void eh_put_pcrel (struct builder *bd, struct buf *b, uint32_t base,
		   uint32_t target, bool nul);

/* Write a new LSDA for the old one at OLD, of the FDE whose old start
   is OLD_START and new start NEW_START, to the LSDA area; set *NEW_ADDR
   to its address (ehframe-lsda.c).  */
bool eh_rewrite_lsda (struct builder *bd, uint32_t old, uint32_t old_start,
		      uint32_t new_start, uint32_t *new_addr);

#endif /* PROFCOPY_EHFRAME_INT_H */
