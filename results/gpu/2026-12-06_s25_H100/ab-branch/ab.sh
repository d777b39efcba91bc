#!/bin/bash
# Prepared in session 24 for the next session's first A/B: base = main's device code (3115fe5's
# library, bench code of f19d354), x = branch exp/layout-one-division (layout_of with one division,
# page_bitmap::wrap one subtraction, may_serve by has_spot: plain one_alloc 216 064 -> 195 712
# bytes of SASS, 76 -> 69 registers). Slim devalloc-bench builds (Scatter + CUDA's malloc)
# alternated, 3 rounds; then the plain kernels of each on fresh heaps, two rounds.
set -u
d=$(cd "$(dirname "$0")" && pwd)
s=$(date +%s)
NAMES="base x" ROUNDS=${ROUNDS:-3} TESTS=throughput,mixed,fill,prob,launch bash bench/diag/bench-ab.sh "$d/ab.tar.xz"
echo "A/B took $(($(date +%s)-s)) s"
p=/tmp/bench-ab
for r in 1 2; do for cfg in "1048576 16 16 256" "1048576 256 256 1024" "1048576 4096 4096 8192" "1048576 16 256 1024" "1048576 16 4096 8192" "1048576 512 8192 8192" "131072 16 4096 8192" "131072 16 256 22"; do
  for n in base x; do echo "== $n round $r cfg $cfg"; PLAIN_FRESH=1 timeout 60 "$p/plain-$n" $cfg 9 2>&1 | tail -2; done
done; done > "$OUT/plain.txt" 2>&1
echo "all done $(($(date +%s)-s)) s"
