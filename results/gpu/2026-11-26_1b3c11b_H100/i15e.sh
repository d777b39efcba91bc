# Issue 15, session 2026-11-26 (seventh), fifth call: the safeguard (fb1a5f2: a superblock that starts a live one is
# refused) under the reproducer with the event log: CUDA's malloc still returns live blocks (trace overlaps), the
# coalescing allocators must refuse them (no wrong stamps, no double frees); the coalescing GPU tests.
set -u
mkdir -p /tmp/sf && tar -xJf .deps/gpuc/safe.tar.xz -C /tmp/sf
N=/tmp/sf/devalloc-coalesce-stress
{ nvidia-smi -L; date -u; } | tee $OUT/gpus-e.txt
s=$(date +%s); timeout 120 /tmp/sf/devalloc_coalesce_cuda --gtest_brief=1 > $OUT/test-coalesce_cuda.log 2>&1; echo "== devalloc_coalesce_cuda rc=$? $(( $(date +%s) - s ))s"; grep -E "PASSED|FAILED|SKIPPED  \]|tests? ran|Failure" $OUT/test-coalesce_cuda.log | head
for i in $(seq ${ITER:-6}); do
  for a in traced-coalesce-block traced-coalesce-dynamic; do
    s=$(date +%s); DEVALLOC_STRESS_CUDA_HEAP=67108864 timeout 60 $N 270336 32 20 6 $a > /tmp/sf/o.log 2>&1; rc=$?
    echo "== $a #$i rc=$rc $(( $(date +%s) - s ))s overlap-rounds $(grep -c ' [1-9][0-9]* overlaps' /tmp/sf/o.log) wrong-stamp-rounds $(grep ' round ' /tmp/sf/o.log | grep -vc 'bad stamps 0 ') last-double-frees $(grep ' round ' /tmp/sf/o.log | tail -1 | sed 's/.*double frees //')"
    grep -E "OVERLAP|FREE of|bad stamps [1-9]" /tmp/sf/o.log | head -4 | cut -c1-200
    { echo "== $a #$i rc=$rc"; cat /tmp/sf/o.log; } >> $OUT/traced-safeguard.log
  done
done
