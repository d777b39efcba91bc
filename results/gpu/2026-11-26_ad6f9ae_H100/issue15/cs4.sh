# issue 15: CUDA's malloc alone called by one lane a warp (as coalescing leaders call it), superblock sizes, heap running out
set -u
mkdir -p /tmp/cs && tar -xJf .deps/gpuc/cs.tar.xz -C /tmp/cs; C=/tmp/cs/devalloc-coalesce-stress
run() { local name=$1; shift; s=$(date +%s); timeout ${T:-60} env "$@" > /tmp/cs/o.log 2>&1; rc=$?
  echo "== $name rc=$rc $(( $(date +%s) - s ))s"; grep -E "round" /tmp/cs/o.log | cut -c1-190; { echo "== $name rc=$rc"; cat /tmp/cs/o.log; } >> $OUT/cs4.log; }
for i in 1 2; do
T=100 run "cuda-malloc lone lanes 16MiB 16..1552B x 270336/32 #$i" DEVALLOC_STRESS_STRIDE=32 DEVALLOC_STRESS_CUDA_HEAP=16777216 $C 270336 0 20 8 cuda-malloc
T=100 run "cuda-malloc lone lanes 8MiB 1536B x 270336/32 #$i" DEVALLOC_STRESS_STRIDE=32 DEVALLOC_STRESS_CUDA_HEAP=8388608 $C 270336 1536 20 8 cuda-malloc
done
run "coalesce-block 64MiB 32B" DEVALLOC_STRESS_CUDA_HEAP=67108864 $C 270336 32 20 4 coalesce-block
run "coalesce-dynamic 64MiB 32B" DEVALLOC_STRESS_CUDA_HEAP=67108864 $C 270336 32 20 4 coalesce-dynamic
