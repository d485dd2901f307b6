/* derive.c -- which blocks get a counter, and how the others' counts
   follow from them.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   Control flows through a graph: each block is an edge from its entry
   vertex to its exit vertex (the "through" edge, whose flow is the
   block's count), a direct branch, a fall-through or a jump through a
   switch table whose every target is known is an edge from one block's
   exit to another's entry, and everything the rewriter cannot see --
   calls and returns, other indirect jumps, the unwinder, signals, a
   system call that may not return -- is an edge to or from one vertex,
   the outside; but a call that surely comes back (returns.c) is an edge
   from its block to its return point, as if it fell through.  At any
   moment when every thread sits at a call (as when the profile is
   written, from exit, exec or fork), the flow into each vertex equals
   the flow out of it.

   Let U be the edges whose flow is not counted.  A block's count
   follows from the counted ones exactly when its through edge lies on
   no cycle of U: cut U there and the flow across the cut is the sum of
   counted flows across it.  So: put every outside edge and every
   branch edge that cannot have a counter in U, then add the through
   edges and the two edges of the conditional branches that plan/plan.c lets
   have counters, heaviest first (the ones estimate.c expects to run
   most often, then costly counters), as long as they join two
   components (Kruskal); an edge that would close a cycle gets a
   counter.  Cycles made of edges put in U first do no harm, since
   they cross no cut of a through edge in the forest.  This is Ball and
   Larus's placement ("Optimally profiling and tracing programs",
   1994), with counters in blocks and on the edges of branches that a
   counter there costs little more than one in the block: on the
   fall-through edge, just before the next block; on the taken edge, in
   a stub that jumps on to the target, which the branch, inverted,
   skips on the fall-through path.

   The runtime sums the counted flows (blocks and edges) of every
   subtree in post-order; the flow of a through edge in the forest is
   then plus or minus the sum of the subtree hanging below it.  */

#include <config.h>

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "derive.h"
#include "mips-ops.h"
#include "union-find.h"

#define NONE UINT32_MAX

/* A block counter of more than COSTLY_COUNTER words (registers saved,
   an address from a bal) weighs as if its block ran cost / USUAL_COUNTER
   times as often.  18, was 12: since the branch-likely forms and the
   edges in gp's window, scaling the 13- to 18-word counters up placed
   more increments (lua5.4 0.55%, sqlite3 0.4% more instructions; 15 to
   24 do about as well, cpubench the same).  */
#define COSTLY_COUNTER 18
#define USUAL_COUNTER 7

/* What a counter on a branch edge costs against one in a block: on the
   fall-through edge, on the taken edge.  Since a taken edge's stub
   leaves by the increment's own branch-likely (emit/increments.c), the two cost
   about the same: 1.2 and 1.2 place fewer increments than 1.25 and 1.6
   did on all three bench/run-all.sh workloads (lua5.4, sqlite3 and
   cpubench: 0.9%, 1.1% and 0.8% fewer instructions); 1.1 to 1.25 for
   both do about as well, a taken cost below the fall-through's or 1.3
   and up worse.  */
#define FALL_EDGE_COST 1.2f
#define TAKEN_EDGE_COST 1.2f

/* Flow graph under construction.  */
struct graph
{
  uint32_t n_vertices, outside;
  uint32_t *uf;			/* Union-find parents.  */
  uint32_t *tree;		/* Forest edges, 2 words each.  */
  size_t n_tree;
};

/* Join U and V in G; record the edge in the forest if it joined two
   components, and return whether it did.  */

static bool
join (struct graph *g, uint32_t u, uint32_t v)
{
  uint32_t ru = uf_find (g->uf, u), rv = uf_find (g->uf, v);

  if (ru == rv)
    return false;
  g->uf[ru] = rv;
  g->tree[2 * g->n_tree] = u;
  g->tree[2 * g->n_tree + 1] = v;
  g->n_tree++;
  return true;
}

/* The block whose jump goes through the switch table entry R, when R is
   one and liveness found every target of that jump in switch tables
   (BLOCK_F_TABLE): the jump is then an edge of the flow graph.  Else
   NULL.  */

static const struct block *
table_edge (const struct analysis *a, const struct reloc_entry *r)
{
  const struct block *from;

  if (r->type != RELOC_JUMP_TABLE
      || cfg_block_starting (&a->cfg, r->target) < 0)
    return NULL;
  from = cfg_block_at (&a->cfg, r->aux2);
  return from != NULL && (from->flags & BLOCK_F_TABLE) ? from : NULL;
}

/* Set OUTSIDE_IN[i] for every block that control may enter other than
   by a direct branch or falling in: function entries, return points
   (but those of the calls that BACK says come back),
   code addresses of the relocation table (but the cases of switch
   tables whose jumps are edges, table_edge), landing pads, symbols,
   starts of sections and of runs after data, every block of a function
   whose jumps may go where analysis does not know
   (analysis_unknown_entries); not the entries that CLOSED marks, which
   only calls of this object enter.  */

static void
mark_outside_entries (const struct analysis *a, const uint8_t *closed,
		      const uint8_t *back, uint8_t *outside_in)
{
  const struct cfg *cfg = &a->cfg;
  unsigned char *unknown = analysis_unknown_entries (a);
  long k;

  /* A function that jumps to places analysis does not know: any of its
     blocks may be one (when memory runs short, any block at all).  */
  for (size_t i = 0; i < cfg->n_blocks; i++)
    if (unknown == NULL || unknown[cfg->blocks[i].func])
      outside_in[i] = 1;
  free (unknown);

  for (size_t f = 0; f < cfg->n_funcs; f++)
    if ((k = cfg_block_starting (cfg, cfg->funcs[f].entry)) >= 0 && !closed[k])
      outside_in[k] = 1;
  for (size_t i = 0; i < a->relocs.n_entries; i++)
    if ((k = cfg_block_starting (cfg, a->relocs.entries[i].target)) >= 0
	&& !closed[k] && !table_edge (a, &a->relocs.entries[i])
	&& !(a->relocs.entries[i].flags & RELOC_F_TABLE_SLOT))
      outside_in[k] = 1;
  for (size_t i = 0; i < a->n_landing_pads; i++)
    if ((k = cfg_block_starting (cfg, a->landing_pads[i])) >= 0)
      outside_in[k] = 1;
  for (size_t i = 0; i < a->obj.n_symbols; i++)
    if ((k = cfg_block_starting (cfg, a->obj.symbols[i].value)) >= 0
	&& !closed[k])
      outside_in[k] = 1;
  for (size_t i = 0; i < cfg->n_blocks; i++)
    {
      const struct block *b = &cfg->blocks[i];
      const struct block *prev = i > 0 ? b - 1 : NULL;

      if (prev == NULL || prev->end != b->start
	  || ((prev->flags & BLOCK_F_CALL) && !back[i - 1])
	  || (prev->flags & (BLOCK_F_INVALID | BLOCK_F_SLOT_ENTRY))
	  || (b->flags & (BLOCK_F_SLOT_ENTRY | BLOCK_F_INVALID)))
	outside_in[i] = 1;
      else
	{
	  const struct insn *slot;
	  const struct insn *ctl = cfg_block_control (&a->code, prev, &slot);
	  if (ctl != NULL && slot == NULL)
	    outside_in[i] = 1;	/* Its slot starts this block.  */
	}
    }
}

/* Set OUTSIDE_IN[i] for every block that no direct branch, no fall but
   from padding, no call of INTO, no return of a call that BACK says
   comes back and no switch-table jump that is an edge reaches:
   whatever runs it comes from outside (a function that no symbol or
   table names, run through a code pointer that the run-time translation
   catches).  */

static void
mark_unreached (const struct analysis *a, const uint32_t *into,
		const uint8_t *back, uint8_t *outside_in)
{
  const struct cfg *cfg = &a->cfg;
  uint8_t *reached = calloc (cfg->n_blocks + 1, 1);

  if (reached == NULL)
    {
      memset (outside_in, 1, cfg->n_blocks);
      return;
    }
  for (size_t i = 0; i < cfg->n_blocks; i++)
    {
      const struct block *b = &cfg->blocks[i];
      const struct insn *slot;
      const struct insn *ctl = cfg_block_control (&a->code, b, &slot);
      long j;

      if (ctl != NULL && (ctl->kind == INSN_BRANCH || ctl->kind == INSN_JUMP
			  || ctl->kind == INSN_CALL)
	  && (j = cfg_block_starting (cfg, ctl->target)) >= 0)
	reached[j] = 1;
      /* Padding never runs: the block after it may only look reached
	 (glibc's makecontext trampoline, behind a word of padding).  */
      if ((ctl == NULL || ctl->kind == INSN_BRANCH || back[i]
	   || (b->flags & BLOCK_F_SLOT_ENTRY))
	  && !(b->flags & BLOCK_F_PADDING)
	  && (j = cfg_block_starting (cfg, b->end)) >= 0)
	reached[j] = 1;
      if (into != NULL && into[i] != 0)
	reached[into[i] - 1] = 1;
    }
  for (size_t i = 0; i < a->relocs.n_entries; i++)
    if (table_edge (a, &a->relocs.entries[i]) != NULL)
      reached[cfg_block_starting (cfg, a->relocs.entries[i].target)] = 1;
  for (size_t i = 0; i < cfg->n_blocks; i++)
    if (!reached[i])
      outside_in[i] = 1;
  free (reached);
}

/* Add the outside, branch and fall-through edges of block I of A to G,
   the branch and fall-through ones only with BRANCH_EDGES; with BACK,
   block I ends in a call that surely comes back to the block after
   it, an edge.  */

static void
add_block_edges (const struct analysis *a, size_t i, uint32_t into,
		 bool back, bool branch_edges, struct graph *g)
{
  const struct cfg *cfg = &a->cfg;
  const struct block *b = &cfg->blocks[i];
  const struct insn *slot;
  const struct insn *ctl = cfg_block_control (&a->code, b, &slot);
  uint32_t in = 2 * (uint32_t) i, out = in + 1;
  uint32_t dests[3];
  unsigned n_dests = 0;
  bool outside_out = false;

  if (b->flags & (BLOCK_F_CALL | BLOCK_F_RETURN | BLOCK_F_INDIRECT
		  | BLOCK_F_FALLTHRU_EXIT | BLOCK_F_INVALID
		  | BLOCK_F_SLOT_ENTRY))
    outside_out = (into == 0 && !(b->flags & BLOCK_F_TABLE))
		  || (b->flags & (BLOCK_F_RETURN | BLOCK_F_FALLTHRU_EXIT
				  | BLOCK_F_INVALID | BLOCK_F_SLOT_ENTRY));
  /* A call into a function that only calls enter: all the flow goes
     there (and comes back to the return point through the outside).  */
  if (into != 0)
    join (g, out, 2 * (into - 1));
  if (back)
    {
      outside_out = false;
      join (g, out, 2 * (uint32_t) cfg_block_starting (cfg, b->end));
    }
  /* A trap or a system call (exit) may leave the block for good.  */
  for (uint32_t at = b->start; at < b->end; at += 4)
    {
      const struct insn *insn = code_insn_at (&a->code, at);
      if (insn == NULL || insn->kind == INSN_INVALID
	  || (insn->flags & INSN_F_TRAP)
	  || (insn->op == OP_SPECIAL && (insn->word & 0x3f) == FUNCT_SYSCALL))
	outside_out = true;
    }
  if (ctl != NULL && slot == NULL)
    outside_out = true;
  else if (!(b->flags & (BLOCK_F_CALL | BLOCK_F_RETURN | BLOCK_F_INDIRECT)))
    {
      if (ctl == NULL || ctl->kind == INSN_BRANCH)
	dests[n_dests++] = b->end;
      if (ctl != NULL && (ctl->kind == INSN_BRANCH || ctl->kind == INSN_JUMP))
	dests[n_dests++] = ctl->target;
    }
  if ((b->flags & BLOCK_F_SLOT_ENTRY) && n_dests < 3
      && (ctl == NULL || ctl->kind != INSN_BRANCH))
    dests[n_dests++] = b->end;	/* Entered at the slot, it falls.  */
  for (unsigned k = 0; k < n_dests; k++)
    {
      long j = cfg_block_starting (cfg, dests[k]);
      if (j < 0)
	{
	  outside_out = true;
	  continue;
	}
      if (branch_edges)
	join (g, out, 2 * (uint32_t) j);
    }
  if (outside_out)
    join (g, out, g->outside);
  if (b->flags & BLOCK_F_SLOT_ENTRY)
    join (g, out, g->outside);	/* Entries at the slot.  */
}

/* An edge that may get a counter: the through edge of block ITEM, or,
   for ITEM = N + 2k + t, the branch (t = 0) or fall-through (t = 1)
   edge of the K-th block that EDGE_OK marks; heaviest first, then by
   item.  */

struct weighted
{
  uint32_t weight, item;
};

/* Sort the N items W, listed by item, heaviest first and by item among
   equals: a stable radix sort of the complemented weights, 11 bits at a
   time, through TMP (N items).  */

static void
sort_weighted (struct weighted *w, struct weighted *tmp, size_t n)
{
  size_t count[(1 << 11) + 1];

  for (unsigned shift = 0; shift < 32; shift += 11)
    {
      memset (count, 0, sizeof count);
      for (size_t k = 0; k < n; k++)
	count[((~w[k].weight >> shift) & 0x7ff) + 1]++;
      for (size_t d = 0; d < 0x7ff; d++)
	count[d + 1] += count[d];
      for (size_t k = 0; k < n; k++)
	tmp[count[(~w[k].weight >> shift) & 0x7ff]++] = w[k];
      memcpy (w, tmp, n * sizeof *w);
    }
}

/* A weight: F (a frequency, whose float bits order like the numbers)
   then COST.  */

static uint32_t
weigh (float f, uint32_t cost)
{
  uint32_t bits;

  memcpy (&bits, &f, sizeof bits);
  return (((bits >> 16) + 1) << 8) | (cost > 255 ? 255 : cost);
}

/* Walk the forest of G: set PARENT of every vertex (NONE for roots) and
   list the vertices in post-order in ORDER.  False when out of memory.  */

static bool
walk_forest (const struct graph *g, uint32_t *parent, uint32_t *order)
{
  uint32_t n = g->n_vertices;
  uint32_t *start = calloc ((size_t) n + 1, sizeof *start);
  uint32_t *adj = malloc ((2 * g->n_tree + 1) * sizeof *adj);
  uint32_t *stack = malloc (((size_t) n + 1) * sizeof *stack);
  uint32_t *next = malloc (((size_t) n + 1) * sizeof *next);
  size_t n_order = 0;
  bool ok = start != NULL && adj != NULL && stack != NULL && next != NULL;

  if (ok)
    {
      for (size_t e = 0; e < 2 * g->n_tree; e++)
	start[g->tree[e] + 1]++;
      for (uint32_t v = 0; v < n; v++)
	start[v + 1] += start[v];
      memcpy (next, start, (size_t) n * sizeof *next);
      for (size_t e = 0; e < g->n_tree; e++)
	{
	  uint32_t u = g->tree[2 * e], v = g->tree[2 * e + 1];
	  adj[next[u]++] = v;
	  adj[next[v]++] = u;
	}
      memcpy (next, start, (size_t) n * sizeof *next);
      for (uint32_t v = 0; v < n; v++)
	parent[v] = NONE - 1;	/* Not visited.  */
      /* The outside first, so that it is a root.  */
      for (uint32_t k = 0; k <= n; k++)
	{
	  uint32_t root = k == 0 ? g->outside : k - 1;
	  size_t sp = 0;

	  if (parent[root] != NONE - 1)
	    continue;
	  parent[root] = NONE;
	  stack[sp++] = root;
	  while (sp > 0)
	    {
	      uint32_t v = stack[sp - 1];
	      if (next[v] < start[v + 1])
		{
		  uint32_t w = adj[next[v]++];
		  if (w != parent[v] && parent[w] == NONE - 1)
		    {
		      parent[w] = v;
		      stack[sp++] = w;
		    }
		}
	      else
		{
		  order[n_order++] = v;
		  sp--;
		}
	    }
	}
    }
  free (start);
  free (adj);
  free (stack);
  free (next);
  return ok;
}

bool
derive_plan (const struct analysis *a, const uint32_t *cost,
	     const unsigned char *cold, const uint32_t *into,
	     const unsigned char *returning, const float *freq,
	     const float *taken,
	     const unsigned char *edge_ok, bool all, struct derive *d,
	     char **errmsg)
{
  const struct cfg *cfg = &a->cfg;
  size_t n = cfg->n_blocks, n_cand = 0, n_items;
  struct graph g;
  uint8_t *outside_in = calloc (n + 1, 1);
  uint32_t *cand = malloc ((n + 1) * sizeof *cand);
  struct weighted *w = NULL;
  uint32_t *parent = NULL, *order = NULL;
  uint8_t *need = NULL;
  uint8_t *closed = NULL, *back = NULL;
  bool ok = false;

  memset (d, 0, sizeof *d);
  memset (&g, 0, sizeof g);
  d->n_blocks = n;
  d->n_vertices = g.n_vertices = 2 * (uint32_t) n + 1;
  g.outside = 2 * (uint32_t) n;
  d->measured = calloc (n + 1, 1);
  d->rule = calloc (n + 1, sizeof *d->rule);
  d->taken_edge = calloc (n + 1, sizeof *d->taken_edge);
  d->fall_edge = calloc (n + 1, sizeof *d->fall_edge);
  g.uf = malloc ((size_t) g.n_vertices * sizeof *g.uf);
  g.tree = malloc ((size_t) g.n_vertices * 2 * sizeof *g.tree);
  if (outside_in == NULL || cand == NULL
      || d->measured == NULL || d->rule == NULL || d->taken_edge == NULL
      || d->fall_edge == NULL || g.uf == NULL || g.tree == NULL)
    goto cleanup;
  if (all)
    {
      memset (d->measured, 1, n);
      d->n_measured = n;
      ok = true;
      goto cleanup;
    }

  for (uint32_t v = 0; v < g.n_vertices; v++)
    g.uf[v] = v;
  closed = calloc (n + 1, 1);
  back = calloc (n + 1, 1);
  if (closed == NULL || back == NULL)
    goto cleanup;
  for (size_t i = 0; into != NULL && i < n; i++)
    if (into[i] != 0)
      closed[into[i] - 1] = 1;
  /* A call into a function that only calls enter stays the way in.  */
  for (size_t i = 0; returning != NULL && i < n; i++)
    back[i] = returning[i] && (into == NULL || into[i] == 0);
  mark_outside_entries (a, closed, back, outside_in);
  mark_unreached (a, into, back, outside_in);
  /* The jumps through switch tables whose targets liveness knows.  */
  for (size_t i = 0; i < a->relocs.n_entries; i++)
    {
      const struct reloc_entry *r = &a->relocs.entries[i];
      const struct block *from = table_edge (a, r);
      if (from != NULL)
	join (&g, 2 * (uint32_t) (from - cfg->blocks) + 1,
	      2 * (uint32_t) cfg_block_starting (cfg, r->target));
    }
  for (size_t i = 0; i < n; i++)
    {
      bool counted = edge_ok != NULL && edge_ok[i];
      if (outside_in[i])
	join (&g, g.outside, 2 * (uint32_t) i);
      add_block_edges (a, i, into != NULL ? into[i] : 0, back[i], !counted,
		       &g);
      if (counted)
	cand[n_cand++] = (uint32_t) i;
    }
  n_items = n + 2 * n_cand;
  w = malloc ((n_items + 1) * sizeof *w);
  d->edges = malloc ((2 * n_cand + 1) * 2 * sizeof *d->edges);
  if (w == NULL || d->edges == NULL)
    goto cleanup;

  /* Through edges and the candidate branch edges, most often run first
     (by the estimate, scaled up for costly block counters), then costly
     first.  A counter on a branch edge costs a little more than one in
     a block (it has none of a block's cheap ways to its counter), on
     either edge alike (FALL_EDGE_COST, TAKEN_EDGE_COST).  */
  for (size_t i = 0; i < n; i++)
    {
      w[i].item = (uint32_t) i;
      float f = cost[i] > COSTLY_COUNTER
		? freq[i] * (float) cost[i] / (float) USUAL_COUNTER : freq[i];
      w[i].weight = cold[i] ? 0 : weigh (f, cost[i]);
    }
  for (size_t k = 0; k < n_cand; k++)
    {
      uint32_t i = cand[k];
      float t = freq[i] * taken[i], f = freq[i] - t;
      w[n + 2 * k].item = (uint32_t) (n + 2 * k);
      w[n + 2 * k].weight = weigh (t * TAKEN_EDGE_COST, 0);
      w[n + 2 * k + 1].item = (uint32_t) (n + 2 * k + 1);
      w[n + 2 * k + 1].weight = weigh (f * FALL_EDGE_COST, 0);
    }
  d->weight = malloc ((n + 2 * n_cand + 1) * sizeof *d->weight);
  if (d->weight == NULL)
    goto cleanup;
  for (size_t i = 0; i < n; i++)
    d->weight[i] = w[i].weight;
  {
    struct weighted *tmp = malloc ((n_items + 1) * sizeof *tmp);
    if (tmp == NULL)
      goto cleanup;
    sort_weighted (w, tmp, n_items);
    free (tmp);
  }
  for (size_t k = 0; k < n_items; k++)
    {
      uint32_t i = w[k].item, c, from, to;
      if (i < n)
	{
	  if (!join (&g, 2 * i, 2 * i + 1))
	    {
	      d->measured[i] = 1;
	      d->n_measured++;
	    }
	  continue;
	}
      c = cand[(i - n) / 2];
      from = 2 * c + 1;
      to = 2 * cfg->blocks[c].succ[(i - n) % 2];
      if (join (&g, from, to))
	continue;
      d->edges[2 * d->n_edges] = from;
      d->edges[2 * d->n_edges + 1] = to;
      {
	/* For the window, the estimate alone, as a block's.  */
	float t = freq[c] * taken[c];
	d->weight[n + d->n_edges] = weigh ((i - n) % 2 == 0 ? t : freq[c] - t,
					   0);
      }
      d->n_edges++;
      if ((i - n) % 2 == 0)
	d->taken_edge[c] = (uint32_t) d->n_edges;
      else
	d->fall_edge[c] = (uint32_t) d->n_edges;
    }

  parent = malloc ((size_t) g.n_vertices * sizeof *parent);
  order = malloc ((size_t) g.n_vertices * sizeof *order);
  need = calloc (g.n_vertices, 1);
  d->links = malloc ((size_t) g.n_vertices * 2 * sizeof *d->links);
  if (parent == NULL || order == NULL || need == NULL || d->links == NULL
      || !walk_forest (&g, parent, order))
    goto cleanup;

  /* A vertex's sum is wanted when it hangs below the through edge of a
     derived block, or its parent's sum is wanted (top down, in reverse
     post-order); a link is needed when the parent's sum is wanted and
     the child's subtree holds a counted block.  */
  for (size_t i = 0; i < n; i++)
    if (!d->measured[i])
      {
	uint32_t in = 2 * (uint32_t) i, out = in + 1;
	if (parent[out] == in)
	  need[out] |= 2;
	else if (parent[in] == out)
	  need[in] |= 2;
      }
  for (uint32_t k = g.n_vertices; k-- > 0;)
    {
      uint32_t v = order[k];
      if (parent[v] != NONE && (need[parent[v]] & 2))
	need[v] |= 2;
    }
  for (size_t i = 0; i < n; i++)
    if (d->measured[i])
      need[2 * i] |= 1, need[2 * i + 1] |= 1;
  for (size_t k = 0; k < 2 * d->n_edges; k++)
    need[d->edges[k]] |= 1;
  for (uint32_t k = 0; k < g.n_vertices; k++)
    {
      uint32_t v = order[k];
      if (parent[v] == NONE || !(need[v] & 1))
	continue;
      need[parent[v]] |= 1;
      if (!(need[parent[v]] & 2))
	continue;
      d->links[2 * d->n_links] = v;
      d->links[2 * d->n_links + 1] = parent[v];
      d->n_links++;
    }
  for (size_t i = 0; i < n; i++)
    {
      uint32_t in = 2 * (uint32_t) i, out = in + 1;
      if (d->measured[i])
	continue;
      if (parent[out] == in)
	d->rule[i] = 1 + 2 * out;
      else if (parent[in] == out)
	d->rule[i] = 2 + 2 * in;
      else
	{
	  *errmsg = strdup ("internal error: a derived block is not in the "
			    "forest");
	  goto fail;
	}
    }
  ok = true;

 cleanup:
  if (!ok)
    *errmsg = strdup ("out of memory");
 fail:
  free (outside_in);
  free (w);
  free (parent);
  free (order);
  free (need);
  free (closed);
  free (back);
  free (cand);
  free (g.uf);
  free (g.tree);
  return ok;
}

void
derive_free (struct derive *d)
{
  free (d->measured);
  free (d->rule);
  free (d->links);
  free (d->weight);
  free (d->edges);
  free (d->taken_edge);
  free (d->fall_edge);
  memset (d, 0, sizeof *d);
}
