# Issue 12, session eighth: what the slowest allocations of Scatter's fill cells do (bench/diag/
# scatter_probe.cu with DIAG_PROBE=1 and PROBE_SLOW=8: clock64 around each alloc() of the last
# repetition, the 8 slowest with their event counts). The library as it stands (b48955e's Scatter).
set -u
mkdir -p /tmp/p && tar -xJf .deps/gpuc/probes5.tar.xz -C /tmp/p
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/gpus.txt
cells=("75200000 mix 131072 1 2 16 256" "37600000 mix 131072 1 2 16 256" "20900000 mix 131072 1 2 16 256"
       "2620000 tput 131072 1 2 16 16" "0 mix 1048576 1 2 16 256" "338000000 mix 131072 1 2 16 4096")
for c in "${cells[@]}"; do
  set -- $c; h=$1; shift
  for SM in 0 120000; do
    echo "# heap $h $* smem $SM" >> $OUT/tail.log
    if [ $h = 0 ]; then PROBE_SMEM=$SM PROBE_SLOW=8 PROBE_RESET=1 timeout 60 /tmp/p/p-slow "$@" >> $OUT/tail.log 2>&1;
    else PROBE_SMEM=$SM PROBE_SLOW=8 PROBE_HEAP=$h PROBE_RESET=1 timeout 60 /tmp/p/p-slow "$@" >> $OUT/tail.log 2>&1; fi
  done
done
grep -E "^#|last rep|slow |alloc .*G free" $OUT/tail.log | grep -v "rep [0-4] " | cut -c1-330
