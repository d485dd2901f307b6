/* snapshot.c -- the copies of counters taken before a profile is
   written.  Part of libprofcopy.so.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   Most counters are written straight from memory, as they are.  The
   others are copied first, at the instant the profile is asked for:
   folded counters (whose wraps the watcher may not have seen yet),
   counters under the carry test's bias, and those of an object to
   which a retired record of an earlier load adds its counts.  The copy
   lives in pages of its own.  No libc call.  */

#define _GNU_SOURCE 1

#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile-format.h"
#include "profile.h"
#include "runtime.h"
#include "segment.h"
#include "sys.h"

/* The counters of one profiled object, copied by pcrt_snapshot.  */
struct snap_object
{
  uintptr_t bias;			/* Load bias (l_addr).  */
  const struct pc_segment_header *header;
  uint32_t n_counts;
  struct pc_counter *counts;		/* As its record has them.  */
};

/* A snapshot: the mapping it lives in and the objects it holds.  */
struct snapshot
{
  size_t map_size;			/* Bytes mapped, for munmap.  */
  uint32_t n_objects;
  struct snap_object objects[];
};

/* Only another thread that carries a counter into its high word
   between the two loads (once in 2^32 increments of that counter, at
   that instant) can make a copied count wrong.  The watcher's next
   look at a folded counter sees the wrap the copy says.  */

void
pcrt_copy_counts (const volatile struct pc_counter *c, uint32_t n,
		  struct pc_counter *to, const uint32_t *seen, uint32_t *wraps)
{
  for (const volatile struct pc_counter *end = c + n; c != end; c++, to++)
    {
      uint32_t high = c->high, low = c->low, wrap = 0;
      if (seen != NULL)
	{
	  wrap = low < *seen++;
	  *wraps += wrap;
	}
      to->high = high + wrap;
      to->low = low;
    }
}

/* pcrt_copy_counts for the window of V, into COUNTS after the copies
   of the other counters.  A wrap that the watcher has not seen goes
   into the copy of the high word of the block's or edge's other
   counter.  */

static void
copy_window (const struct seg_view *v, struct pc_counter *counts,
	     uint32_t *wraps)
{
  uint32_t n = v->header->n_blocks + v->n_edges;
  const uint32_t *seen = pcrt_fold_seen (v->window);
  struct pc_counter *to = counts + n;

  if (v->window_stride == 2)
    {
      pcrt_copy_counts ((const volatile struct pc_counter *) v->window,
			v->n_window, to, seen, wraps);
      return;
    }
  for (uint32_t k = 0; k < v->n_window; k++)
    {
      uint32_t low = v->window[k];
      to[k].low = low;
      to[k].high = 0;
      if (seen != NULL && low < seen[k])
	{
	  counts[v->window_blocks[k]].high++;
	  ++*wraps;
	}
    }
}

/* Take off the carry test's bias (pcrt_fold_bias) of the N counters
   whose low words start at LOW from their copies TO.  */

static void
unbias_counts (const volatile void *low, uint32_t n, struct pc_counter *to)
{
  uint32_t bias = pcrt_fold_bias (low);

  if (bias != 0)
    for (uint32_t k = 0; k < n; k++)
      {
	to[k].high -= to[k].low < bias;
	to[k].low -= bias;
      }
}

/* Whether the counters of the object V shows are copied at the
   snapshot: when they are not as its record has them (folded ones,
   whose wraps the watcher may not have seen yet; the carry test's
   bias), or a retired record's counts are to be added to them.  */

static bool
needs_copy (const struct seg_view *v)
{
  return pcrt_fold_seen (v->counters) != NULL || v->window_stride != 2
	 || pcrt_fold_seen (v->window) != NULL
	 || pcrt_fold_bias (v->counters) != 0
	 || pcrt_fold_bias (v->window) != 0 || pcrt_has_retired (v);
}

/* pcrt_snapshot's work, under the lock that keeps the watcher (fold.c)
   away.  */

static struct snapshot *
snapshot_locked (void)
{
  uint32_t n_objects = 0, wraps = 0;
  size_t n_counts = 0, size;
  struct snapshot *s;
  struct pc_counter *counts;
  struct seg_view v;

  for (const struct link_map *l = pcrt_objects (); l != NULL; l = l->l_next)
    if (pcrt_object_view (l, &v) && needs_copy (&v))
      {
	n_objects++;
	n_counts += view_counts (&v);
      }
  if (n_objects == 0)
    return NULL;
  size = sizeof *s + n_objects * sizeof s->objects[0]
	 + n_counts * sizeof (struct pc_counter);
  size = (size + 4095) & ~(size_t) 4095;
  s = pcrt_mmap (size);
  if (s == NULL)
    return NULL;
  s->map_size = size;
  s->n_objects = 0;
  counts = (struct pc_counter *) &s->objects[n_objects];
  for (const struct link_map *l = pcrt_objects ();
       l != NULL && s->n_objects < n_objects; l = l->l_next)
    {
      struct snap_object *o;
      uint32_t n;

      if (!pcrt_object_view (l, &v) || !needs_copy (&v)
	  || view_counts (&v) > n_counts)
	continue;
      n = v.header->n_blocks + v.n_edges;
      o = &s->objects[s->n_objects++];
      o->bias = l->l_addr;
      o->header = v.header;
      o->n_counts = view_counts (&v);
      o->counts = counts;
      pcrt_copy_counts (v.counters, n, counts, pcrt_fold_seen (v.counters),
			&wraps);
      copy_window (&v, counts, &wraps);
      unbias_counts (v.counters, n, counts);
      unbias_counts (v.window, v.n_window, counts + n);
      counts += o->n_counts;
      n_counts -= o->n_counts;
    }
  pcrt_fold_note_wraps (wraps);
  return s;
}

struct snapshot *
pcrt_snapshot (void)
{
  struct snapshot *s;

  pcrt_fold_lock ();
  s = snapshot_locked ();
  pcrt_fold_unlock ();
  return s;
}

void
pcrt_snapshot_free (struct snapshot *s)
{
  if (s != NULL)
    sys_munmap (s, s->map_size);
}

struct pc_counter *
pcrt_snapshot_counts (struct snapshot *s, const struct seg_view *view,
		      uintptr_t bias)
{
  if (s == NULL)
    return NULL;
  for (uint32_t i = 0; i < s->n_objects; i++)
    if (s->objects[i].header == view->header && s->objects[i].bias == bias
	&& s->objects[i].n_counts == view_counts (view))
      return s->objects[i].counts;
  return NULL;
}
