#!/bin/sh
# relocs-vs-objdump.sh -- time `profcopy --dump-relocs` against the
# cross objdump's disassembly of the same object, in one run.
#
# Usage: bench/relocs-vs-objdump.sh [PROFCOPY [OBJECT [RUNS]]]
# Defaults: the profcopy of build/ (or of a tree configured in place),
# the Debian cross libc, 5 runs.  Prints the median wall time of each and their ratio; the
# ratio is profcopy's time over objdump's (below 1: profcopy faster).

set -eu

here=$(cd "$(dirname "$0")" && pwd)
default=$here/../build/profcopy/profcopy
[ -x "$default" ] || default=$here/../profcopy/profcopy
profcopy=${1:-$default}
object=${2:-/usr/mips-linux-gnu/lib/libc.so.6}
runs=${3:-5}
objdump=${OBJDUMP:-mips-linux-gnu-objdump}

for tool in "$profcopy" "$objdump"; do
  if ! command -v "$tool" >/dev/null 2>&1 && [ ! -x "$tool" ]; then
    echo "relocs-vs-objdump: $tool: not found" >&2
    exit 1
  fi
done
if [ ! -r "$object" ]; then
  echo "relocs-vs-objdump: $object: cannot read" >&2
  exit 1
fi

# median_time CMD...: run CMD $runs times, print the median seconds.
median_time () {
  i=0
  : > "$tmp"
  while [ $i -lt "$runs" ]; do
    start=$(date +%s.%N)
    "$@" > /dev/null
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.6f\n", b - a }' >> "$tmp"
    i=$((i + 1))
  done
  sort -n "$tmp" | awk '{ v[NR] = $1 } END { printf "%.3f\n", v[int((NR + 1) / 2)] }'
}

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

entries=$("$profcopy" --dump-relocs "$object" | wc -l)
t_profcopy=$(median_time "$profcopy" --dump-relocs "$object")
t_objdump=$(median_time "$objdump" -d "$object")
ratio=$(awk -v a="$t_profcopy" -v b="$t_objdump" 'BEGIN { print a / b }')

printf '%-28s %10s\n' "object" "$object"
printf '%-28s %10s\n' "relocation entries" "$entries"
printf '%-28s %10s s\n' "profcopy --dump-relocs" "$t_profcopy"
printf '%-28s %10s s\n' "objdump -d" "$t_objdump"
printf '%-28s %10.3f\n' "ratio profcopy/objdump" "$ratio"
