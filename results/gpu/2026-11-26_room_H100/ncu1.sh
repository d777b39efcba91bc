# Issue 12, session tenth: where the mixed-size alloc kernel waits (ncu, r-base = 9381a42's library):
# 2^20 threads x 16-256 B against 2^20 x 16 B, the alloc kernel's third launch (a reset heap).
set -u
mkdir -p /tmp/p && tar -xJf .deps/gpuc/probes-onebit.tar.xz -C /tmp/p
for c in "mix 1048576 1 2 16 256" "tput 1048576 1 2 16 16"; do
  echo "######## $c"
  PROBE_RESET=1 timeout 300 ncu --kernel-name regex:alloc_kernel --launch-skip 2 --launch-count 1 \
    --section WarpStateStats --section SchedulerStats --section SourceCounters --section MemoryWorkloadAnalysis \
    --print-details all /tmp/p/r-base $c 2>&1 | grep -vE "^==PROF==" | head -150
done > $OUT/ncu1.log 2>&1
grep -E "####|Stall|Warp Cycles|Issued|Eligible|L2 Cache Throughput|Mem Busy|Max Bandwidth" $OUT/ncu1.log | head -60
