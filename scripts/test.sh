#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 the devalloc authors
# scripts/test.sh — the README's test command (and CI's, .ci/run). Installs what is missing
# (scripts/deps.sh: CMake >= 3.25, g++, GoogleTest, CCCL, CLI11, nlohmann_json; no sudo needed
# except for a missing compiler; Open MPI for the distributed example's test where root or sudo can
# install it, else that test is not built), then, in build/<preset> (the folder scripts/bench.sh uses too):
#   1. configures with the preset for this machine (CMakePresets.json): `cpu` where no GPU is
#      visible (every CPU target; with nvcc, each public header is compiled once for CUDA, and no
#      _cuda binary is built), `gpu` where nvidia-smi lists one (every target, CUDA tests registered);
#      DEVALLOC_PRESET=<name> chooses another;
#   2. builds everything and runs the tests with CTest (label cpu; on a GPU machine also label gpu);
#   3. installs devalloc and builds + runs examples/consumer against find_package(devalloc).
# The whole GPU workflow (sanitizers, benchmark, logs) is scripts/gpu-run.sh.
# Environment: DEVALLOC_JOBS (default: nproc), DEVALLOC_BUILD_DIR, DEVALLOC_CMAKE_ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/deps.sh
source scripts/deps.sh
start=$(date +%s)

deps_setup
preset=$(deps_preset)
deps_configure "$preset" -DCMAKE_INSTALL_PREFIX="${DEVALLOC_BUILD_DIR:-$PWD/build/$preset}/_install"
build=$DEVALLOC_BUILD

say "build (-j$DEVALLOC_JOBS)"
cmake --build "$build" -j"$DEVALLOC_JOBS"

say "tests on the CPU backend (ctest -L cpu)"
ctest --test-dir "$build" -L cpu --output-on-failure -j"$DEVALLOC_JOBS" --timeout 600
if [ "$preset" = gpu ] || [ "$preset" = debug ]; then
  say "tests on the GPU (ctest -L gpu, one at a time)"
  ctest --test-dir "$build" -L gpu --output-on-failure --timeout 1200
fi

say "install + examples/consumer via find_package(devalloc)"
cmake --install "$build"
cmake -S examples/consumer -B "$build/consumer" -DCMAKE_PREFIX_PATH="$build/_install" \
  ${DEVALLOC_CCCL_DIR:+-DCCCL_DIR=$DEVALLOC_CCCL_DIR}
cmake --build "$build/consumer" -j"$DEVALLOC_JOBS"
"$build/consumer/consumer_cpu"
if [ -x "$build/consumer/consumer_cuda" ] && deps_have_gpu; then "$build/consumer/consumer_cuda"; fi
say "all tests passed ($(( $(date +%s) - start )) s)"
