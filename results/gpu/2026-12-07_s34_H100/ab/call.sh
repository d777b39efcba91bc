#!/usr/bin/env bash
# Session 34: same-run A/B of main 240ae12 (a), v1 (a warp that frees every chunk of a full page
# resets it with one CAS) and v2 (v1 + every small group keyed by warp sixteenth), three rounds.
set -u
s1=$(date +%s)
NAMES="a v1 v2" ROUNDS=3 TESTS=throughput,mixed,fill,prob,launch timeout 400 bash bench/diag/bench-ab.sh .deps/s39ab/ab.tar.xz 2>&1 | tail -3
echo "ab took $(($(date +%s) - s1)) s"
