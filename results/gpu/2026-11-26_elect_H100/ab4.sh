# Issue 12, session eighth, probe A/B 4: one replacer per slot (a group that fills its slot's page keeps
# a +1 on it while it takes and installs the next page; groups that find the page over-full wait
# for that page instead of each taking one; only where the slot is shared: small heaps). The same
# source built twice by hand (PROBE_MINIMAL=1): p-e0 with -DDEVALLOC_SCATTER_ELECT_REPLACER=0 (the
# search as before), p-e1 with it; alternated three times; then p-e1's event counts (DIAG_PROBE=1).
set -u
mkdir -p /tmp/p && tar -xJf .deps/gpuc/probes4.tar.xz -C /tmp/p
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/gpus.txt
cells=("75200000 mix 131072 1 2 16 256" "37600000 mix 131072 1 2 16 256" "23500000 mix 131072 1 2 16 256"
       "20900000 mix 131072 1 2 16 256" "8400000 tput 131072 1 2 16 16" "4200000 tput 131072 1 2 16 16"
       "2620000 tput 131072 1 2 16 16" "2330000 tput 131072 1 2 16 16" "41900000 tput 131072 1 2 256 256"
       "37300000 tput 131072 1 2 256 256" "149000000 tput 131072 1 2 1024 1024" "1082000000 mix 131072 1 2 16 4096"
       "541000000 mix 131072 1 2 16 4096" "338000000 mix 131072 1 2 16 4096"
       "0 mix 131072 1 2 16 4096" "0 mix 131072 1 2 16 256" "0 mix 1048576 1 2 16 256" "0 mix 1048576 1 2 16 4096"
       "0 mix 1048576 1 2 512 8192" "0 tput 1048576 1 2")
for r in 1 2 3; do
  for B in p-e0 p-e1; do
    s=$(date +%s)
    {
      echo "######## $B run $r"
      for c in "${cells[@]}"; do
        set -- $c; h=$1; shift
        if [ $h = 0 ]; then PROBE_RESET=1 timeout 60 /tmp/p/$B "$@" | tail -1 | sed "s/^/$* | /";
        else PROBE_HEAP=$h PROBE_RESET=1 timeout 60 /tmp/p/$B "$@" | tail -1 | sed "s/.*corrupt\] |/|/; s/^/heap $h $* | /"; fi
      done
      timeout 60 /tmp/p/$B census 16384 1 3 4 1500 | tail -1
      timeout 60 /tmp/p/$B census 24576 1 3 16 4096 | tail -1
      echo "# probability test"; timeout 60 /tmp/p/$B | grep -E "^default|launch us" | head -3
    } >> $OUT/elect-ab.log 2>&1
    echo "== $B run $r $(( $(date +%s) - s ))s"
  done
done
grep -vE "slow" $OUT/elect-ab.log | sed 's/ free .*(alloc/ (alloc/' | cut -c1-130
for c in "37600000 mix 131072 1 2 16 256" "20900000 mix 131072 1 2 16 256" "2620000 tput 131072 1 2 16 16"; do
  set -- $c; h=$1; shift; echo "# heap $h $*" >> $OUT/elect-counts.log
  PROBE_HEAP=$h PROBE_RESET=1 timeout 60 /tmp/p/p-e1counts "$@" >> $OUT/elect-counts.log 2>&1
done
grep -E "^#|rep 5" $OUT/elect-counts.log | sed 's/ (max/(/g' | cut -c1-400
