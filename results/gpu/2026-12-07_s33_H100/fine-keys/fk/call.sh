#!/usr/bin/env bash
# Session 33's fourth call (about 60 s): fk = main (8a2bfc8) with the small groups of classes of
# fewer than 8 chunks a page (chunks over 512 B) keyed by warp sixteenth (sm x 16 + warp mod 16) as
# whole warps are, instead of by multiprocessor quarter: more pages filling at once in those
# classes (wastefactor 1 ran those mixed cells up to 18 % faster by more classes). fill_anatomy
# of b (= main's Scatter) and fk; bench-ab of base (main, slim) and fk, three rounds.
set -u
D=.deps/s36
s0=$(date +%s)
mkdir -p /tmp/an && tar -xJf $D/anatomy.tar.xz -C /tmp/an
{ nvidia-smi -L; date -u
for v in b fk; do for a in "131072 0.8" "131072 0.9" "262144 0.9"; do
  echo "=== $v $a 16 4096"; timeout 15 /tmp/an/$v $a 16 4096; echo "rc=$?"
done; done; } > $OUT/anatomy.txt 2>&1
grep -E "^===|failed$" $OUT/anatomy.txt | grep -v "requests of" | paste - - | sed 's/  */ /g' | cut -c1-160
NAMES="base fk" ROUNDS=3 TESTS=throughput,mixed,fill,prob,launch timeout 200 bash bench/diag/bench-ab.sh $D/ab.tar.xz 2>&1 | tail -3
echo "all took $(($(date +%s) - s0)) s"
