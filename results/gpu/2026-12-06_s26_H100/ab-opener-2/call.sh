#!/bin/bash
# Session 26, second A/B call: z (b0da729's device code) against b (3bbc7b6 = d064378's), five more
# rounds alternated, devalloc-bench quick (Scatter: throughput, mixed, fill, prob, launch).
set -u
d=$(cd "$(dirname "$0")" && pwd)
s=$(date +%s)
NAMES="z b" ROUNDS=5 TESTS=throughput,mixed,fill,prob,launch bash bench/diag/bench-ab.sh "$d/ab.tar.xz"
echo "A/B took $(($(date +%s)-s)) s"
