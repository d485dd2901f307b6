#!/bin/sh
# build.sh -- build the fuzz targets of testsuite/fuzz/.
#
# Copyright (C) 2026 The profcopy authors.
# This file is part of profcopy, distributed under the GNU General Public
# License version 3 or later; see COPYING.
#
# Usage: build.sh [--afl] [BUILDDIR [OUT]]
#
# BUILDDIR is a configured build tree (default: build/ at the top of
# this source tree, where scripts/setup-debian.sh builds, or the top
# itself when it is configured in place); the targets go into OUT (default: BUILDDIR/testsuite/fuzz/out,
# or .../out-afl), as OUT/fuzz-object, fuzz-decode, fuzz-relocs,
# fuzz-rewrite, fuzz-profile, fuzz-trace and fuzz-debug.  They are built with clang
# and libFuzzer (-fsanitize=fuzzer,address,undefined); with --afl, with
# AFL++'s afl-clang-fast and its libFuzzer-compatible driver instead, to
# be run by afl-fuzz.  CC overrides the compiler.  The build is
# incremental (make -j$JOBS, default 2).
#
# Exit status: 0 when built; 77 when the compiler or its fuzzer runtime
# is missing (Debian: clang and libclang-rt-14-dev, or afl++); 1 when
# the build failed.

set -u

engine=libfuzzer
if [ "${1:-}" = "--afl" ]; then
  engine=afl
  shift
fi
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
default=$srcdir/build
[ -f "$default/Makefile" ] || default=$srcdir
builddir=$(cd "${1:-$default}" && pwd) || exit 1
if [ "$engine" = afl ]; then
  out=${2:-$builddir/testsuite/fuzz/out-afl}
  cc=${CC:-afl-clang-fast}
  sanitize=address,undefined
else
  out=${2:-$builddir/testsuite/fuzz/out}
  cc=${CC:-clang}
  sanitize=fuzzer-no-link,address,undefined
fi
link_sanitize=fuzzer,address,undefined

if [ ! -f "$builddir/config.h" ] || [ ! -f "$builddir/Makefile" ]; then
  echo "build.sh: $builddir is not a configured build tree" >&2
  exit 1
fi
bfd_libs=$(sed -n 's/^BFD_LIBS = //p' "$builddir/Makefile")
iberty_libs=$(sed -n 's/^IBERTY_LIBS = //p' "$builddir/Makefile")
zlib_libs=$(sed -n 's/^ZLIB_LIBS = //p' "$builddir/Makefile")

# The compiler must link a fuzzer: an empty one proves it.
mkdir -p "$out" || exit 1
probe=$out/probe.c
cat >"$probe" <<'PROBE'
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{ (void) data; (void) size; return 0; }
PROBE
if ! command -v "$cc" >/dev/null 2>&1; then
  echo "build.sh: $cc not found" >&2
  rm -f "$probe"
  exit 77
fi
if ! "$cc" -fsanitize="$link_sanitize" -o "$out/probe" "$probe" \
     >"$out/probe.log" 2>&1; then
  echo "build.sh: $cc cannot link a fuzzer with -fsanitize=$link_sanitize:" >&2
  cat "$out/probe.log" >&2
  rm -f "$probe" "$out/probe" "$out/probe.log"
  exit 77
fi
rm -f "$probe" "$out/probe" "$out/probe.log"

exec ${MAKE:-make} --no-print-directory -j"${JOBS:-2}" \
  -f "$srcdir/testsuite/fuzz/fuzz.mk" \
  SRCDIR="$srcdir" BUILDDIR="$builddir" OUT="$out" CC="$cc" \
  SANITIZE="$sanitize" LINK_SANITIZE="$link_sanitize" BFD_LIBS="$bfd_libs" \
  IBERTY_LIBS="$iberty_libs" ZLIB_LIBS="$zlib_libs"
