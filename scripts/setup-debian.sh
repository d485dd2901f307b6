#!/bin/bash
# setup-debian.sh -- install what profcopy needs on Debian 12 and build it.
#
# Copyright (C) 2026 The profcopy authors.
# This file is part of profcopy, distributed under the GNU General Public
# License version 3 or later; see COPYING.
#
# Usage: scripts/setup-debian.sh [--no-install] [--builddir=DIR]
#
# Installs the Debian packages profcopy and its tests need (as root, or
# through sudo for another user), then configures and builds profcopy
# in DIR (default: build/ at the top of the source tree), out of the
# source tree, so that other build directories keep working.
#
#   --no-install    only configure and build
#   --builddir=DIR  the build directory (made if needed)
#
# The installation waits up to 15 minutes for another apt or dpkg to
# let go of its lock, never upgrades a package that is installed
# already (apt-get install --no-upgrade), and says so before it adds
# the mipsel architecture to dpkg: the test suite downloads Debian's
# own mipsel programs with apt-get download, which needs the
# architecture's package lists; nothing mipsel is installed.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
install=yes
builddir=$top/build

for arg in "$@"; do
  case $arg in
    --no-install) install=no ;;
    --builddir=*) builddir=${arg#*=} ;;
    --help)
      awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"
      exit 0 ;;
    *)
      echo "setup-debian.sh: unknown argument \`$arg'" >&2
      echo "Try \`scripts/setup-debian.sh --help' for more information." >&2
      exit 2 ;;
  esac
done

PACKAGES=(
  gcc make autoconf automake libtool pkg-config
  binutils-dev binutils-multiarch-dev libiberty-dev zlib1g-dev dejagnu
  gcc-mips-linux-gnu g++-mips-linux-gnu libc6-dev-mips-cross
  binutils-mips-linux-gnu
  gcc-mipsel-linux-gnu g++-mipsel-linux-gnu libc6-dev-mipsel-cross
  binutils-mipsel-linux-gnu
  qemu-user qemu-system-mips graphviz valgrind python3 lcov
  clang libclang-rt-14-dev
  debhelper lintian git curl
)

if [ "$install" = yes ]; then
  if [ "$(id -u)" -eq 0 ]; then
    SUDO=()
  elif command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    echo "setup-debian.sh: installing packages needs root, and sudo is not" \
      "installed: run this as root, or with --no-install once the packages" \
      "are there" >&2
    exit 1
  fi
  APT=(env DEBIAN_FRONTEND=noninteractive apt-get -q
       -o DPkg::Lock::Timeout=900)
  if ! dpkg --print-foreign-architectures | grep -qx mipsel; then
    echo "setup-debian.sh: adding the mipsel architecture to dpkg" \
      "(dpkg --add-architecture mipsel): the test suite downloads Debian's" \
      "mipsel programs with apt-get download; nothing mipsel is installed"
    "${SUDO[@]}" dpkg --add-architecture mipsel
  fi
  # DPkg::Lock::Timeout covers dpkg's lock; apt-get update takes the
  # lock of the package lists, for which apt has no wait: try again.
  err=$(mktemp)
  for try in $(seq 90); do
    status=0
    "${SUDO[@]}" "${APT[@]}" update 2>"$err" || status=$?
    cat "$err" >&2
    [ "$status" -eq 0 ] && break
    if [ "$try" -eq 90 ] || ! grep -q "Could not get lock" "$err"; then
      rm -f "$err"
      exit 1
    fi
    echo "setup-debian.sh: another apt holds the package lists; waiting"
    sleep 10
  done
  rm -f "$err"
  "${SUDO[@]}" "${APT[@]}" install -y --no-upgrade "${PACKAGES[@]}" </dev/null
fi

if [ -f "$top/config.status" ] && [ "$builddir" != "$top" ]; then
  echo "setup-debian.sh: $top is configured in place (by an older" \
    "setup-debian.sh or ./configure there); run \`make distclean' in it" \
    "first, or build there with --builddir=$top" >&2
  exit 1
fi

(cd "$top" && ./autogen.sh)
mkdir -p "$builddir"
cd "$builddir"
"$top/configure"
make -j2
echo "setup-debian.sh: built in $builddir"
