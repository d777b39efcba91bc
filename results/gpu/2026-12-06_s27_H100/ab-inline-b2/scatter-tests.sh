#!/bin/bash
# The GPU tests of a Scatter-only change, within a small device budget: the suites that build on
# Scatter, conformance of the Scatter and XMallocSIMD factories, failure classes x5, memcheck and synccheck
# of the Scatter suite, synccheck of conformance's concurrent cases (scripts/gpu-prebuilt.sh tests,
# less the Circular family, lists and UnsafeWrap, whose code the change does not touch).
set -u
bin=/tmp/s27gbin; logs=$OUT/tlogs; rm -rf "$bin" && mkdir -p "$bin" "$logs"
tar -xJf "$(dirname "$0")/tests.tar.xz" -C "$bin"
{ nvidia-smi -L; date -u; echo "commit ${DEVALLOC_COMMIT:-?}"; } | tee "$logs/gpus.txt"
for b in devalloc_scatter_tests_cuda devalloc_fdg_cuda devalloc_coalesce_cuda devalloc_scatter_override_cuda; do
  s=$(date +%s); timeout 120 "$bin/$b" --gtest_brief=1 > "$logs/test-${b#devalloc_}.log" 2>&1
  echo "== $b rc=$? $(($(date +%s) - s))s"; grep -E "^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|Which is" "$logs/test-${b#devalloc_}.log" | head -6 | cut -c1-200
done
for _ in $(seq 5); do
  "$bin/devalloc_scatter_tests_cuda" --gtest_brief=1 --gtest_filter="ScatterFailureClasses.*:ScatterFragmentation.*:ScatterProtocol.WholeWarps*" 2>&1 | grep -E "Which is: [1-9]|FAILED  \]|PASSED"
done > "$logs/scatter-failure-classes-x5.log"
echo "failure classes passed $(grep -c PASSED "$logs/scatter-failure-classes-x5.log") of 5"
s=$(date +%s)
timeout 60 "$bin/devalloc_conformance_cuda" --gtest_brief=1 --gtest_filter='*Scatter*:*XMalloc*' > "$logs/conformance-scatter.log" 2>&1
echo "== conformance (Scatter, XMalloc factories) rc=$? $(($(date +%s) - s))s"
grep -E "^\[  (PASSED|FAILED|SKIPPED) +\]|tests? ran" "$logs/conformance-scatter.log" | head -4
s=$(date +%s); timeout 85 compute-sanitizer --tool memcheck --print-limit 10 "$bin/devalloc_scatter_tests_cuda" --gtest_brief=1 > "$logs/memcheck-scatter.log" 2>&1
echo "== memcheck scatter rc=$? $(($(date +%s) - s))s"; grep -E "PASSED|FAILED|ERROR SUMMARY" "$logs/memcheck-scatter.log" | tail -2
s=$(date +%s); timeout 30 compute-sanitizer --tool synccheck --print-limit 10 "$bin/devalloc_scatter_tests_cuda" --gtest_brief=1 > "$logs/synccheck-scatter.log" 2>&1
echo "== synccheck scatter rc=$? $(($(date +%s) - s))s"; grep -E "PASSED|FAILED|ERROR SUMMARY" "$logs/synccheck-scatter.log" | tail -2
s=$(date +%s); timeout 20 compute-sanitizer --tool synccheck --print-limit 10 "$bin/devalloc_conformance_cuda" --gtest_brief=1 --gtest_filter='*ConcurrentAllocations*:*Churn*:*Divergent*:-*DeviceMalloc*' > "$logs/synccheck-conformance.log" 2>&1
echo "== synccheck conformance (concurrent) rc=$? $(($(date +%s) - s))s"; grep -E "PASSED|FAILED|ERROR SUMMARY" "$logs/synccheck-conformance.log" | tail -2
tar czf "$OUT/tlogs.tgz" -C "$OUT" tlogs && rm -rf "$OUT/tlogs"
