#!/usr/bin/env bash
# Session 33's last call (about 400 s): the fine keys as landed (main 8a2bfc8 + fine_keyed in
# creation/scatter/search.hpp: slot_for and slot_shared) against main: fill_anatomy of b (main's
# Scatter) and fkm; bench-ab of base and fkm, five rounds; then the GPU tests of fkm
# (bench/diag/scatter-gpu-tests.sh) and the random churn of every conformance factory.
set -u
D=.deps/s37
s0=$(date +%s)
mkdir -p /tmp/an && tar -xJf $D/anatomy.tar.xz -C /tmp/an
{ nvidia-smi -L; date -u
for v in b fkm; do for a in "131072 0.8" "131072 0.9" "262144 0.9"; do
  echo "=== $v $a 16 4096"; timeout 15 /tmp/an/$v $a 16 4096; echo "rc=$?"
done; done; } > $OUT/anatomy.txt 2>&1
grep -E "^===|failed$" $OUT/anatomy.txt | grep -v "requests of" | paste - - | sed 's/  */ /g' | cut -c1-160
NAMES="base fkm" ROUNDS=5 TESTS=throughput,mixed,fill,prob,launch timeout 150 bash bench/diag/bench-ab.sh $D/ab.tar.xz 2>&1 | tail -2
DEVALLOC_COMMIT=8a2bfc8+fine-keys timeout 300 bash bench/diag/scatter-gpu-tests.sh $D/tests.tar.xz 2>&1 | tee $OUT/tests-summary.txt | tail -30
mkdir -p /tmp/c && tar -xJf $D/tests.tar.xz -C /tmp/c ./devalloc_conformance_cuda
timeout 150 /tmp/c/devalloc_conformance_cuda --gtest_filter='*RandomChurn*' > $OUT/conformance-churn.log 2>&1
echo "== conformance churn (every factory) rc=$?"; tail -4 $OUT/conformance-churn.log
echo "all took $(($(date +%s) - s0)) s"
