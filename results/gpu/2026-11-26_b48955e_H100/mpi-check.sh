# The MPI test at full scale for CUDA's malloc and two coalescing allocators: the cells where
# CUDA's malloc runs past its deadline (reduce / broadcast at 270 336 ranks) are the ones whose
# timed-out collective read freed buffers before de7e24e; check-results must find 0 errors.
set -u
mkdir -p /tmp/b && tar -xJf .deps/gpuc/bench.tar.xz -C /tmp/b ./devalloc-bench-cuda
s=$(date +%s)
timeout 280 /tmp/b/devalloc-bench-cuda --full --tests mpi --allocators cuda-malloc,coalesce-block,coalesce-dynamic \
  --cell-budget 10 --pair-budget 60 --run-budget 240 --out $OUT/mpi-full > $OUT/mpi-full.log 2>&1
echo "== mpi rc=$? $(( $(date +%s) - s ))s"
awk '/^== mpi/,/^$/' $OUT/mpi-full.log | cut -c1-160
python3 tools/check-results $OUT/mpi-full/results.json 2>&1 | tail -3
