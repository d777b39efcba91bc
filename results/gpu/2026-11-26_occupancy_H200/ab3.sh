# Issue 12, session eighth, probe A/B 3 (bench/diag/scatter_probe.cu, PROBE_MINIMAL builds of the library
# as it stands, b48955e's Scatter): (1) the same binary at three occupancies (PROBE_SMEM: dynamic shared
# memory per block of the alloc kernel: 0 = 3 blocks of 256 threads per multiprocessor at its 78
# registers, 80 000 B = 2, 120 000 B = 1); (2) a backoff after a directory round that did not serve
# the lane (DEVALLOC_SCATTER_ROUND_BACKOFF_NS << round, 0 / 200 / 1000 ns), alternated twice.
set -u
mkdir -p /tmp/p && tar -xJf .deps/gpuc/probes3.tar.xz -C /tmp/p
cells=("75200000 mix 131072 1 2 16 256" "37600000 mix 131072 1 2 16 256" "23500000 mix 131072 1 2 16 256"
       "20900000 mix 131072 1 2 16 256" "4200000 tput 131072 1 2 16 16" "2620000 tput 131072 1 2 16 16"
       "41900000 tput 131072 1 2 256 256" "541000000 mix 131072 1 2 16 4096"
       "0 mix 1048576 1 2 16 256" "0 mix 1048576 1 2 16 4096" "0 tput 1048576 1 2 16 16" "0 tput 1048576 1 2 256 256")
one() {  # binary smem
  for c in "${cells[@]}"; do
    set -- $c; h=$1; shift
    if [ $h = 0 ]; then PROBE_SMEM=$SM PROBE_RESET=1 timeout 60 /tmp/p/$B "$@" | tail -1 | sed "s/^/$* | /";
    else PROBE_SMEM=$SM PROBE_HEAP=$h PROBE_RESET=1 timeout 60 /tmp/p/$B "$@" | tail -1 | sed "s/.*corrupt\] |/|/; s/^/heap $h $* | /"; fi
  done
}
for SM in 0 80000 120000; do B=p-base; s=$(date +%s); { echo "######## occupancy smem $SM"; one; } >> $OUT/occupancy.log 2>&1; echo "== smem $SM $(( $(date +%s) - s ))s"; done
SM=0
for r in 1 2; do
  for B in p-base p-b200 p-b1000; do
    s=$(date +%s)
    { echo "######## $B run $r"; one; echo "# probability test"; timeout 60 /tmp/p/$B | grep -E "^default|launch us" | head -3; } >> $OUT/backoff.log 2>&1
    echo "== $B run $r $(( $(date +%s) - s ))s"
  done
done
grep -vE "slow" $OUT/occupancy.log | sed 's/ free .*(alloc/ (alloc/' | cut -c1-120
grep -vE "slow" $OUT/backoff.log | sed 's/ free .*(alloc/ (alloc/' | cut -c1-120
