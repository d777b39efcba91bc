#!/usr/bin/env bash
# Session 35, second call: fill_anatomy (main, ms2) and bench-ab of a (main's device code) and
# ms2 (the free-page map's summary, set by whole-map scans only, cleared by releases from full).
set -u
s0=$(date +%s)
mkdir -p $OUT/fa
for cell in "131072 0.8" "131072 0.9" "262144 0.9" "131072 0.9 512 8192"; do
  for v in main ms2; do
    echo "== fa-$v $cell" >> $OUT/fa/fa.log
    timeout 60 .deps/s41/fa-$v $cell >> $OUT/fa/fa.log 2>&1
  done
done
grep -A12 "== fa-.* 131072 0.8$" $OUT/fa/fa.log | grep -v "free chunks\|part-filled"
mkdir -p /tmp/abx && tar -xJf .deps/s41/a.tar.xz -C /tmp/abx && tar -xJf .deps/s41/ms2.tar.xz -C /tmp/abx
(cd /tmp/abx && tar -cf - a ms2 | xz -T0 -0 > /tmp/ab4.tar.xz)
NAMES="a ms2" ROUNDS=4 TESTS=throughput,mixed,fill,prob,launch timeout 300 bash bench/diag/bench-ab.sh /tmp/ab4.tar.xz 2>&1 | tail -3
echo "all took $(($(date +%s) - s0)) s"
DEVALLOC_COMMIT=f5709cb+ms2 timeout 250 bash bench/diag/scatter-gpu-tests.sh .deps/s41/tests-ms2.tar.xz 2>&1 | tee $OUT/tests-summary.txt | tail -30
echo "with tests took $(($(date +%s) - s0)) s"
