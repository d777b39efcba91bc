# Issue 12, session eighth, probe A/B 5: q-old = b48955e's library; q-new = 9f2ef51's change again
# (requests over half a page look only at the free-page map) with the walk's 8 page states loaded
# before any is tested (so that the loads overlap: 9f2ef51 tested each as it loaded it, and ptxas
# kept them one latency apart) and pass 1's per-lane test exact (a spot left on the page).
set -u
mkdir -p /tmp/p && tar -xJf .deps/gpuc/probes7.tar.xz -C /tmp/p
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/gpus-ab5.txt
cells=("1082000000 mix 131072 1 2 16 4096" "541000000 mix 131072 1 2 16 4096" "338000000 mix 131072 1 2 16 4096"
       "300500000 mix 131072 1 2 16 4096" "75200000 mix 131072 1 2 16 256" "37600000 mix 131072 1 2 16 256"
       "20900000 mix 131072 1 2 16 256" "2620000 tput 131072 1 2 16 16" "37300000 tput 131072 1 2 256 256"
       "597000000 tput 131072 1 2 4096 4096" "0 mix 131072 1 2 16 4096" "0 mix 1048576 1 2 16 256"
       "0 mix 1048576 1 2 16 4096" "0 mix 1048576 1 2 512 8192" "0 tput 1048576 1 2")
for r in 1 2; do
  for B in q-old q-new; do
    s=$(date +%s)
    {
      echo "######## $B run $r"
      for c in "${cells[@]}"; do
        set -- $c; h=$1; shift
        if [ $h = 0 ]; then PROBE_RESET=1 timeout 60 /tmp/p/$B "$@" | tail -1 | sed "s/^/$* | /";
        else PROBE_HEAP=$h PROBE_RESET=1 timeout 60 /tmp/p/$B "$@" | tail -1 | sed "s/.*corrupt\] |/|/; s/^/heap $h $* | /"; fi
      done
      timeout 60 /tmp/p/$B census 16384 1 3 4 1500 | tail -1
      echo "# probability test"; timeout 60 /tmp/p/$B | grep -E "^default|launch us" | head -3
    } >> $OUT/ab5.log 2>&1
    echo "== $B run $r $(( $(date +%s) - s ))s"
  done
done
grep -vE "slow" $OUT/ab5.log | sed 's/ free .*(alloc/ (alloc/' | cut -c1-130
for h in 338000000 300500000; do
  echo "# heap $h mix 131072 1 2 16 4096" >> $OUT/tail-new.log
  PROBE_SLOW=6 PROBE_HEAP=$h PROBE_RESET=1 timeout 60 /tmp/p/q-newslow mix 131072 1 2 16 4096 >> $OUT/tail-new.log 2>&1
done
grep -E "^#|last rep|slow " $OUT/tail-new.log | cut -c1-300
