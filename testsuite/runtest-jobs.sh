#!/bin/sh
# runtest-jobs.sh -- run the test suite's .exp files in parallel jobs.
#
# Copyright (C) 2026 The profcopy authors.
# This file is part of profcopy, distributed under the GNU General Public
# License version 3 or later; see COPYING.
#
# `make check' runs this in place of runtest, with runtest's arguments.
# Nearly all of the suite's time is QEMU running one guest at a time, so
# the .exp files are shared out among JOBS runtest processes (JOBS is
# $PROFCOPY_CHECK_JOBS, else the number of processors), the longest
# first; each job has its own fixture directory (build-fixtures/jN,
# through PROFCOPY_FIXTURE_DIR) and its own output directory
# (jobs/NAME).  At the end profcopy.sum and profcopy.log are made from
# theirs, in the order of the .exp files' names, with one summary
# counted from the results, as a single runtest would have written
# them.
#
# PROFCOPY_CHECK_ONLY="GROUP..." runs only those of the groups below.
# Arguments that name .exp files (RUNTESTFLAGS=rewrite.exp), or one job,
# run a single runtest exactly as automake's check-DEJAGNU would.
#
# Exit status: 0 when every job's runtest exited 0, else 1.

set -u

runtest=${RUNTEST_PROGRAM:-runtest}

single=false
tool=profcopy
srcdir=.
prev=
others=
for a in "$@"; do
  case $prev in
    --tool) tool=$a; prev=; continue ;;
    --srcdir) srcdir=$a; prev=; continue ;;
  esac
  case $a in
    --version | -V | --help | *.exp | *.exp=*) single=true ;;
    --tool | --srcdir) prev=$a; continue ;;
    --tool=*) tool=${a#--tool=}; continue ;;
    --srcdir=*) srcdir=${a#--srcdir=}; continue ;;
    --outdir | --outdir=* | --objdir | --objdir=*) single=true ;;
  esac
  others="$others '$(printf '%s' "$a" | sed "s/'/'\\\\''/g")'"
done

jobs=${PROFCOPY_CHECK_JOBS:-$(nproc 2>/dev/null || echo 1)}
case $jobs in
  '' | *[!0-9]*) jobs=1 ;;
esac
if $single || [ "$jobs" -le 1 ]; then
  exec "$runtest" "$@"
fi

top=$(pwd)
srcdir=$(cd "$srcdir" && pwd) || exit 1

# The groups, the longest first (seconds on 2 cores, Debian 12, December
# 2026: debian.exp's smaller programs with kernel.exp ~800, its three
# largest (cc1, llc, node) ~700, each byte order of rewrite.exp ~250,
# carry.exp ~120, the rest a minute or less).  A group is its .exp
# files, separated by "+"; "FILE.exp@be" runs one byte order of a file
# that loops over both (PROFCOPY_ENDIANS), "FILE.exp@big" and "@rest"
# one part of debian.exp (PROFCOPY_DEB_PART; its testbed's set-up waits
# for the other job's, testbed/setup.sh takes a lock).
groups=
for g in debian.exp+kernel.exp@rest debian.exp@big rewrite.exp@be \
	 rewrite.exp@le carry.exp; do
  for e in $(printf '%s\n' "${g%@*}" | tr '+' ' '); do
    set -- "$srcdir"/$tool.*/"$e"
    [ -f "$1" ] || continue 2
  done
  groups="$groups $g"
done
for f in "$srcdir"/$tool.*/*.exp; do
  name=${f##*/}
  case " $groups " in
    *" $name"[@+\ ]* | *"+$name"[@+\ ]*) ;;
    *) groups="$groups $name" ;;
  esac
done

# PROFCOPY_CHECK_ONLY="cli.exp rewrite.exp@le" runs only those groups.
if [ -n "${PROFCOPY_CHECK_ONLY:-}" ]; then
  only=
  for g in $groups; do
    case " $PROFCOPY_CHECK_ONLY " in
      *" $g "*) only="$only $g" ;;
    esac
  done
  groups=$only
fi

rm -rf "$top/jobs"
mkdir -p "$top/jobs" || exit 1

# One job: claim groups in order until none is left.  mkdir is the
# claim, atomic between the jobs.
run_job ()
{
  n=$1
  status=0
  for g in $groups; do
    mkdir "$top/jobs/$g.claim" 2>/dev/null || continue
    out=$top/jobs/$g
    mkdir -p "$out"
    endians=
    part=
    exps=$(printf '%s\n' "$g" | tr '+' ' ')
    case $g in
      *@be | *@le) endians=${g#*@}; exps=$(printf '%s\n' "${g%@*}" | tr '+' ' ') ;;
      *@*) part=${g#*@}; exps=$(printf '%s\n' "${g%@*}" | tr '+' ' ') ;;
    esac
    # Its own directory is runtest's current directory, so that what a
    # guest writes there by mistake stays apart; runtest reads the
    # site.exp there, the test suite's with an absolute srcdir.  That
    # srcdir is spelt "DIR/": runtest takes an objdir equal to srcdir
    # to be its current directory, and objdir must stay the test
    # suite's (tools/, build-fixtures/testbed).
    sed "s|^set srcdir .*|set srcdir \"$srcdir/\"|" "$top/site.exp" \
      >"$out/site.exp"
    started=$(date +%s)
    echo "runtest-jobs: $g: started"
    (cd "$out" \
     && eval "PROFCOPY_FIXTURE_DIR=\"$top/build-fixtures/j$n\" \
	      PROFCOPY_ENDIANS=\"$endians\" PROFCOPY_DEB_PART=\"$part\" \
	      \"$runtest\" --tool \"$tool\" --srcdir \"$srcdir/\" \
	      --outdir \"$out\" $others $exps") \
      >"$out/stdout" 2>&1 || status=1
    echo "$status" >"$out/status"
    passed=$(grep -c '^PASS: ' "$out/$tool.sum" 2>/dev/null || true)
    bad=$(grep -c '^FAIL: \|^ERROR: \|^UNRESOLVED: \|^UNSUPPORTED: \|^XPASS: ' \
	    "$out/$tool.sum" 2>/dev/null || true)
    echo "runtest-jobs: $g: done in $(( $(date +%s) - started )) s," \
      "${passed:-0} passed, ${bad:-0} not"
    # What runtest printed, once the group is done, whole.
    # (Its summary and the tool's version come once, at the end.)
    grep -v '^#\|^$\|^		===\|^Test run by\|^Native configuration\|^Schedule of\|^    unix\|^Running target\|^Using \|^/.* (.*) [0-9][0-9.]*$' \
      "$out/stdout"
  done
  return $status
}

pids=
i=1
while [ "$i" -le "$jobs" ]; do
  run_job "$i" &
  pids="$pids $!"
  i=$((i + 1))
done
status=0
for p in $pids; do
  wait "$p" || status=1
done

# The merged summary file: the first job's header, then the sections of
# every .exp file sorted by name, then the counts.
sums=
logs=
for g in $groups; do
  if [ -f "$top/jobs/$g/$tool.sum" ]; then
    sums="$sums $top/jobs/$g/$tool.sum"
    logs="$logs $top/jobs/$g/$tool.log"
  else
    echo "ERROR: $g: runtest wrote no $tool.sum" >&2
    status=1
  fi
done
if [ -z "$sums" ]; then
  exit 1
fi

# shellcheck disable=SC2086
awk -v tool="$tool" '
  FNR == 1 { files++; section = ""; in_summary = 0 }
  /^Running .*\.exp \.\.\.$/ { section = $2; order[section] = 1 }
  /^\t\t=== .* Summary ===$/ { in_summary = 1; section = "" }
  in_summary { if ($0 ~ /^\/.*\(.*\)/) version = $0; next }
  section == "" { if (files == 1) header = header $0 "\n"; next }
  {
    # Both byte orders of rewrite.exp write its Running line: the
    # second job'\''s results join the first'\''s section.
    if ($0 ~ /^Running / && seen[section]++) next
    text[section] = text[section] $0 "\n"
    if (match ($0, /^[A-Z]+: /))
      count[substr ($0, 1, RLENGTH - 2)]++
  }
  END {
    printf "%s", header
    n = 0
    for (s in order) names[++n] = s
    for (i = 2; i <= n; i++)
      for (j = i; j > 1 && names[j - 1] > names[j]; j--)
	{ t = names[j]; names[j] = names[j - 1]; names[j - 1] = t }
    for (i = 1; i <= n; i++) printf "%s", text[names[i]]
    printf "\n\t\t=== %s Summary ===\n\n", tool
    nk = split ("PASS FAIL XPASS XFAIL KPASS KFAIL UNRESOLVED UNTESTED UNSUPPORTED", kind, " ")
    split ("expected passes,unexpected failures,unexpected successes," \
	   "expected failures,unknown successes,known failures," \
	   "unresolved testcases,untested testcases,unsupported tests", what, ",")
    for (k = 1; k <= nk; k++)
      if (count[kind[k]] > 0)
	printf "# of %s\t\t%d\n", what[k], count[kind[k]]
    if (version != "") print version
  }' $sums >"$top/$tool.sum.tmp" && mv "$top/$tool.sum.tmp" "$top/$tool.sum"
# shellcheck disable=SC2086
cat $logs >"$top/$tool.log"

sed -n '/=== .* Summary ===/,$p' "$top/$tool.sum"
exit $status
