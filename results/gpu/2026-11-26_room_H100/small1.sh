# Issue 12, session tenth: small launches (10^3 - 10^4 threads): launch time against an empty
# kernel's, and (DIAG_PROBE build) the slowest allocations with their events and clock64 times.
set -u
mkdir -p /tmp/p && tar -xJf .deps/gpuc/probes-diag.tar.xz -C /tmp/p && tar -xJf .deps/gpuc/probes-shared.tar.xz -C /tmp/p
for c in "tput 1024 1 2 16 16" "tput 10240 1 2 16 16" "mix 1024 1 2 16 256" "mix 10240 1 2 16 256"; do
  echo "######## r-base reset $c"; PROBE_RESET=1 timeout 60 /tmp/p/r-base $c | grep -E "empty|default"
  echo "######## r-base warm $c"; timeout 60 /tmp/p/r-base $c | grep -E "default"
  echo "######## d-base reset $c"; PROBE_SLOW=6 PROBE_RESET=1 timeout 60 /tmp/p/d-base $c | grep -E "rep 5|slow|p50"
done 2>&1 | tee $OUT/small1.log | cut -c1-400
