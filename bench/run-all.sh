#!/bin/bash
# run-all.sh -- every figure of the performance issue in one run, as one
# table of ratios: what profiling costs at run time, and how fast
# profcopy rewrites and profreport reports.
#
# Copyright (C) 2026 The profcopy authors.
# This file is part of profcopy, distributed under the GNU General Public
# License version 3 or later; see COPYING.
#
# Usage: bench/run-all.sh [OPTION]...
#
#   --runs=N             timed runs of everything timed (default 5)
#   --scale=N            work multiplier passed to cpubench (default 10:
#                        some 400 million MIPS instructions)
#   --endian=eb|el       byte order of cpubench and of the cross libc
#                        rewritten alone (default eb: mips-linux-gnu);
#                        the Debian programs are always mipsel
#   --cflags=FLAGS       compiler flags of the cpubench builds (default -O2)
#   --testbed=DIR        the Debian mipsel test bed, DIR/root its sysroot
#                        (default: this tree's testsuite/build-fixtures/
#                        testbed, as `make check' leaves it); made with
#                        testsuite/testbed/setup.sh when DIR/root has no
#                        libc (that downloads the packages)
#   --timeout=SECONDS    limit on each guest run (default 300)
#   --profcopy=FILE      the profcopy to test (default: build/'s)
#   --profreport=FILE    the profreport to test (default: build/'s)
#   --runtime-dir=DIR    holds mips/ and mipsel/libprofcopy.so (default:
#                        this build tree's runtime/)
#   --plugin=FILE        the QEMU counting plugin (default: this tree's
#                        testsuite/tools/qemu-count-plugin.so; built from
#                        its source with ${CC:-cc} when missing)
#   --programs="NAME..." measure only these programs of the runtime part
#                        (cpubench lua5.4 sqlite3 hello busybox openssl
#                        gawk sed xz bash perl lzop);
#                        and leave out the speed part
#   --keep               keep the work directory and say where it is
#
# Runtime overhead.  The programs: bench/cpubench.c built with the cross
# gcc plain, with -fprofile-arcs (gcov) and with -pg (gprof); Debian's
# mipsel lua5.4 running bench/lua-workload.lua; Debian's mipsel sqlite3
# running bench/sqlite-workload.sql on an in-memory database; and, as a
# corpus beyond those the rewriter was tuned on, Debian's mipsel gawk,
# sed, xz, bash, perl and lzop on workloads this script writes
# (corpus_workloads; the original and profcopy variants only).  Each
# plain program is also rewritten with `profcopy --whole-program' (the
# program, every library it needs, libc included, and the runtime; the
# default --counter-update=auto: single increments for cpubench and
# lua5.4, atomic ones for sqlite3, whose libsqlite3 imports
# pthread_create), again with --counter-update=atomic (variant
# pc-atomic: ll/sc increments, exact under threads), with
# --counter-update=single (variant pc-single: increments without
# ll/sc, exact only while threads do not race) and with
# --counter-carry=watcher (variant pc-watch: the default's increments
# without their tests for a carry out of the low word, which a thread
# of the runtime carries instead).  Then twice more with
# --use-profile of the profile the profcopy variant's counted run wrote
# (variants trained and tr-single: the counters placed by the counts of
# that earlier run of the same workload instead of by the static
# estimate; the default's increments and single ones).
# Every variant runs under qemu-user with the same environment and the
# same length of program path; the script counts its guest instructions
# with the TCG plugin (everything the guest runs: ld.so, libc, the
# counting code, the profile written at exit), checks that it prints
# exactly what the plain program prints (standard output and standard
# error) and exits with status 0, and
# times N more runs without the plugin (median, minimum, maximum).
#
# Rewrite and report speed, each the median wall time of N runs and the
# largest peak resident set size (GNU time's %M):
#   - profcopy on the cross libc.so.6 alone, against the cross objdump -d
#     of the same file to /dev/null;
#   - profcopy --whole-program on lua5.4 and its libraries, against one
#     mipsel-linux-gnu-objdump -d of the same objects to /dev/null; by
#     default (one process per object, as many at once as processors)
#     and with -j1 (one object at a time);
#   - profreport's flat profile of the lua5.4 run's whole-program
#     profile, against the lua5.4 rewrite.
#
# Exit status: 0 if everything ran and matched, 1 if something failed or
# printed something else (the table says which), 2 on a usage error or
# a missing tool.

set -u

prog=run-all.sh
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=bench/bench-lib.sh
. "$here/bench-lib.sh" || exit 2
build=$(bench_build_dir "$top")

runs=5
scale=10
endian=eb
cflags=-O2
testbed=$build/testsuite/build-fixtures/testbed
timeout_s=300
profcopy=$build/profcopy/profcopy
profreport=$build/report/profreport
runtime_dir=$build/runtime
plugin=$build/testsuite/tools/qemu-count-plugin.so
keep=no
only=""

for arg in "$@"; do
  case $arg in
    --runs=*) runs=${arg#*=} ;;
    --scale=*) scale=${arg#*=} ;;
    --endian=eb|--endian=el) endian=${arg#*=} ;;
    --endian=*) bench_die "--endian must be eb or el" ;;
    --cflags=*) cflags=${arg#*=} ;;
    --testbed=*) testbed=${arg#*=} ;;
    --timeout=*) timeout_s=${arg#*=} ;;
    --profcopy=*) profcopy=${arg#*=} ;;
    --profreport=*) profreport=${arg#*=} ;;
    --runtime-dir=*) runtime_dir=${arg#*=} ;;
    --plugin=*) plugin=${arg#*=} ;;
    --keep) keep=yes ;;
    --programs=*) only=${arg#*=} ;;
    -h|--help) bench_help "$0"; exit 0 ;;
    *) bench_die "unknown argument \`$arg' (try --help)" ;;
  esac
done
bench_positive "$runs" "$scale" "$timeout_s"

case $endian in
  eb) arch=mips ;;
  el) arch=mipsel ;;
esac
triple=$arch-linux-gnu
cross_libc=/usr/$triple/lib/libc.so.6

for tool in awk cmp date sort uname nproc timeout env du; do
  bench_need_tool "$tool" "a standard utility"
done
for f in cpubench.c lua-workload.lua sqlite-workload.sql; do
  [ -r "$here/$f" ] || bench_die "$here/$f: cannot read"
done
[ -x "$profcopy" ] || bench_die "$profcopy: not found (build profcopy first, or give --profcopy=FILE)"
[ -x "$profreport" ] || bench_die "$profreport: not found (build profreport first, or give --profreport=FILE)"
bench_need_tool "$triple-gcc" "install gcc-$triple"
for a in "$arch" mipsel; do
  bench_need_tool "qemu-$a" "install qemu-user"
  bench_need_tool "$a-linux-gnu-objdump" "install binutils-$a-linux-gnu"
  [ -r "$runtime_dir/$a/libprofcopy.so" ] \
    || bench_die "$runtime_dir/$a/libprofcopy.so: not found (build the runtime, or give --runtime-dir=DIR)"
done
[ -r "$cross_libc" ] || bench_die "$cross_libc: not found (install libc6-dev-$arch-cross)"

work=$(mktemp -d "${TMPDIR:-/tmp}/run-all.XXXXXX") || bench_die "cannot make a work directory"
if [ "$keep" = yes ]; then
  trap 'echo "$prog: work directory kept: $work" >&2' EXIT
else
  trap 'rm -rf "$work"' EXIT
fi
bench_plugin_ready "$top"

failed=no

# The test bed: make it unless it is there already (setup.sh caches its
# downloads, so an existing one costs nothing).
tbroot=$testbed/root
if [ ! -e "$tbroot/lib/mipsel-linux-gnu/libc.so.6" ]; then
  echo "$prog: no test bed in $testbed: running testsuite/testbed/setup.sh" >&2
  sh "$top/testsuite/testbed/setup.sh" "$testbed" > "$work/setup.log" 2>&1
  tail -n 2 "$work/setup.log" >&2
fi
have_testbed=yes
[ -e "$tbroot/lib/mipsel-linux-gnu/libc.so.6" ] || have_testbed=no

# The programs, in table order, and for each: its variants, the guest
# arch and sysroot, the executable's name, its arguments (words; paths
# are relative to the run directory $work/NAME/run), its standard input
# and the extra guest environment.  Each variant lives in a directory
# of its own with a name of the same length, so that every guest sees
# a program path (argv[0], auxv) of the same length.
programs="cpubench lua5.4 sqlite3 hello busybox openssl gawk sed xz bash perl lzop"
# The short processes: what a profiled process costs however little it
# runs (start-up, the runtime, the profile written at exit).
short_programs="hello busybox openssl"
# Programs of the Debian corpus beyond the three above, each on a
# workload of its own over a generated text ($work/corpus,
# corpus_workloads): the ratio a user meets on programs the rewriter
# was not tuned on.
corpus_programs="gawk sed xz bash perl lzop"
declare -A variants_of arch_of sysroot_of args_of input_of
variants_of[cpubench]="original gcov gprof profcopy pc-atomic pc-single pc-watch trained tr-single"
arch_of[cpubench]=$arch
sysroot_of[cpubench]=/usr/$triple
args_of[cpubench]=$scale
input_of[cpubench]=/dev/null
for p in lua5.4 sqlite3; do
  variants_of[$p]="original profcopy pc-atomic pc-single pc-watch trained tr-single"
  arch_of[$p]=mipsel
  sysroot_of[$p]=$tbroot
done
args_of[lua5.4]=../lua-workload.lua
input_of[lua5.4]=/dev/null
args_of[sqlite3]="-batch :memory:"
input_of[sqlite3]=$work/sqlite3/sqlite-workload.sql
for p in $short_programs; do
  variants_of[$p]="original profcopy"
  arch_of[$p]=mipsel
  sysroot_of[$p]=$tbroot
  input_of[$p]=/dev/null
done
for p in $corpus_programs; do
  variants_of[$p]="original profcopy"
  arch_of[$p]=mipsel
  sysroot_of[$p]=$tbroot
  input_of[$p]=/dev/null
done
args_of[gawk]="-f ../../corpus/words.awk ../../corpus/data.txt"
args_of[sed]="-E -f ../../corpus/edit.sed ../../corpus/data.txt"
args_of[xz]="-c -6 ../../corpus/data.txt"
args_of[bash]="--norc --noprofile ../../corpus/work.sh"
args_of[perl]="../../corpus/work.pl ../../corpus/data.txt"
args_of[lzop]="-9 -c ../../corpus/data.txt"
arch_of[hello]=$arch
sysroot_of[hello]=/usr/$triple
args_of[hello]=""
args_of[busybox]="echo hello"
args_of[openssl]="version"

# variant_dir VARIANT: print the build directory name of VARIANT.
variant_dir () {
  case $1 in
    original) echo orig ;;
    gcov) echo gcov ;;
    gprof) echo gprf ;;
    profcopy) echo pcpy ;;
    pc-atomic) echo pcat ;;
    pc-single) echo pcps ;;
    pc-watch) echo pcwa ;;
    trained) echo pctr ;;
    tr-single) echo pcts ;;
  esac
}

# run_variant NAME VARIANT PLUGIN_OUT: run VARIANT of program NAME once
# in $work/NAME/run, its output in $work/NAME/VARIANT.out and .err;
# under the counting plugin writing to PLUGIN_OUT unless that is empty.
# Return the guest's exit status.
run_variant () {
  local name=$1 variant=$2 pout=$3 base=$work/$1
  # gcov merges into an existing .gcda: start every run afresh.
  rm -f "$base"/*/*.gcda
  # shellcheck disable=SC2086  # ${args_of[$name]} is a list of words.
  bench_guest "$base/run" "qemu-${arch_of[$name]}" "${sysroot_of[$name]}" "$pout" \
	      "${input_of[$name]}" "$base/$variant.out" "$base/$variant.err" \
	      TZ=UTC -- "$base/$(variant_dir "$variant")/$name" ${args_of[$name]}
}

# prepare NAME: build or copy the plain program NAME and its other
# variants but the profcopy one into $work/NAME, with its workload.
# Return non-zero on failure, with the reason in $work/NAME/prepare.err.
prepare () {
  local name=$1 base=$work/$1 cc=$triple-gcc
  mkdir -p "$base/orig" || return 1
  case $name in
    cpubench)
      mkdir -p "$base/gcov" "$base/gprf" || return 1
      # shellcheck disable=SC2086  # $cflags is a list of words.
      { $cc $cflags -o "$base/orig/cpubench" "$here/cpubench.c" \
	  && $cc $cflags -fprofile-arcs -o "$base/gcov/cpubench" "$here/cpubench.c" \
	  && $cc $cflags -pg -o "$base/gprf/cpubench" "$here/cpubench.c"; } \
	> "$base/prepare.err" 2>&1
      ;;
    lua5.4)
      { cp "$tbroot/usr/bin/lua5.4" "$base/orig/" \
	  && cp "$here/lua-workload.lua" "$base/"; } 2> "$base/prepare.err"
      ;;
    sqlite3)
      { cp "$tbroot/usr/bin/sqlite3" "$base/orig/" \
	  && cp "$here/sqlite-workload.sql" "$base/"; } 2> "$base/prepare.err"
      ;;
    hello)
      # shellcheck disable=SC2086  # $cflags is a list of words.
      $cc $cflags -o "$base/orig/hello" "$here/hello.c" > "$base/prepare.err" 2>&1
      ;;
    busybox)
      cp "$tbroot/bin/busybox" "$base/orig/" 2> "$base/prepare.err"
      ;;
    openssl)
      cp "$tbroot/usr/bin/openssl" "$base/orig/" 2> "$base/prepare.err"
      ;;
    gawk|xz|perl|lzop)
      { corpus_workloads && cp "$tbroot/usr/bin/$name" "$base/orig/"; } \
	2> "$base/prepare.err"
      ;;
    sed|bash)
      { corpus_workloads && cp "$tbroot/bin/$name" "$base/orig/"; } \
	2> "$base/prepare.err"
      ;;
  esac
}

# corpus_workloads: write the corpus programs' workloads into
# $work/corpus once: about 150 KB of text from a fixed linear
# congruential generator, word counts and a report in awk, regular
# expression edits in sed, a bash script of functions, arithmetic,
# arrays and string operations, and a perl script of hashes, regular
# expressions, sort and sprintf.
corpus_workloads () {
  local dir=$work/corpus
  [ -s "$dir/data.txt" ] && return 0
  mkdir -p "$dir" || return 1
  awk 'BEGIN {
    split("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango 0 1 42 1999 3.14", w, " ")
    x = 12345
    while (n < 150000) {
      k = 3 + x % 9; line = ""
      for (i = 0; i < k; i++) {
        x = (x * 69069 + 1) % 4294967296   # exact in doubles
        line = line (i ? " " : "") w[1 + int(x / 256) % 25]
      }
      print line; n += length(line) + 1
    }
  }' > "$dir/data.txt" || return 1
  cat > "$dir/words.awk" <<'AWK' || return 1
{ for (i = 1; i <= NF; i++) { n[$i]++; len[$i] = length($i) } lines++ }
/^(alpha|kilo) .*(42|1999)$/ { hits++ }
END {
  for (w in n) total += n[w] * len[w]
  m = asorti(n, keys)
  for (i = 1; i <= m; i++) printf "%-10s %6d %5.2f%%\n", keys[i], n[keys[i]], 100 * n[keys[i]] / NR
  printf "%d lines, %d letters, %d hits\n", lines, total, hits
}
AWK
  cat > "$dir/edit.sed" <<'SED' || return 1
s/([a-z]+) ([a-z]+)/\2-\1/g
/zulu|tango.*tango/d
s/[0-9]+/<&>/g
y/abc/ABC/
SED
  cat > "$dir/work.sh" <<'SH' || return 1
fib () { local a=0 b=1 i; for ((i = 0; i < $1; i++)); do ((b += a, a = b - a)); done; echo $a; }
declare -A seen
words=(alpha bravo charlie delta echo foxtrot golf hotel)
for ((round = 0; round < 300; round++)); do
  for w in "${words[@]}"; do
    k=${w:0:2}${#w}
    seen[$k]=$(( ${seen[$k]:-0} + round % 7 ))
    s=${w^^}; s=${s//A/4}
  done
  r=$(( (round * 7919 + 13) % 1000 ))
  [[ $r -gt 500 ]] && t+=${r: -1}
done
for k in $(printf '%s\n' "${!seen[@]}" | LC_ALL=C sort); do echo "$k ${seen[$k]}"; done
echo "fib $(fib 40) ${#t} $s"
SH
  cat > "$dir/work.pl" <<'PL' || return 1
use strict; use warnings;
my (%count, %first, @long);
while (my $line = <>) {
  chomp $line;
  my @w = split / /, $line;
  $count{$_}++ for @w;
  $first{$w[0]} //= $.;
  push @long, $line if $line =~ /^(\w+) .*\b(42|1999)\b/ && length $line > 40;
}
my @top = sort { $count{$b} <=> $count{$a} || $a cmp $b } keys %count;
printf "%-10s %6d first at %s\n", $_, $count{$_}, $first{$_} // '-' for @top[0 .. 9];
my $sum = 0; $sum += length for @long;
my $make = sub { my $n = shift; return sub { $n += shift; $n } };
my $acc = $make->(10); $acc->($_) for 1 .. 1000;
print scalar(@long), " long lines, $sum letters, acc ", $acc->(0), "\n";
PL
}

# rewrite NAME VARIANT: make the profcopy VARIANT (profcopy, pc-atomic,
# pc-single, pc-watch, trained or tr-single) of the plain program NAME; the trained ones use
# the profile of the profcopy variant's counted run.
rewrite () {
  local name=$1 base=$work/$1 dir
  dir=$(variant_dir "$2")
  set --
  case $dir in
    pcat) set -- --counter-update=atomic ;;
    pcps) set -- --counter-update=single ;;
    pcwa) set -- --counter-carry=watcher ;;
    pctr) set -- "--use-profile=$base/$name.prof" ;;
    pcts) set -- "--use-profile=$base/$name.prof" --counter-update=single ;;
  esac
  rm -rf "${base:?}/$dir"
  "$profcopy" --whole-program --sysroot="${sysroot_of[$name]}" \
	      --runtime="$runtime_dir/${arch_of[$name]}/libprofcopy.so" "$@" \
	      -o "$base/$dir" "$base/orig/$name" > "$base/rewrite-$dir.err" 2>&1
}

# rewrite_checked NAME VARIANT: rewrite, and note in status_of why it
# failed if it did.
rewrite_checked () {
  local name=$1 variant=$2 base=$work/$1 status v why
  rewrite "$name" "$variant"
  status=$?
  v=$(variant_dir "$variant")
  if [ $status -ne 0 ] || [ ! -x "$base/$v/$name" ]; then
    why=$(grep -v '^$' "$base/rewrite-$v.err" | head -n 1)
    status_of[$name/$variant]="rewrite failed ($(bench_describe_status $status))${why:+: $why}"
  fi
}

# The results of the runtime part, by NAME/VARIANT.
declare -A status_of count_of med_of min_of max_of

# measure NAME: prepare, count, check and time every variant of program
# NAME; fill the arrays above.
measure () {
  local name=$1 base=$work/$1 variant v status t why
  if [ "${sysroot_of[$name]}" = "$tbroot" ] && [ "$have_testbed" = no ]; then
    for variant in ${variants_of[$name]}; do
      status_of[$name/$variant]="no test bed in $testbed"
    done
    return
  fi
  if ! prepare "$name"; then
    why=$(grep -v '^$' "$base/prepare.err" | head -n 1)
    for variant in ${variants_of[$name]}; do
      status_of[$name/$variant]="cannot build or copy the program: $why"
    done
    return
  fi
  for variant in ${variants_of[$name]}; do
    case $variant in
      profcopy|pc-atomic|pc-single|pc-watch) rewrite_checked "$name" "$variant" ;;
    esac
  done

  # Count.  The plain program runs first: its output is the reference.
  # The trained variants are made once the profcopy variant's run has
  # written its profile.
  for variant in ${variants_of[$name]}; do
    case $variant in
      trained|tr-single)
	if [ ! -s "$base/$name.prof" ]; then
	  status_of[$name/$variant]="no profile of the profcopy variant's run"
	else
	  rewrite_checked "$name" "$variant"
	fi
	;;
    esac
    [ -n "${status_of[$name/$variant]:-}" ] && continue
    run_variant "$name" "$variant" "$base/$variant.counts"
    status=$?
    if [ $status -ne 0 ]; then
      status_of[$name/$variant]=$(bench_describe_status $status)
    elif [ "$variant" != original ] \
	 && ! cmp -s "$base/original.out" "$base/$variant.out"; then
      status_of[$name/$variant]="output differs from the original's"
    elif [ "$variant" != original ] \
	 && ! cmp -s "$base/original.err" "$base/$variant.err"; then
      status_of[$name/$variant]="standard error differs from the original's"
    elif [ ! -s "$base/$variant.counts" ]; then
      status_of[$name/$variant]="the plugin wrote no counts"
    else
      count_of[$name/$variant]=$(bench_count_insns "$base/$variant.counts")
      status_of[$name/$variant]=ok
    fi
    # Keep the whole-program profile of the counted run for profreport.
    # (PROGRAM.PID.prof: the runtime's default name.)
    if [ "$variant" = profcopy ]; then
      for f in "$base/run/$name".*prof; do
	[ -s "$f" ] && cp "$f" "$base/$name.prof" && break
      done
    fi
    if [ "$variant" = original ] && [ "${status_of[$name/original]}" != ok ]; then
      for v in ${variants_of[$name]}; do
	[ "$v" = original ] || status_of[$name/$v]="not run: the original fails"
      done
      break
    fi
  done

  # Time the variants that ran correctly, without the plugin, in turn
  # (one run of each, RUNS times over) so that a change in the load of
  # the machine falls on all of them alike.
  for variant in ${variants_of[$name]}; do
    : > "$base/$variant.times"
  done
  for _ in $(seq 1 "$runs"); do
    for variant in ${variants_of[$name]}; do
      [ "${status_of[$name/$variant]}" = ok ] || continue
      t=$(bench_seconds run_variant "$name" "$variant" "")
      echo "$t" >> "$base/$variant.times"
    done
  done
  for variant in ${variants_of[$name]}; do
    [ "${status_of[$name/$variant]}" = ok ] || continue
    read -r "med_of[$name/$variant]" "min_of[$name/$variant]" \
	 "max_of[$name/$variant]" < <(bench_stats "$base/$variant.times")
  done
}

# The results of the speed part, by task: median seconds, peak KiB,
# and the reason of a failure.
declare -A sec_of kib_of fail_of

# The speed tasks, in the order they run, and the objects of the lua5.4
# closure (the program and what --list-needed resolves).
speed_tasks="libc-profcopy libc-objdump lua-profcopy lua-profcopy-j1 lua-objdump report"
lua_closure=""

# run_task TASK: run the command of TASK once, its standard output to
# /dev/null, with an empty $work/speed/out; print `SECONDS PEAK_KIB'.
run_task () {
  local lua=$tbroot/usr/bin/lua5.4
  rm -rf "$work/speed/out" && mkdir "$work/speed/out" || return 1
  case $1 in
    libc-profcopy)
      bench_peak "$profcopy" "$cross_libc" "$work/speed/out/libc.so.6" ;;
    libc-objdump)
      bench_peak "$triple-objdump" -d "$cross_libc" ;;
    lua-profcopy)
      bench_peak "$profcopy" --whole-program --sysroot="$tbroot" \
		 --runtime="$runtime_dir/mipsel/libprofcopy.so" \
		 -o "$work/speed/out" "$lua" ;;
    lua-profcopy-j1)
      bench_peak "$profcopy" --whole-program -j1 --sysroot="$tbroot" \
		 --runtime="$runtime_dir/mipsel/libprofcopy.so" \
		 -o "$work/speed/out" "$lua" ;;
    lua-objdump)
      # shellcheck disable=SC2086  # $lua_closure is a list of paths.
      bench_peak mipsel-linux-gnu-objdump -d $lua_closure ;;
    report)
      bench_peak "$profreport" "$work/lua5.4/lua5.4.prof" ;;
  esac
}

# speed: time the rewrites, the disassemblies and the report, RUNS
# rounds of one run of each task (so that a change in the load of the
# machine falls on all alike); record each task's median wall time and
# largest peak RSS, or why it failed.
speed () {
  local task line round status why lua=$tbroot/usr/bin/lua5.4
  mkdir -p "$work/speed"
  if [ "$have_testbed" = no ]; then
    for task in lua-profcopy lua-profcopy-j1 lua-objdump report; do
      fail_of[$task]="no test bed in $testbed"
    done
  else
    lua_closure="$lua $("$profcopy" --list-needed --sysroot="$tbroot" "$lua" \
			   2> /dev/null | awk '$2 == "=>" { print $3 }')"
    [ -s "$work/lua5.4/lua5.4.prof" ] \
      || fail_of[report]="no whole-program profile of lua5.4 (its profiled run failed)"
  fi
  for task in $speed_tasks; do
    : > "$work/speed/$task.times"
    : > "$work/speed/$task.kib"
  done
  for round in $(seq 1 "$runs"); do
    for task in $speed_tasks; do
      [ -n "${fail_of[$task]:-}" ] && continue
      line=$(run_task "$task" 2> "$work/speed/$task.err")
      status=$?
      if [ $status -ne 0 ]; then
	why=$(grep -v '^$' "$work/speed/$task.err" | head -n 1)
	fail_of[$task]="run $round: $(bench_describe_status $status)${why:+: $why}"
	continue
      fi
      echo "${line% *}" >> "$work/speed/$task.times"
      echo "${line#* }" >> "$work/speed/$task.kib"
    done
  done
  for task in $speed_tasks; do
    [ -n "${fail_of[$task]:-}" ] && continue
    sec_of[$task]=$(bench_stats "$work/speed/$task.times" | awk '{ print $1 }')
    kib_of[$task]=$(sort -n "$work/speed/$task.kib" | tail -n 1)
  done
}

# goal RATIO OP LIMIT: print `yes' or `no' for RATIO OP LIMIT (OP is
# `<' or `<='), `-' without a ratio.
goal () {
  awk -v r="$1" -v op="$2" -v l="$3" 'BEGIN {
    if (r == "-" || r == "") { print "-"; exit }
    ok = op == "<" ? r + 0 < l + 0 : r + 0 <= l + 0
    print ok ? "yes" : "no"
  }'
}

# print_runtime: the runtime overhead part of the table.
print_runtime () {
  local name variant key ratio wratio g line
  echo
  echo "Runtime overhead under qemu-user: dynamic guest instructions of the whole"
  echo "program (ld.so, libc, every library, the profile written at exit) and wall"
  echo "time of $runs runs; ratios to the original; output compared byte for byte"
  printf '%-9s %-9s %13s %7s  %-23s %6s  %-6s %s\n' program variant "dyn. insns" ratio \
	 "wall s: med (min/max)" ratio output "goal"
  for name in $programs; do
    for variant in ${variants_of[$name]}; do
      key=$name/$variant
      if [ "${status_of[$key]:-}" != ok ]; then
	printf '%-9s %-9s FAILED: %s\n' "$name" "$variant" "${status_of[$key]:-not run}"
	failed=yes
	continue
      fi
      ratio=$(bench_ratio "${count_of[$key]}" "${count_of[$name/original]:-}")
      wratio=$(bench_ratio "${med_of[$key]}" "${med_of[$name/original]:-}" %.2f)
      g=""
      if [ "$variant" != original ] && [ "$variant" != gcov ] \
	 && [ "$variant" != gprof ]; then
	g="<=1.3: $(goal "$ratio" '<=' 1.3)"
	if [ -n "${count_of[$name/gcov]:-}" ]; then
	  g="$g, <gcov: $(goal "$ratio" '<' \
	    "$(bench_ratio "${count_of[$name/gcov]}" "${count_of[$name/original]}")")"
	fi
      fi
      printf -v line '%-9s %-9s %13s %7s  %-23s %6s  %-6s %s' "$name" "$variant" \
	     "${count_of[$key]}" "$ratio" \
	     "${med_of[$key]} (${min_of[$key]}/${max_of[$key]})" "$wratio" \
	     "$([ "$variant" = original ] && echo ref || echo same)" "$g"
      # Without a goal the line ends in blanks.
      echo "${line%"${line##*[! ]}"}"
    done
  done
}

# print_fixed: the fixed cost per process of the short programs: the
# instructions the profiled process runs beyond the original's, and the
# size of the profile it writes.
print_fixed () {
  local name orig pc size any=no
  for name in $short_programs; do
    case " $programs " in *" $name "*) any=yes ;; esac
  done
  [ "$any" = yes ] || return 0
  echo
  echo "Fixed cost per process (short processes, profcopy variant): the"
  echo "instructions beyond the original's and the profile written at exit"
  printf '%-9s %-22s %13s %13s %11s %7s  %s\n' program "run" "original" \
	 "profiled" "extra" "ratio" "profile KiB"
  for name in $short_programs; do
    case " $programs " in *" $name "*) ;; *) continue ;; esac
    orig=${count_of[$name/original]:-}
    pc=${count_of[$name/profcopy]:-}
    if [ -z "$orig" ] || [ -z "$pc" ]; then
      printf '%-9s FAILED: see the rows above\n' "$name"
      continue
    fi
    size=-
    [ -s "$work/$name/$name.prof" ] \
      && size=$(bench_ratio "$(wc -c < "$work/$name/$name.prof")" 1024 %.0f)
    printf '%-9s %-22s %13s %13s %11s %7s  %s\n' "$name" \
	   "${name}${args_of[$name]:+ ${args_of[$name]}}" "$orig" "$pc" \
	   "$((pc - orig))" "$(bench_ratio "$pc" "$orig")" "$size"
  done
}

# speed_row LABEL TASK BASE_LABEL BASE LIMIT: one row of the speed part:
# TASK against BASE, the time ratio's goal below LIMIT.
speed_row () {
  local label=$1 task=$2 blabel=$3 base=$4 limit=$5 t
  for t in "$task" "$base"; do
    if [ -n "${fail_of[$t]:-}" ]; then
      printf '%-31s FAILED: %s: %s\n' "$label" "$t" "${fail_of[$t]}"
      failed=yes
      return
    fi
  done
  local ratio
  ratio=$(bench_ratio "${sec_of[$task]}" "${sec_of[$base]}")
  printf '%-31s %6s %6s  %-21s %6s %6s  %6s %6s  %s\n' "$label" \
	 "${sec_of[$task]}" "$(bench_ratio "${kib_of[$task]}" 1024 %.1f)" \
	 "$blabel" "${sec_of[$base]}" "$(bench_ratio "${kib_of[$base]}" 1024 %.1f)" \
	 "$ratio" "$(bench_ratio "${kib_of[$task]}" "${kib_of[$base]}" %.2f)" \
	 "<$limit: $(goal "$ratio" '<' "$limit")"
}

# print_speed: the rewrite and report speed part of the table.
print_speed () {
  echo
  echo "Rewrite and report speed: median wall time of $runs runs, largest peak"
  echo "resident set size (MiB); ratios of time and memory to what it is against"
  printf '%-31s %6s %6s  %-21s %6s %6s  %6s %6s  %s\n' task "wall s" "MiB" \
	 "against" "wall s" "MiB" "time" "mem" "goal"
  speed_row "profcopy libc.so.6 ($arch)" libc-profcopy \
	    "objdump -d libc.so.6" libc-objdump 1
  speed_row "profcopy --whole-program lua5.4" lua-profcopy \
	    "objdump -d, $(wc -w <<< "$lua_closure") objects" lua-objdump 1
  speed_row "  the same, -j1" lua-profcopy-j1 \
	    "objdump -d, $(wc -w <<< "$lua_closure") objects" lua-objdump 1
  speed_row "profreport lua5.4 profile" report \
	    "the lua5.4 rewrite" lua-profcopy 0.10
  echo "(--whole-program rewrites $(nproc) objects at once by default, one"
  echo "process each; its MiB is the largest process's.  -j1: one at a time.)"
}

start=$(date +%s)
echo "profcopy benchmark table, $(date '+%Y-%m-%d %H:%M:%S %Z')"
echo "machine: $(uname -m), $(nproc) cpus; $(qemu-mipsel --version | head -n 1)"
echo "compiler: $("$triple-gcc" --version | head -n 1), cflags \`$cflags'"
echo "profcopy: $("$profcopy" --version 2>/dev/null | head -n 1) ($profcopy)"
echo "workloads: cpubench $scale ($triple), lua5.4 bench/lua-workload.lua," \
     "sqlite3 bench/sqlite-workload.sql (Debian mipsel, $tbroot);" \
     "short processes: hello ($triple, bench/hello.c), busybox echo," \
     "openssl version (Debian mipsel); corpus: gawk, sed, xz, bash," \
     "perl and lzop (Debian mipsel) on a generated 150 KB text"
echo "instructions counted by $(basename "$plugin") (mode tb)"

if [ -n "$only" ]; then
  for name in $only; do
    case " $programs " in
      *" $name "*) ;;
      *) bench_die "--programs: \`$name' is not one of $programs" ;;
    esac
  done
  programs=$only
fi
for name in $programs; do
  measure "$name"
done
[ -z "$only" ] && speed
print_runtime
print_fixed
if [ -z "$only" ]; then
  print_speed
else
  echo
  echo "(--programs: no rewrite and report speed part)"
fi
echo
echo "total time of this run: $(($(date +%s) - start)) s"

[ "$failed" = no ]
