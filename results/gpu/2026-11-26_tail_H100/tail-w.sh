# As tail.sh, for 9f2ef51's library (alloc_whole_page and the batched walk, reverted): where the
# slowest allocations of the failing 16-4096 B fill heaps go when requests over 2 KiB skip the walk.
set -u
mkdir -p /tmp/p && tar -xJf .deps/gpuc/probes6.tar.xz -C /tmp/p
for h in 338000000 300500000; do
  echo "# heap $h mix 131072 1 2 16 4096" >> $OUT/tail-w.log
  PROBE_SLOW=12 PROBE_HEAP=$h PROBE_RESET=1 timeout 60 /tmp/p/w-slow mix 131072 1 2 16 4096 >> $OUT/tail-w.log 2>&1
done
grep -E "^#|last rep|slow |alloc .*G free" $OUT/tail-w.log | grep -v "rep [0-4] " | cut -c1-330
