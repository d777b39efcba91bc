#!/usr/bin/env bash
set -u
NAMES="a p1k p1ks4" ROUNDS=3 TESTS=throughput,mixed,fill,prob,launch timeout 400 bash bench/diag/bench-ab.sh .deps/s43/pk.tar.xz 2>&1 | tail -3
