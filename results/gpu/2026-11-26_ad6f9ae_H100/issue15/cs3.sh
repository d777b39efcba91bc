# issue 15: CUDA's malloc alone with superblock-like sizes (16..1552 B) when its heap runs out; the coalescing
# allocators over Scatter when Scatter's heap runs out (our code's out-of-memory paths without CUDA's malloc)
set -u
mkdir -p /tmp/cs && tar -xJf .deps/gpuc/cs.tar.xz -C /tmp/cs; C=/tmp/cs/devalloc-coalesce-stress
run() { local name=$1; shift; s=$(date +%s); timeout ${T:-60} env "$@" > /tmp/cs/o.log 2>&1; rc=$?
  echo "== $name rc=$rc $(( $(date +%s) - s ))s"; grep -E "round" /tmp/cs/o.log | cut -c1-190; { echo "== $name rc=$rc"; cat /tmp/cs/o.log; } >> $OUT/cs3.log; }
T=120 run "cuda-malloc 16MiB 16..1552B x 8448 threads" DEVALLOC_STRESS_CUDA_HEAP=16777216 $C 8448 0 20 20 cuda-malloc
T=120 run "cuda-malloc 64MiB 16..1552B x 67584 threads" DEVALLOC_STRESS_CUDA_HEAP=67108864 $C 67584 0 20 6 cuda-malloc
for i in 1 2 3; do
  run "scatter-coalesce-block 16MiB 32B #$i" DEVALLOC_STRESS_HEAP=16777216 $C 270336 32 20 3 scatter-coalesce-block
  run "scatter-coalesce-dynamic 16MiB 32B #$i" DEVALLOC_STRESS_HEAP=16777216 $C 270336 32 20 3 scatter-coalesce-dynamic
done
