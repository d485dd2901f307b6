# bench-lib.sh -- shell functions shared by the benchmarks of bench/
# (overhead.sh, run-all.sh).  Sourced by bash, never run.
#
# Copyright (C) 2026 The profcopy authors.
# This file is part of profcopy, distributed under the GNU General Public
# License version 3 or later; see COPYING.
#
# The caller sets, before using the functions:
#   prog       its own name, for messages;
#   work       its work directory (once made);
#   plugin     the QEMU counting plugin (bench_plugin_ready may replace it);
#   timeout_s  the limit on each guest run, in seconds.
# shellcheck shell=bash disable=SC2154  # Those globals.

# Output larger than this (KiB) from one guest run means a runaway.
bench_file_limit_kib=262144

# bench_die MESSAGE...: say MESSAGE and exit with status 2 (usage error
# or missing tool).
bench_die () {
  echo "$prog: $*" >&2
  exit 2
}

# bench_build_dir TOP: print the build directory of source tree TOP:
# TOP/build (scripts/setup-debian.sh builds there), else TOP itself
# (a tree configured in place).
bench_build_dir () {
  if [ -x "$1/build/profcopy/profcopy" ]; then
    echo "$1/build"
  else
    echo "$1"
  fi
}

# bench_need_tool TOOL WHY: fail unless TOOL is an executable command.
bench_need_tool () {
  command -v "$1" >/dev/null 2>&1 || [ -x "$1" ] \
    || bench_die "$1: not found ($2)"
}

# bench_positive VALUE...: fail unless every VALUE is a positive integer.
bench_positive () {
  local n
  for n in "$@"; do
    case $n in
      ''|*[!0-9]*|0) bench_die "\`$n' is not a positive number" ;;
    esac
  done
}

# bench_help FILE: print the comment block at the top of script FILE
# (after its #! line) without the comment marks: the script's --help.
bench_help () {
  awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$1"
}

# bench_plugin_ready TOP: make sure $plugin exists; when it does not,
# build it from TOP's testsuite/tools/qemu-count-plugin.c into $work
# with ${CC:-cc} and point $plugin there.
bench_plugin_ready () {
  local src=$1/testsuite/tools/qemu-count-plugin.c
  [ -r "$plugin" ] && return 0
  [ -r "$src" ] || bench_die "$plugin: not found, and no $src to build it from"
  bench_need_tool "${CC:-cc}" "a host C compiler, to build the QEMU plugin"
  "${CC:-cc}" -O2 -fPIC -shared -o "$work/qemu-count-plugin.so" "$src" -lpthread \
    || bench_die "cannot build $work/qemu-count-plugin.so"
  plugin=$work/qemu-count-plugin.so
}

# bench_guest RUNDIR QEMU SYSROOT PLUGIN_OUT STDIN OUT ERR ENV -- PROGRAM ARG...:
# run PROGRAM with ARGs under QEMU (qemu-user with -L SYSROOT) in a
# fresh, empty RUNDIR, with exactly the guest environment ENV (one
# string of NAME=VALUE words, no spaces in a value) plus PATH and
# LC_ALL=C, standard input from STDIN, output to OUT and ERR; under the
# counting plugin writing to PLUGIN_OUT unless that is empty.  Return
# the guest's exit status (124 on timeout, 125 if the run could not
# start).
bench_guest () {
  local rundir=$1 qemu=$2 sysroot=$3 pout=$4 input=$5 out=$6 err=$7 genv=$8
  shift 9
  rm -rf "$rundir" && mkdir "$rundir" || return 125
  # The outer braces catch the shell's own `Segmentation fault' notice.
  # shellcheck disable=SC2086  # $genv is a list of words.
  { (
    cd "$rundir" || exit 125
    ulimit -f "$bench_file_limit_kib"
    exec env -i PATH=/usr/bin:/bin LC_ALL=C $genv \
      timeout -k 10 "$timeout_s" "$qemu" -L "$sysroot" \
      ${pout:+-plugin "$plugin,out=$pout"} "$@"
  ) < "$input" > "$out" 2> "$err"; } 2>> "$err"
}

# bench_describe_status STATUS: say what a run's exit STATUS means.
bench_describe_status () {
  case $1 in
    124) echo "timed out after ${timeout_s}s" ;;
    153) echo "output too large (killed by SIGXFSZ)" ;;
    13[0-9]|14[0-9]|15[0-9])
      echo "exit $1 (signal $(kill -l $(($1 - 128)) 2>/dev/null || echo $(($1 - 128))))" ;;
    *) echo "exit $1" ;;
  esac
}

# bench_count_insns COUNTS: print the total of the plugin's counts file.
bench_count_insns () {
  awk '!/^#/ { s += $2 } END { printf "%.0f\n", s }' "$1"
}

# bench_seconds CMD...: run CMD, print its wall time in seconds on stdout.
bench_seconds () {
  local start end
  start=$(date +%s.%N)
  "$@"
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.6f\n", b - a }'
}

# bench_stats FILE: print the median, minimum and maximum of the numbers
# in FILE (one a line), each with three decimals.
bench_stats () {
  sort -n "$1" | awk '
    { v[NR] = $1 }
    END {
      if (NR == 0) { print "- - -"; exit }
      med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      printf "%.3f %.3f %.3f\n", med, v[1], v[NR]
    }'
}

# bench_ratio A B [FORMAT]: print A / B with FORMAT (default %.3f), or
# `-' when either is missing or B is zero.
bench_ratio () {
  awk -v a="$1" -v b="$2" -v f="${3:-%.3f}" '
    BEGIN {
      if (a == "" || b == "" || a == "-" || b == "-" || b + 0 == 0) print "-"
      else printf f "\n", a / b
    }'
}

# bench_peak CMD...: run CMD with its standard output to /dev/null and
# print `SECONDS PEAK_KIB' on stdout: its wall time and its peak
# resident set size (GNU time's %M; `-' when /usr/bin/time is not GNU
# time).  Return CMD's exit status.
bench_peak () {
  local f=$work/peak.$$ start end status peak=-
  start=$(date +%s.%N)
  if [ "$bench_gnu_time" = yes ]; then
    /usr/bin/time -o "$f" -f %M "$@" > /dev/null
    status=$?
    # After a failure GNU time writes `Command exited with...' first.
    peak=$(tail -n 1 "$f")
    rm -f "$f"
  else
    "$@" > /dev/null
    status=$?
  fi
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" -v m="$peak" 'BEGIN { printf "%.6f %s\n", b - a, m }'
  return $status
}

# Whether /usr/bin/time is GNU time (it has -f %M).
if /usr/bin/time -f %M -o /dev/null true 2>/dev/null; then
  bench_gnu_time=yes
else
  bench_gnu_time=no
fi
