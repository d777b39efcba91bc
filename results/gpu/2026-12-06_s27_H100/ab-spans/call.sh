#!/bin/bash
# Session 27, first A/B call: b (d064378's library = main 3a27967, span_pages 1) against s4 / s8
# (exp/s27-spans c080e27: claim_group and mark_span inlined; span_pages 4 / 8 set at build time),
# three rounds alternated, devalloc-bench quick (Scatter).
set -u
d=$(cd "$(dirname "$0")" && pwd)
s=$(date +%s)
NAMES="${NAMES:-b s4 s8}" ROUNDS=${ROUNDS:-3} TESTS=throughput,mixed,fill,prob,launch bash bench/diag/bench-ab.sh "$d/ab.tar.xz"
echo "A/B took $(($(date +%s)-s)) s"
