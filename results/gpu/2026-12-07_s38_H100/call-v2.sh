#!/usr/bin/env bash
# Session 38, second measurement call: scatter (main) against scatter_runs of e6d6f8a (v1) and of
# 10e7a94 (v2: runs start at a multiple of their size, claim_run in batches of 4 words, each
# opener claims its own page) in fill_anatomy cells, plain kernels and slim devalloc-bench.
set -u
s0=$(date +%s)
el() { echo $(($(date +%s) - s0)); }
m1=/tmp/m1; m2=/tmp/m2; rm -rf $m1 $m2; mkdir -p $m1 $m2
tar -xJf .deps/s48/meas.tar.xz -C $m1; tar -xJf .deps/s48/meas2.tar.xz -C $m2
nvidia-smi -L | tee $OUT/gpu.txt; date -u >> $OUT/gpu.txt
for cell in "131072 0.8" "131072 0.9" "262144 0.9" "1048576 0.9" "131072 0.9 512 8192" "131072 0.8 4096 4096" "131072 0.9 4096 4096" "131072 0.9 16 256"; do
  for v in m2/fa-main m1/fa-runs m2/fa-runs; do
    echo "== $v $cell"; timeout 60 /tmp/$v $cell 2>&1
  done
done > $OUT/fill-anatomy.log
grep -E "^== |of the requests failed|first alloc start" $OUT/fill-anatomy.log | sed 's/threads x.*span_pages 1: //; s/launch .* first alloc start to last end/launch/' | paste - - - | cut -c1-150
echo "fill done at $(el)s"
for r in "1048576 16 4096" "131072 16 4096" "1048576 512 8192" "1048576 2049 4096" "1048576 4096 4096" "1048576 1024 1024" "1048576 256 256" "1048576 16 16" "1048576 16 256" "131072 16 256"; do
  for v in m2/pk-main m1/pk-runs m2/pk-runs; do
    PLAIN_TOUCH=1 timeout 40 /tmp/$v $r 8192 11 2>&1 | tail -1 | sed "s|^|$v $r: |"
  done
done > $OUT/plain.log
sed 's/touched, threads [0-9]*, sizes [0-9-]* B, heap 8192 MiB, 11 reps: //' $OUT/plain.log | cut -c1-150
echo "plain done at $(el)s"
mkdir -p $OUT/r
for i in 1 2; do
  [ $(el) -gt 480 ] && break
  timeout $((560 - $(el))) $m2/slim --quick --tests throughput,mixed,fill,prob,launch --allocators scatter,scatter-runs --mixed-heap 8G \
    --out $OUT/r/v2-$i --quiet --no-table > $OUT/r/v2-$i.log 2>&1
  echo "v2 round $i rc=$? at $(el)s"
  [ $i = 1 ] && { timeout $((560 - $(el))) $m1/slim --quick --tests throughput,mixed,fill,prob,launch --allocators scatter-runs --mixed-heap 8G \
    --out $OUT/r/v1-$i --quiet --no-table > $OUT/r/v1-$i.log 2>&1; echo "v1 round $i rc=$? at $(el)s"; }
done
(cd $OUT && tar czf r.tgz r && rm -rf r)
