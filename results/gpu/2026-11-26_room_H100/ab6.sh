# Issue 12, session tenth: fewer instructions on the allocation path, from ncu2 (the mixed-size alloc
# kernel's instructions per source line): detail::nth_bit64 by ffs instead of a scan bit by bit (15 %
# of the instructions), no division where a value is already below its modulus (the bit claim's
# start, the segment, the free-page map's word, the class slot: 7 % together). r-fence = the library
# as committed (2c50290), r-fast = the change. Two runs each, alternated.
set -u
mkdir -p /tmp/p && tar -xJf .deps/gpuc/probes-fast.tar.xz -C /tmp/p
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpus-ab6.txt
cells=("0 mix 1048576 1 2 16 256" "0 mix 131072 1 2 16 4096" "0 mix 1048576 1 2 16 4096" "0 mix 1048576 1 2 512 8192"
       "0 mix 131072 1 2 2064 4096" "75200000 mix 131072 1 2 16 256" "20900000 mix 131072 1 2 16 256"
       "1082000000 mix 131072 1 2 16 4096" "338000000 mix 131072 1 2 16 4096" "0 tput 1048576 1 2")
for r in 1 2; do
  for B in r-fence r-fast; do
    {
      echo "######## $B run $r"
      for c in "${cells[@]}"; do
        set -- $c; h=$1; shift
        if [ $h = 0 ]; then PROBE_RESET=1 timeout 60 /tmp/p/$B "$@" | tail -1 | sed "s/^/$* | /";
        else PROBE_HEAP=$h PROBE_RESET=1 timeout 60 /tmp/p/$B "$@" | tail -1 | sed "s/^/heap $h $* | /"; fi
      done
      PROBE_SIMD_ONLY=1 PROBE_RESET=1 timeout 60 /tmp/p/$B tput 262144 1 2 64 64 | tail -1 | sed "s/^/XMallocSIMD tput 262144 64 B | /"
      timeout 60 /tmp/p/$B census 16384 1 3 4 1500 | tail -1
      echo "# probability test"; timeout 60 /tmp/p/$B | grep -E "^default|launch us" | head -3
    } >> $OUT/ab6.log 2>&1
  done
done
grep -E "####|^tput|^mix|^heap|^default|^XMalloc" $OUT/ab6.log | sed -E 's/launch us: median *([0-9.]+).*in a sequence \(median\) *([0-9.]+)/launch \1 seq \2/; s/\[!![^]]*\] //g' | cut -c1-260
