#!/bin/bash
# golden-check.sh -- prove that two builds of profcopy rewrite alike.
#
# Copyright (C) 2026 The profcopy authors.
# This file is part of profcopy, distributed under the GNU General Public
# License version 3 or later; see COPYING.
#
# Usage: golden-check.sh [-j N] [-k] BEFORE AFTER [INPUT...]
#
# BEFORE and AFTER are profcopy programs (or build trees, whose
# profcopy/profcopy is used): typically the commit before a refactoring
# and the refactored tree.  Every INPUT (default: the cross libcs'
# shared objects, the test suite's built fixtures and the Debian
# testbed's programs and libraries, when they exist) is rewritten by
# both, with each of the option sets below and -v, and the two runs must
# agree byte for byte: the output file, what they print (the -v figures
# and the dumps included) and the exit status.  An input that both
# refuse alike counts as agreeing.  Differences are listed with the option set; the work
# files of the first few stay in the work directory (-k keeps them all).
#
# Exit status: 0 when every run agrees, 1 when one differs, 2 on a
# usage error.

set -u

jobs=$(nproc 2>/dev/null || echo 1)
keep=false
while [ $# -gt 0 ]; do
  case $1 in
    -j) jobs=$2; shift 2 ;;
    -j*) jobs=${1#-j}; shift ;;
    -k) keep=true; shift ;;
    -h | --help)
      sed -n '/^# Usage/,/^# Exit status/p' "$0" | sed 's/^# \{0,1\}//'
      exit 0 ;;
    --) shift; break ;;
    -*) echo "golden-check.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ $# -lt 2 ]; then
  echo "usage: golden-check.sh [-j N] [-k] BEFORE AFTER [INPUT...]" >&2
  exit 2
fi

tool ()
{
  if [ -d "$1" ]; then
    printf '%s\n' "$(cd "$1" && pwd)/profcopy/profcopy"
  else
    printf '%s\n' "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
  fi
}
before=$(tool "$1")
after=$(tool "$2")
shift 2
for t in "$before" "$after"; do
  if [ ! -x "$t" ]; then
    echo "golden-check.sh: $t is not an executable" >&2
    exit 2
  fi
done

top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/golden.XXXXXX") || exit 2
list=$work/inputs

is_elf ()
{
  [ -f "$1" ] && [ ! -L "$1" ] \
    && [ "$(head -c 4 "$1" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 7f454c46 ]
}

if [ $# -gt 0 ]; then
  # An input named that is not there would be refused by both builds
  # alike and pass unseen.
  for f in "$@"; do
    if [ ! -f "$f" ]; then
      echo "golden-check.sh: $f: no such file" >&2
      rm -rf "$work"
      exit 2
    fi
  done
  printf '%s\n' "$@" >"$list"
else
  {
    for d in /usr/mips-linux-gnu/lib /usr/mipsel-linux-gnu/lib; do
      [ -d "$d" ] && find "$d" -maxdepth 1 -name '*.so*' -type f
    done
    for d in "$top/testsuite/build-fixtures" "$top/testsuite/jobs" \
	     "$top/build/testsuite/build-fixtures" "$top/build/testsuite/jobs"; do
      [ -d "$d" ] && find "$d" -type f -size -8M \
	\( -path '*/testbed/root/*' -o ! -path '*/testbed/*' \) \
	! -path '*/rw[aptw]/*' ! -path '*/kernel/*' \
	! -name '*.o' ! -name '*.prof' ! -name '*.trace' ! -name '*.txt'
    done
  } | sort -u >"$list.all"
  # grep finds the candidates in bulk, is_elf proves each.
  tr '\n' '\0' <"$list.all" \
    | LC_ALL=C xargs -0 -r grep -l -a -m 1 -P '^\x7fELF' 2>/dev/null \
    | while IFS= read -r f; do
	is_elf "$f" && printf '%s\n' "$f"
      done >"$list"
fi

# The option sets: together they reach every planning and emission path
# a single object can take, and the analysis behind the two dumps.
optsets=(
  ""
  "--calls"
  "--poison-original"
  "--all-blocks --counter-update=single"
  "--counter-update=atomic --counter-carry=watcher"
  "--dump-relocs"
  "--dump-blocks"
)

# Rewrite input $1 with option set number $2 by both; print a line
# "same" or "differs: ..." for it.
one ()
{
  local in=$1 k=$2 tag out
  local -a opts
  read -r -a opts <<<"${optsets[$k]}"
  tag=$(printf '%s' "$in" | md5sum | cut -c1-12).$k
  out=$work/$tag
  mkdir -p "$out"
  "$before" -v "${opts[@]}" "$in" "$out/before" >"$out/before.out" 2>&1
  echo $? >"$out/before.status"
  "$after" -v "${opts[@]}" "$in" "$out/after" >"$out/after.out" 2>&1
  echo $? >"$out/after.status"
  # The messages name the output file: make the names alike.
  sed -i "s|$out/before|OUT|g" "$out/before.out"
  sed -i "s|$out/after|OUT|g" "$out/after.out"
  local why=
  cmp -s "$out/before.status" "$out/after.status" || why="$why status"
  cmp -s "$out/before.out" "$out/after.out" || why="$why messages"
  if [ -f "$out/before" ] || [ -f "$out/after" ]; then
    cmp -s "$out/before" "$out/after" || why="$why output"
  fi
  if [ -z "$why" ]; then
    echo "same $in [${optsets[$k]}]"
    rm -rf "$out"
  else
    echo "differs:$why: $in [${optsets[$k]}] ($out)"
  fi
}
export -f one
export before after work
export OPTSETS_DEF
OPTSETS_DEF=$(declare -p optsets)

n=$(wc -l <"$list")
echo "golden-check: $n inputs, ${#optsets[@]} option sets, $jobs jobs"
while IFS= read -r f; do
  for k in "${!optsets[@]}"; do
    printf '%s\t%s\n' "$f" "$k"
  done
done <"$list" \
  | xargs -P "$jobs" -d '\n' -n 1 bash -c \
      'eval "$OPTSETS_DEF"; IFS=$(printf "\t") read -r in k <<<"$1"; one "$in" "$k"' _ \
  >"$work/results"

same=$(grep -c '^same ' "$work/results")
diffs=$(grep -c '^differs' "$work/results")
grep '^differs' "$work/results" | head -20
echo "golden-check: $same runs agree, $diffs differ"
if [ "$diffs" -gt 0 ]; then
  $keep || grep '^differs' "$work/results" | tail -n +6 \
    | sed 's/.*(\(.*\))$/\1/' | xargs -r rm -rf
  echo "golden-check: the work files are in $work"
  exit 1
fi
rm -rf "$work"
exit 0
