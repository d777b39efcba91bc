#!/bin/bash
# Session 25: which step of branch exp/layout-one-division costs mixed sizes at 2^20 threads.
# base = main's device code (3115fe5), z = b3c4ae1 (layout_of with one division), y = 99a03c7
# (+ page_bitmap::wrap one subtraction), x = ce898fb (+ may_serve by has_spot). 5 rounds, then
# the plain kernels on fresh heaps, 2 rounds.
set -u
d=$(cd "$(dirname "$0")" && pwd)
s=$(date +%s)
NAMES="base x y z" ROUNDS=${ROUNDS:-5} TESTS=throughput,mixed,fill,prob,launch bash bench/diag/bench-ab.sh "$d/ab.tar.xz"
echo "A/B took $(($(date +%s)-s)) s"
p=/tmp/bench-ab
for r in 1 2; do for cfg in "1048576 16 16 256" "1048576 256 256 1024" "1048576 16 256 1024" "1048576 16 4096 8192" "1048576 512 8192 8192" "131072 16 4096 8192" "131072 16 256 22"; do
  for n in base x y z; do echo "== $n round $r cfg $cfg"; PLAIN_FRESH=1 timeout 60 "$p/plain-$n" $cfg 9 2>&1 | tail -2; done
done; done > "$OUT/plain.txt" 2>&1
echo "all done $(($(date +%s)-s)) s"
