/* callees.c -- the callee of every call, the calls that surely come
   back, padding between functions, tail calls, and the liveness,
   computed in a thread of its own (emit_narrow_liveness).

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#include <config.h>

#include <elf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stages.h"

/* Functions of the C and math libraries that return, whatever their
   arguments (or fault, like any load), and run no code of the program:
   a call of one surely comes back (returns.c).  Sorted.  */
static const char *const returning_imports[] = {
  "__ctype_b_loc", "__ctype_tolower_loc", "__ctype_toupper_loc",
  "__errno_location", "abs", "acos", "asin", "atan", "atan2", "bcmp",
  "ceil", "cos", "cosh", "exp", "fabs", "floor", "fmod",
  "frexp", "labs", "ldexp", "llabs", "log", "log10", "memchr",
  "memcmp", "memcpy", "memmove", "mempcpy", "memrchr", "memset", "modf",
  "pow", "rawmemchr", "sin", "sinh", "sqrt", "stpcpy", "strcat",
  "strchr", "strchrnul", "strcmp", "strcpy", "strcspn", "strlen", "strncat",
  "strncmp", "strncpy", "strnlen", "strpbrk", "strrchr", "strspn",
  "strstr", "tan", "tanh", "tolower", "toupper"
};

/* The allocator, which returns too, but may wait for a lock that a
   thread holds over a system call: that thread would then sit in a call
   that should come back when the profile is written.  Taken as
   returning_imports where no other thread runs (single increments).
   Sorted.  */
static const char *const one_thread_imports[] = {
  "calloc", "free", "malloc", "realloc"
};

static int
compare_string (const void *key, const void *elt)
{
  return strcmp (key, *(const char *const *) elt);
}

static int
compare_aux (const void *pa, const void *pb)
{
  const struct reloc_entry *a = *(const struct reloc_entry *const *) pa;
  const struct reloc_entry *b = *(const struct reloc_entry *const *) pb;

  return a->aux < b->aux ? -1 : a->aux > b->aux;
}

/* What find_returning_calls knows of an object.  */
struct callee_finder
{
  const struct analysis *a;
  const uint32_t *got_entry;	/* got_entries.  */
  const struct object_symbol **dyn; /* Dynamic symbols by index.  */
  size_t n_dyn;
  const struct reloc_entry **got_refs; /* RELOC_GOT_REF, by addiu.  */
  size_t n_got_refs;
  unsigned char *entered;	/* Per block: control may come in other than
				   by a branch or a fall of this object.  */
  uint32_t *pred_first, *pred;	/* Predecessors by branch or fall.  */
  const struct symbol_scope *scope;
  size_t self;
  bool local;			/* Nothing may interpose A's symbols.  */
  bool one_thread;		/* No other thread runs.  */
};

/* The value t9 holds after the words of block B of F->a before STOP
   (the last that writes it): a GOT slot's word, 1 + K; a function entry
   that an addiu of a GOT page reference adds, (1 << 32) | address; else
   0 (and *NONE true when nothing there writes t9).  */

static uint64_t
t9_written (const struct callee_finder *f, const struct block *b,
	    uint32_t stop, bool *none)
{
  const struct code *code = &f->a->code;
  const struct insn *w = NULL;
  long k;

  *none = false;
  for (uint32_t at = b->start; at < stop; at += 4)
    {
      const struct insn *x = code_insn_at (code, at);
      if (x == NULL)
	return 0;
      if (x->writes & R (REG_T9))
	w = x;
    }
  if (w == NULL)
    {
      *none = true;
      return 0;
    }
  if ((k = got_slot (&f->a->obj, &f->a->relocs, w)) >= 0 && w->rt == REG_T9)
    return 1 + (uint64_t) k;
  if (w->op == OP_ADDIU && w->rs == REG_T9 && f->n_got_refs > 0)
    {
      struct reloc_entry key, *pkey = &key;
      const struct reloc_entry **hit;
      key.aux = w->addr;
      hit = bsearch (&pkey, f->got_refs, f->n_got_refs, sizeof *f->got_refs,
		     compare_aux);
      if (hit != NULL)
	return ((uint64_t) 1 << 32) | (*hit)->target;
    }
  return 0;
}

/* The value (t9_written) that t9 holds at the jalr t9 CTL that ends
   block I of F->a: written in the block, or else by every block that
   branches or falls into it, the same in all.  0 when not known.  */

static uint64_t
t9_at_call (const struct callee_finder *f, size_t i, const struct insn *ctl)
{
  const struct cfg *cfg = &f->a->cfg;
  const struct block *b = &cfg->blocks[i];
  uint64_t v, same = 0;
  bool none;

  v = t9_written (f, b, ctl->addr, &none);
  if (!none)
    return v;
  if (f->entered[i] || f->pred_first[i] == f->pred_first[i + 1])
    return 0;
  for (uint32_t q = f->pred_first[i]; q < f->pred_first[i + 1]; q++)
    {
      const struct block *p = &cfg->blocks[f->pred[q]];
      const struct insn *slot;
      const struct insn *pc = cfg_block_control (&f->a->code, p, &slot);
      uint32_t stop = p->end;

      /* Entered at its slot, it may bring another t9.  */
      if (p->flags & BLOCK_F_SLOT_ENTRY)
	return 0;
      /* A branch-likely's slot runs only when the branch is taken.  */
      if (pc != NULL && (pc->flags & INSN_F_LIKELY) && p->end == b->start)
	{
	  if (pc->target == b->start)
	    return 0;
	  stop = pc->addr + 4;
	}
      v = t9_written (f, p, stop, &none);
      if (v == 0 || (same != 0 && v != same))
	return 0;
      same = v;
    }
  return same;
}

/* The callee (returns.h) of a call to VALUE (t9_written), or to the
   address VALUE when DIRECT.  */

static uint32_t
callee_of (const struct callee_finder *f, uint64_t value, bool direct)
{
  const struct mips_object *obj = &f->a->obj;
  const struct object_symbol *sym = NULL;
  const struct function *fn;
  uint32_t target;
  long definer;

  if (direct || (value >> 32) != 0)
    target = (uint32_t) value;
  else if (value == 0)
    return 0;
  else if (value - 1 < obj->dyn.local_gotno)
    target = f->got_entry[value - 1];
  else
    {
      sym = slot_symbol (obj, f->dyn, f->n_dyn, (long) (value - 1));
      if (sym == NULL)
	return 0;
      if (sym->shndx == SHN_UNDEF)
	{
	  if (strcmp (sym->name, "__stack_chk_fail") == 0)
	    return CALLEE_GUARD;
	  if (bsearch (sym->name, returning_imports,
		       sizeof returning_imports / sizeof returning_imports[0],
		       sizeof returning_imports[0], compare_string) == NULL
	      && (!f->one_thread
		  || bsearch (sym->name, one_thread_imports,
			      sizeof one_thread_imports
			      / sizeof one_thread_imports[0],
			      sizeof one_thread_imports[0],
			      compare_string) == NULL))
	    return 0;
	  if (f->scope != NULL
	      && ((definer = scope_definer (f->scope, sym->name)) < 0
		  || !f->scope->c_library[definer]))
	    return 0;
	  return CALLEE_RETURNS;
	}
      /* A symbol of ours that another object may define first.  */
      if (!f->local && ELF32_ST_VISIBILITY (sym->other) != STV_PROTECTED
	  && (f->scope == NULL
	      || scope_definer (f->scope, sym->name) != (long) f->self))
	return 0;
      target = sym->value;
    }
  fn = target != 0 ? cfg_function_at (&f->a->cfg, target) : NULL;
  if (fn == NULL || fn->entry != target)
    return 0;
  return 1 + (uint32_t) (fn - f->a->cfg.funcs);
}

/* Fill F's ENTERED and predecessor lists.  False when out of memory.  */

static bool
find_predecessors (struct callee_finder *f)
{
  const struct analysis *a = f->a;
  const struct cfg *cfg = &a->cfg;
  size_t n = cfg->n_blocks;
  uint32_t *next;

  f->entered = calloc (n + 1, 1);
  f->pred_first = calloc (n + 2, sizeof *f->pred_first);
  f->pred = malloc ((2 * n + 1) * sizeof *f->pred);
  next = malloc ((n + 1) * sizeof *next);
  if (f->entered == NULL || f->pred_first == NULL || f->pred == NULL
      || next == NULL)
    {
      free (next);
      return false;
    }
  for (size_t i = 0; i < n; i++)
    {
      const struct block *b = &cfg->blocks[i];
      long k = i > 0 ? (long) i - 1 : -1;
      if ((k >= 0 && (cfg->blocks[k].flags & BLOCK_F_CALL))
	  || (b->flags & BLOCK_F_SLOT_ENTRY)
	  || cfg->funcs[b->func].entry == b->start)
	f->entered[i] = 1;
      if (b->flags & (BLOCK_F_CALL | BLOCK_F_INDIRECT | BLOCK_F_RETURN))
	continue;
      for (uint32_t s = 0; s < b->n_succ && s < 2; s++)
	f->pred_first[b->succ[s] + 1]++;
    }
  for (size_t i = 0; i < a->relocs.n_entries; i++)
    {
      long k = cfg_block_starting (cfg, a->relocs.entries[i].target);
      if (k >= 0)
	f->entered[k] = 1;
    }
  for (size_t i = 0; i < a->obj.n_symbols; i++)
    {
      long k = cfg_block_starting (cfg, a->obj.symbols[i].value);
      if (k >= 0)
	f->entered[k] = 1;
    }
  for (size_t i = 0; i < a->n_landing_pads; i++)
    {
      long k = cfg_block_starting (cfg, a->landing_pads[i]);
      if (k >= 0)
	f->entered[k] = 1;
    }
  for (size_t i = 0; i < n; i++)
    f->pred_first[i + 1] += f->pred_first[i];
  memcpy (next, f->pred_first, n * sizeof *next);
  for (size_t i = 0; i < n; i++)
    {
      const struct block *b = &cfg->blocks[i];
      if (b->flags & (BLOCK_F_CALL | BLOCK_F_INDIRECT | BLOCK_F_RETURN))
	continue;
      for (uint32_t s = 0; s < b->n_succ && s < 2; s++)
	f->pred[next[b->succ[s]]++] = (uint32_t) i;
    }
  free (next);
  return true;
}

/* Set SITES->returning: the calls of A that surely come back
   (returns.c).  A call's callee is known when it is a direct call, or a
   jalr t9 whose t9 is a GOT slot's or a GOT page reference's on every
   way in (t9_at_call).  Another object may interpose the callee unless
   A is a program or binds its own symbols first (DF_SYMBOLIC), or the
   callee is protected, or SCOPE (NULL for a shared object alone) says
   that A, its SELF-th object, is the first definer of the callee's
   name.  ONE_THREAD: no other thread runs (one_thread_imports).
   GOT_ENTRY is got_entries (A).  False when out of memory.  */

static bool
find_returning_calls (const struct analysis *a, const uint32_t *got_entry,
		      struct call_sites *sites,
		      const struct symbol_scope *scope, size_t self,
		      bool one_thread)
{
  const struct cfg *cfg = &a->cfg;
  const struct mips_object *obj = &a->obj;
  struct callee_finder f;
  uint32_t *callee = calloc (cfg->n_blocks + 1, sizeof *callee);
  bool ok;

  memset (&f, 0, sizeof f);
  f.a = a;
  f.got_entry = got_entry;
  f.scope = scope;
  f.self = self;
  f.one_thread = one_thread;
  f.local = obj->e_type == ET_EXEC || obj->pie
	    || (obj->dyn.flags & DF_SYMBOLIC);
  f.dyn = object_dynsyms_by_index (obj, &f.n_dyn);
  f.got_refs = malloc ((a->relocs.n_by_type[RELOC_GOT_REF] + 1)
		       * sizeof *f.got_refs);
  ok = callee != NULL && f.dyn != NULL && f.got_refs != NULL
       && find_predecessors (&f);
  if (ok)
    {
      for (size_t i = 0; i < a->relocs.n_entries; i++)
	if (a->relocs.entries[i].type == RELOC_GOT_REF
	    && f.n_got_refs < a->relocs.n_by_type[RELOC_GOT_REF])
	  f.got_refs[f.n_got_refs++] = &a->relocs.entries[i];
      qsort (f.got_refs, f.n_got_refs, sizeof *f.got_refs, compare_aux);
      for (size_t i = 0; i < cfg->n_blocks; i++)
	{
	  const struct block *b = &cfg->blocks[i];
	  const struct insn *slot;
	  const struct insn *ctl = cfg_block_control (&a->code, b, &slot);

	  if (!(b->flags & BLOCK_F_CALL) || ctl == NULL)
	    continue;
	  if (ctl->kind == INSN_CALL)
	    callee[i] = callee_of (&f, ctl->target, true);
	  else if (ctl->kind == INSN_ICALL && ctl->rs == REG_T9)
	    callee[i] = callee_of (&f, t9_at_call (&f, i, ctl), false);
	}
      sites->returning = returning_calls (a, callee);
      ok = sites->returning != NULL;
    }
  free (callee);
  free (f.dyn);
  free (f.got_refs);
  free (f.entered);
  free (f.pred_first);
  free (f.pred);
  return ok;
}

/* Set INTO (per block of A, zeroed) for the calls into the functions
   that N found only their entrants enter: 1 + the index of the entry
   block of the function that block's unconditional call (or jump
   through t9) enters.  A function with a conditional call among its
   entrants, or one entered at a delay slot, is left out.  */

static void
closed_calls (const struct narrowing *n, uint32_t *into)
{
  const struct cfg *cfg = &n->a->cfg;
  const struct code *code = &n->a->code;
  size_t nf = cfg->n_funcs;
  unsigned char *closed = malloc (nf + 1);

  if (closed == NULL)
    return;
  for (size_t f = 0; f < nf; f++)
    closed[f] = n->narrow[f] && !n->escaped[f] && !n->inexact[f];
  /* No entrant at all: nothing we see enters it.  */
  {
    unsigned char *seen = calloc (nf + 1, 1);
    if (seen == NULL)
      {
	free (closed);
	return;
      }
    for (size_t k = 0; k < n->n_in; k++)
      seen[n->in[k].func] = 1;
    for (size_t f = 0; f < nf; f++)
      closed[f] &= seen[f];
    free (seen);
  }
  for (size_t k = 0; k < n->n_in; k++)
    {
      const struct block *b = &cfg->blocks[n->in[k].block];
      const struct insn *slot;
      const struct insn *ctl = cfg_block_control (code, b, &slot);

      if (ctl == NULL || slot == NULL || (b->flags & BLOCK_F_SLOT_ENTRY)
	  || (ctl->flags & INSN_F_COND))
	closed[n->in[k].func] = 0;
    }
  for (size_t k = 0; k < n->n_in; k++)
    {
      const struct block *b = &cfg->blocks[n->in[k].block];
      const struct insn *slot;
      const struct insn *ctl = cfg_block_control (code, b, &slot);
      const struct function *fn = &cfg->funcs[n->in[k].func];

      if (closed[n->in[k].func]
	  && (ctl->kind == INSN_CALL || ctl->kind == INSN_ICALL
	      || ctl->kind == INSN_IJUMP))
	into[n->in[k].block] = 1 + fn->first_block;
    }
  free (closed);
}

/* Give BLOCK_F_PADDING to the blocks of A that are alignment padding:
   nops that nothing reaches (no branch, jump, call, fall-through or
   switch table), which code outside their function may not enter
   either (mark_entries).  They fall into the function after them but
   never run, so they tell nothing of its registers.  TABLES, N_TABLES:
   the switch tables' edges (analysis_table_edges).  False when out of
   memory.  */

static bool
mark_padding (struct analysis *a, const struct cfg_edge *tables,
	      size_t n_tables)
{
  struct cfg *cfg = &a->cfg;
  const struct code *code = &a->code;
  unsigned char *pad = calloc (cfg->n_blocks + 1, 1);

  if (pad == NULL)
    return false;
  mark_entries (a, pad);
  for (size_t i = 0; i < cfg->n_blocks; i++)
    {
      const struct block *b = &cfg->blocks[i];
      pad[i] = !pad[i];
      for (uint32_t x = b->start; pad[i] && x < b->end; x += 4)
	{
	  const struct insn *insn = code_insn_at (code, x);
	  pad[i] = insn != NULL && insn->word == 0;
	}
    }
  for (size_t i = 0; i < cfg->n_blocks; i++)
    {
      const struct insn *slot;
      const struct insn *ctl = cfg_block_control (code, &cfg->blocks[i],
						  &slot);
      long j;
      for (uint32_t k = 0; k < cfg->blocks[i].n_succ; k++)
	pad[cfg->blocks[i].succ[k]] = 0;
      if (ctl != NULL && (ctl->kind == INSN_CALL || ctl->kind == INSN_JUMP
			  || ctl->kind == INSN_BRANCH)
	  && (j = cfg_block_starting (cfg, ctl->target)) >= 0)
	pad[j] = 0;
    }
  for (size_t k = 0; k < n_tables; k++)
    pad[tables[k].to] = 0;
  for (size_t i = 0; i < cfg->n_blocks; i++)
    if (pad[i])
      cfg->blocks[i].flags |= BLOCK_F_PADDING;
  free (pad);
  return true;
}

/* The tail calls of A into its own functions: from every block that
   ends in a jump through t9 (not a switch table's) whose value the
   block itself last set to a function entry, by a load of a GOT slot
   that holds it (GOT_ENTRY, see got_entries) or by the addiu of a GOT
   page reference to it, to that entry's block.  *TAILS is malloc'd
   (NULL when out of memory, false then).  */

static bool
find_tail_calls (const struct analysis *a, const uint32_t *got_entry,
		 struct cfg_edge **tails, size_t *n_tails)
{
  const struct cfg *cfg = &a->cfg;
  const struct code *code = &a->code;
  size_t n = 0, max = 64;

  *tails = malloc (max * sizeof **tails);
  if (*tails == NULL)
    return false;
  for (size_t i = 0; i < cfg->n_blocks; i++)
    {
      const struct block *b = &cfg->blocks[i];
      const struct insn *slot;
      const struct insn *ctl = cfg_block_control (code, b, &slot);
      const struct insn *w = NULL;
      const struct function *fn = NULL;
      long entry;

      if ((b->flags & (BLOCK_F_INDIRECT | BLOCK_F_INVALID))
	  != BLOCK_F_INDIRECT || ctl == NULL || slot == NULL
	  || ctl->kind != INSN_IJUMP || ctl->rs != REG_T9)
	continue;
      for (uint32_t at = ctl->addr; at > b->start && w == NULL; at -= 4)
	{
	  const struct insn *x = code_insn_at (code, at - 4);
	  if (x != NULL && (x->writes & R (REG_T9)))
	    w = x;
	}
      if (w == NULL)
	continue;
      if (w->rt == REG_T9)
	fn = got_function (cfg, got_entry, got_slot (&a->obj, &a->relocs, w));
      if (w->op == OP_ADDIU && w->rs == REG_T9 && w->rt == REG_T9)
	for (size_t k = 0; k < a->relocs.n_entries && fn == NULL; k++)
	  if (a->relocs.entries[k].type == RELOC_GOT_REF
	      && a->relocs.entries[k].aux == w->addr)
	    {
	      fn = cfg_function_at (cfg, a->relocs.entries[k].target);
	      if (fn != NULL && fn->entry != a->relocs.entries[k].target)
		fn = NULL;
	    }
      if (fn == NULL || (entry = cfg_block_starting (cfg, fn->entry)) < 0)
	continue;
      if (n == max)
	{
	  struct cfg_edge *p = realloc (*tails, 2 * max * sizeof *p);
	  if (p == NULL)
	    {
	      free (*tails);
	      *tails = NULL;
	      return false;
	    }
	  *tails = p;
	  max *= 2;
	}
      (*tails)[n].from = (uint32_t) i;
      (*tails)[n++].to = (uint32_t) entry;
    }
  *n_tails = n;
  return true;
}

/* The liveness that emit_narrow_liveness leaves to a thread, with what
   it reads.  */
struct liveness_job
{
  struct analysis *a;
  unsigned char *narrow;
  struct cfg_entrant *in;
  size_t n_in;
  struct cfg_edge *tables, *tails;
  size_t n_tables, n_tails;
  /* Then the calls that surely come back (find_returning_calls), into
     SITES->returning: the thread has time to spare.  */
  uint32_t *got_entry;
  struct call_sites *sites;
  const struct symbol_scope *scope;
  size_t self;
  bool one_thread;
  pthread_t thread;
  bool threaded;
  bool ok;
};

static void *
run_liveness (void *arg)
{
  struct liveness_job *j = arg;

  j->ok = cfg_liveness_narrow (&j->a->code, &j->a->cfg, j->narrow, j->in,
			       j->n_in, j->tables, j->n_tables, j->tails,
			       j->n_tails)
	  && find_returning_calls (j->a, j->got_entry, j->sites, j->scope,
				   j->self, j->one_thread);
  return NULL;
}

static void
liveness_job_free (struct liveness_job *j)
{
  free (j->narrow);
  free (j->in);
  free (j->tables);
  free (j->tails);
  free (j->got_entry);
  free (j);
}

bool
emit_narrow_liveness (struct analysis *a, struct call_sites *sites,
		      const struct symbol_scope *scope, size_t self,
		      bool one_thread)
{
  struct narrowing n;
  struct liveness_job *job = calloc (1, sizeof *job);
  size_t n_blocks = a->cfg.n_blocks;
  uint32_t *got_entry;
  bool ok;

  memset (&n, 0, sizeof n);
  n.a = a;
  sites->liveness = NULL;
  sites->into = calloc (n_blocks + 1, sizeof *sites->into);
  sites->enters = calloc (n_blocks + 1, sizeof *sites->enters);
  n.narrow = calloc (a->cfg.n_funcs + 1, 1);
  n.escaped = calloc (a->cfg.n_funcs + 1, 1);
  n.inexact = calloc (a->cfg.n_funcs + 1, 1);
  n.dirty = malloc (a->cfg.n_funcs + 1);
  if (n.dirty != NULL)
    memset (n.dirty, -1, a->cfg.n_funcs + 1);
  n.got_entry = got_entry = got_entries (a);
  ok = regflow_init (&n.rf, &a->code);
  ok = ok && job != NULL && sites->into != NULL && sites->enters != NULL
       && n.narrow != NULL && n.escaped != NULL && n.inexact != NULL
       && n.dirty != NULL && got_entry != NULL
       && analysis_table_edges (a, &job->tables, &job->n_tables)
       && mark_padding (a, job->tables, job->n_tables) && find_narrowable (&n)
       && find_tail_calls (a, got_entry, &job->tails, &job->n_tails)
       && cfg_mark_jumps (&a->cfg, job->tables, job->n_tables, job->tails,
			  job->n_tails);
  if (ok)
    {
      /* What the calls enter needs no live sets: the caller may go on
	 while a thread computes them.  */
      closed_calls (&n, sites->into);
      for (size_t k = 0; k < n.n_in; k++)
	sites->enters[n.in[k].block] = 1 + n.in[k].func;
      job->a = a;
      job->got_entry = got_entry;
      job->sites = sites;
      job->scope = scope;
      job->self = self;
      job->one_thread = one_thread;
      got_entry = NULL;
      job->narrow = n.narrow;
      job->in = n.in;
      job->n_in = n.n_in;
      n.narrow = NULL;
      n.in = NULL;
      job->threaded = pthread_create (&job->thread, NULL, run_liveness,
				      job) == 0;
      if (!job->threaded)
	run_liveness (job);
      sites->liveness = job;
      job = NULL;
    }
  if (job != NULL)
    liveness_job_free (job);
  free (n.narrow);
  free (n.escaped);
  free (n.inexact);
  free (n.dirty);
  free (n.in);
  free (got_entry);
  regflow_free (&n.rf);
  return ok;
}

bool
call_sites_wait (struct call_sites *sites)
{
  struct liveness_job *j = sites->liveness;
  bool ok;

  if (j == NULL)
    return true;
  if (j->threaded)
    pthread_join (j->thread, NULL);
  ok = j->ok;
  liveness_job_free (j);
  sites->liveness = NULL;
  return ok;
}

void
call_sites_free (struct call_sites *sites)
{
  call_sites_wait (sites);
  free (sites->into);
  free (sites->enters);
  free (sites->returning);
  sites->into = sites->enters = NULL;
  sites->returning = NULL;
}
