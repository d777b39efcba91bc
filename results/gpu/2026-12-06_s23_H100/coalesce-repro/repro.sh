#!/bin/bash
# s23: how often scatter-ops stops at a sticky CUDA error in the coalescing allocators over CUDA's malloc (c5db8c9's devalloc-bench), and memcheck of one run
set -u
d=$(cd "$(dirname "$0")" && pwd); mkdir -p /tmp/fb && tar xJf "$d/bench.tar.xz" -C /tmp/fb
nvidia-smi -L > $OUT/gpu.txt
for i in 1 2 3 4; do s=$(date +%s)
  timeout 100 /tmp/fb/devalloc-bench-cuda --quick --tests scatter-ops --allocators cuda-malloc,coalesce-block,coalesce-hashed,coalesce-dynamic,coalesce-dynamic4 --out /tmp/rep$i --quiet --no-table > $OUT/rep$i.log 2>&1
  echo "rep$i rc=$? $(($(date +%s)-s)) s"; grep -E "CUDA call failed|unusable" $OUT/rep$i.log | head -2 | cut -c1-250
done
s=$(date +%s)
timeout 200 compute-sanitizer --tool memcheck --print-limit 5 /tmp/fb/devalloc-bench-cuda --quick --tests scatter-ops --allocators coalesce-block,coalesce-dynamic --out /tmp/mc --quiet --no-table > $OUT/memcheck.log 2>&1
echo "memcheck rc=$? $(($(date +%s)-s)) s"; grep -E "ERROR SUMMARY|Invalid|Misaligned|by thread|Address 0x" $OUT/memcheck.log | head -12 | cut -c1-250
