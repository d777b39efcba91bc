#!/usr/bin/env bash
# Session 35, third call: the slowest allocations of the tight 16-4096 B fill with the allocator's
# event counts (devalloc-scatter-probe-counts, DIAG_PROBE build of main); fill_anatomy and bench-ab
# of main's device code (a) and sw (small groups' directory scans skip the whole-warp slots).
set -u
s0=$(date +%s)
nvidia-smi -L > $OUT/gpu.txt
for heap in 337980784 300427360; do
  echo "== heap $heap"
  PROBE_DEFAULT_ONLY=1 PROBE_RESET=1 PROBE_HEAP=$heap PROBE_SLOW=60 timeout 100 .deps/s42/probe mix 131072 1 3 16 4096 2>&1
done > $OUT/probe-slow.log
echo "probe took $(($(date +%s) - s0)) s"
mkdir -p $OUT/fa
for cell in "131072 0.8" "131072 0.9" "262144 0.9" "131072 0.25"; do
  for v in main sw; do
    [ -x .deps/s42/fa-$v ] || continue
    echo "== fa-$v $cell" >> $OUT/fa/fa.log
    timeout 60 .deps/s42/fa-$v $cell >> $OUT/fa/fa.log 2>&1
  done
done
if [ -f .deps/s42/sw.tar.xz ]; then
  mkdir -p /tmp/abx && tar -xJf .deps/s42/a.tar.xz -C /tmp/abx && tar -xJf .deps/s42/sw.tar.xz -C /tmp/abx
  (cd /tmp/abx && tar -cf - a sw | xz -T0 -0 > /tmp/ab5.tar.xz)
  NAMES="a sw" ROUNDS=3 TESTS=throughput,mixed,fill,prob,launch timeout 200 bash bench/diag/bench-ab.sh /tmp/ab5.tar.xz 2>&1 | tail -2
fi
grep -A9 "== fa-.* 131072 0.8$" $OUT/fa/fa.log | grep "requests of\|launch"
head -c 6000 $OUT/probe-slow.log
echo "all took $(($(date +%s) - s0)) s"
