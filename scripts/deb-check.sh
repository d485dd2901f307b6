#!/bin/bash
# deb-check.sh -- build the Debian package, install it, and profile the
# demo program with the installed tools of both byte orders.
#
# Copyright (C) 2026 The profcopy authors.
# This file is part of profcopy, distributed under the GNU General Public
# License version 3 or later; see COPYING.
#
# Usage: scripts/deb-check.sh [OUTDIR]
#
# Runs scripts/deb-build.sh into OUTDIR (default: build/deb), installs
# the package with dpkg (as root, or through sudo), then for
# mips-linux-gnu and mipsel-linux-gnu builds testsuite/fixtures/demo.c,
# rewrites it with the installed PREFIX-profcopy --whole-program (its
# default sysroot and runtime directory, no option), runs the copy
# under qemu-user, compares its output with the original's, and reads
# the profile with PREFIX-profreport; the same for the demo linked
# statically, rewritten alone (the static runtime inside the copy).
# The package is removed again at
# the end.  Prints one `PASS: ' or `FAIL: ' line per check, as DejaGnu
# does, and exits non-zero if any failed.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
outdir=${1:-$top/build/deb}
if [ "$(id -u)" -eq 0 ]; then
  SUDO=()
else
  SUDO=(sudo)
fi
failed=0

# Show the first lines of each of the files FILES of directory DIR
# that exists: what a failed check left.
show ()
{
  local dir=$1 f
  shift
  for f; do
    [ -f "$dir/$f" ] && { echo "--- $f"; head -n 20 "$dir/$f"; }
  done
}

result ()
{
  if [ "$1" -eq 0 ]; then
    echo "PASS: $2"
  else
    echo "FAIL: $2"
    failed=1
  fi
}

"$top/scripts/deb-build.sh" "$outdir" >"$outdir.log" 2>&1
status=$?
grep '^[EW]: ' "$outdir/lintian.txt" 2>/dev/null
result $status "package: dpkg-buildpackage and lintian (no error)"
[ $status -eq 0 ] || { tail -n 20 "$outdir.log"; exit 1; }

deb=$(ls "$outdir"/profcopy_*_"$(dpkg --print-architecture)".deb)
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive dpkg -i "$deb" \
  >"$outdir/install.log" 2>&1
status=$?
result $status "package: dpkg -i $(basename "$deb")"
[ $status -eq 0 ] || { cat "$outdir/install.log"; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/profcopy-deb-check.XXXXXX")
for t in mips-linux-gnu mipsel-linux-gnu; do
  case $t in
    mips-*) qemu=qemu-mips ;;
    *) qemu=qemu-mipsel ;;
  esac
  d=$work/$t
  mkdir -p "$d"
  # Installed tools only: no --sysroot, no --runtime.
  "$t-gcc" -O2 -fPIE -pie -o "$d/demo" "$top/testsuite/fixtures/demo.c" -lm \
    && "$qemu" -L "/usr/$t" "$d/demo" >"$d/orig.out" 2>&1 \
    && "/usr/bin/$t-profcopy" --whole-program -o "$d/prof" "$d/demo" \
	 >"$d/profcopy.out" 2>&1 \
    && "$qemu" -L "/usr/$t" -E PROFCOPY_OUTPUT="$d/demo.prof" \
	 "$d/prof/demo" >"$d/prof.out" 2>&1 \
    && cmp -s "$d/orig.out" "$d/prof.out" \
    && "/usr/bin/$t-profreport" "$d/demo.prof" >"$d/flat.txt" 2>&1 \
    && grep -q 'main' "$d/flat.txt"
  status=$?
  [ $status -eq 0 ] || show "$d" profcopy.out prof.out flat.txt
  result $status "package: $t-profcopy --whole-program profiles the demo as installed"
  # The one command, as installed: its own cache, the runtime and the
  # sysroot of the program's byte order.
  (cd "$d" && "/usr/bin/$t-profrun" --cache="$d/cache" ./demo \
     >"$d/run.out" 2>"$d/run.err") \
    && cmp -s "$d/orig.out" "$d/run.out" \
    && grep -q 'main (demo)' "$d/run.err"
  status=$?
  [ $status -eq 0 ] || show "$d" run.err
  result $status "package: $t-profrun profiles the demo in one command"
  # A static demo: the installed static runtime goes inside the copy.
  "$t-gcc" -O2 -static -o "$d/sdemo" "$top/testsuite/fixtures/demo.c" -lm \
    && "$qemu" "$d/sdemo" >"$d/sorig.out" 2>&1 \
    && "/usr/bin/$t-profcopy" -o "$d/sprof" "$d/sdemo" \
	 >"$d/sprofcopy.out" 2>&1 \
    && "$qemu" -E PROFCOPY_OUTPUT="$d/sdemo.prof" "$d/sprof" \
	 >"$d/sprof.out" 2>&1 \
    && cmp -s "$d/sorig.out" "$d/sprof.out" \
    && "/usr/bin/$t-profreport" "$d/sdemo.prof" >"$d/sflat.txt" 2>&1 \
    && grep -q 'main (sdemo)' "$d/sflat.txt"
  status=$?
  [ $status -eq 0 ] || show "$d" sprofcopy.out sprof.out sflat.txt
  result $status "package: $t-profcopy profiles a static demo with the installed static runtime"
  page=/usr/share/man/man1/$t-profcopy.1.gz
  [ -f "$page" ] && ! zcat "$page" | grep -q PKGLIBDIR \
    && zcat "$page" | grep -q /usr/lib/profcopy/mips
  result $? "package: $page names the installed runtime's directory"
done
rm -rf "$work"

"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive dpkg -r profcopy \
  >>"$outdir/install.log" 2>&1
result $? "package: dpkg -r profcopy"
exit $failed
