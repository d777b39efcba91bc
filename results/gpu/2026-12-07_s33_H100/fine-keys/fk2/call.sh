#!/usr/bin/env bash
# Session 33's closing call (about 230 s): the fine keys as landed (fine_keyed in slot_for only;
# slot_shared as before), built from main 8a2bfc8 + that change: bench-ab of base and fk2, three
# rounds, then bench/diag/scatter-gpu-tests.sh over its test binaries.
set -u
D=.deps/s38
s0=$(date +%s)
NAMES="base fk2" ROUNDS=3 TESTS=throughput,mixed,fill,prob,launch timeout 60 bash bench/diag/bench-ab.sh $D/ab.tar.xz 2>&1 | tail -2
DEVALLOC_COMMIT=8a2bfc8+fine-keys-slot-for timeout 240 bash bench/diag/scatter-gpu-tests.sh $D/tests.tar.xz 2>&1 | tee $OUT/tests-summary.txt | tail -30
echo "all took $(($(date +%s) - s0)) s"
