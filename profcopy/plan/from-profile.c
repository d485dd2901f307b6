/* from-profile.c -- the frequencies of the blocks taken from the
   profiles of earlier runs (--use-profile) in place of the estimate:
   each block's count, and the share of its taken branch.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#include <config.h>

#include <stdlib.h>

#include "estimate.h"

/* The flow along the edge from block B to its successor S, given the
   COUNT of every block and the number of predecessors NPRED of each:
   exact when S has no other way in, or when B's other successor has
   none; else B's count shared as its successors' counts are.  */

static double
edge_flow (const struct cfg *cfg, const double *count, const uint32_t *npred,
	   size_t b, uint32_t s)
{
  const struct block *blk = &cfg->blocks[b];
  uint32_t other = blk->succ[0] == s ? blk->succ[1] : blk->succ[0];
  double flow;

  if (npred[s] == 1)
    flow = count[s];
  else if (npred[other] == 1)
    flow = count[b] - count[other];
  else if (count[s] + count[other] > 0)
    flow = count[b] * count[s] / (count[s] + count[other]);
  else
    flow = count[b] / 2;
  return flow < 0 ? 0 : flow > count[b] ? count[b] : flow;
}

double *
profile_block_counts (const struct analysis *a,
		      const struct prof_object *const *objs, size_t n,
		      size_t *hits)
{
  const struct cfg *cfg = &a->cfg;
  double *count = malloc ((cfg->n_blocks + 1) * sizeof *count);

  *hits = 0;
  if (count == NULL)
    return NULL;
  for (size_t i = 0; i < cfg->n_blocks; i++)
    count[i] = -1;
  for (size_t k = 0; k < n; k++)
    for (uint32_t j = 0; j < objs[k]->n_blocks; j++)
      {
	long b = cfg_block_starting (cfg, objs[k]->blocks[j].start);
	if (b < 0)
	  continue;
	if (count[b] < 0)
	  {
	    count[b] = 0;
	    ++*hits;
	  }
	count[b] += (double) objs[k]->counts[j];
      }
  return count;
}

bool
estimate_from_counts (const struct analysis *a, const double *count,
		      float *freq, float *taken)
{
  const struct cfg *cfg = &a->cfg;
  size_t nb = cfg->n_blocks;
  double *known = malloc ((nb + 1) * sizeof *known);
  uint32_t *npred = calloc (nb + 1, sizeof *npred);
  float top = 0;

  if (known == NULL || npred == NULL)
    {
      free (known);
      free (npred);
      return false;
    }
  for (size_t i = 0; i < nb; i++)
    {
      for (uint32_t k = 0; k < cfg->blocks[i].n_succ; k++)
	npred[cfg->blocks[i].succ[k]]++;
      if (freq[i] > top)
	top = freq[i];
      known[i] = count[i] < 0 ? 0 : count[i];
    }
  for (size_t i = 0; i < nb; i++)
    {
      const struct block *blk = &cfg->blocks[i];

      /* The estimate, scaled below one run, orders the blocks that
	 did not run (another input may run them) and those the
	 profiles do not know.  */
      freq[i] = (float) known[i] + (top > 0 ? 0.5f * freq[i] / top : 0);
      if (taken != NULL && blk->n_succ == 2 && known[i] > 0)
	taken[i] = (float) (edge_flow (cfg, known, npred, i, blk->succ[0])
			    / known[i]);
    }
  free (known);
  free (npred);
  return true;
}
