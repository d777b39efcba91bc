#!/bin/bash
# Session 26, third A/B call: z (b0da729's device code) against b (3bbc7b6, d064378's library) and
# b2 (exp/s26-AB2 cd873f6: the class page CAS without loads only when the leader read it empty),
# three rounds alternated, devalloc-bench quick (Scatter).
set -u
d=$(cd "$(dirname "$0")" && pwd)
s=$(date +%s)
NAMES="z b b2" ROUNDS=3 TESTS=throughput,mixed,fill,prob,launch bash bench/diag/bench-ab.sh "$d/ab.tar.xz"
echo "A/B took $(($(date +%s)-s)) s"
