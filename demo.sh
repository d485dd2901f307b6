#!/bin/bash
# demo.sh -- profile a small MIPS program, libc included, under QEMU.
#
# Copyright (C) 2026 The profcopy authors.
# This file is part of profcopy, distributed under the GNU General Public
# License version 3 or later; see COPYING.
#
# Usage: ./demo.sh [BUILD-DIR]
#
# Run after scripts/setup-debian.sh, which builds in build/ (the
# default BUILD-DIR; a tree configured in place is used when there is
# no build/).  Builds BUILD-DIR/demo/hello-mips from
# testsuite/fixtures/demo.c, rewrites it and every shared object it
# needs into BUILD-DIR/demo/prof/, runs the profiled copy, prints the
# flat profile, the call graph and the program's costliest source
# lines, draws BUILD-DIR/demo/demo.svg, and writes an HTML coverage
# report (BUILD-DIR/demo/coverage, with genhtml) and a callgrind file.
set -euo pipefail

top=$(cd "$(dirname "$0")" && pwd)
if [ $# -gt 0 ]; then
  build=$1
elif [ -f "$top/build/Makefile" ] || [ ! -f "$top/Makefile" ]; then
  build=$top/build
else
  build=$top
fi
if [ ! -f "$build/Makefile" ]; then
  echo "demo.sh: $build is not a configured build directory; run" \
    "scripts/setup-debian.sh first" >&2
  exit 1
fi
cd "$build"
echo "== in $build"
SYSROOT=/usr/mips-linux-gnu
PROFILE=$PWD/demo/hello-mips.prof

make demo

echo "== the program, run under QEMU"
qemu-mips -L "$SYSROOT" demo/hello-mips

echo "== profcopy --whole-program: the program and its libraries"
rm -rf demo/prof
profcopy/profcopy --whole-program --sysroot="$SYSROOT" \
  --runtime=runtime/mips/libprofcopy.so -o demo/prof demo/hello-mips
ls demo/prof

echo "== the profiled copy, run under QEMU (writes $PROFILE)"
rm -f "$PROFILE"
if ! qemu-mips -L "$SYSROOT" -E PROFCOPY_OUTPUT="$PROFILE" demo/prof/hello-mips
then
  echo "demo.sh: the profiled copy failed (a profcopy bug: please report it)" >&2
  exit 1
fi

echo "== flat profile (top 15)"
report/profreport -o demo/flat.txt "$PROFILE"
head -n 19 demo/flat.txt

echo "== call graph (the hottest functions; all of it in demo/calls.txt)"
report/profreport --calls --dot=demo/demo.dot -o demo/calls.txt "$PROFILE"
head -n 60 demo/calls.txt

dot -Tsvg demo/demo.dot -o demo/demo.svg
echo "== wrote demo/demo.svg (the call graph drawn by Graphviz)"

echo "== the program's costliest source lines (it is built with -g)"
report/profreport --lines --object=hello-mips -o demo/lines.txt "$PROFILE"
head -n 14 demo/lines.txt

echo "== coverage and callgrind files"
report/profreport --lcov=demo/demo.info --callgrind=demo/demo.callgrind \
  --object=hello-mips -o /dev/null "$PROFILE"
if command -v genhtml >/dev/null 2>&1; then
  rm -rf demo/coverage
  genhtml --quiet -o demo/coverage demo/demo.info
  echo "== wrote demo/coverage/index.html (genhtml of demo/demo.info)"
fi
echo "== wrote demo/demo.callgrind (callgrind_annotate --auto=yes, or KCachegrind)"
