#!/bin/sh
# autogen.sh -- regenerate the build system of profcopy.
# Run this once in a fresh checkout, then ./configure && make.
set -e
cd "$(dirname "$0")"
autoreconf -fi
