#!/bin/bash
# demo.sh -- show what profcopy finds in a small MIPS program.
#
# Copyright (C) 2026 The profcopy authors.
# This file is part of profcopy, distributed under the GNU General Public
# License version 3 or later; see COPYING.
#
# Run after scripts/setup-debian.sh (or ./configure && make).
set -euo pipefail

cd "$(dirname "$0")"
make demo
SYSROOT=/usr/mips-linux-gnu

echo "== the program, run under QEMU"
qemu-mips -L "$SYSROOT" demo/hello-mips

echo "== profcopy --list-needed"
profcopy/profcopy --list-needed --sysroot="$SYSROOT" demo/hello-mips

echo "== profcopy --dump-relocs (entries by type)"
profcopy/profcopy --dump-relocs demo/hello-mips > demo/hello-mips.relocs
cut -d' ' -f1 demo/hello-mips.relocs | sort | uniq -c
echo "(full table in demo/hello-mips.relocs)"

echo "== profcopy --dump-blocks (first function)"
profcopy/profcopy --dump-blocks demo/hello-mips | awk '/^function/ { n++ } n == 1'
