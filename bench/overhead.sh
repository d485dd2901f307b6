#!/bin/bash
# overhead.sh -- measure what profiling costs a CPU-bound MIPS program:
# profcopy --whole-program against gcov (-fprofile-arcs) and gprof (-pg).
#
# Copyright (C) 2026 The profcopy authors.
# This file is part of profcopy, distributed under the GNU General Public
# License version 3 or later; see COPYING.
#
# Usage: bench/overhead.sh [OPTION]...
#
#   --endian=eb|el|both  byte order(s) to measure (default eb: big-endian,
#                        mips-linux-gnu; el: little-endian, mipsel-linux-gnu)
#   --runs=N             timed runs per variant (default 5)
#   --scale=N            work multiplier passed to cpubench (default 1:
#                        some 40 million MIPS instructions)
#   --cflags=FLAGS       compiler flags of every build (default -O2)
#   --timeout=SECONDS    limit on each guest run (default 300)
#   --profcopy=FILE      the profcopy to test (default: build/'s)
#   --runtime-dir=DIR    holds mips/ and mipsel/libprofcopy.so (default:
#                        this build tree's runtime/)
#   --plugin=FILE        the QEMU counting plugin (default: this tree's
#                        testsuite/tools/qemu-count-plugin.so; built from
#                        its source with ${CC:-cc} when missing)
#   --keep               keep the work directory and say where it is
#
# For each byte order, in one run, the script builds bench/cpubench.c
# with the cross gcc three ways (plain, -fprofile-arcs, -pg), rewrites
# the plain build with `profcopy --whole-program' (the program and every
# library it needs, libc included, plus the runtime), then runs the four
# variants under qemu-user with the same environment (env -i, same
# working directory, same length of program path) and:
#   - counts the guest instructions each executes with the TCG plugin
#     (everything the guest runs: ld.so, libc, the profiling code, the
#     profile writing at exit);
#   - checks that each prints exactly what the plain build prints and
#     exits with status 0;
#   - times RUNS runs of each without the plugin (wall time, median,
#     minimum and maximum).
# gcov instruments only the program's own code and gprof only adds an
# mcount call at each function entry of the program (plus the pc
# sampling setup); profcopy counts every block of the program and of
# every library.  The mcount calls are part of gprof's instruction count.
#
# Exit status: 0 if every variant ran and matched, 1 if one failed or
# printed something else (the table says which), 2 on a usage error or a
# missing tool.

set -u

prog=overhead.sh
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=bench/bench-lib.sh
. "$here/bench-lib.sh" || exit 2
build=$(bench_build_dir "$top")

endian=eb
runs=5
scale=1
cflags=-O2
timeout_s=300
profcopy=$build/profcopy/profcopy
runtime_dir=$build/runtime
plugin=$build/testsuite/tools/qemu-count-plugin.so
keep=no


for arg in "$@"; do
  case $arg in
    --endian=eb|--endian=el|--endian=both) endian=${arg#*=} ;;
    --endian=*) bench_die "--endian must be eb, el or both" ;;
    --runs=*) runs=${arg#*=} ;;
    --scale=*) scale=${arg#*=} ;;
    --cflags=*) cflags=${arg#*=} ;;
    --timeout=*) timeout_s=${arg#*=} ;;
    --profcopy=*) profcopy=${arg#*=} ;;
    --runtime-dir=*) runtime_dir=${arg#*=} ;;
    --plugin=*) plugin=${arg#*=} ;;
    --keep) keep=yes ;;
    -h|--help) bench_help "$0"; exit 0 ;;
    *) bench_die "unknown argument \`$arg' (try --help)" ;;
  esac
done
bench_positive "$runs" "$scale" "$timeout_s"

case $endian in
  eb) arches=mips ;;
  el) arches=mipsel ;;
  both) arches="mips mipsel" ;;
esac


for tool in awk cmp date sort uname nproc timeout env; do
  bench_need_tool "$tool" "a standard utility"
done
[ -r "$here/cpubench.c" ] || bench_die "$here/cpubench.c: cannot read"
[ -x "$profcopy" ] || bench_die "$profcopy: not found (build profcopy first, or give --profcopy=FILE)"
for arch in $arches; do
  bench_need_tool "$arch-linux-gnu-gcc" "install gcc-$arch-linux-gnu"
  bench_need_tool "qemu-$arch" "install qemu-user"
  [ -d "/usr/$arch-linux-gnu/lib" ] \
    || bench_die "/usr/$arch-linux-gnu: no cross sysroot (install libc6-dev-$arch-cross)"
  [ -r "$runtime_dir/$arch/libprofcopy.so" ] \
    || bench_die "$runtime_dir/$arch/libprofcopy.so: not found (build the runtime, or give --runtime-dir=DIR)"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/overhead.XXXXXX") || bench_die "cannot make a work directory"
if [ "$keep" = yes ]; then
  trap 'echo "$prog: work directory kept: $work" >&2' EXIT
else
  trap 'rm -rf "$work"' EXIT
fi

bench_plugin_ready "$top"

# The variants, in table order, and the directory of each build.  The
# directory names have the same length so that every guest sees a
# program path (argv[0], auxv) of the same length.
variants="original gcov gprof profcopy"

# variant_dir VARIANT: print the build directory name of VARIANT.
variant_dir () {
  case $1 in
    original) echo orig ;;
    gcov) echo gcov ;;
    gprof) echo gprf ;;
    profcopy) echo pcpy ;;
  esac
}

# run_guest ARCH VARIANT PLUGIN_OUT: run VARIANT of cpubench for ARCH
# once, in $work/ARCH/run, its output in $work/ARCH/VARIANT.out and .err;
# under the counting plugin writing to PLUGIN_OUT unless that is empty.
# Return the guest's exit status.
run_guest () {
  local arch=$1 variant=$2 pout=$3
  local base=$work/$arch exe
  exe=$base/$(variant_dir "$variant")/cpubench
  # Start every run from the same state: gcov merges into an existing
  # .gcda, and gprof and profcopy write their profiles here.
  rm -f "$base"/*/*.gcda
  bench_guest "$base/run" "qemu-$arch" "/usr/$arch-linux-gnu" "$pout" /dev/null \
	      "$base/$variant.out" "$base/$variant.err" "" -- "$exe" "$scale"
}



# rewrite ARCH: make the profcopy variant of the plain build for ARCH;
# on failure leave a non-empty profcopy-rewrite.failed.
rewrite () {
  local arch=$1 base=$work/$1
  : > "$base/profcopy-rewrite.failed"
  "$profcopy" --whole-program --sysroot="/usr/$arch-linux-gnu" \
	      --runtime="$runtime_dir/$arch/libprofcopy.so" \
	      -o "$base/pcpy" "$base/orig/cpubench" \
	      > "$base/profcopy-rewrite.err" 2>&1 \
    || echo "exit $?" > "$base/profcopy-rewrite.failed"
}

# build ARCH: build the four variants for ARCH into $work/ARCH.
# Return non-zero if a compiler build fails (a failed profcopy rewrite is
# recorded as the status of that variant instead).
build () {
  local arch=$1 cc=$1-linux-gnu-gcc base=$work/$1
  mkdir -p "$base/orig" "$base/gcov" "$base/gprf" || return 1
  # shellcheck disable=SC2086  # $cflags is a list of words.
  $cc $cflags -o "$base/orig/cpubench" "$here/cpubench.c" \
    && $cc $cflags -fprofile-arcs -o "$base/gcov/cpubench" "$here/cpubench.c" \
    && $cc $cflags -pg -o "$base/gprf/cpubench" "$here/cpubench.c" \
    || return 1
  rm -rf "$base/pcpy"
  rewrite_time=$(bench_seconds rewrite "$arch")
  if [ ! -x "$base/pcpy/cpubench" ] || [ -s "$base/profcopy-rewrite.failed" ]; then
    status_profcopy="rewrite failed ($(cat "$base/profcopy-rewrite.failed")): $(grep -v '^$' "$base/profcopy-rewrite.err" | head -n 1)"
  fi
  return 0
}

# measure ARCH: build, count, check and time the variants for ARCH and
# print their table.  Set failed=yes if a variant failed.
measure () {
  local arch=$1 base=$work/$1 variant status t label
  local count_original="" med_original=""
  local -A count_of status_of med_of min_of max_of

  case $arch in
    mips) label="big-endian (mips-linux-gnu)" ;;
    mipsel) label="little-endian (mipsel-linux-gnu)" ;;
  esac
  echo
  echo "== $label, cflags \`$cflags', scale $scale =="

  status_profcopy=""
  rewrite_time=""
  if ! build "$arch"; then
    echo "$prog: $arch: building cpubench failed" >&2
    failed=yes
    return
  fi
  status_of[profcopy]=$status_profcopy
  echo "profcopy --whole-program rewrite:" \
       "$(awk -v t="${rewrite_time:-0}" 'BEGIN { printf "%.3f", t }') s," \
       "$(du -sk "$base/pcpy" 2>/dev/null | awk '{ print $1 }') KiB written"

  # Count.  The plain build runs first: its output is the reference.
  for variant in $variants; do
    [ -n "${status_of[$variant]:-}" ] && continue
    run_guest "$arch" "$variant" "$base/$variant.counts"
    status=$?
    if [ $status -ne 0 ]; then
      status_of[$variant]=$(bench_describe_status $status)
    elif [ "$variant" != original ] \
	 && ! cmp -s "$base/original.out" "$base/$variant.out"; then
      status_of[$variant]="output differs from the original's"
    elif [ ! -s "$base/$variant.counts" ]; then
      status_of[$variant]="the plugin wrote no counts"
    else
      count_of[$variant]=$(bench_count_insns "$base/$variant.counts")
      status_of[$variant]=ok
    fi
    if [ "$variant" = original ] && [ "${status_of[original]}" != ok ]; then
      echo "$prog: $arch: the plain build fails: ${status_of[original]}" >&2
      sed 's/^/  /' "$base/original.err" >&2
      failed=yes
      return
    fi
  done
  echo "output: $(tr '\n' ' ' < "$base/original.out")"

  # Time the variants that ran correctly, without the plugin.
  for variant in $variants; do
    [ "${status_of[$variant]}" = ok ] || continue
    : > "$base/$variant.times"
    for _ in $(seq 1 "$runs"); do
      t=$(bench_seconds run_guest "$arch" "$variant" "")
      echo "$t" >> "$base/$variant.times"
    done
    read -r "med_of[$variant]" "min_of[$variant]" "max_of[$variant]" < <(
      bench_stats "$base/$variant.times")
  done

  count_original=${count_of[original]}
  med_original=${med_of[original]}
  printf '%-10s %15s %8s   %-24s %8s\n' variant "dyn. insns" ratio \
	 "wall s: median (min/max)" ratio
  for variant in $variants; do
    if [ "${status_of[$variant]}" != ok ]; then
      printf '%-10s FAILED: %s\n' "$variant" "${status_of[$variant]}"
      [ -s "$base/$variant.err" ] && sed -n '1s/^/             /p' "$base/$variant.err"
      failed=yes
      continue
    fi
    printf '%-10s %15s %8.3f   %-24s %8.2f\n' "$variant" "${count_of[$variant]}" \
	   "$(awk -v a="${count_of[$variant]}" -v b="$count_original" 'BEGIN { print a / b }')" \
	   "${med_of[$variant]} (${min_of[$variant]}/${max_of[$variant]})" \
	   "$(awk -v a="${med_of[$variant]}" -v b="$med_original" 'BEGIN { print a / b }')"
  done
}

echo "cpubench profiling overhead, $(date '+%Y-%m-%d %H:%M:%S %Z')"
first=${arches%% *}
echo "machine: $(uname -m), $(nproc) cpus, $("qemu-$first" --version | head -n 1)"
echo "compiler: $("$first-linux-gnu-gcc" --version | head -n 1)"
echo "profcopy: $("$profcopy" --version 2>/dev/null | head -n 1) ($profcopy)"
echo "runs: $runs timed runs per variant under qemu without the plugin;" \
     "instructions counted by $(basename "$plugin") (mode tb)"

failed=no
for arch in $arches; do
  measure "$arch"
done

[ "$failed" = no ]
