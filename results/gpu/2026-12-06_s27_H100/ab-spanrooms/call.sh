#!/bin/bash
# Session 27, fourth call: A/B of bp (main a886ba8, span_pages 1), s4i (c080e27, span_pages 4,
# inlined) and s4r (exp/s27-spanrooms 0903e9f, span_pages 4, room counters for spans), three
# rounds alternated; then the Scatter-side GPU tests of 0903e9f (bench/diag/scatter-gpu-tests.sh).
set -u
d=$(cd "$(dirname "$0")" && pwd)
s=$(date +%s)
NAMES="${NAMES:-bp s4i s4r}" ROUNDS=${ROUNDS:-3} TESTS=throughput,mixed,fill,prob,launch bash bench/diag/bench-ab.sh "$d/ab.tar.xz"
echo "A/B took $(($(date +%s)-s)) s"
[ "${SKIP_TESTS:-0}" = 1 ] || DEVALLOC_COMMIT=0903e9f bash bench/diag/scatter-gpu-tests.sh "$d/tests.tar.xz"
