#!/usr/bin/env bash
# Session 37, first call: the s46 learned-groups A/B (.deps/s46/call.sh); Runs with warp-combined
# runs (comb) against Runs as landed (main) in plain kernels and tight cells; then fill_anatomy of
# d15ce58 with pagesize 4096 (fa), 256 (p256) and 512 (p512).
set -u
bash .deps/s46/call.sh
for r in "1048576 16 4096" "131072 16 4096" "1048576 2049 4096" "1048576 512 8192" "1048576 256 256" "1048576 16 16"; do
  for v in runs-main comb; do
    b=.deps/s46/pk-$v; [ $v = comb ] && b=.deps/s47/pk-comb
    PLAIN_TOUCH=1 timeout 60 $b $r 8192 11 2>&1 | tail -1 | sed "s/^/$v $r: /"
  done
done > $OUT/plain-comb.log
cat $OUT/plain-comb.log
for f in 0.8 0.9; do
  for cell in "131072 16 4096" "1048576 16 4096"; do
    for v in main comb; do
      b=.deps/s46/ur-$v; [ $v = comb ] && b=.deps/s47/ur-comb
      echo "== $v fill $f $cell"; UNIT_FILL=$f timeout 120 $b $cell 1 256 3 2>&1 | grep "^runs "
    done
  done
done > $OUT/tight-comb.log
cat $OUT/tight-comb.log
for v in fa p256 p512; do
  for cell in "131072 0.25" "131072 0.8" "131072 0.9" "262144 0.9" "1048576 0.9"; do
    echo "== $v $cell"; timeout 60 .deps/s47/$v $cell 2>&1
  done
done > $OUT/pages.log
grep "== \|requests failed\|^launch" $OUT/pages.log | paste - - - | awk '{print $2, $3, $4, $(NF-16), $(NF-15), $(NF-4), $(NF-3), $(NF-1), $NF}' | head -60
