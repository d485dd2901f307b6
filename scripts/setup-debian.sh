#!/bin/bash
# setup-debian.sh -- install what profcopy needs on Debian 12 and build it.
#
# Copyright (C) 2026 The profcopy authors.
# This file is part of profcopy, distributed under the GNU General Public
# License version 3 or later; see COPYING.
#
# Run from the top of the source tree.  Package installation needs root
# (it is skipped with --no-install); the build runs as the calling user.
set -euo pipefail

cd "$(dirname "$0")/.."

PACKAGES=(
  gcc make autoconf automake libtool pkg-config
  binutils-dev binutils-multiarch-dev libiberty-dev zlib1g-dev dejagnu
  gcc-mips-linux-gnu g++-mips-linux-gnu libc6-dev-mips-cross
  binutils-mips-linux-gnu
  gcc-mipsel-linux-gnu g++-mipsel-linux-gnu libc6-dev-mipsel-cross
  binutils-mipsel-linux-gnu
  qemu-user qemu-system-mips graphviz valgrind python3
  clang libclang-rt-14-dev
)

if [ "${1:-}" != "--no-install" ]; then
  if [ "$(id -u)" -ne 0 ]; then
    SUDO=sudo
  else
    SUDO=
  fi
  export DEBIAN_FRONTEND=noninteractive
  # The test suite's testbed (testsuite/testbed/setup.sh) fetches real
  # mipsel packages with apt-get download; apt needs the architecture
  # and its package lists for that.  Nothing mipsel is installed.
  if ! dpkg --print-foreign-architectures | grep -qx mipsel; then
    $SUDO dpkg --add-architecture mipsel
  fi
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q
  $SUDO env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q "${PACKAGES[@]}" </dev/null
fi

./autogen.sh
./configure
make -j2
