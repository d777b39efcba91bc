# Final GPU benchmark run: the README's main job (devalloc-bench --quick, every test and allocator)
# on carried binaries; at most 8 files come back, so only the logs and results.json go to $OUT.
set -u
: "${DEVALLOC_COMMIT:?export DEVALLOC_COMMIT=<commit>: the tree on the GPU machine has no .git, and the binary would name the commit that configured its build folder}"
mkdir -p build/gpu/bench build/gpu/examples/distributed /tmp/b
tar -xJf .deps/gpuc/bench.tar.xz -C /tmp/b
cp /tmp/b/devalloc-bench-cuda build/gpu/bench/ && cp /tmp/b/devalloc_example_distributed_cuda build/gpu/examples/distributed/
export DEVALLOC_DISTRIBUTED_BIN=$PWD/build/gpu/examples/distributed/devalloc_example_distributed_cuda NCCL_NVLS_ENABLE=0
OUT=/tmp/o DEVALLOC_BENCH_TIMEOUT=500 bash scripts/gpu-run.sh --prebuilt --no-tests --bench "--quick --run-budget 300 --mixed-heap 8G" > /tmp/gpu-run.out 2>&1
echo "gpu-run rc=$?"
mkdir -p $OUT/bench && cp /tmp/o/bench/results.json $OUT/bench/ && cp /tmp/o/bench.log /tmp/o/gpu-run.log $OUT/bench/ 2>/dev/null
grep -E "records|verification|error|Error|skipped|results:" /tmp/o/bench.log | tail -30 | cut -c1-200
tail -5 /tmp/o/gpu-run.log
if [ -f /tmp/b/devalloc-coalesce-stress ]; then
  s=$(date +%s); timeout 45 /tmp/b/devalloc-coalesce-stress > $OUT/coalesce-stress.log 2>&1; echo "== coalesce-stress rc=$? $(( $(date +%s) - s ))s"; tail -12 $OUT/coalesce-stress.log
fi
