#!/usr/bin/env bash
set -u
nvidia-smi -L > $OUT/gpu.txt
for t in 1048576 131072; do
  for r in "2049 4096" "4096 4096" "1025 4096" "16 4096" "512 8192" "1024 1024" "256 256"; do
    echo "== $t $r unit 256"; timeout 60 .deps/s43/ur $t $r 8192 256 11 2>&1
  done
  echo "== $t 2049 4096 unit 512"; timeout 60 .deps/s43/ur $t 2049 4096 8192 512 11 2>&1
done > $OUT/unit-runs.log
cat $OUT/unit-runs.log | grep -v "^unit runs"
