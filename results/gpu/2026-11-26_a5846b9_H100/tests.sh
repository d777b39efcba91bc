# After the review refactor of Scatter's search (a5846b9: map_start, open_for_one, try_page through
# may_serve; the same hashes and decisions as c33f4fe): the Scatter suite, conformance over
# Scatter / XMallocSIMD / FDGMalloc, the tight-heap failure-class tests x10.
set -u
mkdir -p /tmp/t && tar -xJf .deps/gpuc/review-tests.tar.xz -C /tmp/t
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; echo "commit a5846b9"; } | tee $OUT/gpus.txt
timeout 120 /tmp/t/devalloc_scatter_tests_cuda --gtest_brief=1 > $OUT/test-scatter.log 2>&1; echo "== scatter rc=$?"; tail -1 $OUT/test-scatter.log
timeout 120 /tmp/t/devalloc_conformance_cuda --gtest_brief=1 --gtest_filter='*Scatter*:*XMalloc*:*FDG*' > $OUT/conformance-scatter.log 2>&1; echo "== conformance rc=$?"; grep -E "^\[  (PASSED|FAILED)" $OUT/conformance-scatter.log
for i in $(seq 10); do /tmp/t/devalloc_scatter_tests_cuda --gtest_brief=1 --gtest_filter="ScatterFailureClasses.*:ScatterFragmentation.*" 2>&1 | grep -E "Which is: [1-9]|FAILED  \]|PASSED"; done > $OUT/failure-classes-x10.log
echo "failure classes passed $(grep -c PASSED $OUT/failure-classes-x10.log) of 10"
