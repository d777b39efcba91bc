#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 the devalloc authors
# scripts/gpu-run.sh — the one command for a GPU machine: builds every target with the `gpu` preset
# in build/gpu (the folder scripts/test.sh and scripts/bench.sh use there; CUDA architectures: the
# machine's GPU, or CMAKE_CUDA_ARCHITECTURES in DEVALLOC_CMAKE_ARGS), runs the whole test suite on
# the GPU (CTest label "gpu"), optionally compute-sanitizer on a representative kernel set, and the
# benchmark; writes every log to $OUT (default ./out).
#
#   DEVALLOC_COMMIT=<hash> bash scripts/gpu-run.sh [--sanitize] [--diag] [--no-tests] [--prebuilt] [--bench "<devalloc-bench args>"]
#
# --prebuilt skips configure and build and runs the binaries already in the build folder (made on
# another machine for this GPU's architecture and copied here), the tests as gtest binaries.
#
# Environment: DEVALLOC_GPU_TARGETS="t1 t2 ..." builds only those targets (default: all) and
# DEVALLOC_GPU_TESTS=<regex> runs only the matching GPU tests (ctest -R; DEVALLOC_GPU_TESTS_EXCLUDE:
# ctest -E); DEVALLOC_SANITIZE_FILTER
# (gtest filter for compute-sanitizer); DEVALLOC_BENCH_TIMEOUT=<s> bounds the benchmark step.
#
# --diag also runs bench/diag/scatter_probe (Scatter's probability test per configuration, with
# per-thread latencies; docs/notes/scatter-lab.md, Performance notes) into scatter-probe.log.
#
# Dependencies (scripts/deps.sh): a GPU machine without network needs GoogleTest, CLI11 and
# nlohmann_json from a .deps/ folder made elsewhere with `bash scripts/deps.sh --carry` and carried
# next to the tree (a copy of /usr/src/googletest as .gtest/ also still works for GoogleTest).
set -uo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/deps.sh
source scripts/deps.sh
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
sanitize=0
diag=0
tests=1
bench_args="--quick"
while [ $# -gt 0 ]; do
  case "$1" in
    --sanitize) sanitize=1 ;;
    --diag) diag=1 ;;
    --no-tests) tests=0 ;;
    --prebuilt) prebuilt=1 ;;
    --bench) bench_args="$2"; shift ;;
    --no-bench) bench_args="" ;;
    *) echo "usage: $0 [--sanitize] [--diag] [--no-tests] [--prebuilt] [--bench \"ARGS\"] [--no-bench]" >&2; exit 2 ;;
  esac
  shift
done
build=${DEVALLOC_BUILD_DIR:-$PWD/build/gpu}
log="$OUT/gpu-run.log"
status=0

{
  echo "# devalloc GPU run"
  echo "commit: ${DEVALLOC_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
  echo "date:   $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | sed 's/^/gpu:    /'
  nvcc --version | tail -1 | sed 's/^/nvcc:   /'
} | tee "$log"

step() { echo; echo "## $*" | tee -a "$log"; }

if [ "${prebuilt:-0}" = 1 ]; then
  # Binaries built elsewhere for this GPU's architecture (cross-compiled with nvcc on a machine
  # without a GPU: `cmake --preset gpu -DCMAKE_CUDA_ARCHITECTURES=90` there) and carried here: no
  # configure, no build; the tests run as their gtest binaries (CTest's files name the paths of
  # the machine that built them).
  step "prebuilt binaries ($build)"
  ls "$build"/tests/*_cuda "$build"/tests/*/*_cuda "$build"/bench/devalloc-bench-cuda 2>/dev/null | sed "s|$build/||" | tee -a "$log"
  if [ "$tests" = 1 ]; then
    step "tests on the GPU (each gtest binary)"
    for t in "$build"/tests/*_cuda "$build"/tests/*/*_cuda; do
      [ -x "$t" ] || continue
      name=$(basename "$t")
      timeout 600 "$t" --gtest_brief=1 >"$OUT/test-$name.log" 2>&1
      rc=$?
      echo "$name: exit $rc; $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/test-$name.log" | tr -s ' ' | paste -sd ';')" | tee -a "$log"
      grep -E '^\[  FAILED  \]' "$OUT/test-$name.log" | head -20 | tee -a "$log"
      [ $rc = 0 ] || status=1
    done
    tests=0
  fi
else
step "dependencies + configure (preset gpu) + build"
{ deps_setup && deps_configure gpu; } >"$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log" | tee -a "$log"; exit 1; }
grep -E "devalloc: CUDA targets" "$OUT/configure.log" | sed 's/^-- //' | tee -a "$log"
# shellcheck disable=SC2086
cmake --build "$build" -j"$DEVALLOC_JOBS" ${DEVALLOC_GPU_TARGETS:+--target $DEVALLOC_GPU_TARGETS} >"$OUT/build.log" 2>&1 || { grep -E "error" "$OUT/build.log" | head -40 | tee -a "$log"; exit 1; }
echo "built ($(grep -c '^\[' "$OUT/build.log") build steps, build.log)" | tee -a "$log"
fi

if [ "$tests" = 1 ]; then
  step "tests on the GPU (ctest -L gpu)"
  ctest --test-dir "$build" -L gpu ${DEVALLOC_GPU_TESTS:+-R "$DEVALLOC_GPU_TESTS"} \
    ${DEVALLOC_GPU_TESTS_EXCLUDE:+-E "$DEVALLOC_GPU_TESTS_EXCLUDE"} --output-on-failure --timeout 300 \
    >"$OUT/ctest-gpu.log" 2>&1 || status=1
  grep -E "tests passed|tests failed|Failed|\*\*\*|Skipped|Total Test time" "$OUT/ctest-gpu.log" | tee -a "$log"
  for t in "$build"/tests/*_cuda "$build"/tests/*/*_cuda; do
    [ -x "$t" ] || continue
    echo "$(basename "$t"): $("$t" --gtest_list_tests | grep -c '^  ') tests" | tee -a "$log"
  done
fi

if [ "$sanitize" = 1 ]; then
  step "compute-sanitizer"
  # devalloc's allocators; CUDA's own device malloc (DeviceMalloc) apart: memcheck has reported a
  # "device-side double free" inside it (results/gpu/), and the error it raises is sticky, so it
  # would fail every later test of the same process. Its result is logged, not counted.
  filter="${DEVALLOC_SANITIZE_FILTER:-*ConcurrentAllocations*:*Churn*}"
  for tool in memcheck racecheck synccheck; do
    compute-sanitizer --tool "$tool" --error-exitcode 9 "$build"/tests/devalloc_conformance_cuda \
      --gtest_filter="$filter:-*DeviceMalloc*" >"$OUT/sanitizer-$tool.log" 2>&1
    rc=$?
    echo "$tool: exit $rc; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitizer-$tool.log" | sort | uniq -c | tr -s ' ')" | tee -a "$log"
    [ $rc = 0 ] || status=1
  done
  compute-sanitizer --tool memcheck --error-exitcode 9 "$build"/tests/devalloc_conformance_cuda \
    --gtest_filter="*DeviceMalloc*ConcurrentAllocations*:*DeviceMalloc*Churn*" >"$OUT/sanitizer-memcheck-cuda-malloc.log" 2>&1
  echo "memcheck on CUDA's device malloc (not counted): exit $?; $(grep -E 'ERROR SUMMARY|double free' \
    "$OUT/sanitizer-memcheck-cuda-malloc.log" | sort | uniq -c | tr -s ' ' | head -3)" | tee -a "$log"
fi

if [ "$diag" = 1 ]; then
  step "Scatter probability test per configuration (bench/diag/scatter_probe)"
  probe="$build"/bench/devalloc-scatter-probe
  { $probe && $probe 65536 20 3 16 64 && $probe 65536 20 3 16 32 && $probe 65536 20 3 128 256 \
      && $probe 65536 20 3 256 256 && $probe tput 1048576 1 && $probe tput 1048576 32 \
      && $probe census 16384 1 2 4 1500; } >"$OUT/scatter-probe.log" 2>&1 || status=1
  grep -E "^[A-Za-z].*(launch us|census|G free)|^NVIDIA" "$OUT/scatter-probe.log" | tee -a "$log"
fi

if [ -n "$bench_args" ] && [ -x bench/devalloc-bench ]; then
  step "benchmark: devalloc-bench $bench_args"
  run_bench() {  # run_bench OUT_DIR [ARGS...]: one devalloc-bench process, its log appended to bench.log
    local out=$1
    shift
    # shellcheck disable=SC2086
    DEVALLOC_BENCH_BUILD="$build" timeout "${DEVALLOC_BENCH_TIMEOUT:-0}" bench/devalloc-bench $bench_args "$@" --out "$out" 2>&1 |
      tee -a "$OUT/bench.log" | tail -80 >>"$log"
    return "${PIPESTATUS[0]}"
  }
  : >"$OUT/bench.log"
  run_bench "$OUT/bench" || status=1
  # A CUDA error that left the benchmark's own process without a device: bench/devalloc-bench ran
  # the unfinished tests again in a new process and merged the parts (exit status 5; outputs of
  # the reruns in $OUT/bench-retryN); tools/check-results reports the interruption.
  python3 tools/check-results "$OUT/bench/results.json" | tail -3 | tee -a "$log" || status=1
  if python3 -c 'import matplotlib' 2>/dev/null; then
    python3 tools/plot "$OUT/bench/results.json" --out "$OUT/bench/figures" >>"$log" 2>&1 || echo "plotting failed" | tee -a "$log"
  fi
fi

step "result: $([ $status = 0 ] && echo PASS || echo FAIL)"
exit $status
