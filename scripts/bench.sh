#!/usr/bin/env bash
# scripts/bench.sh — the README's main command: builds devalloc-bench and runs it, on the GPU when
# there is one (CUDA build + nvidia-smi sees a device), otherwise on the CPU backend; then turns the
# JSON into figures and a Markdown report with tools/plot. Arguments go to devalloc-bench
# (default: --quick; see `bench/devalloc-bench --help`).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${DEVALLOC_BENCH_BUILD:-$PWD/build-bench}
out=${DEVALLOC_BENCH_OUT:-$PWD/out/bench}
command -v cmake >/dev/null || { sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo; $sudo apt-get update -qq && $sudo apt-get install -y -qq cmake g++; }
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DDEVALLOC_BUILD_TESTS=OFF -DDEVALLOC_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target devalloc-bench-cpu $(grep -q 'devalloc-bench-cuda' "$build/Makefile" 2>/dev/null && echo devalloc-bench-cuda) >/dev/null
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(--quick)
DEVALLOC_BENCH_BUILD="$build" bench/devalloc-bench "${args[@]}" --out "$out"
if python3 -c 'import matplotlib' 2>/dev/null || python3 -m pip install -q matplotlib 2>/dev/null; then
  python3 tools/plot "$out"/*.json --out "$out/figures" || echo "plotting failed (the measurements are in $out)"
else
  echo "matplotlib unavailable: skipped figures (measurements in $out)"
fi
