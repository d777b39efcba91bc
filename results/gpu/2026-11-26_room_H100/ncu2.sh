# Issue 12, session tenth: the mixed-size alloc kernel's instructions and stall samples per source
# line (ncu --page source, r-fence = the library as committed), 2^20 threads x 16-256 B, third launch.
set -u
mkdir -p /tmp/p && tar -xJf .deps/gpuc/probes-bo.tar.xz -C /tmp/p
PROBE_RESET=1 timeout 300 ncu --kernel-name regex:alloc_kernel --launch-skip 2 --launch-count 1 \
  --section SourceCounters --page source --csv --print-source cuda,sass /tmp/p/r-fence mix 1048576 1 2 16 256 \
  > /tmp/ncu2.csv 2> $OUT/ncu2.err
echo "ncu rc=$? $(wc -c < /tmp/ncu2.csv) bytes"; head -c 600 /tmp/ncu2.csv; echo
gzip -c /tmp/ncu2.csv > $OUT/ncu2.csv.gz
