/* rewrite.c -- write the profiled copy of one object.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The seed patent's "profiler shared object generating means".  The
   original file is kept as it is, its code included; two new PT_LOAD
   segments are added at the end (emit/segment.c says what they hold),
   and the copy of the original's bytes is patched to lead into them
   (emit/relocate.c).  rewrite_object, at the end of this file, is the
   whole pipeline: analyse, plan, copy the image, build the segments
   and patch the copy, report (-v), write.  */

#include <config.h>

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "crc32.h"
#include "ehframe-write.h"
#include "elf-write.h"
#include "emit.h"
#include "profile-read.h"
#include "rewrite.h"
#include "rewriter.h"
#include "segment.h"
#include "static-runtime.h"

/* Build RW's new segments for the original at IN_PATH, and patch the
   copy of its image to use them.  */

static bool
build (struct rewriter *rw, const char *in_path, char **errmsg)
{
  struct seg_parts at;
  char *real = realpath (in_path, NULL);
  const char *path = real != NULL ? real : in_path;
  bool ok;

  memset (&at, 0, sizeof at);
  ok = place_segments (rw, errmsg)
       && lay_out_code (rw, &at, errmsg)
       && lay_out_data (rw, &at, path, errmsg);
  free (real);
  if (!ok)
    return false;
  add_sections (rw, &at);
  build_got (rw, at.got);
  if (!emit_text (&rw->e, rw->sb.buf + at.text, errmsg))
    return false;
  fill_tables (rw, &at);
  fill_header (rw, &at);
  apply_relocs (rw);
  move_got_relocs (rw);
  /* Unless it moved (segment.c, move_dynamic).  */
  if (rw->dyn_addr == 0)
    patch_dynamic (rw);
  if (rw->opts->poison_original)
    poison_code (rw);
  forward_entries (rw);
  return true;
}

/* The objects of the profiles SET that counted the original of RW (the
   same checksum and size: the same file) in a malloc'd array of *N, or
   NULL (also when out of memory, *N then not 0).  */

static const struct prof_object **
profiled_runs (const struct rewriter *rw, const struct profile_set *set,
	       size_t *n)
{
  const struct prof_object **runs;

  *n = 0;
  if (set == NULL || set->n_objects == 0)
    return NULL;
  runs = malloc (set->n_objects * sizeof *runs);
  for (size_t i = 0; i < set->n_objects; i++)
    if (set->objects[i].checksum == rw->checksum
	&& set->objects[i].file_size == rw->a.obj.size)
      {
	if (runs != NULL)
	  runs[*n] = &set->objects[i];
	++*n;
      }
  if (*n == 0)
    {
      free (runs);
      return NULL;
    }
  return runs;
}

/* Analyse the object at IN_PATH into RW, and start the liveness of
   its registers (emit_narrow_liveness) in a thread of its own.  */

static bool
analyse (struct rewriter *rw, const char *in_path, char **errmsg)
{
  const struct rewrite_options *opts = rw->opts;

  memset (&rw->a, 0, sizeof rw->a);
  if (!object_open (in_path, &rw->a.obj, errmsg))
    return false;
  rw->a.have_obj = true;
  if (object_profcopy_header (&rw->a.obj, NULL) != NULL)
    {
      *errmsg = strdup ("already profiled (it is a copy that profcopy"
			" wrote); give profcopy the original");
      return false;
    }
  /* A static PIE moves its local GOT entries by its load bias and its
     global ones not at all (musl's rcrt1.o): its copy's new entries
     go after the local ones, where the static runtime moves them
     (write_static).  */
  if (rw->a.obj.static_pie
      && (rw->a.obj.dyn.symtabno > rw->a.obj.dyn.gotsym
	  || object_multi_got (&rw->a.obj)))
    {
      *errmsg = strdup ("a static PIE with global GOT entries or more "
			"than one GOT: not supported");
      return false;
    }
  /* The static runtime has neither: no dynamic linker to find the
     trace probes' TLS, no libc's fork handlers to start the watcher
     again in a child.  */
  if (object_is_static (&rw->a.obj) && (opts->calls || opts->folded))
    {
      *errmsg = strdup (opts->calls
			? "--calls: a static executable cannot have call "
			  "traces (they need the dynamic linker)"
			: "--counter-carry=watcher: a static executable's "
			  "counters carry inline");
      return false;
    }
  /* Liveness comes with emit_narrow_liveness.  */
  if (!analysis_run_object (ANALYSE_CFG, &rw->a, errmsg))
    return false;
  if (!emit_narrow_liveness (&rw->a, &rw->sites, opts->scope,
			     opts->scope_index, opts->single_update))
    return no_memory (errmsg);
  rw->main_program = rw->a.obj.e_type == ET_EXEC || rw->a.obj.pie;
  /* The segment header's checksum, which also names the object in the
     profiles of --use-profile.  */
  rw->checksum = crc32_ieee (rw->a.obj.image, rw->a.obj.size);
  return true;
}

/* Plan RW's counting code (emit_plan), by the counts of the profiles
   of --use-profile that counted this file, if any.  */

static bool
plan (struct rewriter *rw, char **errmsg)
{
  const struct rewrite_options *opts = rw->opts;
  const struct prof_object **used;
  bool ok;

  used = profiled_runs (rw, opts->use_profile, &rw->n_used);
  if (rw->n_used > 0 && used == NULL)
    ok = no_memory (errmsg);
  else
    ok = emit_plan (&rw->e, &rw->a, opts->all_blocks, opts->calls,
		    opts->single_update, opts->folded, opts->poison_original,
		    &rw->sites, used,
		    rw->n_used, errmsg);
  free (used);
  for (size_t i = 0; rw->sites.returning != NULL && i < rw->a.cfg.n_blocks;
       i++)
    rw->n_returning += rw->sites.returning[i];
  call_sites_free (&rw->sites);
  return ok;
}

/* The copy of the original's image that build patches.  */

static bool
copy_image (struct rewriter *rw, char **errmsg)
{
  rw->image = malloc (rw->a.obj.size);
  if (rw->image == NULL)
    return no_memory (errmsg);
  memcpy (rw->image, rw->a.obj.image, rw->a.obj.size);
  return true;
}

/* The -v report of how RW's object at IN_PATH was counted.  */

static void
report (const struct rewriter *rw, const char *in_path)
{
  const struct emitter *e = &rw->e;
  const struct rewrite_stats *s = &e->stats;

  fprintf (stderr, "profcopy: %s: %zu blocks, %zu of them derived from "
	   "the others' counts, %zu counted on edges; %zu branch edges "
	   "counted (%zu in gp's window, %zu of them off the gp saved in "
	   "the frame)\n", in_path, rw->a.cfg.n_blocks,
	   s->n_derived, s->n_edge, s->n_edge_counters, s->n_edge_window,
	   s->n_edge_saved_window);
  for (size_t i = 0; i < rw->a.n_islands; i++)
    fprintf (stderr, "profcopy: %s: 0x%08" PRIx32 "..0x%08" PRIx32 ": %zu "
	     "functions of machine code that the object addresses as data "
	     "(an island), left as they are, not counted\n", in_path,
	     rw->a.islands[i].start, rw->a.islands[i].end,
	     rw->a.islands[i].n_funcs);
  fprintf (stderr, "profcopy: %s: increments: %zu through gp, %zu through "
	   "t9, %zu through the gp saved in the frame, %zu pc-relative, "
	   "%zu absolute; %zu in gp's window (%zu of them off the gp saved "
	   "in the frame), %zu with saved registers, "
	   "%zu with the next instruction in their delay slot (%zu of them "
	   "behind a branch-likely), %zu in place of the unconditional "
	   "branch after them\n", in_path, s->n_count_gp, s->n_count_t9,
	   s->n_count_saved_gp, s->n_count_pc, s->n_count_abs,
	   s->n_count_window, s->n_count_saved_window, s->n_spilled,
	   s->n_hoisted + s->n_skipped,
	   s->n_skipped, s->n_jumps);
  fprintf (stderr, "profcopy: %s: %zu loops by their induction register "
	   "(%zu of them with the copy on the stack), %zu calls that surely "
	   "come back\n", in_path, s->n_loops, s->n_loops_stack,
	   rw->n_returning);
  fprintf (stderr, "profcopy: %s: %zu long branches, %zu indirect jumps "
	   "translated at run time (%zu of them with the gp guard, %zu "
	   "without gp left as they are), %u new GOT entries, %zu probes "
	   "with %zu stubs; new text %u bytes\n", in_path, s->n_long_calls,
	   s->n_xlate, e->plan.n_xlate_guarded, s->n_xlate_skipped,
	   e->plan.got.n_new, s->n_probes, s->n_probe_stubs,
	   e->layout.text_size);
  if (s->n_t9_tramps > 0)
    fprintf (stderr, "profcopy: %s: %zu functions without gp given a "
	     "trampoline that sets t9 for the bal calls of this object\n",
	     in_path, s->n_t9_tramps);
  if (s->n_gotref_nogp > 0)
    fprintf (stderr, "profcopy: %s: %zu GOT references where gp may not "
	     "be valid, written without gp (%zu left relative to gp)\n",
	     in_path, s->n_gotref_nogp - s->n_gotref_unsafe,
	     s->n_gotref_unsafe);
  if (rw->opts->use_profile != NULL && !rw->opts->all_blocks)
    {
      if (rw->n_used > 0)
	fprintf (stderr, "profcopy: %s: counters placed by the counts of "
		 "%zu earlier run%s (%zu of its blocks counted)\n", in_path,
		 rw->n_used, rw->n_used == 1 ? "" : "s", s->n_profiled);
      else
	fprintf (stderr, "profcopy: %s: no profile counts this file; "
		 "counters placed by the estimate\n", in_path);
    }
}

/* True if OBJ is a program that musl's dynamic linker loads (its
   PT_INTERP is ld-musl-ARCH.so.1).  */

static bool
loaded_by_musl (const struct mips_object *obj)
{
  const char *base;

  if (obj->interp == NULL)
    return false;
  base = strrchr (obj->interp, '/');
  base = base != NULL ? base + 1 : obj->interp;
  return strncmp (base, "ld-musl-", 8) == 0;
}

/* Write the copy of a static executable, RW's patched image with its
   new segments SEG and the static runtime after them, to OUT_PATH with
   MODE.  The runtime's entry is the copy's, and its data segment ends
   at the offset in a 64 KiB page where the original's image ended (the
   heap starts there: see write_output).  */

static bool
write_static (const struct rewriter *rw, struct new_segment *seg, mode_t mode,
	      const char *out_path, char **errmsg)
{
  const struct mips_object *obj = &rw->a.obj;
  const struct new_got *g = &rw->e.plan.got;
  struct static_runtime srt;
  char *path = static_runtime_path (rw->opts->runtime, obj->big_endian);
  uint32_t end, file_end, phdr = 0, phnum = 0, ehdr = UINT32_MAX;
  bool ok;

  if (path == NULL)
    return no_memory (errmsg);
  end = seg->vaddr + seg->memsz;
  file_end = seg->offset + seg->rw_file + (seg->filesz - seg->rw_start);
  /* The original's program headers, where its segments map them.  */
  for (size_t i = 0; i < obj->n_segments; i++)
    {
      const struct object_segment *s = &obj->segments[i];
      if (s->type == PT_LOAD && obj->e_phoff >= s->offset
	  && obj->e_phoff - s->offset < s->filesz
	  && 32 * (size_t) obj->n_segments <= s->filesz
					      - (obj->e_phoff - s->offset))
	{
	  phdr = s->vaddr + (obj->e_phoff - s->offset);
	  phnum = (uint32_t) obj->n_segments;
	  if (s->offset == 0)
	    ehdr = s->vaddr;
	  break;
	}
    }
  /* Or the copy of it that finds the new unwind tables
     (emit/segment.c, show_phdrs).  */
  if (phnum != 0 && rw->shown_phdr != 0)
    {
      phdr = rw->shown_phdr;
      phnum = rw->shown_phnum;
    }
  ok = static_runtime_load (&srt, path, obj->big_endian, end, file_end,
			    emit_map (&rw->e, obj->e_entry), phdr, phnum, ehdr,
			    g->addr + 4 * g->n_old_local,
			    obj->static_pie ? g->n_new : 0, errmsg);
  free (path);
  if (ok)
    {
      struct extra_load *data = &srt.loads[1];
      uint32_t data_end = data->vaddr + data->memsz;
      data->memsz += (image_end (obj) - data_end) & 0xffffu;
      put32 (rw->image + 24, srt.entry, obj->big_endian);
      seg->extra = srt.loads;
      seg->n_extra = 2;
      ok = elf_write_with_segment (out_path, rw->image, obj->size,
				   obj->big_endian, seg, mode, errmsg);
    }
  static_runtime_free (&srt);
  return ok;
}

/* Write the patched image with RW's new segments to OUT_PATH, with the
   mode of the original at IN_PATH.  */

static bool
write_output (const struct rewriter *rw, const char *in_path,
	      const char *out_path, char **errmsg)
{
  struct new_segment seg;
  struct stat st;

  if (stat (in_path, &st) != 0)
    st.st_mode = 0755;
  seg.vaddr = rw->sb.vaddr;
  seg.offset = rw->seg_offset;
  seg.bytes = rw->sb.buf;
  seg.filesz = (uint32_t) rw->sb.size;
  seg.rx_size = rw->rx_size;
  seg.rw_start = rw->rw_start;
  seg.rw_file = rw->rw_file;
  seg.memsz = rw->e.seg.counters + 8 * n_counters (&rw->e) - rw->sb.vaddr;
  seg.sections = rw->sections;
  seg.n_sections = rw->n_sections;
  seg.extra = NULL;
  seg.n_extra = 0;
  /* A static executable's image ends with the static runtime's
     segments, which write_static places and pads.  */
  if (object_is_static (&rw->a.obj))
    return write_static (rw, &seg, st.st_mode, out_path, errmsg);
  /* A program's heap starts where its image ends (qemu-user starts
     brk right there, not on a page boundary): the copy's image ends at
     the same offset in a 64 KiB page as the original's, so that the
     heap's blocks keep their places within pages, which code that
     reads words ahead (libc's strcmp) and hashes of addresses look
     at.  */
  if (rw->main_program && !loaded_by_musl (&rw->a.obj))
    seg.memsz += (uint32_t) (image_end (&rw->a.obj)
			     - (seg.vaddr + seg.memsz)) & 0xffffu;
  /* musl's dynamic linker gives the rest of the last page of every
     writable segment to malloc (reclaim_gaps): elsewhere the counters'
     segment ends on a 64 KiB boundary (the largest page of MIPS Linux),
     so that nothing of it is given and the program's heap is the
     original's.  musl rounds brk up to a page before it uses it.  */
  else
    seg.memsz = (uint32_t) (((uint64_t) seg.vaddr + seg.memsz + 0xffff)
			    & ~(uint64_t) 0xffff) - seg.vaddr;
  return elf_write_with_segment (out_path, rw->image, rw->a.obj.size,
				 rw->a.obj.big_endian, &seg, st.st_mode,
				 errmsg);
}

/* The pipeline: analyse, plan, build the new segments (layout, then
   the text, the tables and the patched image), write.  */

bool
rewrite_object (const char *in_path, const char *out_path,
		const struct rewrite_options *opts, char **errmsg)
{
  struct rewriter rw;
  bool ok;

  memset (&rw, 0, sizeof rw);
  rw.opts = opts;
  ok = analyse (&rw, in_path, errmsg)
       && plan (&rw, errmsg)
       && copy_image (&rw, errmsg)
       && build (&rw, in_path, errmsg);
  if (ok && opts->verbose)
    report (&rw, in_path);
  ok = ok && write_output (&rw, in_path, out_path, errmsg);

  call_sites_free (&rw.sites);
  free (rw.image);
  free (rw.sb.buf);
  emit_free (&rw.e);
  analysis_free (&rw.a);
  return ok;
}
