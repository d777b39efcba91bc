#!/usr/bin/env bash
# Session 35: fill_anatomy with per-request times (main, ns, ms), then bench-ab of a (main's device
# code), v3b (session 34's grouped page release), ns (no directory scan for classes of 2-8 chunks
# a page) and ms (the free-page map's summary of full words for whole-map claims).
set -u
s0=$(date +%s)
mkdir -p $OUT/fa
for cell in "131072 0.8" "131072 0.9" "131072 0.25" "262144 0.9" "131072 0.8 16 256" "131072 0.9 512 8192"; do
  for v in main ns ms; do
    [ -x .deps/s41/fa-$v ] || continue
    echo "== fa-$v $cell" >> $OUT/fa/fa.log
    timeout 60 .deps/s41/fa-$v $cell >> $OUT/fa/fa.log 2>&1
  done
done
grep -A12 "== fa-.* 131072 0.8$" $OUT/fa/fa.log | grep -v "free chunks\|part-filled"
echo "fa took $(($(date +%s) - s0)) s"
mkdir -p /tmp/abx && tar -xJf .deps/s40/ab.tar.xz -C /tmp/abx && for v in ns ms; do tar -xJf .deps/s41/$v.tar.xz -C /tmp/abx; done
names="a v3b"; for v in ns ms; do [ -x /tmp/abx/$v ] && names="$names $v"; done
(cd /tmp/abx && tar -cf - $names | xz -T0 -0 > /tmp/ab3.tar.xz)
NAMES="$names" ROUNDS=3 TESTS=throughput,mixed,fill,prob,launch timeout 420 bash bench/diag/bench-ab.sh /tmp/ab3.tar.xz 2>&1 | tail -14
echo "all took $(($(date +%s) - s0)) s"
