#!/bin/bash
# deb-build.sh -- build profcopy's Debian package from this source tree.
#
# Copyright (C) 2026 The profcopy authors.
# This file is part of profcopy, distributed under the GNU General Public
# License version 3 or later; see COPYING.
#
# Usage: scripts/deb-build.sh [--check] [OUTDIR]
#
# Copies the tree's files (those git knows, and new ones it does not
# ignore) into a scratch directory, builds the binary package there
# with `dpkg-buildpackage -us -uc -b' (the packages debian/control
# names must be installed: debhelper and the cross tools, which
# scripts/setup-debian.sh installs), runs lintian on it, and leaves the
# .deb, the .changes, the build log and lintian's report in OUTDIR
# (default: build/deb).  The package's own test run is left out
# (DEB_BUILD_OPTIONS=nocheck) unless --check is given: it takes about
# twenty minutes and `make check' runs the same tests.
#
# Exit status: 0 when the package is built and lintian reports no error;
# 1 otherwise.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
check=no
outdir=$top/build/deb
for arg in "$@"; do
  case $arg in
    --check) check=yes ;;
    --help)
      awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"
      exit 0 ;;
    -*)
      echo "deb-build.sh: unknown option \`$arg'" >&2
      echo "Try \`scripts/deb-build.sh --help' for more information." >&2
      exit 2 ;;
    *) outdir=$arg ;;
  esac
done

for tool in dpkg-buildpackage dh lintian git; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "deb-build.sh: $tool is not installed (Debian: debhelper," \
      "lintian, git; scripts/setup-debian.sh installs them)" >&2
    exit 1
  fi
done

version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
work=$(mktemp -d "${TMPDIR:-/tmp}/profcopy-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
src=$work/profcopy-$version
mkdir "$src"
(cd "$top" && git ls-files -z --cached --others --exclude-standard \
   | xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh \
   | xargs -0 tar cf -) | (cd "$src" && tar xf -)

export DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS:-}
if [ "$check" = no ]; then
  DEB_BUILD_OPTIONS="$DEB_BUILD_OPTIONS nocheck"
fi
DEB_BUILD_OPTIONS="$DEB_BUILD_OPTIONS parallel=$(nproc)"

mkdir -p "$outdir"
status=0
(cd "$src" && dpkg-buildpackage -us -uc -b) >"$outdir/build.log" 2>&1 \
  || status=$?
if [ "$status" -ne 0 ]; then
  tail -n 40 "$outdir/build.log" >&2
  echo "deb-build.sh: dpkg-buildpackage failed (status $status);" \
    "the whole log is $outdir/build.log" >&2
  exit 1
fi
cp "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$outdir"/
changes=$(ls "$outdir"/profcopy_"$version"_*.changes)
# lintian's own status counts warnings; its errors are judged below.
lintian --info --display-info "$changes" >"$outdir/lintian.txt" 2>&1 || true
cat "$outdir/lintian.txt"
if grep -q '^E: ' "$outdir/lintian.txt"; then
  echo "deb-build.sh: lintian reports errors" >&2
  exit 1
fi
echo "deb-build.sh: wrote $(ls "$outdir"/*.deb | tr '\n' ' ')"
