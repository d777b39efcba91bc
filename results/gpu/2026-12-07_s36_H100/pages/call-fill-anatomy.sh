#!/usr/bin/env bash
set -u
nvidia-smi -L > $OUT/gpu.txt
for v in fa s4 p2k p2ks2 p1k p1ks4; do
  for cell in "131072 0.25" "131072 0.5" "131072 0.8" "131072 0.9" "262144 0.9" "1048576 0.9"; do
    echo "== $v $cell"; timeout 60 .deps/s43/$v $cell 2>&1
  done
done > $OUT/pages.log
grep "== \|requests failed\|^launch" $OUT/pages.log | paste - - - | awk '{print $2, $3, $4, $(NF-16), $(NF-15), $(NF-4), $(NF-3), $(NF-1), $NF}' | head -60
