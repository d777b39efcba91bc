# Issue 12, session tenth: where the failing launches' slowest lanes spend their time, with event
# counts (DIAG_PROBE=1 builds: d-base = 9381a42, d-shared = walk_shared plus two diagnostic events,
# pass1_peer: the peers a lane shared pass 1 with, pass1_step: its steps).
set -u
mkdir -p /tmp/p && tar -xJf .deps/gpuc/probes-diag.tar.xz -C /tmp/p
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpus-diag1.txt
for h in 338000000 300500000; do
  for B in d-base d-shared; do
    echo "######## $B heap $h 16-4096 B" >> $OUT/diag1.log
    PROBE_SLOW=12 PROBE_HEAP=$h PROBE_RESET=1 timeout 120 /tmp/p/$B mix 131072 1 2 16 4096 >> $OUT/diag1.log 2>&1
  done
done
grep -E "####|rep 5|slow|p50" $OUT/diag1.log | cut -c1-600
