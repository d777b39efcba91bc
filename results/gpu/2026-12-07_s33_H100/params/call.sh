#!/usr/bin/env bash
# Session 33's third call (about 200 s): what each of Scatter's paper parameters does, with main's
# device code (8a2bfc8) built with one build-wide override each (-DDEVALLOC_SCATTER_...): base,
# wf1 / wf4 (WASTEFACTOR), rs4 / rs64 (REGIONSIZE), rfp0 (RESETFREEDPAGES=0), owr0 / owr32
# (OPEN_WAIT_READS), hash1 (HASH_K_SIZE=1, HASH_K_MP=1). Three rounds, alternated.
set -u
s0=$(date +%s)
NAMES="base wf1 wf4 rs4 rs64 rfp0 owr0 owr32 hash1" ROUNDS=3 TESTS=throughput,mixed,fill,prob,launch timeout 540 bash bench/diag/bench-ab.sh .deps/s35/ab.tar.xz 2>&1 | tail -6
echo "all took $(($(date +%s) - s0)) s"
