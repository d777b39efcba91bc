# Issue 15, session 2026-11-26 (seventh), third call: the coalescing allocators over TracingMalloc (CUDA's malloc
# with every superblock returned and every free logged in one numbered order, replayed on the host after each
# round): does CUDA's malloc hand out a block that overlaps a live one, or do we free a block twice?
set -u
mkdir -p /tmp/cs && tar -xJf .deps/gpuc/cs.tar.xz -C /tmp/cs
N=/tmp/cs/devalloc-coalesce-stress
{ nvidia-smi -L; date -u; } | tee $OUT/gpus-c.txt
for i in $(seq ${ITER:-8}); do
  for a in traced-coalesce-block traced-coalesce-dynamic; do
    s=$(date +%s); DEVALLOC_STRESS_CUDA_HEAP=67108864 timeout 60 $N 270336 32 20 6 $a > /tmp/cs/o.log 2>&1; rc=$?
    echo "== $a #$i rc=$rc $(( $(date +%s) - s ))s"; grep -E "bad stamps [1-9]|OVERLAP|FREE of|overlaps [1-9]|frees of blocks not live [1-9]|overflow" /tmp/cs/o.log | head -12 | cut -c1-220
    { echo "== $a #$i rc=$rc"; cat /tmp/cs/o.log; } >> $OUT/traced.log
  done
done
grep -c "trace:.*events" $OUT/traced.log
