/* fuzz-rewrite.c -- fuzz target: the whole rewrite of one object
   (rewrite_object), through to the output file.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   The input is an object file, written to the harness's input file
   (rewrite_object opens it by name, with its BFD).  The options come
   from the bits of the input's last byte, so that every input is
   rewritten one way, always the same: bit 0 --all-blocks, bit 1
   --calls, bit 2 --poison-original, bit 3 --counter-update=single,
   bit 4 --counter-carry=inline.  A main program gets the runtime's
   DT_NEEDED and $ORIGIN, as profcopy gives it, or with bit 5 the
   PT_INTERP and DT_RPATH of a program linked with musl whose dynamic
   linker is profiled too.  A static executable gets the static
   runtime that PROFCOPY_FUZZ_RUNTIME names (libprofcopy-static.so, or
   libprofcopy.so beside it), or is refused without it; bit 4 clear
   (the watcher) refuses it too.  A rewrite that worked
   must have written an object that the reader takes again (unless it
   is mostly a hole, below); one that failed must say why and leave no
   output behind.  */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "object.h"
#include "rewrite.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct rewrite_options opts = { 0 };
  const char *in, *out;
  unsigned bits = size > 0 ? data[size - 1] : 0;
  struct mips_object obj;
  struct stat st;
  char *err = NULL;

  in = fuzz_input_file (data, size);
  out = fuzz_output_file ("output");
  opts.all_blocks = bits & 1;
  opts.calls = bits & 2;
  opts.poison_original = bits & 4;
  opts.single_update = bits & 8;
  opts.folded = !(bits & 16);
  opts.runtime_soname = "libprofcopy.so";
  opts.runtime = getenv ("PROFCOPY_FUZZ_RUNTIME");
  if (bits & 32)
    opts.interp = "/opt/profiled/ld-musl-mipsel.so.1";
  if (!rewrite_object (in, out, &opts, &err))
    {
      /* Every refusal says why, and writes nothing.  */
      if (err == NULL || access (out, F_OK) == 0)
	abort ();
      free (err);
      return 0;
    }
  /* An output mostly hole (a huge .bss puts the new segments far into
     the file, elf-write.c write_zeros) is not read back: under
     AddressSanitizer the reader copies the whole file into memory, past
     the fuzzer's malloc limit, and the rewrite itself is what this
     target tests.  */
  if (stat (out, &st) == 0 && st.st_size > (off_t) 64 << 20
      && (off_t) st.st_blocks * 512 < st.st_size / 16)
    {
      unlink (out);
      return 0;
    }
  if (!object_read (out, &obj, &err))
    {
      fprintf (stderr, "fuzz-rewrite: the output is refused: %s\n", err);
      abort ();
    }
  object_close (&obj);
  unlink (out);
  return 0;
}
