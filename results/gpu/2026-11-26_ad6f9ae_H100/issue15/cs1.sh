# issue 15: coalescing over CUDA's malloc when its heap runs out (DEVALLOC_STRESS_CUDA_HEAP), against CUDA's malloc alone
set -u
mkdir -p /tmp/cs && tar -xJf .deps/gpuc/cs.tar.xz -C /tmp/cs; C=/tmp/cs/devalloc-coalesce-stress
run() { local name=$1; shift; s=$(date +%s); timeout ${T:-60} env "$@" > /tmp/cs/o.log 2>&1; rc=$?
  echo "== $name rc=$rc $(( $(date +%s) - s ))s"; grep -E "round" /tmp/cs/o.log | cut -c1-190; { echo "== $name rc=$rc"; cat /tmp/cs/o.log; } >> $OUT/cs1.log; }
H=67108864
for i in 1 2; do
  run "coalesce-block 64MiB 32B #$i" DEVALLOC_STRESS_CUDA_HEAP=$H $C 270336 32 20 3 coalesce-block
  run "coalesce-dynamic 64MiB 32B #$i" DEVALLOC_STRESS_CUDA_HEAP=$H $C 270336 32 20 3 coalesce-dynamic
done
run "coalesce-block 2GiB 32B" $C 270336 32 20 3 coalesce-block
T=90 run "cuda-malloc 64MiB 32B" DEVALLOC_STRESS_CUDA_HEAP=$H $C 270336 32 20 2 cuda-malloc
run "cuda-malloc 64MiB 1536B x 8448 threads" DEVALLOC_STRESS_CUDA_HEAP=$H $C 8448 1536 20 3 cuda-malloc
run "cuda-malloc 16MiB 1536B x 8448 threads" DEVALLOC_STRESS_CUDA_HEAP=16777216 $C 8448 1536 20 3 cuda-malloc
run "coalesce-block 16MiB 32B x 67584 threads" DEVALLOC_STRESS_CUDA_HEAP=16777216 $C 67584 32 20 3 coalesce-block
s=$(date +%s); DEVALLOC_STRESS_CUDA_HEAP=16777216 timeout 150 compute-sanitizer --tool memcheck --print-limit 20 $C 67584 32 10 1 coalesce-block > $OUT/cs1-memcheck.log 2>&1
echo "== memcheck coalesce-block 16MiB 32B x 67584 rc=$? $(( $(date +%s) - s ))s"; grep -E "round|ERROR SUMMARY|Invalid|Address" $OUT/cs1-memcheck.log | head -12 | cut -c1-190
