#!/usr/bin/env bash
# scripts/test.sh — the README's test command. On a fresh machine it installs what is missing
# (CMake >= 3.25, GoogleTest sources, CCCL headers), then:
#   1. builds everything for the CPU backend and runs the whole test suite with CTest;
#   2. when nvcc is present, compiles every CUDA target for sm_90 (compile only: no GPU here);
#   3. installs devalloc and builds + runs examples/consumer against find_package(devalloc).
# GPU runs use scripts/gpu-run.sh on a machine with a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${DEVALLOC_BUILD_DIR:-$root/build}
jobs=${DEVALLOC_JOBS:-$(nproc)}

say() { printf '\n== %s\n' "$*"; }

# --- what the build needs ---------------------------------------------------------------------
need_apt=()
command -v cmake >/dev/null || need_apt+=(cmake)
command -v g++ >/dev/null || need_apt+=(g++)
if [ ! -f /usr/src/googletest/CMakeLists.txt ] && [ ! -f /usr/lib/x86_64-linux-gnu/cmake/GTest/GTestConfig.cmake ] \
   && [ ! -f /usr/lib/cmake/GTest/GTestConfig.cmake ]; then need_apt+=(libgtest-dev); fi
if [ ${#need_apt[@]} -gt 0 ]; then
  say "installing ${need_apt[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq "${need_apt[@]}"
fi
cccl_hint=""
if [ ! -f /usr/local/cuda/lib64/cmake/cccl/cccl-config.cmake ] && [ -z "${CUDA_PATH:-}" ]; then
  say "no CUDA toolkit: taking CCCL's headers from PyPI (nvidia-cuda-cccl)"
  python3 -m pip install -q --target "$root/.deps/cccl" nvidia-cuda-cccl
  cccl_hint=$(dirname "$(find "$root/.deps/cccl" -name cccl-config.cmake | head -1)")/..
fi

# --- 1 + 2: build (CPU targets, and CUDA targets compile-only when nvcc exists) and test -------
say "configure ($build)"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release ${cccl_hint:+-DDEVALLOC_CCCL_HINTS=$cccl_hint} \
  -DCMAKE_INSTALL_PREFIX="$build/_install" ${DEVALLOC_CMAKE_ARGS:-}
say "build (-j$jobs)"
cmake --build "$build" -j"$jobs"
say "tests (CPU backend)"
ctest --test-dir "$build" -L cpu --output-on-failure -j"$jobs" --timeout 600

# --- 3: the installed package from an outside project ------------------------------------------
say "install + examples/consumer via find_package(devalloc)"
cmake --install "$build" >/dev/null
cmake -S examples/consumer -B "$build/consumer" -DCMAKE_PREFIX_PATH="$build/_install" \
  ${cccl_hint:+-DCCCL_DIR=$cccl_hint/cccl} >/dev/null
cmake --build "$build/consumer" -j"$jobs"
"$build/consumer/consumer_cpu"
say "all tests passed"
