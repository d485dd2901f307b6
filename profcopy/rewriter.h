/* rewriter.h -- what rewrite.c, emit/segment.c and emit/relocate.c
   share: the state of one object's rewrite and the stages that build
   the new segments and patch the copy.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#ifndef PROFCOPY_REWRITER_H
#define PROFCOPY_REWRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "elf-write.h"
#include "emit.h"
#include "rewrite.h"

#define DT_MIPS_RLD_MAP_REL_TAG 0x70000035

/* The new segment as it is built.  */
struct seg_builder
{
  unsigned char *buf;
  size_t size, alloc;
  uint32_t vaddr;
  bool big_endian;
};

/* Everything rewrite_object works with.  */
struct rewriter
{
  const struct rewrite_options *opts;
  struct analysis a;
  struct emitter e;
  struct seg_builder sb;
  unsigned char *image;		/* The copy of the original that is patched.  */
  bool main_program;
  size_t n_returning;		/* Calls that surely come back (-v).  */
  uint32_t seg_offset;		/* File offset of the new segments.  */
  uint32_t rx_size;		/* Bytes of the code segment, which comes
				   first.  */
  uint32_t rw_start;		/* Offset of the data segment from the
				   code segment's start in memory...  */
  uint32_t rw_file;		/* ... and in the file (the gap between
				   the two is not in the file).  */
  struct new_section sections[12];	/* Section headers for the segment.  */
  size_t n_sections;
  uint32_t dyn_addr, dyn_size, dynstr_addr, dynstr_size;  /* Main only.  */
  uint32_t interp_addr, interp_size;	/* Main only, with opts->interp.  */
  uint32_t map_addr;		/* Address of the map table.  */
  uint32_t eh_hdr, eh_hdr_size;	/* The new .eh_frame_hdr, if any.  */
  bool eh_catches;		/* Its LSDAs have catch clauses.  */
  uint32_t shown_phdr, shown_phnum;  /* Static executable: the program
				   header table the program is shown, 0
				   for the original's (segment.c).  */
  uint32_t checksum;		/* CRC-32 of the original file.  */
  struct call_sites sites;	/* Of emit_narrow_liveness, until plan.  */
  size_t n_used;		/* Profiles of --use-profile that counted
				   this file.  */
};

/* Where the parts of the new segments are: offsets from the code
   segment's start (build).  */
struct seg_parts
{
  size_t phdrs, shown, text, map, blocks, window_blocks, derive; /* Code.  */
  size_t hdr, path, build_id, got, window;		    /* Data.  */
};

/* Store V at P in the byte order BIG_ENDIAN says.  */

static inline void
put32 (unsigned char *p, uint32_t v, bool big_endian)
{
  for (int i = 0; i < 4; i++)
    p[big_endian ? i : 3 - i] = (unsigned char) (v >> (24 - 8 * i));
}

/* Fail with "out of memory" (build's stages).  */

static inline bool
no_memory (char **errmsg)
{
  *errmsg = strdup ("out of memory");
  return false;
}

/* emit/segment.c.  */
bool place_segments (struct rewriter *rw, char **errmsg);
bool lay_out_code (struct rewriter *rw, struct seg_parts *at, char **errmsg);
bool lay_out_data (struct rewriter *rw, struct seg_parts *at,
		   const char *path, char **errmsg);
void add_sections (struct rewriter *rw, const struct seg_parts *at);
void build_got (struct rewriter *rw, size_t off);
void fill_tables (struct rewriter *rw, const struct seg_parts *at);
void fill_header (struct rewriter *rw, const struct seg_parts *at);
uint32_t new_got_index (const struct new_got *g, uint32_t i);
uint32_t n_counters (const struct emitter *e);
uint32_t image_end (const struct mips_object *obj);

/* emit/relocate.c.  */
void apply_relocs (struct rewriter *rw);
void move_got_relocs (struct rewriter *rw);
void patch_dynamic (struct rewriter *rw);
void poison_code (struct rewriter *rw);
void forward_entries (struct rewriter *rw);
bool dynamic_range (const struct mips_object *obj, size_t *off, size_t *n);
uint32_t dynamic_value (const struct rewriter *rw, uint32_t tag,
			uint32_t val);

#endif /* PROFCOPY_REWRITER_H */
