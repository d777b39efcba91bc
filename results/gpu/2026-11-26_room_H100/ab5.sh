# Issue 12, session tenth: a pause after a directory round lost to another group (round_result::again)
# before the next round: r-bo1 128, 256, 512 ns after rounds 0, 1, 2; r-bo2 256 ns each; r-fence = the
# library as committed (2c50290). Two runs each, alternated.
set -u
mkdir -p /tmp/p && tar -xJf .deps/gpuc/probes-bo.tar.xz -C /tmp/p
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpus-ab5.txt
cells=("75200000 mix 131072 1 2 16 256" "37600000 mix 131072 1 2 16 256" "23500000 mix 131072 1 2 16 256"
       "20900000 mix 131072 1 2 16 256" "2621440 tput 131072 1 2 16 16" "1082000000 mix 131072 1 2 16 4096"
       "541000000 mix 131072 1 2 16 4096" "0 mix 1048576 1 2 16 256" "0 mix 131072 1 2 16 4096"
       "0 mix 1048576 1 2 16 4096" "0 mix 1048576 1 2 512 8192" "0 tput 1048576 1 2")
for r in 1 2; do
  for B in r-fence r-bo1 r-bo2; do
    {
      echo "######## $B run $r"
      for c in "${cells[@]}"; do
        set -- $c; h=$1; shift
        if [ $h = 0 ]; then PROBE_RESET=1 timeout 60 /tmp/p/$B "$@" | tail -1 | sed "s/^/$* | /";
        else PROBE_HEAP=$h PROBE_RESET=1 timeout 60 /tmp/p/$B "$@" | tail -1 | sed "s/^/heap $h $* | /"; fi
      done
      timeout 60 /tmp/p/$B census 16384 1 3 4 1500 | tail -1
      echo "# probability test"; timeout 60 /tmp/p/$B | grep -E "^default|launch us" | head -3
    } >> $OUT/ab5.log 2>&1
  done
done
grep -E "####|^tput|^mix|^heap|^default" $OUT/ab5.log | sed -E 's/launch us: median *([0-9.]+).*in a sequence \(median\) *([0-9.]+)/launch \1 seq \2/; s/ free [^(]*\(alloc/ (alloc/g; s/\[!![^]]*\] //g' | cut -c1-250
