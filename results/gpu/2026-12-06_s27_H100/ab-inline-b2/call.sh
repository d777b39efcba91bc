#!/bin/bash
# Session 27, second call: A/B of bp (main a886ba8: survey with 16-8192 B; span_pages 1), b2
# (exp/s26-AB2 cd873f6, span_pages 1), s4n (3a27967, span_pages 4, claim_group / mark_span out of
# line) and s4i (c080e27 = a886ba8's device code, span_pages 4, inlined), three rounds alternated;
# then the Scatter-side GPU tests of a886ba8's library (scatter-tests.sh).
set -u
d=$(cd "$(dirname "$0")" && pwd)
s=$(date +%s)
NAMES="${NAMES:-bp b2 s4n s4i}" ROUNDS=${ROUNDS:-3} TESTS=throughput,mixed,fill,prob,launch,survey bash bench/diag/bench-ab.sh "$d/ab.tar.xz"
echo "A/B took $(($(date +%s)-s)) s"
[ "${SKIP_TESTS:-0}" = 1 ] || DEVALLOC_COMMIT=a886ba8 bash "$d/scatter-tests.sh"
