#!/usr/bin/env bash
# Session 38, measurement call: Scatter (main) against Scatter with runs of units (runs,
# presets::scatter_runs) of e6d6f8a: fill_anatomy cells, plain kernels, and slim devalloc-bench
# (cuda-malloc, scatter, scatter-runs, runs) in two rounds.
set -u
s0=$(date +%s)
el() { echo $(($(date +%s) - s0)); }
m=/tmp/m; rm -rf $m; mkdir -p $m; tar -xJf .deps/s48/meas.tar.xz -C $m
nvidia-smi -L | tee $OUT/gpu.txt; date -u >> $OUT/gpu.txt
for cell in "131072 0.25" "131072 0.5" "131072 0.8" "131072 0.9" "262144 0.9" "1048576 0.8" "1048576 0.9" "131072 0.8 512 8192" "131072 0.9 512 8192" "131072 0.8 16 256" "131072 0.9 16 256"; do
  for v in main runs; do
    echo "== $v $cell"; timeout 60 $m/fa-$v $cell 2>&1
  done
done > $OUT/fill-anatomy.log
grep -E "^== |requests failed|of the requests failed|^launch" $OUT/fill-anatomy.log | cut -c1-170 | head -80
echo "fill done at $(el)s"
for r in "1048576 16 4096" "131072 16 4096" "1048576 512 8192" "1048576 2049 4096" "1048576 4096 4096" "1048576 1024 1024" "1048576 513 1024" "1048576 256 256" "1048576 16 16" "1048576 16 256"; do
  for v in main runs; do
    PLAIN_TOUCH=1 timeout 40 $m/pk-$v $r 8192 11 2>&1 | tail -1 | sed "s/^/$v $r: /"
  done
done > $OUT/plain.log
cat $OUT/plain.log | cut -c1-220
echo "plain done at $(el)s"
mkdir -p $OUT/r
for i in 1 2; do
  a=scatter,scatter-runs,runs; [ $i = 1 ] && a=cuda-malloc,$a
  [ $(el) -gt 480 ] && break
  timeout $((560 - $(el))) $m/slim --quick --tests throughput,mixed,fill,prob,launch --allocators $a --mixed-heap 8G \
    --out $OUT/r/b-$i --quiet --no-table > $OUT/r/b-$i.log 2>&1
  echo "bench round $i rc=$? at $(el)s"
done
(cd $OUT && tar czf r.tgz r && rm -rf r)
