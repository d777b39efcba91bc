# GPU run of 70441b7's Scatter suite (the library of 4feebb2; the suite gained SpansSimd: every
# ScatterEach test with spans under XMallocSIMD): the suite x3, memcheck of it.
set -u
mkdir -p /tmp/t && tar -xJf .deps/gpuc/scatter-tests.tar.xz -C /tmp/t
o=$OUT; mkdir -p $o/tests $o/sanitizer
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; echo "commit ${DEVALLOC_COMMIT:-?}"; } > $o/tests/gpus.txt
cat $o/tests/gpus.txt
for i in 1 2 3; do
  timeout 200 /tmp/t/devalloc_scatter_tests_cuda --gtest_brief=1 > $o/tests/scatter-$i.log 2>&1
  echo "== scatter suite run $i rc=$?"; grep -E "^\[  (PASSED|FAILED) +\]|Failure" $o/tests/scatter-$i.log | head -5
done
timeout 250 compute-sanitizer --tool memcheck --print-limit 10 /tmp/t/devalloc_scatter_tests_cuda --gtest_brief=1 > $o/sanitizer/memcheck-scatter.log 2>&1
echo "== memcheck rc=$?"; grep -E "PASSED|FAILED|ERROR SUMMARY" $o/sanitizer/memcheck-scatter.log | tail -3
