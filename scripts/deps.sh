#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 the devalloc authors
# scripts/deps.sh — what the build needs, found or installed; sourced by scripts/test.sh,
# scripts/bench.sh, scripts/gpu-run.sh and scripts/docs.sh, or run on its own:
#
#   bash scripts/deps.sh            # check/install what this machine lacks (as test.sh does)
#   bash scripts/deps.sh --carry    # fetch GoogleTest, CLI11 and nlohmann_json (and the meshes) into
#                                   # .deps/root even if this machine has them, for a machine with no
#                                   # network (a GPU machine): copy or carry .deps/root (about 20 MB)
#                                   # next to its tree, then run scripts/gpu-run.sh there.
#   bash scripts/deps.sh --meshes   # only the kdtree benchmark's meshes (Debian's libcgal-demo) into
#                                   # .deps/root/usr/share/doc/libcgal-dev/data/meshes
#
# Order of preference, per dependency (nothing needs sudo except a missing compiler):
#   CMake >= 3.25 ... on PATH, else apt-get install (root or passwordless sudo), else pip into .deps/cmake
#   g++ ............. on PATH, else apt-get install (root or passwordless sudo)
#   GoogleTest ...... an installed GTest package (find_package), else sources in /usr/src/googletest,
#                     .gtest/ or .deps/root/usr/src/googletest, else Debian's `googletest` source
#                     package fetched with `apt-get download` and unpacked with `dpkg -x` into .deps/root
#   CCCL ............ the CUDA toolkit's (lib64/cmake/cccl), else PyPI's nvidia-cuda-cccl in .deps/cccl
#   CLI11, nlohmann_json (header-only; the benchmark): installed CMake packages, else Debian's
#                     libcli11-dev / nlohmann-json3-dev unpacked into .deps/root as above
#   matplotlib ...... (figures; bench.sh only) importable, else pip into .deps/python
#   Open MPI ........ (examples/distributed and its test cpu:example_distributed_mpi; optional) mpicxx and
#                     mpiexec on PATH, else apt-get install libopenmpi-dev openmpi-bin (root or
#                     passwordless sudo; 17 s of apt-get install measured), else a note and the test is not built.
#                     DEVALLOC_NO_MPI=1 skips the install.
#   meshes .......... (devalloc-bench's kdtree test; bench.sh and --carry only) .off files of Debian's
#                     libcgal-demo, unpacked as above (a missing mesh only skips its scene)
# .deps/ and .gtest/ are ignored by git.
#
# After `deps_setup`, DEVALLOC_CMAKE_DEPS holds the -D arguments that point CMake at what was found;
# `deps_configure` runs `cmake --preset <preset>` with them (the preset from `deps_preset`).

DEVALLOC_ROOT=${DEVALLOC_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
DEVALLOC_DEPS=${DEVALLOC_DEPS:-$DEVALLOC_ROOT/.deps}
DEVALLOC_JOBS=${DEVALLOC_JOBS:-$(nproc 2>/dev/null || echo 2)}
DEVALLOC_CMAKE_DEPS=()
DEVALLOC_CCCL_DIR=""   # set when CCCL comes from .deps (an outside project then needs -DCCCL_DIR)

say() { printf '\n== %s\n' "$*"; }
deps_note() { printf '   %s\n' "$*"; }

deps_have_gpu() { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; }

# The preset for this machine: $DEVALLOC_PRESET, else gpu when nvcc exists and nvidia-smi lists a GPU,
# else cpu (every CPU target; with nvcc, each public header compiled once for CUDA).
deps_preset() {
  if [ -n "${DEVALLOC_PRESET:-}" ]; then echo "$DEVALLOC_PRESET"
  elif command -v nvcc >/dev/null 2>&1 && deps_have_gpu; then echo gpu
  else echo cpu; fi
}

# Root (or passwordless sudo) installs through apt-get; returns 1 when neither is possible.
deps_apt_install() {
  local sudo=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null || return 1
    sudo="sudo -n"
  fi
  command -v apt-get >/dev/null 2>&1 || return 1
  deps_note "apt-get install $*"
  $sudo apt-get update -q && $sudo apt-get install -y --no-install-recommends "$@"
}

# Debian packages unpacked into .deps/root (or $DEVALLOC_UNPACK_ROOT) without root: apt-get
# download + dpkg -x; the .deb files are deleted once unpacked. Where the system's package lists
# are missing, a private copy is fetched into .deps/apt first.
deps_apt_extract() {
  local unpack=${DEVALLOC_UNPACK_ROOT:-$DEVALLOC_DEPS/root}
  command -v apt-get >/dev/null 2>&1 && command -v dpkg >/dev/null 2>&1 || {
    echo "deps: apt-get/dpkg not available to fetch $*; install them by hand or set the CMake hints" >&2; return 1; }
  mkdir -p "$DEVALLOC_DEPS/debs" "$unpack"
  local apt_opts=()
  if ! (cd "$DEVALLOC_DEPS/debs" && apt-get -o "APT::Sandbox::User=$(id -un)" download "$@"); then
    deps_note "apt-get download failed; fetching package lists into $DEVALLOC_DEPS/apt (no root needed)"
    mkdir -p "$DEVALLOC_DEPS/apt/lists/partial" "$DEVALLOC_DEPS/apt/cache/archives/partial"
    apt_opts=(-o "Dir::State::Lists=$DEVALLOC_DEPS/apt/lists" -o "Dir::Cache=$DEVALLOC_DEPS/apt/cache"
              -o "Debug::NoLocking=1" -o "APT::Sandbox::User=$(id -un)")
    apt-get "${apt_opts[@]}" update && (cd "$DEVALLOC_DEPS/debs" && apt-get "${apt_opts[@]}" download "$@") || {
      echo "deps: could not fetch $* (no network?). Run 'bash scripts/deps.sh --carry' on a machine with" \
           "network and copy .deps/ here." >&2; return 1; }
  fi
  local pkg deb
  for pkg in "$@"; do
    deb=$(ls -t "$DEVALLOC_DEPS/debs/${pkg}_"*.deb | head -1)
    deps_note "unpacking $(basename "$deb") into $unpack"
    dpkg -x "$deb" "$unpack" && rm -f "$deb"
  done
}

# Is a CMake config package NAME installed in a standard prefix or in .deps/root/usr?
deps_find_cmake_package() {
  local name=$1 lower prefix dir
  lower=$(echo "$name" | tr '[:upper:]' '[:lower:]')
  for prefix in /usr /usr/local "$DEVALLOC_DEPS/root/usr" ${CMAKE_PREFIX_PATH:+${CMAKE_PREFIX_PATH//:/ }}; do
    for dir in "$prefix"/lib/*/cmake "$prefix"/lib/cmake "$prefix"/lib64/cmake "$prefix"/share/cmake; do
      if [ -f "$dir/$name/${name}Config.cmake" ] || [ -f "$dir/$name/$lower-config.cmake" ]; then
        echo "$prefix"; return 0
      fi
    done
  done
  return 1
}

deps_cmake() {
  local version
  version=$(cmake --version 2>/dev/null | head -1 | awk '{print $3}')
  if [ -n "$version" ] && printf '3.25\n%s\n' "$version" | sort -V -C; then return 0; fi
  if [ -x "$DEVALLOC_DEPS/cmake/bin/cmake" ]; then export PATH="$DEVALLOC_DEPS/cmake/bin:$PATH"; return 0; fi
  say "CMake >= 3.25 missing (found: ${version:-none})"
  if [ -z "$version" ] && deps_apt_install cmake && cmake --version | head -1 | awk '{print $3}' \
       | { read -r v; printf '3.25\n%s\n' "$v" | sort -V -C; }; then return 0; fi
  deps_note "pip install cmake into $DEVALLOC_DEPS/cmake"
  python3 -m pip install --target "$DEVALLOC_DEPS/cmake" 'cmake>=3.25' || return 1
  export PATH="$DEVALLOC_DEPS/cmake/bin:$PATH"
}

deps_compiler() {
  command -v g++ >/dev/null 2>&1 && return 0
  say "g++ missing"
  deps_apt_install g++ || { echo "deps: g++ is needed and cannot be installed without root; install it" >&2; return 1; }
}

deps_gtest() {
  local force=${1:-}
  local src=""
  if [ -z "$force" ] && deps_find_cmake_package GTest >/dev/null; then return 0; fi
  for dir in "$DEVALLOC_DEPS/root/usr/src/googletest" "$DEVALLOC_ROOT/.gtest" /usr/src/googletest; do
    if [ -f "$dir/CMakeLists.txt" ]; then src=$dir; break; fi
  done
  if [ -n "$force" ] && [ "$src" != "$DEVALLOC_DEPS/root/usr/src/googletest" ]; then src=""; fi
  if [ -z "$src" ]; then
    say "GoogleTest: fetching Debian's googletest sources into $DEVALLOC_DEPS (no root needed)"
    deps_apt_extract googletest || return 1
    src=$DEVALLOC_DEPS/root/usr/src/googletest
  fi
  DEVALLOC_CMAKE_DEPS+=("-DDEVALLOC_GTEST_SOURCE_DIR=$src")
}

deps_header_package() {  # CMake package name, Debian package
  local name=$1 deb=$2 force=${3:-}
  if [ -z "$force" ] && deps_find_cmake_package "$name" >/dev/null; then return 0; fi
  if [ -n "$force" ] || ! { [ -d "$DEVALLOC_DEPS/root/usr/share/cmake/$name" ] || [ -d "$DEVALLOC_DEPS/root/usr/lib/cmake/$name" ]; }; then
    say "$name: fetching Debian's $deb into $DEVALLOC_DEPS (no root needed)"
    deps_apt_extract "$deb" || return 1
  fi
}

deps_cccl() {
  local dir nvcc_dir
  nvcc_dir=$(command -v nvcc >/dev/null 2>&1 && dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
  for dir in /usr/local/cuda ${CUDA_PATH:-} ${nvcc_dir:-}; do
    if [ -f "$dir/lib64/cmake/cccl/cccl-config.cmake" ] || [ -f "$dir/lib/cmake/cccl/cccl-config.cmake" ]; then
      DEVALLOC_CMAKE_DEPS+=("-DDEVALLOC_CCCL_HINTS=$dir/lib64/cmake;$dir/lib/cmake"); return 0
    fi
  done
  local config
  config=$(find "$DEVALLOC_DEPS/cccl" -name cccl-config.cmake 2>/dev/null | head -1)
  if [ -z "$config" ]; then
    say "no CUDA toolkit: taking CCCL's headers from PyPI (nvidia-cuda-cccl) into $DEVALLOC_DEPS/cccl"
    python3 -m pip install --target "$DEVALLOC_DEPS/cccl" nvidia-cuda-cccl || return 1
    config=$(find "$DEVALLOC_DEPS/cccl" -name cccl-config.cmake | head -1)
  fi
  # .../cmake/cccl/cccl-config.cmake -> hint .../cmake (find_package(CCCL) looks in <hint>/cccl)
  DEVALLOC_CCCL_DIR=$(dirname "$config")
  DEVALLOC_CMAKE_DEPS+=("-DDEVALLOC_CCCL_HINTS=$(dirname "$DEVALLOC_CCCL_DIR")" "-DCCCL_DIR=$DEVALLOC_CCCL_DIR")
}

# Open MPI for the distributed example (issue 16). Optional: without it CMake says the distributed
# test is not built, and everything else goes on.
deps_mpi() {
  [ "${DEVALLOC_NO_MPI:-0}" = 1 ] && { deps_note "MPI: not installed (DEVALLOC_NO_MPI=1); the distributed test is built only if MPI is already there"; return 0; }
  if command -v mpiexec >/dev/null 2>&1 && { command -v mpicxx >/dev/null 2>&1 || command -v mpic++ >/dev/null 2>&1; }; then
    return 0
  fi
  say "Open MPI (examples/distributed, test cpu:example_distributed_mpi): apt-get install libopenmpi-dev openmpi-bin"
  local t0=$SECONDS
  if deps_apt_install libopenmpi-dev openmpi-bin && command -v mpiexec >/dev/null 2>&1; then
    deps_note "Open MPI installed ($(( SECONDS - t0 )) s)"
  else
    deps_note "Open MPI is missing and cannot be installed here (needs root or passwordless sudo, and apt-get):"
    deps_note "the distributed example and its MPI test are NOT built; install libopenmpi-dev openmpi-bin to add them"
  fi
  return 0
}

deps_matplotlib() {
  python3 -c 'import matplotlib' 2>/dev/null && return 0
  if [ -d "$DEVALLOC_DEPS/python/matplotlib" ]; then export PYTHONPATH="$DEVALLOC_DEPS/python${PYTHONPATH:+:$PYTHONPATH}"; return 0; fi
  say "matplotlib (figures): pip install into $DEVALLOC_DEPS/python"
  python3 -m pip install --target "$DEVALLOC_DEPS/python" matplotlib \
    && export PYTHONPATH="$DEVALLOC_DEPS/python${PYTHONPATH:+:$PYTHONPATH}"
}

# The kdtree benchmark's meshes. Debian's libcgal-demo holds CGAL's data files as one archive,
# usr/share/doc/libcgal-dev/data.tar.gz; the meshes below (16 K ... 89 K triangles, about 11 MB)
# are taken from its data/meshes/ into .deps/root/usr/share/doc/libcgal-dev/data/meshes, where
# devalloc-bench looks (bench/src/t_kdtree.cpp), and the package's archives are deleted.
DEVALLOC_MESHES=(ChineseDragon-10kv blade armadillo bunny00 refined_elephant diplodocus)
deps_meshes() {
  local force=${1:-}
  local doc=$DEVALLOC_DEPS/root/usr/share/doc/libcgal-dev m members=() missing=0
  for m in "${DEVALLOC_MESHES[@]}"; do
    members+=("data/meshes/$m.off")
    [ -f "$doc/data/meshes/$m.off" ] || missing=1
  done
  if [ -z "$force" ] && [ $missing = 0 ]; then return 0; fi
  say "meshes (kdtree): fetching Debian's libcgal-demo into $DEVALLOC_DEPS (no root needed)"
  DEVALLOC_UNPACK_ROOT=$DEVALLOC_DEPS/root deps_apt_extract libcgal-demo || return 1
  [ -f "$doc/data.tar.gz" ] || { echo "deps: libcgal-demo has no $doc/data.tar.gz" >&2; return 1; }
  tar -xzf "$doc/data.tar.gz" -C "$doc" "${members[@]}" || return 1
  rm -f "$doc/data.tar.gz" "$doc/demo.tar.gz" "$doc/examples.tar.gz"
  deps_note "meshes: $(ls "$doc/data/meshes" | tr '\n' ' ')($(du -sh "$doc/data/meshes" | cut -f1))"
}

# deps_setup [--bench]: everything the build needs (and, with --bench, matplotlib; failure to get it
# only costs the figures).
deps_setup() {
  say "dependencies"
  deps_cmake || return 1
  deps_compiler || return 1
  deps_gtest || return 1
  deps_cccl || return 1
  deps_header_package CLI11 libcli11-dev || return 1
  deps_header_package nlohmann_json nlohmann-json3-dev || return 1
  deps_mpi
  if [ -d "$DEVALLOC_DEPS/root/usr" ]; then
    DEVALLOC_CMAKE_DEPS+=("-DCMAKE_PREFIX_PATH=$DEVALLOC_DEPS/root/usr${CMAKE_PREFIX_PATH:+;${CMAKE_PREFIX_PATH//:/;}}")
  fi
  if [ "${1:-}" = --bench ]; then deps_matplotlib || deps_note "matplotlib unavailable: figures will be skipped"; fi
  deps_note "cmake $(cmake --version | head -1 | awk '{print $3}'), $(g++ --version | head -1)"
  deps_note "MPI: $(command -v mpiexec >/dev/null 2>&1 && mpiexec --version 2>/dev/null | head -1 || echo none)"
  deps_note "nvcc: $(command -v nvcc >/dev/null 2>&1 && nvcc --version | tail -1 || echo none); GPU: $(deps_have_gpu && nvidia-smi -L | head -1 || echo none)"
  [ ${#DEVALLOC_CMAKE_DEPS[@]} -eq 0 ] || deps_note "CMake hints: ${DEVALLOC_CMAKE_DEPS[*]}"
  return 0
}

# deps_configure PRESET [extra cmake args]: configures build/PRESET (or $DEVALLOC_BUILD_DIR) with
# the hints from deps_setup and $DEVALLOC_CMAKE_ARGS, and sets DEVALLOC_BUILD to that folder. A new
# build folder uses Ninja when it is installed (its [n/N] lines show the progress).
deps_configure() {
  local preset=$1; shift
  DEVALLOC_BUILD=${DEVALLOC_BUILD_DIR:-$DEVALLOC_ROOT/build/$preset}
  if [ ! -f "$DEVALLOC_BUILD/CMakeCache.txt" ] && [ -z "${CMAKE_GENERATOR:-}" ] && command -v ninja >/dev/null 2>&1; then
    export CMAKE_GENERATOR=Ninja
  fi
  say "configure: preset $preset -> $DEVALLOC_BUILD"
  # shellcheck disable=SC2086
  (cd "$DEVALLOC_ROOT" && cmake --preset "$preset" -B "$DEVALLOC_BUILD" "${DEVALLOC_CMAKE_DEPS[@]}" \
     ${DEVALLOC_CMAKE_ARGS:-} "$@")
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  if [ "${1:-}" = --carry ]; then
    say "fetching GoogleTest, CLI11 and nlohmann_json into $DEVALLOC_DEPS for a machine with no network"
    deps_gtest force
    deps_header_package CLI11 libcli11-dev force
    deps_header_package nlohmann_json nlohmann-json3-dev force
    deps_meshes force || deps_note "meshes unavailable: the kdtree benchmark will skip its mesh scenes"
    du -sh "$DEVALLOC_DEPS/root"
    echo "copy $DEVALLOC_DEPS/root next to the tree on the GPU machine (as .deps/root; e.g. carry: [\".deps/root\"])" \
         "and run bash scripts/gpu-run.sh there"
  elif [ "${1:-}" = --meshes ]; then
    deps_meshes
  else
    deps_setup "$@"
  fi
fi
