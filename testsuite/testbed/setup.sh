#!/bin/sh
# setup.sh -- build a mipsel sysroot from real Debian packages.
#
# Copyright (C) 2026 The profcopy authors.
# This file is part of profcopy, distributed under the GNU General Public
# License version 3 or later; see COPYING.
#
# Usage: testsuite/testbed/setup.sh DIR
#
# Downloads the mipsel packages of a few real programs (gzip, bzip2,
# coreutils, busybox, lua5.4, sqlite3, python3.11-minimal) and the
# libraries they need into DIR/debs, and unpacks each with dpkg-deb -x
# into DIR/root, a sysroot for `qemu-mipsel -L DIR/root' and
# `profcopy --sysroot=DIR/root'.  Runs into one DIR take turns (flock
# on DIR/.setup.lock).  Nothing is installed on the host; the
# only change to the host's package system is `dpkg --add-architecture
# mipsel' (and an `apt-get update' when apt knows no mipsel libc6 yet).
#
# The libraries are found by reading the Depends and Pre-Depends fields
# of every downloaded package, recursively.  Only library packages
# (lib*, gcc-*-base) and the packages named below are followed: a
# program's run-time needs are its shared libraries, and following
# everything would fetch dpkg, perl and the rest of an installation.
# Alternatives take their first member; a package apt cannot fetch is
# skipped and named in the summary.
#
# Downloads are cached: an existing DIR/debs/PKG_*.deb is not fetched
# again, and an existing DIR/root is only completed.  The last lines of
# the output are the summary: `setup: N packages (M downloaded), K
# skipped: ...' and `setup: done in S s'.
#
# Exit status: 0 on success (some packages may have been skipped), 1 if
# libc6 itself could not be had (no network or no mipsel archive), 2 on
# bad usage.

set -u

if [ $# -ne 1 ]; then
  echo "usage: $0 DIR" >&2
  exit 2
fi

dir=$1
mkdir -p "$dir/debs" "$dir/root" || exit 2
dir=$(cd "$dir" && pwd)
debs=$dir/debs
root=$dir/root
start=$(date +%s)

# Two jobs of make check set up the same DIR at once (debian.exp's two
# parts): the second waits here for the first, then finds it all done.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$dir/.setup.lock"
  flock 9
fi

# The programs and the libraries named by the task; the rest follows
# from their Depends.
wanted="libc6 lua5.4 liblua5.4-0 gzip bzip2 libbz2-1.0 coreutils
	busybox sqlite3 libsqlite3-0 libreadline8 libtinfo6 zlib1g
	python3.11-minimal libpython3.11-minimal libexpat1
	perl-base perl libperl5.36 perl-modules-5.36 file libmagic1
	libmagic-mgc bash grep sed gawk tar diffutils xz-utils zstd lz4
	lzop liblzo2-2 brotli bc jq tcl8.6 libtcl8.6 openssl ninja-build make m4
	findutils cpio patch dc ed bsdextrautils ruby3.1 libruby3.1
	p7zip-full ripgrep fd-find cpp-12 llvm-15 nodejs
	node-cjs-module-lexer node-acorn node-undici"

log ()
{
  echo "setup: $*"
}

# 1. The mipsel architecture and its package lists.
if ! dpkg --print-foreign-architectures | grep -qx mipsel; then
  if [ "$(id -u)" -ne 0 ]; then
    log "mipsel is not a dpkg architecture and we are not root;" \
	"run: dpkg --add-architecture mipsel && apt-get update"
    exit 1
  fi
  log "dpkg --add-architecture mipsel"
  dpkg --add-architecture mipsel || exit 1
fi
if ! apt-cache policy libc6:mipsel 2>/dev/null \
    | grep -q 'Candidate: [0-9]'; then
  if [ "$(id -u)" -ne 0 ]; then
    log "apt knows no libc6:mipsel and we are not root; run apt-get update"
    exit 1
  fi
  log "apt-get update"
  apt-get update -q >"$dir/apt-update.log" 2>&1 \
    || log "apt-get update failed (see $dir/apt-update.log)"
fi

# Return 0 if package $1 is to be followed through Depends.
follow ()
{
  case "$1" in
    lib*|gcc-*-base|readline-common) return 0 ;;
  esac
  case " $(echo $wanted) " in
    *" $1 "*) return 0 ;;
  esac
  return 1
}

# Print the .deb of package $1 in the cache, if there is one.
cached ()
{
  for f in "$debs/$1"_*.deb; do
    if [ -f "$f" ]; then
      echo "$f"
      return 0
    fi
  done
  return 1
}

# Print the package names of the Depends and Pre-Depends of .deb $1:
# first alternative, no version, no architecture qualifier.
depends ()
{
  { dpkg-deb -f "$1" Pre-Depends; dpkg-deb -f "$1" Depends; } 2>/dev/null \
    | tr ',' '\n' \
    | sed -e 's/|.*//' -e 's/(.*)//' -e 's/:.*//' -e 's/[[:space:]]//g' \
    | grep -v '^$'
}

# libc6 first, alone: without it nothing runs, and when the network is
# down every other download would take as long to fail.
if ! cached libc6 >/dev/null \
   && ! (cd "$debs" && apt-get download -q libc6:mipsel) \
	>>"$dir/apt-download.log" 2>&1; then
  log "cannot download libc6:mipsel (no network or no mipsel archive?):" \
      "$(grep '^E:' "$dir/apt-download.log" | tail -1)"
  log "see $dir/apt-download.log"
  exit 1
fi

seen=" "
skipped=""
todo=$wanted
while [ -n "$(echo $todo)" ]; do
  # Fetch this round's missing packages, all at once when possible.
  missing=""
  for p in $todo; do
    cached "$p" >/dev/null || missing="$missing $p:mipsel"
  done
  if [ -n "$missing" ]; then
    if (cd "$debs" && apt-get download -q $missing) \
	 >>"$dir/apt-download.log" 2>&1; then
      :
    else
      # One bad name fails the whole command: fetch one by one.
      # An Architecture: all package has no mipsel name.
      for p in $missing; do
	(cd "$debs" && { apt-get download -q "$p" \
			   || apt-get download -q "${p%:mipsel}"; }) \
	  >>"$dir/apt-download.log" 2>&1
      done
    fi
  fi
  next=""
  for p in $todo; do
    seen="$seen$p "
  done
  for p in $todo; do
    if ! deb=$(cached "$p"); then
      skipped="$skipped $p"
      continue
    fi
    for d in $(depends "$deb"); do
      case "$seen $next " in
	*" $d "*) continue ;;
      esac
      if follow "$d"; then
	next="$next $d"
      fi
    done
  done
  todo=$next
done

case "$skipped" in
  *" libc6"*|*"libc6 "*)
    log "cannot download libc6:mipsel (no network or no mipsel archive?)"
    log "see $dir/apt-download.log"
    exit 1
    ;;
esac

# 2. Unpack.  A stamp per .deb keeps reruns quick.
mkdir -p "$root/.stamps"
unpacked=0
for deb in "$debs"/*.deb; do
  [ -f "$deb" ] || continue
  stamp=$root/.stamps/$(basename "$deb")
  if [ ! -f "$stamp" ]; then
    if dpkg-deb -x "$deb" "$root"; then
      touch "$stamp"
      unpacked=$((unpacked + 1))
    else
      log "dpkg-deb -x $(basename "$deb") failed"
    fi
  fi
done

# Debian's ld.so finds the multiarch directories by itself; qemu-user
# and profcopy look for the interpreter under /lib.
if [ ! -e "$root/lib/ld.so.1" ] \
   && [ -e "$root/lib/mipsel-linux-gnu/ld.so.1" ]; then
  ln -s mipsel-linux-gnu/ld.so.1 "$root/lib/ld.so.1"
fi

ndebs=$(ls "$debs"/*.deb 2>/dev/null | wc -l)
log "$ndebs packages in $debs ($unpacked unpacked now)," \
    "skipped:${skipped:- none}"
log "done in $(($(date +%s) - start)) s"
exit 0
