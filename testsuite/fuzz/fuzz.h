/* fuzz.h -- what the fuzz targets of testsuite/fuzz/ share.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.

   Each target is one LLVMFuzzerTestOneInput, built by build.sh with
   clang's -fsanitize=fuzzer,address,undefined (or with AFL++'s
   afl-clang-fast, whose driver calls the same function).  The readers
   that take a file name get the input through a file of the harness's
   own, rewritten for every input.  */

#ifndef PROFCOPY_FUZZ_H
#define PROFCOPY_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* Write the SIZE bytes at DATA to the harness's input file and return
   its name.  Exits with a message when the file cannot be written: the
   run would test nothing.  */
const char *fuzz_input_file (const uint8_t *data, size_t size);

/* The name of a file NAME in the harness's directory, where a target
   may write its output; the same string for the same NAME.  */
const char *fuzz_output_file (const char *name);

#endif /* PROFCOPY_FUZZ_H */
