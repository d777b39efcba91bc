# Issue 15, session 2026-11-26 (seventh), fourth call: CUDA's malloc alone under the event log (traced-cuda-malloc):
# one lane a warp calling it (as coalescing leaders do) with superblock-like sizes, heaps small enough that
# requests fail; then every lane. Does CUDA's malloc hand out a live block without any coalescing code?
set -u
mkdir -p /tmp/cs && tar -xJf .deps/gpuc/cs.tar.xz -C /tmp/cs
N=/tmp/cs/devalloc-coalesce-stress
{ nvidia-smi -L; date -u; } | tee $OUT/gpus-d.txt
run() { local name=$1 t=$2; shift 2; s=$(date +%s); timeout $t env "$@" > /tmp/cs/o.log 2>&1; rc=$?
  echo "== $name rc=$rc $(( $(date +%s) - s ))s rounds $(grep -c ' round ' /tmp/cs/o.log) overlap-rounds $(grep -c ' [1-9][0-9]* overlaps' /tmp/cs/o.log) bad-free-rounds $(grep -c 'frees, [0-9]* overlaps, [1-9]' /tmp/cs/o.log)"
  grep ' round ' /tmp/cs/o.log | head -2 | cut -c1-180; grep -E "OVERLAP|FREE of|bad stamps [1-9]" /tmp/cs/o.log | head -6 | cut -c1-200
  { echo "== $name rc=$rc"; cat /tmp/cs/o.log; } >> $OUT/traced-alone.log; }
run "lone lanes 1168 B, 16 MiB" 60 DEVALLOC_STRESS_STRIDE=32 DEVALLOC_STRESS_CUDA_HEAP=16777216 $N 270336 1168 20 60 traced-cuda-malloc
run "lone lanes 1168 B, 24 MiB" 60 DEVALLOC_STRESS_STRIDE=32 DEVALLOC_STRESS_CUDA_HEAP=25165824 $N 270336 1168 20 60 traced-cuda-malloc
run "lone lanes 16..1552 B, 8 MiB" 60 DEVALLOC_STRESS_STRIDE=32 DEVALLOC_STRESS_CUDA_HEAP=8388608 $N 270336 0 20 60 traced-cuda-malloc
run "every lane 1168 B x 67584, 64 MiB" 90 DEVALLOC_STRESS_CUDA_HEAP=67108864 $N 67584 1168 20 8 traced-cuda-malloc
run "reference: traced-coalesce-block 64 MiB 32 B" 60 DEVALLOC_STRESS_CUDA_HEAP=67108864 $N 270336 32 20 6 traced-coalesce-block
