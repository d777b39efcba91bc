#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 the devalloc authors
# scripts/openmpi-bundle.sh — Open MPI for a machine that cannot install it (the GPU machines reach
# no package registry), taken from this machine's Debian packages.
#
#   bash scripts/openmpi-bundle.sh pack [FILE]     here: FILE (default .deps/openmpi-bundle.tar.xz) holds
#                                                  the files of openmpi-bin, libopenmpi3, openmpi-common,
#                                                  libpmix2 and the shared libraries they load (not glibc
#                                                  nor libstdc++), each at its path under /, no directories
#   bash scripts/openmpi-bundle.sh install [FILE]  there, as root: uses the machine's mpiexec if it is
#                                                  Open MPI 4.1 (the ABI the binaries were linked with),
#                                                  else unpacks FILE into / without replacing any file
#                                                  that exists (tar --skip-old-files) and runs ldconfig;
#                                                  then checks `mpiexec -n 2 true`
#
# The binaries (examples/distributed) are linked on the packing machine against its libmpi.so.40, so
# the two machines need compatible C libraries (both here: Debian 12's glibc 2.36 or newer there).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}
file=${2:-.deps/openmpi-bundle.tar.xz}

case "$mode" in
  pack)
    list=$(mktemp)
    trap 'rm -f "$list"' EXIT
    for p in openmpi-bin libopenmpi3 openmpi-common libpmix2; do
      dpkg -L "$p" >/dev/null 2>&1 || { echo "openmpi-bundle: package $p is not installed (scripts/deps.sh)" >&2; exit 1; }
      dpkg -L "$p" | grep -v -E '^/usr/share/(doc|man|lintian)/' | while read -r f; do
        if [ -f "$f" ] || [ -L "$f" ]; then echo "$f"; fi
      done
    done >"$list"
    # The libraries the ELF files load, with their soname links, except the C and C++ runtimes.
    grep -v -E '\.(txt|conf|h|mod|pc)$' "$list" | while read -r f; do
      [ -L "$f" ] && continue
      ldd "$f" 2>/dev/null | awk '/=>/ && $3 ~ /^\// {print $3}' || true
    done | sort -u | grep -v -E '/(libc|libm|libpthread|libdl|librt|libresolv|ld-linux-x86-64|libstdc\+\+|libgcc_s)\.so' |
      while read -r lib; do
        echo "$lib"
        real=$(readlink -f "$lib")
        [ "$real" = "$lib" ] || echo "$real"
      done >>"$list"
    sort -u -o "$list" "$list"
    mkdir -p "$(dirname "$file")"
    tar --no-recursion -cJf "$file" -T "$list" 2>/dev/null
    echo "openmpi-bundle: $(wc -l <"$list") files, $(du -h "$file" | cut -f1) in $file ($(mpiexec --version | head -1))"
    ;;
  install)
    if mpiexec --version 2>/dev/null | grep -q -E '(Open MPI|OpenRTE)\) 4\.1'; then
      echo "openmpi-bundle: using this machine's $(mpiexec --version | head -1)"
    else
      [ -f "$file" ] || { echo "openmpi-bundle: no mpiexec of Open MPI 4.1 here and no $file to unpack" >&2; exit 1; }
      [ "$(id -u)" = 0 ] || { echo "openmpi-bundle: unpacking into / needs root" >&2; exit 1; }
      tar -C / --skip-old-files -xJf "$file"
      ldconfig 2>/dev/null || true
      echo "openmpi-bundle: unpacked $file into /: $(mpiexec --version | head -1)"
    fi
    flags=(--oversubscribe)
    [ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
    OMPI_MCA_plm_rsh_agent=false mpiexec -n 2 "${flags[@]}" true || { echo "openmpi-bundle: mpiexec -n 2 true failed" >&2; exit 1; }
    echo "openmpi-bundle: mpiexec -n 2 ran"
    ;;
  *)
    echo "usage: $0 pack|install [FILE]" >&2
    exit 2
    ;;
esac
