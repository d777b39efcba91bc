# Every GPU test binary but conformance (conf.sh runs it in two calls), memcheck of the Circular suite,
# the Scatter failure classes x15, racecheck of the list tests x2; logs tarred to $OUT/t.tgz
set -u
mkdir -p /tmp/t && tar -xJf .deps/gpuc/tests.tar.xz -C /tmp/t
o=/tmp/ot; mkdir -p $o/tests $o/sanitizer
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; echo "commit ${DEVALLOC_COMMIT:-?}"; } > $o/tests/gpus.txt
cat $o/tests/gpus.txt
for b in devalloc_circular_cuda devalloc_scatter_tests_cuda devalloc_lists_cuda devalloc_fdg_cuda devalloc_coalesce_cuda devalloc_scatter_override_cuda; do
  s=$(date +%s); timeout 200 /tmp/t/$b --gtest_brief=1 > $o/tests/test-${b#devalloc_}.log 2>&1; rc=$?
  echo "== $b rc=$rc $(( $(date +%s) - s ))s"; grep -E "^\[  (PASSED|FAILED|SKIPPED) +\]|tests? ran|Failure|nullptr|Expected|Which is" $o/tests/test-${b#devalloc_}.log | head -8 | cut -c1-220
done
s=$(date +%s)
timeout 100 compute-sanitizer --tool memcheck --print-limit 10 /tmp/t/devalloc_circular_cuda --gtest_brief=1 > $o/sanitizer/memcheck-circular.log 2>&1
echo "== memcheck circular suite rc=$? $(( $(date +%s) - s ))s"; grep -E "tests? ran|PASSED|FAILED|ERROR SUMMARY" $o/sanitizer/memcheck-circular.log | tail -3
for i in 1 2; do s=$(date +%s)
timeout 100 compute-sanitizer --tool racecheck --print-limit 10 /tmp/t/devalloc_lists_cuda --gtest_brief=1 > $o/sanitizer/racecheck-lists-$i.log 2>&1
echo "== racecheck lists rc=$? $(( $(date +%s) - s ))s $(grep -E "PASSED|FAILED  \]|RACECHECK SUMMARY|Which is: [1-9]" $o/sanitizer/racecheck-lists-$i.log | tr '\n' ' ' | cut -c1-200)"
done
for i in $(seq 15); do /tmp/t/devalloc_scatter_tests_cuda --gtest_brief=1 --gtest_filter="ScatterFailureClasses.*:ScatterFragmentation.*" 2>&1 | grep -E "Which is: [1-9]|^alignment|FAILED  \]|PASSED"; done > $o/tests/scatter-failure-classes-x15.log; echo "failure classes passed $(grep -c PASSED $o/tests/scatter-failure-classes-x15.log) of 15"; grep FAILED $o/tests/scatter-failure-classes-x15.log | head
tar -czf $OUT/t.tgz -C $o .
