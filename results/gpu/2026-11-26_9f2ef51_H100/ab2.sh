# Issue 12, session eighth, probe A/B 2 (bench/diag/scatter_probe.cu, PROBE_MINIMAL builds, the same
# probe source for all): old = b48955e's library, w = 9f2ef51's (alloc_whole_page, the walk reading
# 8 page states a latency; 70 registers in an alloc + free kernel), wr = f7691d0's (also 8 region
# counters a latency; 75 registers), alternated twice; then the event counts of f7691d0 in the two
# failing fill heaps.
set -u
mkdir -p /tmp/p && tar -xJf .deps/gpuc/probes.tar.xz -C /tmp/p
cells=("37600000 mix 131072 1 2 16 256" "23500000 mix 131072 1 2 16 256" "20900000 mix 131072 1 2 16 256"
       "338000000 mix 131072 1 2 16 4096" "300500000 mix 131072 1 2 16 4096"
       "0 mix 131072 1 2 16 4096" "0 mix 1048576 1 2 16 4096" "0 mix 1048576 1 2 16 256" "0 mix 1048576 1 2 512 8192"
       "0 tput 1048576 1 2")
for r in 1 2; do
  for b in old w wr; do
    s=$(date +%s)
    {
      echo "######## $b run $r"
      for c in "${cells[@]}"; do
        set -- $c; h=$1; shift
        if [ $h = 0 ]; then PROBE_RESET=1 timeout 60 /tmp/p/probe-$b "$@" | tail -1 | sed "s/^/$* | /";
        else PROBE_HEAP=$h PROBE_RESET=1 timeout 60 /tmp/p/probe-$b "$@" | tail -1 | sed "s/.*corrupt\] |/|/; s/^/heap $h $* | /"; fi
      done
      echo "# probability test (2^16 threads, 16-256 B)"; timeout 60 /tmp/p/probe-$b | grep -E "default|launch us" | head -4
    } >> $OUT/probe-ab2.log 2>&1
    echo "== ab $b run $r $(( $(date +%s) - s ))s"
  done
done
grep -vE "slow" $OUT/probe-ab2.log | cut -c1-200
for c in "${cells[@]:3:2}"; do set -- $c; h=$1; shift; echo "# heap $h: $*" >> $OUT/probe-counts2.log; PROBE_HEAP=$h PROBE_RESET=1 timeout 60 /tmp/p/probe-counts2 "$@" >> $OUT/probe-counts2.log 2>&1; done
echo "== counts"; grep "rep 5" $OUT/probe-counts2.log | sed 's/) /)\n/g' | grep -E "rep 5|walk|pass1|region_skip|whole|page_try|alloc " | cut -c1-200
