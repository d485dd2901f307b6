#!/bin/bash
# calls-overhead.sh -- what call tracing costs a CPU-bound MIPS program, in
# dynamic instructions: profcopy --calls against gcc -finstrument-functions
# with the same runtime and against gprof (-pg).
#
# Copyright (C) 2026 The profcopy authors.
# This file is part of profcopy, distributed under the GNU General Public
# License version 3 or later; see COPYING.
#
# Usage: bench/calls-overhead.sh [OPTION]...
#
#   --endian=eb|el|both  byte order(s) to measure (default eb)
#   --scale=N            work multiplier passed to cpubench (default 1)
#   --cflags=FLAGS       compiler flags of every build (default -O2)
#   --timeout=SECONDS    limit on each guest run (default 300)
#   --profcopy=FILE      the profcopy to test (default: build/'s)
#   --profreport=FILE    the profreport that counts the trace events
#                        (default: build/'s)
#   --runtime-dir=DIR    holds mips/ and mipsel/libprofcopy.so (default:
#                        this tree's runtime/)
#   --plugin=FILE        the QEMU counting plugin (default: this tree's
#                        testsuite/tools/qemu-count-plugin.so, built when
#                        missing)
#   --keep               keep the work directory and say where it is
#
# For each byte order, in one run, bench/cpubench.c is built with the
# cross gcc four ways and each build runs once under qemu-user with the
# TCG counting plugin (the instructions of everything the guest runs:
# ld.so, libc, the tracing code, the trace writing at exit):
#   original   plain;
#   hooks      -finstrument-functions, linked with libprofcopy.so (its
#              __cyg_profile_func_enter/exit write the trace);
#   gprof      -pg;
#   profcopy   the plain build rewritten with profcopy --whole-program
#              (block counts only), for reference;
#   calls      the plain build rewritten with profcopy --calls
#              --whole-program (block counts and call trace).
# Each must print what the plain build prints and exit with status 0.
# The table gives the instructions, the ratio to the plain build and,
# for the traced variants, the events of the trace (profreport's count)
# and the instructions each event costs: over the plain build for the
# hooks, over the block-counting copy for --calls (the probes alone).
# The two traces differ in what they record: the hooks see only the
# program's own functions, but also those gcc inlined (without
# -fno-inline in --cflags, calls the machine never made); --calls sees
# the calls the machine made, in the program and in every library
# (qsort's, malloc's...).  The per-event cost is the fairer comparison.
#
# Exit status: 0 if every variant ran and matched, 1 if one failed,
# 2 on a usage error or a missing tool.

set -u

prog=calls-overhead.sh
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=bench/bench-lib.sh
. "$here/bench-lib.sh" || exit 2
build=$(bench_build_dir "$top")

endian=eb
scale=1
cflags=-O2
timeout_s=300
profcopy=$build/profcopy/profcopy
profreport=$build/report/profreport
runtime_dir=$build/runtime
plugin=$build/testsuite/tools/qemu-count-plugin.so
keep=no

for arg in "$@"; do
  case $arg in
    --endian=eb|--endian=el|--endian=both) endian=${arg#*=} ;;
    --endian=*) bench_die "--endian must be eb, el or both" ;;
    --scale=*) scale=${arg#*=} ;;
    --cflags=*) cflags=${arg#*=} ;;
    --timeout=*) timeout_s=${arg#*=} ;;
    --profcopy=*) profcopy=${arg#*=} ;;
    --profreport=*) profreport=${arg#*=} ;;
    --runtime-dir=*) runtime_dir=${arg#*=} ;;
    --plugin=*) plugin=${arg#*=} ;;
    --keep) keep=yes ;;
    -h|--help) bench_help "$0"; exit 0 ;;
    *) bench_die "unknown argument \`$arg' (try --help)" ;;
  esac
done
bench_positive "$scale" "$timeout_s"

case $endian in
  eb) arches=mips ;;
  el) arches=mipsel ;;
  both) arches="mips mipsel" ;;
esac

for tool in awk cmp env timeout; do
  bench_need_tool "$tool" "a standard utility"
done
[ -r "$here/cpubench.c" ] || bench_die "$here/cpubench.c: cannot read"
[ -x "$profcopy" ] || bench_die "$profcopy: not found (build profcopy first, or give --profcopy=FILE)"
[ -x "$profreport" ] || bench_die "$profreport: not found (build profreport first, or give --profreport=FILE)"
for arch in $arches; do
  bench_need_tool "$arch-linux-gnu-gcc" "install gcc-$arch-linux-gnu"
  bench_need_tool "qemu-$arch" "install qemu-user"
  [ -d "/usr/$arch-linux-gnu/lib" ] \
    || bench_die "/usr/$arch-linux-gnu: no cross sysroot (install libc6-dev-$arch-cross)"
  [ -r "$runtime_dir/$arch/libprofcopy.so" ] \
    || bench_die "$runtime_dir/$arch/libprofcopy.so: not found (build the runtime, or give --runtime-dir=DIR)"
done
runtime_dir=$(cd "$runtime_dir" && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/calls-overhead.XXXXXX") || bench_die "cannot make a work directory"
if [ "$keep" = yes ]; then
  trap 'echo "$prog: work directory kept: $work" >&2' EXIT
else
  trap 'rm -rf "$work"' EXIT
fi

bench_plugin_ready "$top"

variants="original hooks gprof profcopy calls"

# The build directory of each variant: names of the same length, so that
# every guest sees a program path of the same length.
variant_dir () {
  case $1 in
    original) echo orig ;;
    hooks) echo hook ;;
    gprof) echo gprf ;;
    profcopy) echo pcpy ;;
    calls) echo call ;;
  esac
}

# build ARCH: build every variant for ARCH into $work/ARCH.  Return
# non-zero, after a message, if one cannot be built.
build () {
  local arch=$1 cc=$1-linux-gnu-gcc base=$work/$1 rt=$runtime_dir/$1
  mkdir -p "$base/orig" "$base/hook" "$base/gprf" || return 1
  # shellcheck disable=SC2086  # $cflags is a list of words.
  $cc $cflags -o "$base/orig/cpubench" "$here/cpubench.c" \
    && $cc $cflags -finstrument-functions -o "$base/hook/cpubench" \
	   "$here/cpubench.c" -L"$rt" -lprofcopy \
    && $cc $cflags -pg -o "$base/gprf/cpubench" "$here/cpubench.c" \
    || { echo "$prog: $arch: building cpubench failed" >&2; return 1; }
  "$profcopy" --whole-program --sysroot="/usr/$arch-linux-gnu" \
	      --runtime="$rt/libprofcopy.so" -o "$base/pcpy" \
	      "$base/orig/cpubench" > "$base/pcpy.err" 2>&1 \
    && "$profcopy" --calls --whole-program --sysroot="/usr/$arch-linux-gnu" \
		   --runtime="$rt/libprofcopy.so" -o "$base/call" \
		   "$base/orig/cpubench" > "$base/call.err" 2>&1 \
    || { echo "$prog: $arch: profcopy failed:" >&2;
	 cat "$base/pcpy.err" "$base/call.err" >&2; return 1; }
}

# measure ARCH: build and count the variants for ARCH and print their
# table.  Set failed=yes if one failed.
measure () {
  local arch=$1 base=$work/$1 variant status genv events count ref
  local -A count_of status_of events_of

  echo
  echo "== $arch-linux-gnu, cflags \`$cflags', scale $scale =="
  if ! build "$arch"; then
    failed=yes
    return
  fi
  for variant in $variants; do
    genv="PROFCOPY_OUTPUT=cpubench.prof PROFCOPY_TRACE_OUTPUT=cpubench.trace"
    [ "$variant" = hooks ] && genv="$genv LD_LIBRARY_PATH=$runtime_dir/$arch"
    bench_guest "$base/run" "qemu-$arch" "/usr/$arch-linux-gnu" \
		"$base/$variant.counts" /dev/null "$base/$variant.out" \
		"$base/$variant.err" "$genv" -- \
		"$base/$(variant_dir "$variant")/cpubench" "$scale"
    status=$?
    events=""
    if [ -s "$base/run/cpubench.trace" ]; then
      events=$("$profreport" "$base/run/cpubench.trace" 2>/dev/null \
		 | awk 'NR == 1 && /events/ { print $3 }')
    fi
    if [ $status -ne 0 ]; then
      status_of[$variant]=$(bench_describe_status $status)
    elif [ "$variant" != original ] \
	 && ! cmp -s "$base/original.out" "$base/$variant.out"; then
      status_of[$variant]="output differs from the original's"
    elif [ ! -s "$base/$variant.counts" ]; then
      status_of[$variant]="the plugin wrote no counts"
    elif [ "$variant" = hooks ] || [ "$variant" = calls ] \
	   && [ -z "$events" ]; then
      status_of[$variant]="no trace written"
    else
      status_of[$variant]=ok
      count_of[$variant]=$(bench_count_insns "$base/$variant.counts")
      events_of[$variant]=$events
    fi
    if [ "$variant" = original ] && [ "${status_of[original]}" != ok ]; then
      echo "$prog: $arch: the plain build fails: ${status_of[original]}" >&2
      failed=yes
      return
    fi
  done
  echo "output: $(tr '\n' ' ' < "$base/original.out")"
  printf '%-10s %15s %8s %12s %14s\n' variant "dyn. insns" ratio \
	 "events" "insns/event"
  for variant in $variants; do
    if [ "${status_of[$variant]}" != ok ]; then
      printf '%-10s FAILED: %s\n' "$variant" "${status_of[$variant]}"
      failed=yes
      continue
    fi
    count=${count_of[$variant]}
    events=${events_of[$variant]}
    # The probes' own cost: over the block-counting copy for --calls.
    ref=${count_of[original]}
    [ "$variant" = calls ] && ref=${count_of[profcopy]:-}
    if [ -n "$events" ] && [ "$events" -gt 0 ] && [ -n "$ref" ]; then
      printf '%-10s %15s %8.3f %12s %14.1f\n' "$variant" "$count" \
	     "$(bench_ratio "$count" "${count_of[original]}")" "$events" \
	     "$(awk -v a="$count" -v b="$ref" -v e="$events" \
		  'BEGIN { print (a - b) / e }')"
    else
      printf '%-10s %15s %8.3f %12s %14s\n' "$variant" "$count" \
	     "$(bench_ratio "$count" "${count_of[original]}")" - -
    fi
  done
}

echo "cpubench call-tracing overhead in dynamic instructions, $(date '+%Y-%m-%d %H:%M:%S %Z')"
echo "profcopy: $("$profcopy" --version 2>/dev/null | head -n 1) ($profcopy)"
echo "instructions counted by $(basename "$plugin") (mode tb); insns/event:" \
     "instructions over the plain build's, per trace event"

failed=no
for arch in $arches; do
  measure "$arch"
done

[ "$failed" = no ]
