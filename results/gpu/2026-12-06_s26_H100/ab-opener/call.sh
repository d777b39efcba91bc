#!/bin/bash
# Session 26, one call (small device budget left): DIAG_TRACE probe with timing points of z's code
# (b0da729), the A/B of z against b = exp/s26-AB (3bbc7b6) and c = exp/s26-ABC (a520a9e), 3 rounds of devalloc-bench quick
# (Scatter: throughput, mixed, fill, prob, launch), then the Scatter-side GPU tests of b.
set -u
d=$(cd "$(dirname "$0")" && pwd)
s=$(date +%s)
(cd "$d" && tar xf pt2.tar.xz)
export PROBE_DEFAULT_ONLY=1
{ PROBE_RESET=1 PROBE_HEAP=134217728 PROBE_TRACE=4 timeout 30 "$d/probe-trace2" mix 1000 1 2 16 256
  PROBE_RESET=1 PROBE_HEAP=134217728 PROBE_TRACE=4 timeout 30 "$d/probe-trace2" mix 10000 1 2 16 256; } > "$OUT/trace.txt" 2>&1
echo "traces took $(($(date +%s)-s)) s"
NAMES="z b c" ROUNDS=3 TESTS=throughput,mixed,fill,prob,launch bash bench/diag/bench-ab.sh "$d/ab.tar.xz"
echo "A/B took $(($(date +%s)-s)) s"
DEVALLOC_COMMIT=3bbc7b6 bash "$d/scatter-tests.sh"
echo "all done $(($(date +%s)-s)) s"
