#!/usr/bin/env bash
# Session 33's second call (about 90 s): is dw's collapse at 2^17 threads its few first slots or
# its per-class counter? dw2k = dw with 2048 first slots (every slot key from the start: main's
# slot use, plus the counter read by each small group's leader and bumped at each install), dw128
# = 128 first slots; b (4f91c00, main's Scatter) and dw16 again in the same run.
set -u
D=.deps/s34
s0=$(date +%s)
mkdir -p /tmp/an && tar -xJf $D/anatomy.tar.xz -C /tmp/an
{ nvidia-smi -L; date -u
for v in b dw128; do for s in "" "-s4"; do for a in "131072 0.8" "131072 0.9" "262144 0.9"; do
  echo "=== $v$s $a 16 4096"; timeout 15 /tmp/an/$v$s $a 16 4096; echo "rc=$?"
done; done; done; } > $OUT/anatomy.txt 2>&1
grep -E "^===|failed$" $OUT/anatomy.txt | grep -v "requests of" | paste - - | sed 's/  */ /g' | cut -c1-160
NAMES="b dw16 dw2k dw128" ROUNDS=3 TESTS=throughput,mixed,fill,prob timeout 200 bash bench/diag/bench-ab.sh $D/ab.tar.xz 2>&1 | tail -4
echo "all took $(($(date +%s) - s0)) s"
