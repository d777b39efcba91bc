# Final GPU run of the session's last library commit (one call, little device time left): every GPU test binary
# (conformance: the coalescing factories, which the last commits touched; the whole suite ran at fb1a5f2 / 4f68349),
# memcheck of the coalescing suite, the coalescing stress over a 64 MiB CUDA heap, and devalloc-bench quick
# (the README's main job) with a 150 s run budget.
set -u
: "${DEVALLOC_COMMIT:?export DEVALLOC_COMMIT=<commit>}"
mkdir -p /tmp/t && tar -xJf .deps/gpuc/tests.tar.xz -C /tmp/t
o=$OUT/tests; mkdir -p $o
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; echo "commit $DEVALLOC_COMMIT"; } | tee $o/gpus.txt
for b in devalloc_circular_cuda devalloc_scatter_tests_cuda devalloc_lists_cuda devalloc_fdg_cuda devalloc_coalesce_cuda devalloc_scatter_override_cuda; do
  s=$(date +%s); timeout 120 /tmp/t/$b --gtest_brief=1 > $o/test-${b#devalloc_}.log 2>&1; rc=$?
  echo "== $b rc=$rc $(( $(date +%s) - s ))s"; grep -E "^\[  (PASSED|FAILED|SKIPPED) +\]|Failure" $o/test-${b#devalloc_}.log | head -4 | cut -c1-200
done
s=$(date +%s); timeout 120 /tmp/t/devalloc_conformance_cuda --gtest_brief=1 --gtest_filter='*Coalesce*' > $o/conformance-coalesce.log 2>&1; echo "== conformance *Coalesce* rc=$? $(( $(date +%s) - s ))s"; grep -E "^\[  (PASSED|FAILED|SKIPPED) +\]" $o/conformance-coalesce.log | head -3
s=$(date +%s); timeout 60 compute-sanitizer --tool memcheck --print-limit 10 /tmp/t/devalloc_coalesce_cuda --gtest_brief=1 > $o/memcheck-coalesce.log 2>&1; echo "== memcheck coalesce rc=$? $(( $(date +%s) - s ))s"; grep -E "PASSED|FAILED|ERROR SUMMARY" $o/memcheck-coalesce.log | tail -2
for a in coalesce-block coalesce-dynamic; do
  s=$(date +%s); DEVALLOC_STRESS_CUDA_HEAP=67108864 timeout 40 /tmp/t/devalloc-coalesce-stress 270336 32 20 3 $a > /tmp/t/o.log 2>&1; echo "== stress 64MiB $a rc=$? $(( $(date +%s) - s ))s"; grep " round " /tmp/t/o.log | cut -c1-190; cat /tmp/t/o.log >> $o/coalesce-stress-small-heap.log
done
mkdir -p build/gpu/bench build/gpu/examples/distributed && cp /tmp/t/devalloc-bench-cuda build/gpu/bench/ && cp /tmp/t/devalloc_example_distributed_cuda build/gpu/examples/distributed/
export DEVALLOC_DISTRIBUTED_BIN=$PWD/build/gpu/examples/distributed/devalloc_example_distributed_cuda NCCL_NVLS_ENABLE=0
OUT=/tmp/o DEVALLOC_BENCH_TIMEOUT=280 bash scripts/gpu-run.sh --prebuilt --no-tests --bench "--quick --run-budget 150 --mixed-heap 8G" > /tmp/gpu-run.out 2>&1
echo "gpu-run rc=$?"
mkdir -p $OUT/bench && cp /tmp/o/bench/results.json /tmp/o/bench.log /tmp/o/gpu-run.log $OUT/bench/ 2>/dev/null
grep -E "records|verification|results:|result:" /tmp/o/bench.log /tmp/o/gpu-run.log | tail -6 | cut -c1-200
