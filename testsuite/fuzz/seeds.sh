#!/bin/bash
# seeds.sh -- make the seed corpora of the fuzz targets.
#
# Copyright (C) 2026 The profcopy authors.
# This file is part of profcopy, distributed under the GNU General Public
# License version 3 or later; see COPYING.
#
# Usage: seeds.sh OUT
#
# Writes OUT/elf (objects: for fuzz-object, fuzz-relocs and
# fuzz-rewrite), OUT/code (raw code: fuzz-decode), OUT/debug (separate
# debug files and the objects that name them: fuzz-debug), OUT/profile
# and OUT/trace, from the fixtures of testsuite/fixtures compiled with the
# MIPS cross compilers, small libraries of the sysroots, and profiles
# and traces of fixtures run under QEMU.  Nothing is committed: the
# seeds are made where the tests run.  The tools come from the
# environment, as site.exp names them; each one missing leaves out the
# seeds that need it:
#   MIPS_CC MIPSEL_CC          the cross compilers (g++ beside them)
#   QEMU_MIPS QEMU_MIPSEL      qemu-user
#   MIPS_SYSROOT MIPSEL_SYSROOT
#   PROFCOPY                   the profcopy binary
#   PROFCOPY_RUNTIME_MIPS PROFCOPY_RUNTIME_MIPSEL   libprofcopy.so
# A few hand-made profiles and traces are written whatever is there.
# Every seed is kept under 200 KB.  Exit status 1 only when OUT cannot
# be written.

set -u

out=${1:?usage: seeds.sh OUT}
fixtures=$(cd "$(dirname "$0")/../fixtures" && pwd)
mkdir -p "$out/elf" "$out/code" "$out/debug" "$out/profile" "$out/trace" \
  || exit 1
log=$out/seeds.log
: >"$log"

MAX_SEED=200000

# Run a command, its output into the log; its status.
run ()
{
  echo "+ $*" >>"$log"
  "$@" >>"$log" 2>&1 </dev/null
}

# Keep FILE as a seed only when it is small enough.
keep_small ()
{
  local size
  size=$(stat -c %s "$1" 2>/dev/null || echo 0)
  if [ "$size" -eq 0 ] || [ "$size" -gt "$MAX_SEED" ]; then
    rm -f "$1"
  fi
}

# The 32-bit word V in little-endian (le) or big-endian (be) order.
word ()
{
  local v=$2
  local b0=$((v & 255)) b1=$((v >> 8 & 255)) b2=$((v >> 16 & 255))
  local b3=$((v >> 24 & 255))
  if [ "$1" = be ]; then
    set -- $b3 $b2 $b1 $b0
  else
    set -- $b0 $b1 $b2 $b3
  fi
  # The inner printf writes the escapes, the outer one the bytes.
  printf "$(printf '\\x%02x' "$@")"
}

# The raw-code seed of the object OBJ of byte order E for fuzz-decode:
# the 8-byte header of fuzz-decode.c, then its .text.
code_seed ()
{
  local e=$1 obj=$2 objcopy=$3 name
  name=$(basename "$obj")
  run "$objcopy" -O binary --only-section=.text "$obj" "$out/code/$name.text" \
    || return
  {
    # MIPS32r2, and the address of a PIE's text.
    if [ "$e" = be ]; then printf '\007\0\0\0'; else printf '\006\0\0\0'; fi
    word be 0x00400600
    cat "$out/code/$name.text"
  } >"$out/code/$name"
  rm -f "$out/code/$name.text"
  keep_small "$out/code/$name"
}

for e in be le; do
  if [ $e = be ]; then
    cc=${MIPS_CC:-}; qemu=${QEMU_MIPS:-}; sysroot=${MIPS_SYSROOT:-/usr/mips-linux-gnu}
    rt=${PROFCOPY_RUNTIME_MIPS:-}
  else
    cc=${MIPSEL_CC:-}; qemu=${QEMU_MIPSEL:-}; sysroot=${MIPSEL_SYSROOT:-/usr/mipsel-linux-gnu}
    rt=${PROFCOPY_RUNTIME_MIPSEL:-}
  fi
  [ -n "$cc" ] && [ -x "$cc" ] || continue
  objcopy=${cc%gcc}objcopy
  cxx=${cc%gcc}g++
  d=$out/elf
  # Executables of each kind, a shared object, code of MIPS I, the
  # lw/nop and block fixtures in assembly.
  run "$cc" -O2 -fPIE -pie -o $d/$e-fnmain.pie "$fixtures/fnmain.c"
  run "$cc" -O2 -fPIE -pie -o $d/$e-demo.pie "$fixtures/demo.c" -lm
  run "$cc" -O2 -fno-pic -no-pie -o $d/$e-fnmain.nopie "$fixtures/fnmain.c"
  run "$cc" -O2 -fPIC -shared -o $d/$e-mylib.so "$fixtures/mylib.c"
  run "$cc" -O1 -mips1 -mfp32 -fPIC -shared -o $d/$e-fnvalue-mips1.so \
    "$fixtures/fnvalue.c"
  run "$cc" -O2 -fPIC -shared -o $d/$e-delayslot.so "$fixtures/delayslot.c"
  run "$cc" -shared -nostdlib -o $d/$e-lwnop.so "$fixtures/lwnop.s"
  run "$cc" -shared -nostdlib -o $d/$e-blocks.so "$fixtures/blocks.s"
  # C++ exceptions: an .eh_frame with LSDAs and landing pads.
  if [ -x "$cxx" ]; then
    printf '%s\n' '#include <stdexcept>' \
      'int f (int x) { if (x > 3) throw std::runtime_error ("x"); return x; }' \
      'int main (int argc, char **) { try { return f (argc); }' \
      '  catch (const std::exception &) { return 7; } }' >"$out/cxx.cc"
    run "$cxx" -O2 -fPIE -pie -o $d/$e-cxx.pie "$out/cxx.cc"
    rm -f "$out/cxx.cc"
  fi
  # Small libraries of the sysroot.
  for lib in libatomic.so.1 libresolv.so.2; do
    [ -f "$sysroot/lib/$lib" ] && cp -L "$sysroot/lib/$lib" $d/$e-$lib
  done
  for f in $d/$e-*; do
    keep_small "$f"
  done

  # Separate debug files (fuzz-debug): a program built with -g, its
  # debug file (objcopy --only-keep-debug) and the stripped program
  # that names it by .gnu_debuglink.
  g=$out/debug
  if run "$cc" -g -O2 -fPIE -pie -Wl,--build-id -o $g/$e-names \
       "$fixtures/names-static.c"; then
    run "$objcopy" --only-keep-debug $g/$e-names $g/$e-names.debug
    run "$objcopy" --strip-debug --strip-unneeded \
      --add-gnu-debuglink=$g/$e-names.debug $g/$e-names $g/$e-names.stripped
    # Line tables: compressed (as Debian's debug files are) and DWARF 4.
    run "$objcopy" --only-keep-debug --compress-debug-sections=zlib \
      $g/$e-names $g/$e-names-z.debug
  fi
  run "$cc" -gdwarf-4 -O2 -o $g/$e-names-dwarf4 "$fixtures/names-static.c"
  for f in $g/$e-*; do
    keep_small "$f"
  done

  # A profiled copy (for profreport's copy map), its profile, and the
  # trace of a copy with probes.
  if [ -n "${PROFCOPY:-}" ] && [ -x "$PROFCOPY" ] && [ -f $d/$e-demo.pie ]; then
    run "$PROFCOPY" $d/$e-demo.pie $d/$e-demo.prof-pie
    run "$PROFCOPY" --all-blocks $d/$e-demo.pie "$out/$e-demo.all"
    [ -f $d/$e-fnmain.pie ] \
      && run "$PROFCOPY" --calls $d/$e-fnmain.pie "$out/$e-fnmain.calls"
    keep_small $d/$e-demo.prof-pie
    if [ -n "$qemu" ] && [ -x "$qemu" ] && [ -n "$rt" ] && [ -f "$rt" ]; then
      env="-L $sysroot -E LD_LIBRARY_PATH=$(dirname "$rt")"
      [ -f $d/$e-demo.prof-pie ] \
	&& run "$qemu" $env -E PROFCOPY_OUTPUT="$out/profile/$e-demo.prof" \
	       $d/$e-demo.prof-pie
      [ -f "$out/$e-demo.all" ] \
	&& run "$qemu" $env -E PROFCOPY_OUTPUT="$out/profile/$e-demo-all.prof" \
	       "$out/$e-demo.all"
      [ -f "$out/$e-fnmain.calls" ] \
	&& run "$qemu" $env -E PROFCOPY_OUTPUT="$out/profile/$e-calls.prof" \
	       -E PROFCOPY_TRACE_OUTPUT="$out/trace/$e-calls.trace" \
	       "$out/$e-fnmain.calls"
      # A program built with -finstrument-functions, both trace forms.
      if run "$cc" -O2 -fno-inline -finstrument-functions -o "$out/$e-tr" \
	     "$fixtures/fnmain.c" -L"$(dirname "$rt")" -lprofcopy; then
	run "$qemu" $env -E PROFCOPY_TRACE_OUTPUT="$out/trace/$e-fnmain.trace" \
	  "$out/$e-tr"
	run "$qemu" $env -E PROFCOPY_TRACE_FORMAT=text \
	  -E PROFCOPY_TRACE_OUTPUT="$out/trace/$e-fnmain.txt" "$out/$e-tr"
      fi
    fi
    rm -f "$out/$e-demo.all" "$out/$e-fnmain.calls" "$out/$e-tr"
  fi

  for f in "$out"/profile/$e-* "$out"/trace/$e-*; do
    [ -f "$f" ] && keep_small "$f"
  done
  for f in $d/$e-*; do
    [ -f "$f" ] && code_seed $e "$f" "$objcopy"
  done
done

# Hand-made seeds: a version 1 profile (little-endian, two blocks),
# version 2, 3 and 4 ones of each byte order with a derivation table
# (the same bytes: version 3 reads the count as a low and a high word),
# and a text trace.
{
  printf 'PCPROF\0\0'
  word le 1; word le 0x01020304; word le 40; word le 1; word le 1
  word le 1; word le 0; word le 0
  word le 72; word le 0; word le 0x12345678; word le 4096; word le 2
  word le 1; word le 0; word le 0
  printf 'a\0\0\0\0\0\0\0'
  word le 0x400600; word le 8; word le 0x400608; word le 4
  word le 5; word le 0; word le 3; word le 0
} >"$out/profile/hand-v1.prof"
for e in le be; do
  # One object, 2 blocks, block 1 derived from block 0 (rule 1: the
  # first vertex's flow), no counted edges, no window: derivation
  # table = 12 + 4*2 + 8*0 bytes.
  {
    printf 'PCPROF\0\0'
    word $e 2; word $e 0x01020304; word $e 40; word $e 1; word $e 1
    word $e 1; word $e 0; word $e $([ $e = be ] && echo 1 || echo 0)
    word $e 120; word $e 0; word $e 0x12345678; word $e 4096; word $e 2
    word $e 1; word $e 4; word $e 0; word $e 20; word $e 0; word $e 0
    word $e 0
    printf 'a\0\0\0\0\0\0\0'
    printf '\001\002\003\004\0\0\0\0'
    word $e 0x400600; word $e 8; word $e 0x400608; word $e 4
    word $e 5; word $e 0; word $e 0; word $e 1; word $e 0
    printf '\0\0\0\0'
    word $e 9; word $e 0; word $e 0; word $e 0
  } >"$out/profile/hand-v2-$e.prof"
  { head -c 8 "$out/profile/hand-v2-$e.prof"; word $e 3
    tail -c +13 "$out/profile/hand-v2-$e.prof"; } >"$out/profile/hand-v3-$e.prof"  # Version 4: the same object with a 56-byte record header (tables
  # CRC, copy path length, tables here) and the copy path "c", once
  # with the tables and once without (its copy is not there).
  for here in 1 0; do
    {
      printf 'PCPROF\0\0'
      word $e 4; word $e 0x01020304; word $e 40; word $e 1; word $e 1
      word $e 1; word $e 0; word $e $([ $e = be ] && echo 1 || echo 0)
      word $e $([ $here = 1 ] && echo 136 || echo 96); word $e 0
      word $e 0x12345678; word $e 4096; word $e 2
      word $e 1; word $e 4; word $e 0; word $e 20; word $e 0; word $e 0
      word $e 0; word $e 1; word $e $here
      printf 'a\0\0\0\0\0\0\0'
      printf '\001\002\003\004\0\0\0\0'
      printf 'c\0\0\0\0\0\0\0'
      if [ $here = 1 ]; then
	word $e 0x400600; word $e 8; word $e 0x400608; word $e 4
	word $e 5; word $e 0; word $e 0; word $e 1; word $e 0
	printf '\0\0\0\0'
      fi
      word $e 9; word $e 0; word $e 0; word $e 0
    } >"$out/profile/hand-v4-$here-$e.prof"
  done
done
printf '%s\n' '# profcopy trace 1 pid 7' \
  'O 0x400000 0x401000 0x0 /prog' \
  'T 7 7' 'E 0x400600 100' 'E 0x400700 150' 'X 0x400700 170' \
  '# lost 2' 'X 0x400600 300' 'T 7 8' 'X 0x400800 10' 'E 0x400800 20' \
  >"$out/trace/hand.txt"
exit 0
