# Issue 15, session 2026-11-26 (seventh). Part 1: devalloc-coalesce-stress as committed at 9d38bb9 (owed run),
# every mode once. Part 2: the new diagnostics (coalescing over ListFirstFit, over CUDA's malloc with
# fences, coalesce-hashed) alternating with the coalesce-dynamic reference, CUDA heap 64 MiB.
set -u
mkdir -p /tmp/cs && tar -xJf .deps/gpuc/cs.tar.xz -C /tmp/cs
O=/tmp/cs/stress-9d38bb9; N=/tmp/cs/devalloc-coalesce-stress
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; } | tee $OUT/gpus.txt
run() { local log=$1 name=$2 t=$3; shift 3; s=$(date +%s); timeout $t env "$@" > /tmp/cs/o.log 2>&1; rc=$?
  echo "== $name rc=$rc $(( $(date +%s) - s ))s rounds $(grep -c ' round ' /tmp/cs/o.log) corrupt $(grep ' round ' /tmp/cs/o.log | grep -vc 'bad stamps 0 (words 0)  invalid frees 0 double frees 0')"
  grep ' round ' /tmp/cs/o.log | grep -v 'bad stamps 0 (words 0)  invalid frees 0 double frees 0' | cut -c1-200
  { echo "== $name rc=$rc"; cat /tmp/cs/o.log; } >> $OUT/$log; }
echo "--- part 1: 9d38bb9, every mode"
run owed.log "default (2 GiB CUDA heap, 1 GiB Scatter heap) 32 B" 120 $O 270336 32 20 1
run owed.log "default size 0 (16..1552 B) x 67584" 60 $O 67584 0 20 1
for a in coalesce-dynamic coalesce-block mailbox-dynamic; do
  run owed.log "$a 64MiB 32B" 60 DEVALLOC_STRESS_CUDA_HEAP=67108864 $O 270336 32 20 3 $a; done
run owed.log "cuda-malloc stride 32, 16MiB, 16..1552B" 60 DEVALLOC_STRESS_STRIDE=32 DEVALLOC_STRESS_CUDA_HEAP=16777216 $O 270336 0 20 2 cuda-malloc
run owed.log "cuda-malloc cross, 4MiB, 32B" 90 DEVALLOC_STRESS_CROSS=1 DEVALLOC_STRESS_CUDA_HEAP=4194304 $O 270336 32 20 2 cuda-malloc
run owed.log "cuda-malloc pair, 16MiB, 2x32B" 90 DEVALLOC_STRESS_PAIR=1 DEVALLOC_STRESS_CUDA_HEAP=16777216 $O 270336 32 20 2 cuda-malloc
run owed.log "scatter-coalesce-* 64MiB Scatter heap" 60 DEVALLOC_STRESS_HEAP=67108864 $O 270336 32 20 2 scatter-coalesce-block
echo "--- part 2: new diagnostics, alternating, ${ITER:-6} x 3 rounds each"
for i in $(seq ${ITER:-6}); do
  run i15.log "coalesce-dynamic (reference) #$i" 40 DEVALLOC_STRESS_CUDA_HEAP=67108864 $N 270336 32 20 3 coalesce-dynamic
  run i15.log "fenced-coalesce-dynamic #$i" 40 DEVALLOC_STRESS_CUDA_HEAP=67108864 $N 270336 32 20 3 fenced-coalesce-dynamic
  run i15.log "fenced-coalesce-block #$i" 40 DEVALLOC_STRESS_CUDA_HEAP=67108864 $N 270336 32 20 3 fenced-coalesce-block
  run i15.log "coalesce-hashed #$i" 40 DEVALLOC_STRESS_CUDA_HEAP=67108864 $N 270336 32 20 3 coalesce-hashed
  run i15.log "list-coalesce-dynamic 64MiB #$i" 40 DEVALLOC_STRESS_HEAP=67108864 $N 270336 32 20 3 list-coalesce-dynamic
  run i15.log "list-coalesce-block 64MiB #$i" 40 DEVALLOC_STRESS_HEAP=67108864 $N 270336 32 20 3 list-coalesce-block
  run i15.log "scatter-coalesce-dynamic 64MiB #$i" 40 DEVALLOC_STRESS_HEAP=67108864 $N 270336 32 20 3 scatter-coalesce-dynamic
done
