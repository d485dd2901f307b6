/* profile.h -- the interface between the parts of libprofcopy.so that
   find the profiled objects of a process and write its profile.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   profile.c	start-up, the syscall hook, the signals, and the one
		entry that writes a profile (pcrt_write_profile);
   objects.c	the loaded objects and what the runtime reads of each
		(struct seg_view), checked once and cached;
   snapshot.c	the copies of counters taken before writing;
   retire.c	the records of objects that dlclose unloads;
   writer.c	the profile file: its name, and how it is written into
		place;
   records.c	what the profile holds: its header and its records;
   signals.c	the handlers of the signals that write a profile, and
		sigaction and the signal functions, which keep them out of
		the program's sight.

   None of them calls libc (sys.h).  */

#ifndef PROFCOPY_RUNTIME_PROFILE_H
#define PROFCOPY_RUNTIME_PROFILE_H

#include <link.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime.h"
#include "segment.h"

/* What the runtime reads of one profiled object: its segment header,
   and the tables and counters the header names, checked to lie inside
   the object.  */
struct seg_view
{
  const struct pc_segment_header *header;
  const struct pc_block *blocks;
  /* N_BLOCKS + N_EDGES counters: the blocks', then those of the
     derivation's counted edges.  */
  const volatile struct pc_counter *counters;
  uint32_t n_edges;
  const struct pc_derive *derive;	/* NULL: every block is counted.  */
  uint32_t derive_size;			/* Bytes of it and its tables.  */
  /* The window (segment.h): counter K's low word at WINDOW[K * STRIDE],
     its high word after it with WINDOW_STRIDE 2; with 1 (a folded
     object) the high word is that of the counter the block or edge has
     outside the window, which the runtime keeps.  */
  const volatile uint32_t *window;
  uint32_t window_stride;
  const uint32_t *window_blocks;
  uint32_t n_window;
  const char *path;
  uint32_t path_len;
  const unsigned char *build_id;
  uint32_t build_id_len;
  /* The file the profiled copy was loaded from (objects.c,
     name_copy).  */
  const char *copy_path;
  uint32_t copy_path_len;
  uint32_t tables_crc;
  /* The bytes of its record in the profile without the tables, and of
     the tables (pcrt_record_size).  */
  uint32_t record_size;
  uint32_t tables_size;
};

/* The number of counts an object's record has: blocks, edges, window.  */

static inline uint32_t
view_counts (const struct seg_view *v)
{
  return v->header->n_blocks + v->n_edges + v->n_window;
}

/* Add the count FROM to TO, modulo 2^64.  */

static inline void
add_count (struct pc_counter *to, const struct pc_counter *from)
{
  uint32_t low = to->low + from->low;

  to->high += from->high + (low < from->low);
  to->low = low;
}

/* profile.c.  */

/* True once the constructor found a profiled object: the runtime has
   work to do.  */
PCRT_HIDDEN bool pcrt_active (void);

/* The memory page size, from the auxiliary vector.  */
PCRT_HIDDEN size_t pcrt_page_size (void);

/* Take the flag that one writer of a profile or of a dlclose record
   holds at a time: false if another thread, or a signal handler that
   interrupted it, holds it (give up then).  pcrt_end_busy lets it
   go.  */
PCRT_HIDDEN bool pcrt_try_busy (void);
PCRT_HIDDEN void pcrt_end_busy (void);

/* objects.c.  */

/* Find the program headers of the object with load bias BIAS: noted at
   start-up, or else read from its ELF header.  False if there are
   none.  */
PCRT_HIDDEN bool pcrt_phdrs (uintptr_t bias, const ElfW (Phdr) **phdr,
			     size_t *phnum);

/* The profcopy segment header of the object with load bias BIAS and
   the PHNUM program headers PHDR, or NULL.  */
PCRT_HIDDEN const struct pc_segment_header *
pcrt_find_header (uintptr_t bias, const ElfW (Phdr) *phdr, size_t phnum);

/* Fill *V from the header H of that object.  False, and the object is
   not profiled, if a table or counter array H names is not inside the
   object, misaligned or inconsistent.  The snapshot and the writer
   both look at an object through this, so they agree on its counts.  */
PCRT_HIDDEN bool pcrt_view (const struct pc_segment_header *h,
			    uintptr_t bias, const ElfW (Phdr) *phdr,
			    size_t phnum, struct seg_view *v);

/* The three above for the object of link map L: true, with *V, if it
   is a profiled object.  */
PCRT_HIDDEN bool pcrt_object_view (const struct link_map *l,
				   struct seg_view *v);

/* Note the program headers of every object loaded now: the program's
   are MAIN_PHDR and MAIN_PHNUM (from the auxiliary vector; NULL if
   unknown), the others' come from their ELF headers.  Return true if
   some object is profiled, and set *EXIT_HOOKED if one of them has its
   exit_group system call hooked.  */
PCRT_HIDDEN bool pcrt_note_objects (const ElfW (Phdr) *main_phdr,
				    size_t main_phnum, bool *exit_hooked);

/* Note the program's file, for the names of the copies (pcrt_view):
   /proc/self/exe, or EXECFN (the auxiliary vector's AT_EXECFN, or
   NULL) when that cannot be read.  */
PCRT_HIDDEN void pcrt_note_program_file (const char *execfn);

/* True if the object with header H and bias BIAS was loaded at
   start-up (it is never unloaded).  */
PCRT_HIDDEN bool pcrt_loaded_at_start (uintptr_t bias,
				       const struct pc_segment_header *h);

/* Register the counters of every object loaded at start-up whose
   increments leave the carry to the runtime (fold.c), and start the
   watcher, with the carry test TEST (PROFCOPY_TEST_CARRY), if there
   are any.  */
PCRT_HIDDEN void pcrt_watch_folded_objects (const char *test);

/* snapshot.c.  */

struct snapshot;

/* Copy the N counters C into TO, each read once, high word first.
   With SEEN, the counters are folded (fold.c, pcrt_fold_seen): a low
   word below its SEEN has wrapped once more than the high word says,
   and the copy says so; *WRAPS counts those.  */
PCRT_HIDDEN void pcrt_copy_counts (const volatile struct pc_counter *c,
				   uint32_t n, struct pc_counter *to,
				   const uint32_t *seen, uint32_t *wraps);

/* Copy into pages of their own the counters of every loaded profiled
   object that are not written as they are (folded or biased ones, and
   those a retired record adds to), or NULL if there are none.  Free
   the result with pcrt_snapshot_free.  */
PCRT_HIDDEN struct snapshot *pcrt_snapshot (void);
PCRT_HIDDEN void pcrt_snapshot_free (struct snapshot *s);

/* The counts of the object VIEW shows, loaded with bias BIAS, in the
   snapshot S (may be NULL), or NULL: its record then takes them from
   the live counters.  They may be changed (pcrt_retired_add_to).  */
PCRT_HIDDEN struct pc_counter *
pcrt_snapshot_counts (struct snapshot *s, const struct seg_view *view,
		      uintptr_t bias);

/* retire.c.  */

/* Whether some retired record is of the object V shows.  */
PCRT_HIDDEN bool pcrt_has_retired (const struct seg_view *v);

/* Match every retired record with a loaded object of the same file
   whose counts the snapshot S has.  Return the number of the others,
   each of which is a record of its own in the profile.  */
PCRT_HIDDEN uint32_t pcrt_retired_unmatched (struct snapshot *s);

/* Add to COUNTS, the counts of the loaded object VIEW shows, those of
   the retired record pcrt_retired_unmatched matched with it.  */
PCRT_HIDDEN void pcrt_retired_add_to (const struct seg_view *view,
				      struct pc_counter *counts);

/* Append the retired records that no loaded object took
   (pcrt_put_bytes).  Return how many.  */
PCRT_HIDDEN uint32_t pcrt_retired_put (void);

/* writer.c.  */

/* Note the PROFCOPY_ variables of the environment ENV (rt_setting) and
   read the writer's settings from them: PROFCOPY_OUTPUT,
   PROFCOPY_TABLES, PROFCOPY_COUNTS, PROFCOPY_VERBOSE; and the
   directory the program starts in.  */
PCRT_HIDDEN void pcrt_writer_init (char *const *env);

/* Write the profile of process PID, for REASON and SIGNO, with the
   counts of snapshot S where it has them (S may be NULL).  Return true
   on success.  The caller holds pcrt_try_busy.  */
PCRT_HIDDEN bool pcrt_write_file (long pid, unsigned reason, int signo,
				  struct snapshot *s);

/* records.c.  */

/* The bytes of the record of the object VIEW shows: with its tables
   when PROFCOPY_TABLES=profile asks for them.  */
PCRT_HIDDEN uint32_t pcrt_record_size (const struct seg_view *view);

/* Build the record of the object VIEW shows, loaded with bias BIAS,
   into the pcrt_record_size (VIEW) bytes at MEM, with its live counts.  False
   if it could not be.  The caller holds pcrt_try_busy.  */
PCRT_HIDDEN bool pcrt_record_in_memory (const struct seg_view *view,
					uintptr_t bias, unsigned char *mem);

/* Append the LEN bytes at P to the profile being written.  */
PCRT_HIDDEN void pcrt_put_bytes (const void *p, size_t len);

/* signals.c.  */

/* Make HANDLER (with SA_SIGINFO, SA_RESETHAND and SA_NODEFER) the
   action of every signal that writes a profile and has its default
   action now; sigaction and the signal functions then report the
   default for it.  */
PCRT_HIDDEN void pcrt_take_signals (void (*handler) (int, siginfo_t *,
						     void *));

/* Before the program sets or asks for the action of signal SIGNO
   itself, in a static executable (the syscall hook): if the runtime's
   handler stands in for its default action, put that action back and
   give the signal up, so that the program sees and changes what it
   would without the runtime.  */
PCRT_HIDDEN void pcrt_give_signal (int signo);

#endif /* PROFCOPY_RUNTIME_PROFILE_H */
