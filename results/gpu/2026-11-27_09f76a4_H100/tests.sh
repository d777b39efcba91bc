# GPU tests of 09f76a4 (session 2026-11-27: the Circular family in 24 registers; Scatter's full-marks
# without a MEMBAR, the super block counter split, pages opened full): the test binaries of Scatter,
# the Circular family, the list heaps, FDGMalloc and coalescing; the conformance factories over
# Scatter, XMallocSIMD, FDGMalloc, coalescing, the Circular family and UnsafeWrap; the failure
# classes and fragmentation tests x10; memcheck of the Scatter and Circular suites. Logs go back as
# one archive (the device tool returns few files).
set -u
mkdir -p /tmp/t && tar -xJf .deps/gpuc/final-tests.tar.xz -C /tmp/t
o=/tmp/logs; mkdir -p $o/tests $o/sanitizer
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; echo "commit ${DEVALLOC_COMMIT:-?}"; } > $o/tests/gpus.txt
cat $o/tests/gpus.txt
for b in devalloc_scatter_tests_cuda devalloc_circular_cuda devalloc_lists_cuda devalloc_fdg_cuda devalloc_coalesce_cuda devalloc_scatter_override_cuda; do
  s=$(date +%s); timeout 200 /tmp/t/$b --gtest_brief=1 > $o/tests/test-${b#devalloc_}.log 2>&1; rc=$?
  echo "== $b rc=$rc $(( $(date +%s) - s ))s"; grep -E "^\[  (PASSED|FAILED|SKIPPED) +\]|tests? ran|Failure|Expected|Which is" $o/tests/test-${b#devalloc_}.log | head -8 | cut -c1-220
done
s=$(date +%s); timeout 200 /tmp/t/devalloc_conformance_cuda --gtest_brief=1 --gtest_filter='*Scatter*:*XMalloc*:*FDG*:*Coalesce*:*Circular*:*Wrap*' > $o/tests/conformance-selected.log 2>&1
echo "== conformance (Scatter, XMalloc, FDG, Coalesce, Circular, Wrap factories) rc=$? $(( $(date +%s) - s ))s"; grep -E "^\[  (PASSED|FAILED|SKIPPED) +\]|tests? ran" $o/tests/conformance-selected.log | head -4
for i in $(seq 10); do /tmp/t/devalloc_scatter_tests_cuda --gtest_brief=1 --gtest_filter="ScatterFailureClasses.*:ScatterFragmentation.*:ScatterProtocol.WholeWarps*" 2>&1 | grep -E "Which is: [1-9]|^alignment|FAILED  \]|PASSED"; done > $o/tests/scatter-failure-classes-x10.log
echo "failure classes passed $(grep -c PASSED $o/tests/scatter-failure-classes-x10.log) of 10"; grep FAILED $o/tests/scatter-failure-classes-x10.log | head -3
for b in devalloc_scatter_tests_cuda devalloc_circular_cuda; do
  s=$(date +%s)
  timeout 200 compute-sanitizer --tool memcheck --print-limit 10 /tmp/t/$b --gtest_brief=1 > $o/sanitizer/memcheck-${b#devalloc_}.log 2>&1
  echo "== memcheck $b rc=$? $(( $(date +%s) - s ))s"; grep -E "tests? ran|PASSED|FAILED|ERROR SUMMARY" $o/sanitizer/memcheck-${b#devalloc_}.log | tail -3
done
tar -czf $OUT/test-logs.tar.gz -C $o tests sanitizer
