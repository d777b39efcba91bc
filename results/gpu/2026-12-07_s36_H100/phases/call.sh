#!/usr/bin/env bash
set -u
nvidia-smi -L > $OUT/gpu.txt
for cell in "131072 0.8" "131072 0.9" "262144 0.9"; do
  echo "== fap $cell"; timeout 60 .deps/s43/fap $cell 2>&1
done > $OUT/phases.log
grep -A12 "failing requests' us" $OUT/phases.log; grep "== fap\|launch" $OUT/phases.log
