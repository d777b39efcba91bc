# Issue 15's evaluation at full scale (devalloc-bench --full --tests workloads,mpi) for CUDA's malloc, Scatter and the
# coalescing allocators, with the benchmark binary the bench call left in build/gpu/bench.
set -u
B=build/gpu/bench/devalloc-bench-cuda
[ -x $B ] || { echo "no $B (run final-bench.sh on this machine first)"; exit 1; }
s=$(date +%s)
timeout ${T:-300} $B --full --tests workloads,mpi --allocators cuda-malloc,scatter,coalesce-block,coalesce-hashed,coalesce-dynamic \
  --cell-budget 10 --pair-budget ${PAIR:-50} --run-budget ${RUN:-260} --no-table --quiet --out $OUT/coalesce-eval > $OUT/coalesce-eval.log 2>&1
echo "== eval rc=$? $(( $(date +%s) - s ))s"; tail -5 $OUT/coalesce-eval.log | cut -c1-200; ls $OUT/coalesce-eval
