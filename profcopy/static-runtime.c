/* static-runtime.c -- the runtime inside the copy of a static
   executable.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   A static executable loads no shared object, so its copy carries the
   runtime itself: libprofcopy-static.so (runtime/static.c), a shared
   object that imports and exports nothing.  Its two PT_LOADs (code,
   then data) go after the copy's new segments, 64 KiB aligned, at the
   distance its link gave them; what a dynamic linker would do to load
   it there is done here: its local GOT entries and its R_MIPS_REL32
   relocations without a symbol move by the load address.  Its entry
   (runtime/static-entry.S) becomes the copy's, and the words 8 bytes
   into it are given the address of the copy of the program's own
   entry, the address and number of the program headers which the
   entry gives the program in place of the copy's (the original's, or
   show_phdrs's copy of them), the address of the ELF header in memory,
   whose table it makes those (runtime/static.c), and what the entry
   moves by the load bias of a static PIE: the runtime's gp as placed,
   its local GOT entries, the program's new GOT entries, the words of
   its R_MIPS_REL32 relocations.  */

#include <config.h>

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object.h"
#include "static-runtime.h"

#ifndef PROFCOPY_RUNTIME_DIR
#define PROFCOPY_RUNTIME_DIR "/usr/local/lib/profcopy"
#endif

static bool
refuse (char **errmsg, const char *path, const char *why)
{
  if (asprintf (errmsg, "the static runtime %s %s; build it, or name "
		"libprofcopy.so's directory with --runtime=FILE", path,
		why) < 0)
    *errmsg = NULL;
  return false;
}

static void
put_word (unsigned char *p, uint32_t v, bool big_endian)
{
  for (int i = 0; i < 4; i++)
    p[big_endian ? i : 3 - i] = (unsigned char) (v >> (24 - 8 * i));
}

char *
static_runtime_path (const char *runtime, bool big_endian)
{
  char *path = NULL;
  const char *slash;

  if (runtime == NULL)
    {
      if (asprintf (&path, "%s/%s/%s", PROFCOPY_RUNTIME_DIR,
		    big_endian ? "mips" : "mipsel", STATIC_RUNTIME_NAME) < 0)
	return NULL;
      return path;
    }
  slash = strrchr (runtime, '/');
  if (strcmp (slash != NULL ? slash + 1 : runtime, STATIC_RUNTIME_NAME) == 0)
    return strdup (runtime);
  if (asprintf (&path, "%.*s%s", slash != NULL ? (int) (slash - runtime + 1)
		: 0, runtime, STATIC_RUNTIME_NAME) < 0)
    return NULL;
  return path;
}

/* The runtime's file offset of the word at VADDR, or (size_t) -1.  */

static size_t
word_offset (const struct mips_object *rt, uint32_t vaddr)
{
  const unsigned char *p = object_vaddr_ptr (rt, vaddr, 4);

  return p != NULL && (vaddr & 3) == 0 ? (size_t) (p - rt->image)
	 : (size_t) -1;
}

bool
static_runtime_load (struct static_runtime *srt, const char *path,
		     bool big_endian, uint32_t vaddr, uint32_t offset,
		     uint32_t next_entry, uint32_t phdr, uint32_t phnum,
		     uint32_t ehdr, uint32_t prog_got, uint32_t prog_got_n,
		     char **errmsg)
{
  struct mips_object *rt = &srt->obj;
  const struct object_segment *load[2];
  size_t n_load = 0, n_rel = 0, off;
  unsigned char *words;
  uint32_t base = (vaddr + 0xffffu) & ~0xffffu, first;
  char *err = NULL;

  memset (srt, 0, sizeof *srt);
  if (!object_read (path, rt, &err))
    {
      char *why = NULL;
      if (asprintf (&why, "cannot be read (%s)", err != NULL ? err
		    : "out of memory") < 0)
	why = NULL;
      free (err);
      refuse (errmsg, path, why != NULL ? why : "cannot be read");
      free (why);
      return false;
    }
  srt->loaded = true;
  if (rt->big_endian != big_endian)
    return refuse (errmsg, path, big_endian ? "is little-endian"
		   : "is big-endian");
  for (size_t i = 0; i < rt->n_segments; i++)
    if (rt->segments[i].type == PT_LOAD)
      {
	if (n_load == 2)
	  return refuse (errmsg, path, "has more than two PT_LOADs");
	load[n_load++] = &rt->segments[i];
      }
  if (rt->e_type != ET_DYN || n_load != 2 || load[0]->vaddr != 0
      || load[0]->offset != 0 || !(load[0]->flags & PF_X)
      || (load[1]->flags & PF_X) || load[1]->vaddr < load[0]->memsz
      || (load[1]->vaddr - load[1]->offset) % 0x10000 != 0
      || load[0]->filesz < STATIC_ENTRY_SIZE || (rt->e_entry & 3) != 0
      || rt->e_entry > load[0]->filesz - STATIC_ENTRY_SIZE)
    return refuse (errmsg, path, "is not laid out as profcopy's static "
		   "runtime");
  /* The entry branches over the words profcopy fills (`b' is `beq
     $0,$0'): a runtime built with another layout of them has another
     offset.  */
  if (object_get32 (rt, rt->image + rt->e_entry)
      != 0x10000000u + (STATIC_ENTRY_SIZE - 4) / 4)
    return refuse (errmsg, path, "is not laid out as profcopy's static "
		   "runtime");
  for (size_t i = 0; i < 2; i++)
    if (load[i]->offset > rt->size
	|| load[i]->filesz > rt->size - load[i]->offset)
      return refuse (errmsg, path, "is truncated");
  /* No global GOT entry: nothing to look up.  */
  if (rt->dyn.symtabno > rt->dyn.gotsym || rt->dyn.local_gotno < 2)
    return refuse (errmsg, path, "imports or exports symbols");
  srt->image = malloc (rt->size);
  if (srt->image == NULL)
    {
      *errmsg = strdup ("out of memory");
      return false;
    }
  memcpy (srt->image, rt->image, rt->size);
  words = srt->image + rt->e_entry;

  for (size_t i = 0; i < rt->n_dynrelocs; i++)
    {
      const struct object_dynreloc *r = &rt->dynrelocs[i];
      if (r->type == R_MIPS_NONE)
	continue;
      /* In the data segment, where the entry can move it.  */
      if (r->type != R_MIPS_REL32 || r->sym != 0
	  || (off = word_offset (rt, r->offset)) == (size_t) -1
	  || r->offset < load[1]->vaddr
	  || r->offset - load[1]->vaddr >= load[1]->filesz
	  || n_rel == STATIC_MAX_REL)
	return refuse (errmsg, path, "has a relocation profcopy does not "
		       "apply");
      put_word (srt->image + off, object_get32 (rt, rt->image + off) + base,
		big_endian);
      put_word (words + STATIC_REL + 4 * n_rel++,
		r->offset + base, big_endian);
    }
  /* The local GOT entries, as glibc's dynamic linker moves them: from
     the second on, or the third when the second has its top bit set
     (the module pointer).  */
  off = word_offset (rt, rt->got_addr + 4);
  if (off == (size_t) -1)
    return refuse (errmsg, path, "has no GOT");
  first = (object_get32 (rt, rt->image + off) & 0x80000000u) ? 2 : 1;
  for (uint32_t k = first; k < rt->dyn.local_gotno; k++)
    {
      off = word_offset (rt, rt->got_addr + 4 * k);
      if (off == (size_t) -1)
	return refuse (errmsg, path, "has no GOT");
      put_word (srt->image + off, object_get32 (rt, rt->image + off) + base,
		big_endian);
    }
  put_word (words + STATIC_NEXT_ENTRY, next_entry, big_endian);
  put_word (words + STATIC_PHDR, phdr, big_endian);
  put_word (words + STATIC_PHNUM, phnum, big_endian);
  put_word (words + STATIC_EHDR, ehdr, big_endian);
  put_word (words + STATIC_GP, rt->gp + base, big_endian);
  put_word (words + STATIC_GOT, rt->got_addr + 4 * first + base,
	    big_endian);
  put_word (words + STATIC_GOT_N, rt->dyn.local_gotno - first, big_endian);
  put_word (words + STATIC_PROG_GOT, prog_got, big_endian);
  put_word (words + STATIC_PROG_GOT_N, prog_got_n, big_endian);
  put_word (words + STATIC_N_REL, n_rel, big_endian);

  offset = (offset + 0xffffu) & ~0xffffu;
  for (size_t i = 0; i < 2; i++)
    {
      struct extra_load *x = &srt->loads[i];
      x->vaddr = base + load[i]->vaddr;
      x->offset = offset + load[i]->offset;
      x->filesz = load[i]->filesz;
      x->memsz = load[i]->memsz;
      x->flags = load[i]->flags & (PF_R | PF_W | PF_X);
      x->bytes = srt->image + load[i]->offset;
    }
  srt->entry = base + rt->e_entry;
  return true;
}

void
static_runtime_free (struct static_runtime *srt)
{
  if (srt->loaded)
    object_close (&srt->obj);
  free (srt->image);
  memset (srt, 0, sizeof *srt);
}
