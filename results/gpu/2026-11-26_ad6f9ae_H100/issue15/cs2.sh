# issue 15: CUDA's malloc alone when its heap runs out, at the load that corrupted the coalescing allocators over it
set -u
mkdir -p /tmp/cs && tar -xJf .deps/gpuc/cs.tar.xz -C /tmp/cs; C=/tmp/cs/devalloc-coalesce-stress
run() { local name=$1; shift; s=$(date +%s); timeout ${T:-60} env "$@" > /tmp/cs/o.log 2>&1; rc=$?
  echo "== $name rc=$rc $(( $(date +%s) - s ))s"; grep -E "round" /tmp/cs/o.log | cut -c1-190; { echo "== $name rc=$rc"; cat /tmp/cs/o.log; } >> $OUT/cs2.log; }
T=100 run "cuda-malloc 4MiB 32B" DEVALLOC_STRESS_CUDA_HEAP=4194304 $C 270336 32 20 6 cuda-malloc
T=100 run "cuda-malloc 16MiB 128B" DEVALLOC_STRESS_CUDA_HEAP=16777216 $C 270336 128 20 6 cuda-malloc
T=100 run "cuda-malloc 16MiB 1536B x 8448 threads" DEVALLOC_STRESS_CUDA_HEAP=16777216 $C 8448 1536 20 20 cuda-malloc
for i in 1 2 3; do
  run "coalesce-block 64MiB 32B #$i" DEVALLOC_STRESS_CUDA_HEAP=67108864 $C 270336 32 20 3 coalesce-block
  run "coalesce-dynamic 64MiB 32B #$i" DEVALLOC_STRESS_CUDA_HEAP=67108864 $C 270336 32 20 3 coalesce-dynamic
done
