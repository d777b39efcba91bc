#!/bin/bash
# Session 25: free_chunk resets a full page that a warp frees whole with one CAS (branch
# exp/free-one-cas, 334b2f2) against main's device code (z = 65a2485's library). Slim builds,
# 5 rounds alternated; then the plain kernels on fresh heaps, 2 rounds.
set -u
d=$(cd "$(dirname "$0")" && pwd)
s=$(date +%s)
NAMES="z w" ROUNDS=${ROUNDS:-5} TESTS=throughput,mixed,fill,prob,launch bash bench/diag/bench-ab.sh "$d/ab.tar.xz"
echo "A/B took $(($(date +%s)-s)) s"
p=/tmp/bench-ab
for r in 1 2; do for cfg in "1048576 16 16 256" "1048576 256 256 1024" "1048576 1024 1024 2048" "1048576 4096 4096 8192" "1048576 16 256 1024" "1048576 16 4096 8192" "1048576 512 8192 8192" "131072 16 256 22"; do
  for n in z w; do echo "== $n round $r cfg $cfg"; PLAIN_FRESH=1 timeout 60 "$p/plain-$n" $cfg 9 2>&1 | tail -2; done
done; done > "$OUT/plain.txt" 2>&1
echo "all done $(($(date +%s)-s)) s"
