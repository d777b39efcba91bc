#!/bin/bash
# Session 27, third call: devalloc-bench quick `survey` of bp (main a886ba8's library, slim build:
# Scatter and CUDA's malloc) for the 16-8192 B cells beside CUDA's malloc in the same run.
set -u
d=$(cd "$(dirname "$0")" && pwd)
rm -rf /tmp/s27b && mkdir -p /tmp/s27b && tar -xJf "$d/bp.tar.xz" -C /tmp/s27b
nvidia-smi -L > "$OUT/gpu.txt"; date -u >> "$OUT/gpu.txt"
s=$(date +%s)
/tmp/s27b/bp --quick --tests survey --allocators scatter,cuda-malloc --out "$OUT/survey" --quiet --no-table > "$OUT/survey.log" 2>&1
echo "survey rc=$? $(($(date +%s)-s)) s"
gzip -f "$OUT/survey/results.json"
