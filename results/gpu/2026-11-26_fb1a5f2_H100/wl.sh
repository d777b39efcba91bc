# Issue 15's workloads at the quick scale (16 384 threads) for CUDA's malloc, Scatter and the coalescing allocators
mkdir -p /tmp/b && tar -xJf .deps/gpuc/bench.tar.xz -C /tmp/b ./devalloc-bench-cuda
s=$(date +%s); timeout 200 /tmp/b/devalloc-bench-cuda --quick --tests workloads --allocators cuda-malloc,scatter,coalesce-block,coalesce-hashed,coalesce-dynamic \
  --pair-budget 30 --run-budget 150 --out $OUT/workloads-quick > $OUT/workloads-quick.log 2>&1; echo "== workloads rc=$? $(( $(date +%s) - s ))s"; grep -E "linear|quadratic" $OUT/workloads-quick.log | head -30 | cut -c1-250
