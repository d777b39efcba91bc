# Issue 12, session tenth: a request of a one-chunk page (over half a page) sets its page's one bit
# with a reduction instead of winning it with an atomicOr it waits for (bitfield_page::take_spot), on
# top of the fence of ab3.sh. r-base = 9381a42's library, r-onebit = both changes; three runs each,
# alternated.
set -u
mkdir -p /tmp/p && tar -xJf .deps/gpuc/probes-onebit.tar.xz -C /tmp/p
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpus-ab4.txt
cells=("0 mix 131072 1 2 2064 4096" "0 mix 1048576 1 2 2064 4096" "0 mix 131072 1 2 16 4096" "0 mix 1048576 1 2 16 4096"
       "0 mix 1048576 1 2 512 8192" "0 mix 131072 1 2 1024 4096" "597000000 tput 131072 1 2 4096 4096"
       "1082000000 mix 131072 1 2 16 4096" "541000000 mix 131072 1 2 16 4096" "0 tput 1048576 1 2")
for r in 1 2 3; do
  for B in r-base r-onebit; do
    {
      echo "######## $B run $r"
      for c in "${cells[@]}"; do
        set -- $c; h=$1; shift
        if [ $h = 0 ]; then PROBE_RESET=1 timeout 60 /tmp/p/$B "$@" | tail -1 | sed "s/^/$* | /";
        else PROBE_HEAP=$h PROBE_RESET=1 timeout 60 /tmp/p/$B "$@" | tail -1 | sed "s/^/heap $h $* | /"; fi
      done
      timeout 60 /tmp/p/$B census 16384 1 3 4 1500 | tail -1
      echo "# probability test"; timeout 60 /tmp/p/$B | grep -E "^default|launch us" | head -3
    } >> $OUT/ab4.log 2>&1
  done
done
grep -E "####|^tput|^mix|^heap|^default" $OUT/ab4.log | sed -E 's/launch us: median *([0-9.]+).*in a sequence \(median\) *([0-9.]+)/launch \1 seq \2/; s/ free [^(]*\(alloc/ (alloc/g' | cut -c1-300
