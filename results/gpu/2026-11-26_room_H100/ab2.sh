# Issue 12, session tenth: the walk's pass 1 shared by the lanes of a warp that reach it together
# (walk_shared). r-base = 9381a42's library, r-shared2 = the change; bench/diag/scatter_probe.cu
# with PROBE_MINIMAL=1.
set -u
mkdir -p /tmp/p && tar -xJf .deps/gpuc/probes-shared.tar.xz -C /tmp/p
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpus.txt
cells=("1082000000 mix 131072 1 2 16 4096" "541000000 mix 131072 1 2 16 4096" "338000000 mix 131072 1 2 16 4096"
       "300500000 mix 131072 1 2 16 4096" "75200000 mix 131072 1 2 16 256" "23500000 mix 131072 1 2 16 256"
       "20900000 mix 131072 1 2 16 256" "597000000 tput 131072 1 2 4096 4096" "160000000 tput 131072 1 2 1024 1024"
       "0 mix 131072 1 2 16 4096" "0 mix 1048576 1 2 16 256" "0 mix 1048576 1 2 16 4096" "0 mix 1048576 1 2 512 8192"
       "0 mix 131072 1 2 2064 4096" "0 tput 1048576 1 2")
for r in 1 2; do
  for B in r-base r-shared2; do
    s=$(date +%s)
    {
      echo "######## $B run $r"
      for c in "${cells[@]}"; do
        set -- $c; h=$1; shift
        if [ $h = 0 ]; then PROBE_RESET=1 timeout 60 /tmp/p/$B "$@" | tail -1 | sed "s/^/$* | /";
        else PROBE_HEAP=$h PROBE_RESET=1 timeout 60 /tmp/p/$B "$@" | tail -1 | sed "s/^/heap $h $* | /"; fi
      done
      timeout 60 /tmp/p/$B census 16384 1 3 4 1500 | tail -1
      echo "# probability test"; timeout 60 /tmp/p/$B | grep -E "^default|launch us" | head -3
    } >> $OUT/ab2.log 2>&1
    echo "== $B run $r $(( $(date +%s) - s ))s"
  done
done
for B in r-base r-shared2; do
  echo "######## $B slowest allocations, 16-4096 B at 80 % fill" >> $OUT/ab2.log
  PROBE_SLOW=8 PROBE_HEAP=338000000 PROBE_RESET=1 timeout 60 /tmp/p/$B mix 131072 1 2 16 4096 2>&1 | grep -E "slow|p50" >> $OUT/ab2.log
done
grep -vE "slow" $OUT/ab2.log | sed 's/ free .*(alloc/ (alloc/' | cut -c1-230
