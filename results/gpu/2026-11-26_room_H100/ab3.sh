# Issue 12, session tenth: Scatter's free path with PTX's fence.release.gpu (cuda::ptx::fence) instead
# of cuda::atomic_thread_fence(release), which emits fence.acq_rel.gpu (MEMBAR + CCTL.IVALL: an L1
# invalidation a release does not need). r-base = 9381a42's library, r-fence = the change; three runs
# each, alternated.
set -u
mkdir -p /tmp/p && tar -xJf .deps/gpuc/probes-fence.tar.xz -C /tmp/p
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpus-ab3.txt
cells=("0 tput 1048576 1 2" "0 mix 1048576 1 2 16 256" "0 mix 1048576 1 2 16 4096" "75200000 mix 131072 1 2 16 256"
       "0 mix 131072 1 2 16 4096")
for r in 1 2 3; do
  for B in r-base r-fence; do
    {
      echo "######## $B run $r"
      for c in "${cells[@]}"; do
        set -- $c; h=$1; shift
        if [ $h = 0 ]; then PROBE_RESET=1 timeout 60 /tmp/p/$B "$@" | tail -1 | sed "s/^/$* | /";
        else PROBE_HEAP=$h PROBE_RESET=1 timeout 60 /tmp/p/$B "$@" | tail -1 | sed "s/^/heap $h $* | /"; fi
      done
      echo "# probability test"; timeout 60 /tmp/p/$B | grep -E "^default|launch us" | head -3
    } >> $OUT/ab3.log 2>&1
  done
done
grep -E "####|^tput|^mix|^heap|^default" $OUT/ab3.log | sed -E 's/launch us: median *([0-9.]+).*in a sequence \(median\) *([0-9.]+)/launch \1 seq \2/' | cut -c1-300
