#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 the devalloc authors
# scripts/bench.sh — the README's main command: installs what is missing (scripts/deps.sh, plus
# matplotlib for the figures), builds devalloc-bench in build/<preset> (the folder and preset that
# scripts/test.sh uses on this machine: only the benchmark's targets, with the build's progress
# shown), runs it on the GPU when there is one (`gpu` preset: nvcc + nvidia-smi sees a device),
# otherwise on the CPU backend, and turns the JSON into figures and a Markdown report (tools/plot).
# It also fetches the kdtree test's meshes into .deps/root (scripts/deps.sh --meshes).
# Arguments go to devalloc-bench (default: --quick; see `bench/devalloc-bench --help`);
# `--build-only` builds and stops.
# Environment: DEVALLOC_BENCH_OUT (default out/bench), DEVALLOC_PRESET, DEVALLOC_JOBS, DEVALLOC_CMAKE_ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/deps.sh
source scripts/deps.sh
out=${DEVALLOC_BENCH_OUT:-$PWD/out/bench}

deps_setup --bench
deps_meshes || deps_note "meshes unavailable: the kdtree test will skip its mesh scenes (generated scenes still run)"
preset=$(deps_preset)
deps_configure "$preset" -DCMAKE_INSTALL_PREFIX="${DEVALLOC_BUILD_DIR:-$PWD/build/$preset}/_install"
build=$DEVALLOC_BUILD

targets=(devalloc-bench-cpu)
if cmake --build "$build" --target help 2>/dev/null | grep -q 'devalloc-bench-cuda'; then targets+=(devalloc-bench-cuda); fi
# The `distributed` test runs examples/distributed under mpiexec (built where MPI, and for CUDA NCCL, were found).
for t in devalloc_example_distributed_cpu devalloc_example_distributed_cuda; do
  if cmake --build "$build" --target help 2>/dev/null | grep -q "^$t:"; then targets+=("$t"); fi
done
say "build ${targets[*]} (-j$DEVALLOC_JOBS)"
cmake --build "$build" -j"$DEVALLOC_JOBS" --target "${targets[@]}"

if [ "${1:-}" = --build-only ]; then exit 0; fi
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(--quick)
say "devalloc-bench ${args[*]} --out $out"
# Exit status 5: a CUDA error interrupted the run and its unfinished tests ran again in a new
# process (bench/devalloc-bench); the merged results are still drawn, and the run fails.
status=0
DEVALLOC_BENCH_BUILD="$build" bench/devalloc-bench "${args[@]}" --out "$out" || status=$?
[ "$status" = 0 ] || [ "$status" = 5 ] || exit "$status"
if python3 -c 'import matplotlib' 2>/dev/null; then
  say "figures: tools/plot -> $out/figures"
  python3 tools/plot "$out"/*.json --out "$out/figures" || echo "plotting failed (the measurements are in $out)"
else
  echo "matplotlib unavailable: skipped figures (measurements in $out)"
fi
exit "$status"
