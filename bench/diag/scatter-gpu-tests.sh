#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 the devalloc authors
# The GPU tests of a Scatter-only change within a small device budget (as one script on an H100 in
# session 2026-12-07, thirty-third: 160-195 s, of which the two memcheck parts 74 and 35-87 s and
# synccheck 23-27 s; results/gpu/2026-12-07_s33_H100/fine-keys/tests-*): the suites that build on
# Scatter, conformance of the Scatter and XMallocSIMD factories, the failure classes five times,
# memcheck of the Scatter suite less its random churns (MEMCHECK_LIMIT, default 150 s) and of the
# default's and the span configuration's churns, synccheck of the Scatter suite, synccheck of
# conformance's concurrent cases of the Scatter and XMallocSIMD factories (scripts/gpu-prebuilt.sh's
# tests less the Circular family, the lists and UnsafeWrap, whose code such a change does not touch).
#   bash bench/diag/scatter-gpu-tests.sh ARCHIVE
# ARCHIVE: a tar.xz of the stripped test binaries devalloc_scatter_tests_cuda, devalloc_fdg_cuda,
# devalloc_coalesce_cuda, devalloc_scatter_override_cuda and devalloc_conformance_cuda, built
# elsewhere (`cmake --preset cuda -DCMAKE_CUDA_ARCHITECTURES=90`, then those targets). Writes
# $OUT/tlogs.tgz (tlogs/: one log per step, gpus.txt with the GPU, date and DEVALLOC_COMMIT) and
# prints each step's result. Sessions 2026-12-06 (twenty-third to twenty-seventh) ran it as a copy
# beside their results.
set -u
archive=${1:?archive of the test binaries}
bin=/tmp/scatter-gpu-tests; logs=$OUT/tlogs
rm -rf "$bin" "$logs" && mkdir -p "$bin" "$logs"
tar -xJf "$archive" -C "$bin"
{ nvidia-smi -L; date -u; echo "commit ${DEVALLOC_COMMIT:-?}"; } | tee "$logs/gpus.txt"
for b in devalloc_scatter_tests_cuda devalloc_fdg_cuda devalloc_coalesce_cuda devalloc_scatter_override_cuda; do
  s=$(date +%s); timeout 120 "$bin/$b" --gtest_brief=1 > "$logs/test-${b#devalloc_}.log" 2>&1
  echo "== $b rc=$? $(($(date +%s) - s))s"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|Which is" "$logs/test-${b#devalloc_}.log" | head -6 | cut -c1-200
done
for _ in $(seq 5); do
  "$bin/devalloc_scatter_tests_cuda" --gtest_brief=1 \
    --gtest_filter="ScatterFailureClasses.*:ScatterFragmentation.*:ScatterProtocol.WholeWarps*" 2>&1 |
    grep -E "Which is: [1-9]|FAILED  \]|PASSED"
done > "$logs/scatter-failure-classes-x5.log"
echo "failure classes passed $(grep -c PASSED "$logs/scatter-failure-classes-x5.log") of 5"
s=$(date +%s)
timeout 60 "$bin/devalloc_conformance_cuda" --gtest_brief=1 --gtest_filter='*Scatter*:*XMalloc*' \
  > "$logs/conformance-scatter.log" 2>&1
echo "== conformance (Scatter, XMalloc factories) rc=$? $(($(date +%s) - s))s"
grep -E "^\[  (PASSED|FAILED|SKIPPED) +\]|tests? ran" "$logs/conformance-scatter.log" | head -4
sanitize() {  # NAME TIMEOUT TOOL BINARY [ARGS...]
  local name=$1 limit=$2 tool=$3; shift 3
  local s; s=$(date +%s)
  timeout "$limit" compute-sanitizer --tool "$tool" --print-limit 10 "$@" --gtest_brief=1 > "$logs/$name.log" 2>&1
  echo "== $name rc=$? $(($(date +%s) - s))s"
  grep -E "PASSED|FAILED|ERROR SUMMARY" "$logs/$name.log" | tail -2
}
# memcheck of the whole Scatter suite did not end in 330 s on an H200 (session 2026-12-07,
# thirty-second): its random churns are most of it. The suite less the churns (88 tests: 82 s
# there), then the churns of the default and the span configuration (69 s).
sanitize memcheck-scatter "${MEMCHECK_LIMIT:-150}" memcheck "$bin/devalloc_scatter_tests_cuda" --gtest_filter='-*RandomChurn*'
sanitize memcheck-scatter-churn 120 memcheck "$bin/devalloc_scatter_tests_cuda" \
  --gtest_filter='ScatterEach/Default.RandomChurn*:ScatterEach/Spans.RandomChurn*'
sanitize synccheck-scatter 30 synccheck "$bin/devalloc_scatter_tests_cuda"
sanitize synccheck-conformance 60 synccheck "$bin/devalloc_conformance_cuda" \
  --gtest_filter='*Scatter*Concurrent*:*Scatter*Churn*:*Scatter*Divergent*:*XMalloc*Concurrent*:*XMalloc*Churn*:*XMalloc*Divergent*:-*DeviceMalloc*:*FDG*'
tar czf "$OUT/tlogs.tgz" -C "$OUT" tlogs && rm -rf "$logs"
