# The README's main job on the GPU for the commit given: devalloc-bench --quick, every test and allocator
# (scripts/gpu-run.sh --prebuilt with the binaries built here for sm_90; 8 GiB heaps for the mixed cells).
set -u
: "${DEVALLOC_COMMIT:?export DEVALLOC_COMMIT=<commit>}"
mkdir -p build/gpu/bench build/gpu/examples/distributed /tmp/b
tar -xJf .deps/gpuc/final-bench.tar.xz -C /tmp/b
cp /tmp/b/devalloc-bench-cuda build/gpu/bench/ && cp /tmp/b/devalloc_example_distributed_cuda build/gpu/examples/distributed/
export DEVALLOC_DISTRIBUTED_BIN=$PWD/build/gpu/examples/distributed/devalloc_example_distributed_cuda NCCL_NVLS_ENABLE=0
OUT=/tmp/o DEVALLOC_BENCH_TIMEOUT=500 bash scripts/gpu-run.sh --prebuilt --no-tests --bench "--quick --run-budget 300 --mixed-heap 8G" > /tmp/gpu-run.out 2>&1
echo "gpu-run rc=$?"
mkdir -p $OUT/bench && cp /tmp/o/bench/results.json $OUT/bench/ && cp /tmp/o/bench.log /tmp/o/gpu-run.log $OUT/bench/ 2>/dev/null
grep -E "records|verification|results:" /tmp/o/bench.log | tail -6 | cut -c1-200
tail -3 /tmp/o/gpu-run.log
