# GPU tests of ad9bec0 (fewer instructions on Scatter's allocation path; with 2c50290's release fence):
# the test binaries that use Scatter or coalescing, the conformance factories over Scatter,
# XMallocSIMD, FDGMalloc and the coalescing policies, the failure classes and fragmentation tests x10,
# memcheck of the Scatter suite. Logs go back as one archive (the device tool returns few files).
set -u
mkdir -p /tmp/t && tar -xJf .deps/gpuc/final-tests.tar.xz -C /tmp/t
o=/tmp/logs; mkdir -p $o/tests $o/sanitizer
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; echo "commit ${DEVALLOC_COMMIT:-?}"; } > $o/tests/gpus.txt
cat $o/tests/gpus.txt
for b in devalloc_scatter_tests_cuda devalloc_fdg_cuda devalloc_coalesce_cuda devalloc_scatter_override_cuda; do
  s=$(date +%s); timeout 200 /tmp/t/$b --gtest_brief=1 > $o/tests/test-${b#devalloc_}.log 2>&1; rc=$?
  echo "== $b rc=$rc $(( $(date +%s) - s ))s"; grep -E "^\[  (PASSED|FAILED|SKIPPED) +\]|tests? ran|Failure|Expected|Which is" $o/tests/test-${b#devalloc_}.log | head -8 | cut -c1-220
done
s=$(date +%s); timeout 150 /tmp/t/devalloc_conformance_cuda --gtest_brief=1 --gtest_filter='*Scatter*:*XMalloc*:*FDG*:*Coalesce*' > $o/tests/conformance-scatter-coalesce.log 2>&1
echo "== conformance (Scatter, XMalloc, FDG, Coalesce factories) rc=$? $(( $(date +%s) - s ))s"; grep -E "^\[  (PASSED|FAILED|SKIPPED) +\]|tests? ran" $o/tests/conformance-scatter-coalesce.log | head -4
for i in $(seq 10); do /tmp/t/devalloc_scatter_tests_cuda --gtest_brief=1 --gtest_filter="ScatterFailureClasses.*:ScatterFragmentation.*" 2>&1 | grep -E "Which is: [1-9]|^alignment|FAILED  \]|PASSED"; done > $o/tests/scatter-failure-classes-x10.log
echo "failure classes passed $(grep -c PASSED $o/tests/scatter-failure-classes-x10.log) of 10"; grep FAILED $o/tests/scatter-failure-classes-x10.log | head -3
s=$(date +%s)
timeout 200 compute-sanitizer --tool memcheck --print-limit 10 /tmp/t/devalloc_scatter_tests_cuda --gtest_brief=1 > $o/sanitizer/memcheck-scatter.log 2>&1
echo "== memcheck scatter suite rc=$? $(( $(date +%s) - s ))s"; grep -E "tests? ran|PASSED|FAILED|ERROR SUMMARY" $o/sanitizer/memcheck-scatter.log | tail -3
tar -czf $OUT/test-logs.tar.gz -C $o tests sanitizer
