#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 the devalloc authors
# scripts/docs.sh — the API reference, generated from the headers' comments by Doxygen (Doxyfile):
# writes build/docs/html/index.html. Doxygen is taken from PATH, else from .deps/doxygen (Debian's doxygen
# package and the libraries this machine lacks, fetched with `apt-get download` and unpacked with
# `dpkg -x`: no root needed), else installed with apt-get (root or passwordless sudo).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/deps.sh
source scripts/deps.sh

# Kept apart from .deps/root (what a GPU machine needs) so that carrying that stays small.
export DEVALLOC_UNPACK_ROOT=$DEVALLOC_DEPS/doxygen
use_deps_doxygen() {
  export PATH="$DEVALLOC_UNPACK_ROOT/usr/bin:$PATH"
  export LD_LIBRARY_PATH="$DEVALLOC_UNPACK_ROOT/usr/lib/x86_64-linux-gnu:$DEVALLOC_UNPACK_ROOT/usr/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  doxygen --version >/dev/null 2>&1
}

if ! command -v doxygen >/dev/null 2>&1 && ! { [ -x "$DEVALLOC_UNPACK_ROOT/usr/bin/doxygen" ] && use_deps_doxygen; }; then
  say "doxygen: fetching Debian's package and the libraries it lacks here into $DEVALLOC_DEPS (no root needed)"
  missing=()
  if command -v apt-cache >/dev/null 2>&1 && command -v dpkg >/dev/null 2>&1; then
    for dep in $(apt-cache depends --no-recommends --no-suggests doxygen 2>/dev/null | awk '/Depends:/ {print $2}' | grep -v '^<'); do
      dpkg -s "$dep" >/dev/null 2>&1 || missing+=("$dep")
    done
  fi
  if ! { deps_apt_extract doxygen "${missing[@]}" && use_deps_doxygen; }; then
    deps_apt_install doxygen || { echo "docs: doxygen is needed: install it (apt-get install doxygen)" >&2; exit 1; }
  fi
fi
say "doxygen $(doxygen --version) -> build/docs/html"
mkdir -p build/docs
doxygen Doxyfile
echo "API reference: $PWD/build/docs/html/index.html"
