# Tests of the final binaries (final-t2.sh), then: the Shrink<256> alignment test and ScatterFragmentation
# alternating with the previous session's Scatter suite binary (adb140e's library), and the coalescing
# stress over a CUDA heap too small for the load (issue 15's out-of-memory paths)
set -u
bash .deps/gpuc/final-t2.sh
N=${N:-40} BUDGET=${BUDGET:-150} bash .deps/gpuc/st5.sh > $OUT/st-ab.log 2>&1; tail -3 $OUT/st-ab.log
for h in 67108864 16777216; do for sz in 32 128; do
  s=$(date +%s); DEVALLOC_STRESS_CUDA_HEAP=$h timeout 60 /tmp/st/devalloc-coalesce-stress 270336 $sz 20 2 > /tmp/cs.log 2>&1; rc=$?
  echo "== stress heap $h size $sz rc=$rc $(( $(date +%s) - s ))s"; cat /tmp/cs.log >> $OUT/coalesce-stress-small-heap.log; tail -5 /tmp/cs.log | cut -c1-200
done; done
