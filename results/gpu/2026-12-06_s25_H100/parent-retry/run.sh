#!/bin/bash
# Session 25: bench/devalloc-bench's rerun after a fault in the benchmark's own process, on a GPU
# (bench/check-parent-retry.py with DEVALLOC_BENCH_BACKEND=cuda; a slim devalloc-bench-cuda of 0ed5493).
set -u
d=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/sb && tar xJf "$d/bench.tar.xz" -C /tmp/sb
nvidia-smi -L > $OUT/gpu.txt; date -u >> $OUT/gpu.txt
s=$(date +%s)
DEVALLOC_COMMIT=0ed5493 DEVALLOC_BENCH_BACKEND=cuda timeout 300 python3 bench/check-parent-retry.py "$PWD/bench/devalloc-bench" /tmp/sb $OUT/b > $OUT/check-parent-retry.log 2>&1
echo "check-parent-retry rc=$? $(($(date +%s)-s)) s"; tail -12 $OUT/check-parent-retry.log
for f in $OUT/b/results.json $OUT/b-retry1/results.json $OUT/b-retry1.part.json; do [ -f $f ] && gzip -9 $f; done
rm -f $OUT/b*/results.csv
