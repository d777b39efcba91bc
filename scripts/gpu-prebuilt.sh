#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 the devalloc authors
# scripts/gpu-prebuilt.sh — a GPU run of binaries built on another machine (for sm_90 here) and
# carried as one archive: the recorded run of a commit under results/gpu/ (docs/ARCHITECTURE.md).
#
#   DEVALLOC_COMMIT=<hash> bash scripts/gpu-prebuilt.sh tests ARCHIVE
#     ARCHIVE: tar.xz of the stripped gtest binaries devalloc_{scatter_tests,circular,lists,fdg,
#     coalesce,scatter_override,runs,conformance}_cuda. Runs each suite, the conformance factories of
#     the seed allocators (Scatter, XMallocSIMD, FDGMalloc, coalescing, the Circular family,
#     UnsafeWrap) and of Runs, Scatter's failure classes and fragmentation tests x10, and compute-sanitizer
#     memcheck of the Scatter and Circular suites and synccheck of the Scatter suite and the
#     conformance suite's concurrent cases; the logs go to $OUT/test-logs.tar.gz (one file:
#     the device tool returns few).
#   DEVALLOC_COMMIT=<hash> bash scripts/gpu-prebuilt.sh bench ARCHIVE [TESTS]
#     ARCHIVE: tar.xz of devalloc-bench-cuda and devalloc_example_distributed_cuda. The README's
#     main job: scripts/gpu-run.sh --prebuilt --no-tests, devalloc-bench --quick (8 GiB heaps for
#     the mixed cells); results.json and the logs go to $OUT/bench/. TESTS (comma-separated) runs
#     only those tests: a run split over two device calls of at most 600 s each, whose parts
#     tools/merge-results joins (the whole run took 430-470 s, a part of it fits with room).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
mode=${1:?tests or bench}
archive=${2:?archive of prebuilt binaries}
: "${DEVALLOC_COMMIT:?export DEVALLOC_COMMIT=<commit>}"
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
header() { nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; echo "commit $DEVALLOC_COMMIT"; }

case "$mode" in
  tests)
    bin=/tmp/devalloc-prebuilt-tests
    logs=/tmp/devalloc-prebuilt-logs
    rm -rf "$bin" "$logs" && mkdir -p "$bin" "$logs/tests" "$logs/sanitizer"
    tar -xJf "$archive" -C "$bin"
    header > "$logs/tests/gpus.txt"
    cat "$logs/tests/gpus.txt"
    for b in devalloc_scatter_tests_cuda devalloc_circular_cuda devalloc_lists_cuda devalloc_fdg_cuda \
             devalloc_coalesce_cuda devalloc_scatter_override_cuda devalloc_runs_cuda; do
      s=$(date +%s)
      timeout 200 "$bin/$b" --gtest_brief=1 > "$logs/tests/test-${b#devalloc_}.log" 2>&1
      echo "== $b rc=$? $(($(date +%s) - s))s"
      grep -E "^\[  (PASSED|FAILED|SKIPPED) +\]|tests? ran|Failure|Expected|Which is" \
        "$logs/tests/test-${b#devalloc_}.log" | head -8 | cut -c1-220
    done
    s=$(date +%s)
    timeout 200 "$bin/devalloc_conformance_cuda" --gtest_brief=1 \
      --gtest_filter='*Scatter*:*XMalloc*:*FDG*:*Coalesce*:*Circular*:*Wrap*:*Runs*' > "$logs/tests/conformance-selected.log" 2>&1
    echo "== conformance (Scatter, XMalloc, FDG, Coalesce, Circular, Wrap, Runs factories) rc=$? $(($(date +%s) - s))s"
    grep -E "^\[  (PASSED|FAILED|SKIPPED) +\]|tests? ran" "$logs/tests/conformance-selected.log" | head -4
    for _ in $(seq 10); do
      "$bin/devalloc_scatter_tests_cuda" --gtest_brief=1 \
        --gtest_filter="ScatterFailureClasses.*:ScatterFragmentation.*:ScatterProtocol.WholeWarps*" 2>&1 |
        grep -E "Which is: [1-9]|^alignment|FAILED  \]|PASSED"
    done > "$logs/tests/scatter-failure-classes-x10.log"
    echo "failure classes passed $(grep -c PASSED "$logs/tests/scatter-failure-classes-x10.log") of 10"
    grep FAILED "$logs/tests/scatter-failure-classes-x10.log" | head -3
    # The Scatter suite's random churns took memcheck past 330 s on an H200 (session 2026-12-07,
    # thirty-second): the suite less the churns, then the default's and the span configuration's.
    for run in "scatter_tests_cuda devalloc_scatter_tests_cuda -*RandomChurn*" \
               "scatter_churn_cuda devalloc_scatter_tests_cuda ScatterEach/Default.RandomChurn*:ScatterEach/Spans.RandomChurn*" \
               "circular_cuda devalloc_circular_cuda *"; do
      read -r name b filter <<< "$run"
      s=$(date +%s)
      timeout 200 compute-sanitizer --tool memcheck --print-limit 10 "$bin/$b" --gtest_brief=1 --gtest_filter="$filter" \
        > "$logs/sanitizer/memcheck-$name.log" 2>&1
      echo "== memcheck $name rc=$? $(($(date +%s) - s))s"
      grep -E "tests? ran|PASSED|FAILED|ERROR SUMMARY" "$logs/sanitizer/memcheck-$name.log" | tail -3
    done
    # synccheck: __syncwarp / *_sync masks that name lanes which do not arrive (divergent callers).
    s=$(date +%s)
    timeout 300 compute-sanitizer --tool synccheck --print-limit 10 "$bin/devalloc_scatter_tests_cuda" --gtest_brief=1 \
      > "$logs/sanitizer/synccheck-scatter_tests_cuda.log" 2>&1
    echo "== synccheck devalloc_scatter_tests_cuda rc=$? $(($(date +%s) - s))s"
    grep -E "tests? ran|PASSED|FAILED|ERROR SUMMARY" "$logs/sanitizer/synccheck-scatter_tests_cuda.log" | tail -3
    s=$(date +%s)
    timeout 300 compute-sanitizer --tool synccheck --print-limit 10 "$bin/devalloc_conformance_cuda" --gtest_brief=1 \
      --gtest_filter='*ConcurrentAllocations*:*Churn*:*Divergent*:-*DeviceMalloc*' \
      > "$logs/sanitizer/synccheck-conformance.log" 2>&1
    echo "== synccheck devalloc_conformance_cuda (concurrent, churn, divergent) rc=$? $(($(date +%s) - s))s"
    grep -E "tests? ran|PASSED|FAILED|ERROR SUMMARY" "$logs/sanitizer/synccheck-conformance.log" | tail -3
    tar -czf "$OUT/test-logs.tar.gz" -C "$logs" tests sanitizer
    ;;
  bench)
    bin=/tmp/devalloc-prebuilt-bench
    rm -rf "$bin" && mkdir -p "$bin" build/gpu/bench build/gpu/examples/distributed
    tar -xJf "$archive" -C "$bin"
    cp "$bin/devalloc-bench-cuda" build/gpu/bench/
    cp "$bin/devalloc_example_distributed_cuda" build/gpu/examples/distributed/
    export DEVALLOC_DISTRIBUTED_BIN=$PWD/build/gpu/examples/distributed/devalloc_example_distributed_cuda
    export NCCL_NVLS_ENABLE=0
    run=/tmp/devalloc-prebuilt-run
    rm -rf "$run"
    OUT=$run DEVALLOC_BENCH_TIMEOUT=500 bash scripts/gpu-run.sh --prebuilt --no-tests \
      --bench "--quick --run-budget 300 --mixed-heap 8G${3:+ --tests $3}" > /tmp/devalloc-prebuilt-run.out 2>&1
    echo "gpu-run rc=$?"
    mkdir -p "$OUT/bench"
    cp "$run/bench/results.json" "$OUT/bench/" && cp "$run/bench.log" "$run/gpu-run.log" "$OUT/bench/" 2>/dev/null
    grep -E "records|verification|results:" "$run/bench.log" | tail -6 | cut -c1-200
    tail -3 "$run/gpu-run.log"
    ;;
  *)
    echo "usage: DEVALLOC_COMMIT=<hash> bash scripts/gpu-prebuilt.sh tests ARCHIVE | bench ARCHIVE [TESTS]" >&2
    exit 2
    ;;
esac
