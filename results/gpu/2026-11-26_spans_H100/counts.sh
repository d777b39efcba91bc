# Issue 12, session ninth: event counts (DIAG_PROBE build) of a439b01 with span_pages 1 (c1) and 4 (c4)
# in the cells where spans lost (2064-4096 B and 16-4096 B at 2^17 threads, fresh 1 GiB heap) and
# in the fill cell they are for (16-4096 B at 80 %).
set -u
mkdir -p /tmp/p && tar -xJf .deps/gpuc/probes-counts.tar.xz -C /tmp/p
for B in c1 c4; do
  echo "######## $B"
  PROBE_RESET=1 timeout 60 /tmp/p/$B mix 131072 1 2 2064 4096
  PROBE_RESET=1 timeout 60 /tmp/p/$B mix 131072 1 2 16 4096
  PROBE_HEAP=338000000 PROBE_RESET=1 timeout 60 /tmp/p/$B mix 131072 1 2 16 4096
done > $OUT/counts.log 2>&1
grep -E "^####|rep 1 alloc|2064-4096B alloc|16-4096B alloc" $OUT/counts.log | cut -c1-900
