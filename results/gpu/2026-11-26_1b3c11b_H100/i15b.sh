# Issue 15, session 2026-11-26 (seventh), second call: do fences around CUDA's malloc/free stop the corruption?
# coalesce-dynamic / coalesce-block over creation::DeviceMalloc (reference) and over FencedMalloc (a device-scope
# fence after malloc and before free), alternating, CUDA heap 64 MiB, 270 336 threads x 32 B, 6 rounds a process;
# then CUDA's malloc alone with one lane a warp calling it (superblock-like sizes 16..1552 B) at heaps small
# enough that requests fail.
set -u
mkdir -p /tmp/cs && tar -xJf .deps/gpuc/cs.tar.xz -C /tmp/cs
N=/tmp/cs/devalloc-coalesce-stress
{ nvidia-smi -L; date -u; } | tee $OUT/gpus-b.txt
run() { local log=$1 name=$2 t=$3; shift 3; s=$(date +%s); timeout $t env "$@" > /tmp/cs/o.log 2>&1; rc=$?
  echo "== $name rc=$rc $(( $(date +%s) - s ))s rounds $(grep -c ' round ' /tmp/cs/o.log) corrupt $(grep ' round ' /tmp/cs/o.log | grep -vc 'bad stamps 0 (words 0)  invalid frees 0 double frees 0')"
  grep ' round ' /tmp/cs/o.log | grep -v 'bad stamps 0 (words 0)  invalid frees 0 double frees 0' | cut -c1-200
  { echo "== $name rc=$rc"; cat /tmp/cs/o.log; } >> $OUT/$log; }
for h in 25165824 33554432; do
  run stride.log "cuda-malloc stride 32, heap $h, 16..1552B" 40 DEVALLOC_STRESS_STRIDE=32 DEVALLOC_STRESS_CUDA_HEAP=$h $N 270336 0 20 40 cuda-malloc
done
for i in $(seq ${ITER:-8}); do
  for a in coalesce-dynamic fenced-coalesce-dynamic coalesce-block fenced-coalesce-block; do
    run fenced.log "$a #$i" 40 DEVALLOC_STRESS_CUDA_HEAP=67108864 $N 270336 32 20 6 $a
  done
done
echo "== totals"; for a in coalesce-dynamic fenced-coalesce-dynamic coalesce-block fenced-coalesce-block; do
  echo "$a rounds $(grep -c "^$a  *round" $OUT/fenced.log) corrupt $(grep "^$a  *round" $OUT/fenced.log | grep -vc 'bad stamps 0 (words 0)  invalid frees 0 double frees 0')"; done
