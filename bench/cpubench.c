/* cpubench.c -- a small CPU-bound program for bench/overhead.sh.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General Public
   License version 3 or later; see COPYING.

   Five kernels, each the kind of code a profiler must handle well:
     sort    qsort from libc calling back into the program's comparison
	     function (calls across the program/library boundary);
     hash    FNV-1a over a generated buffer (a tight inner loop);
     tree    a recursive build of a balanced tree and a recursive walk
	     (calls and returns);
     bst     inserts into and lookups in an unbalanced binary search tree
	     (data-dependent branches, pointer chasing);
     interp  a switch-heavy bytecode interpreter (a jump table).

   Every kernel folds its result into one checksum; the program prints
   one line per kernel and the total, so that every build of it (plain,
   gcov, gprof, profcopy) must print the same text.  The input is made by
   a fixed pseudo-random generator, so the output is deterministic.

   Usage: cpubench [SCALE]
   SCALE (default 1) multiplies the work of every kernel; at 1 the whole
   run is some 40 million MIPS instructions.  */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The state of the pseudo-random generator (xorshift32).  */
static uint32_t rng_state = 2463534242u;

/* Return the next pseudo-random number.  */
static uint32_t
rng_next (void)
{
  uint32_t x = rng_state;

  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  rng_state = x;
  return x;
}

/* Fold VALUE into the checksum SUM and return the new checksum.  */
static uint32_t
mix (uint32_t sum, uint32_t value)
{
  return (sum ^ value) * 16777619u + 0x9e3779b9u;
}

/* The comparison function qsort calls: compare the unsigned ints at A
   and B.  Kept out of line so that libc really calls back.  */
static int __attribute__ ((noinline))
compare_uint (const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *) a;
  uint32_t y = *(const uint32_t *) b;

  return (x > y) - (x < y);
}

/* Sort ROUNDS arrays of N pseudo-random numbers with qsort and return a
   checksum of the sorted arrays.  */
static uint32_t
bench_sort (size_t n, int rounds)
{
  uint32_t *v = malloc (n * sizeof *v);
  uint32_t sum = 0;
  int r;
  size_t i;

  if (v == NULL)
    abort ();
  for (r = 0; r < rounds; r++)
    {
      for (i = 0; i < n; i++)
	v[i] = rng_next () % 100000;
      qsort (v, n, sizeof *v, compare_uint);
      for (i = 1; i < n; i++)
	if (v[i - 1] > v[i])
	  abort ();
      sum = mix (sum, v[0]);
      sum = mix (sum, v[n / 2]);
      sum = mix (sum, v[n - 1]);
    }
  free (v);
  return sum;
}

/* Return the 32-bit FNV-1a hash of the LEN bytes at BUF.  */
static uint32_t __attribute__ ((noinline))
fnv1a (const unsigned char *buf, size_t len)
{
  uint32_t h = 2166136261u;
  size_t i;

  for (i = 0; i < len; i++)
    {
      h ^= buf[i];
      h *= 16777619u;
    }
  return h;
}

/* Hash a generated buffer of LEN bytes ROUNDS times, changing one byte
   between rounds, and return a checksum of the hashes.  */
static uint32_t
bench_hash (size_t len, int rounds)
{
  unsigned char *buf = malloc (len);
  uint32_t sum = 0;
  size_t i;
  int r;

  if (buf == NULL)
    abort ();
  for (i = 0; i < len; i++)
    buf[i] = (unsigned char) rng_next ();
  for (r = 0; r < rounds; r++)
    {
      buf[(size_t) r % len] ^= (unsigned char) r;
      sum = mix (sum, fnv1a (buf, len));
    }
  free (buf);
  return sum;
}

/* A node of the trees of bench_tree and bench_bst.  */
struct node
{
  struct node *left;
  struct node *right;
  uint32_t key;
};

/* Build a balanced tree of depth DEPTH whose keys start at *NEXT, and
   return its root.  */
static struct node *
tree_build (int depth, uint32_t *next)
{
  struct node *n;

  if (depth == 0)
    return NULL;
  n = malloc (sizeof *n);
  if (n == NULL)
    abort ();
  n->left = tree_build (depth - 1, next);
  n->key = (*next)++;
  n->right = tree_build (depth - 1, next);
  return n;
}

/* Return a checksum of the keys of tree N, walked in order, each
   weighted by its DEPTH.  */
static uint32_t
tree_walk (const struct node *n, uint32_t depth)
{
  if (n == NULL)
    return 0;
  return tree_walk (n->left, depth + 1) + n->key * depth
	 + tree_walk (n->right, depth + 1);
}

/* Free tree N.  */
static void
tree_free (struct node *n)
{
  if (n == NULL)
    return;
  tree_free (n->left);
  tree_free (n->right);
  free (n);
}

/* Build, walk WALKS times and free ROUNDS balanced trees of depth
   DEPTH; return a checksum of the walks.  */
static uint32_t
bench_tree (int depth, int rounds, int walks)
{
  uint32_t sum = 0;
  int r, w;

  for (r = 0; r < rounds; r++)
    {
      uint32_t next = (uint32_t) r;
      struct node *root = tree_build (depth, &next);

      for (w = 0; w < walks; w++)
	sum = mix (sum, tree_walk (root, (uint32_t) w + 1));
      tree_free (root);
    }
  return sum;
}

/* Insert KEY into the binary search tree *ROOT unless it is there
   already, taking the new node from POOL at *USED.  Return 1 if KEY was
   inserted.  */
static int __attribute__ ((noinline))
bst_insert (struct node **root, uint32_t key, struct node *pool,
	    size_t *used)
{
  struct node **link = root;

  while (*link != NULL)
    {
      if (key == (*link)->key)
	return 0;
      link = key < (*link)->key ? &(*link)->left : &(*link)->right;
    }
  *link = &pool[(*used)++];
  (*link)->key = key;
  (*link)->left = (*link)->right = NULL;
  return 1;
}

/* Return the depth at which KEY is found in the tree ROOT, or 0 if it
   is not there.  */
static uint32_t __attribute__ ((noinline))
bst_lookup (const struct node *root, uint32_t key)
{
  uint32_t depth = 1;

  while (root != NULL)
    {
      if (key == root->key)
	return depth;
      root = key < root->key ? root->left : root->right;
      depth++;
    }
  return 0;
}

/* Insert N pseudo-random keys into a binary search tree, then look up
   LOOKUPS pseudo-random keys; return a checksum of the depths found.  */
static uint32_t
bench_bst (size_t n, size_t lookups)
{
  struct node *pool = malloc (n * sizeof *pool);
  struct node *root = NULL;
  size_t used = 0, i;
  uint32_t sum = 0, inserted = 0;

  if (pool == NULL)
    abort ();
  for (i = 0; i < n; i++)
    inserted += bst_insert (&root, rng_next () % (4 * n), pool, &used);
  sum = mix (sum, inserted);
  for (i = 0; i < lookups; i++)
    sum = mix (sum, bst_lookup (root, rng_next () % (4 * n)));
  free (pool);
  return sum;
}

/* The operations of the bytecode interpreter of bench_interp.  */
enum op
{
  OP_PUSH,	/* Push the next code word.  */
  OP_LOAD,	/* Push variable number (next code word).  */
  OP_STORE,	/* Pop into variable number (next code word).  */
  OP_ADD,
  OP_SUB,
  OP_MUL,
  OP_XOR,
  OP_SHL,
  OP_SHR,
  OP_DUP,
  OP_SWAP,
  OP_DROP,
  OP_JNZ,	/* Pop; jump to the next code word if non-zero.  */
  OP_JMP,	/* Jump to the next code word.  */
  OP_HALT
};

/* Run the bytecode CODE on variables VARS (eight of them) and return
   the value on top of the stack at OP_HALT.  */
static uint32_t __attribute__ ((noinline))
interp_run (const int *code, uint32_t *vars)
{
  uint32_t stack[64];
  int sp = 0, pc = 0;

  for (;;)
    {
      int op = code[pc++];
      uint32_t a, b;

      switch (op)
	{
	case OP_PUSH:
	  stack[sp++] = (uint32_t) code[pc++];
	  break;
	case OP_LOAD:
	  stack[sp++] = vars[code[pc++] & 7];
	  break;
	case OP_STORE:
	  vars[code[pc++] & 7] = stack[--sp];
	  break;
	case OP_ADD:
	  b = stack[--sp], a = stack[--sp];
	  stack[sp++] = a + b;
	  break;
	case OP_SUB:
	  b = stack[--sp], a = stack[--sp];
	  stack[sp++] = a - b;
	  break;
	case OP_MUL:
	  b = stack[--sp], a = stack[--sp];
	  stack[sp++] = a * b;
	  break;
	case OP_XOR:
	  b = stack[--sp], a = stack[--sp];
	  stack[sp++] = a ^ b;
	  break;
	case OP_SHL:
	  b = stack[--sp], a = stack[--sp];
	  stack[sp++] = a << (b & 31);
	  break;
	case OP_SHR:
	  b = stack[--sp], a = stack[--sp];
	  stack[sp++] = a >> (b & 31);
	  break;
	case OP_DUP:
	  a = stack[sp - 1];
	  stack[sp++] = a;
	  break;
	case OP_SWAP:
	  a = stack[sp - 1];
	  stack[sp - 1] = stack[sp - 2];
	  stack[sp - 2] = a;
	  break;
	case OP_DROP:
	  sp--;
	  break;
	case OP_JNZ:
	  a = stack[--sp];
	  pc = a != 0 ? code[pc] : pc + 1;
	  break;
	case OP_JMP:
	  pc = code[pc];
	  break;
	case OP_HALT:
	  return sp > 0 ? stack[sp - 1] : 0;
	default:
	  abort ();
	}
      if (sp < 0 || sp > 60)
	abort ();
    }
}

/* Run a bytecode loop of ITERATIONS iterations (a xorshift generator
   and an accumulator in variables) ROUNDS times; return a checksum of
   the results.  */
static uint32_t
bench_interp (int iterations, int rounds)
{
  /* Variables: 0 counter, 1 x, 2 accumulator.  */
  static const int code[] = {
    /* 0 */ OP_LOAD, 1, OP_DUP, OP_PUSH, 13, OP_SHL, OP_XOR, OP_STORE, 1,
    /* 9 */ OP_LOAD, 1, OP_DUP, OP_PUSH, 17, OP_SHR, OP_XOR, OP_STORE, 1,
    /* 18 */ OP_LOAD, 1, OP_DUP, OP_PUSH, 5, OP_SHL, OP_XOR, OP_STORE, 1,
    /* 27 */ OP_LOAD, 2, OP_PUSH, 31, OP_MUL, OP_LOAD, 1, OP_ADD,
    /* 35 */ OP_STORE, 2,
    /* 37 */ OP_LOAD, 0, OP_PUSH, 1, OP_SUB, OP_DUP, OP_STORE, 0,
    /* 45 */ OP_JNZ, 0,
    /* 47 */ OP_LOAD, 2, OP_LOAD, 1, OP_SWAP, OP_DROP, OP_HALT
  };
  uint32_t sum = 0;
  int r;

  for (r = 0; r < rounds; r++)
    {
      uint32_t vars[8] = { 0 };

      vars[0] = (uint32_t) iterations;
      vars[1] = 12345u + (uint32_t) r;
      sum = mix (sum, interp_run (code, vars));
    }
  return sum;
}

/* Print the line `NAME VALUE' on standard output, VALUE as eight hex
   digits.  Formatted by hand with fputs: the checksum lines are the only
   output, and this keeps the output path small and the same in every
   build.  */
static void
print_checksum (const char *name, uint32_t value)
{
  static const char digits[] = "0123456789abcdef";
  char hex[10];
  int i;

  for (i = 0; i < 8; i++)
    hex[i] = digits[(value >> (28 - 4 * i)) & 0xf];
  hex[8] = '\n';
  hex[9] = '\0';
  fputs (name, stdout);
  fputs (hex, stdout);
}

int
main (int argc, char **argv)
{
  int scale = argc > 1 ? atoi (argv[1]) : 1;
  uint32_t total = 0, part;

  if (scale < 1 || scale > 1000)
    {
      fprintf (stderr, "usage: cpubench [SCALE]  (1 <= SCALE <= 1000)\n");
      return 2;
    }

  part = bench_sort (5000, 3 * scale);
  print_checksum ("sort   ", part);
  total = mix (total, part);

  part = bench_hash (65536, 12 * scale);
  print_checksum ("hash   ", part);
  total = mix (total, part);

  part = bench_tree (14, 2 * scale, 4);
  print_checksum ("tree   ", part);
  total = mix (total, part);

  part = bench_bst (20000, 20000 * (size_t) scale);
  print_checksum ("bst    ", part);
  total = mix (total, part);

  part = bench_interp (2000, 4 * scale);
  print_checksum ("interp ", part);
  total = mix (total, part);

  print_checksum ("total  ", total);
  return 0;
}
