# issue 15: CoalesceDynamic over CUDA's malloc when its heap runs out, against MailboxDynamic (the same, but
# the group's members wait for the leader's return from malloc on a shared-memory flag, not in a warp shuffle)
set -u
mkdir -p /tmp/cs && tar -xJf .deps/gpuc/cs.tar.xz -C /tmp/cs; C=/tmp/cs/devalloc-coalesce-stress
s0=$(date +%s)
for i in $(seq ${N:-16}); do for a in coalesce-dynamic mailbox-dynamic; do
  DEVALLOC_STRESS_CUDA_HEAP=67108864 timeout 60 $C 270336 32 20 3 $a > /tmp/cs/o.log 2>&1; rc=$?
  { echo "== $a #$i rc=$rc"; grep round /tmp/cs/o.log; } >> $OUT/cs6.log
done; [ $(( $(date +%s) - s0 )) -gt ${BUDGET:-330} ] && { echo "stopped after $i (time)"; break; }; done
for a in coalesce-dynamic mailbox-dynamic; do
  echo "$a: rounds $(grep -c "^$a " $OUT/cs6.log), corrupt rounds $(grep "^$a " $OUT/cs6.log | grep -vc 'bad stamps 0 '), rc!=0 $(grep "== $a" $OUT/cs6.log | grep -vc 'rc=0')"
done
grep -B0 "bad stamps [1-9]" $OUT/cs6.log | cut -c1-180
