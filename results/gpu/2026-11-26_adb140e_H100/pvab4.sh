# probe A/B: new adb140e, v2 = 0455de1 reverted, v4 = new + slow path (scan, walk) out of line, v4r64 = v4 at -maxrregcount 64
set -u
mkdir -p /tmp/pv && tar -xJf .deps/gpuc/pv4.tar.xz -C /tmp/pv
export PROBE_DEFAULT_ONLY=1 PROBE_RESET=1
for run in 1 2 3; do for v in new v2 v4 v4r64; do P=/tmp/pv/$v/devalloc-scatter-probe
  echo "##### run $run $v"
  for r in "16 4096" "16 256" "512 8192"; do
    echo "### mix 2^20 $r (8 GiB)"; PROBE_HEAP=8589934592 $P mix 1048576 1 3 $r | grep alloc
  done
  echo "### mix 2^17 16 4096 (1 GiB)"; PROBE_HEAP=1073741824 $P mix 131072 1 3 16 4096 | grep alloc
  echo "### fill 16-256 f50"; PROBE_HEAP=37578560 $P mix 131072 1 3 16 256 | grep alloc
  echo "### fill 16 f80"; PROBE_HEAP=2621440 $P mix 131072 1 3 16 16 | grep alloc
  echo "### simd 64 2^18"; env -u PROBE_DEFAULT_ONLY PROBE_SIMD_ONLY=1 $P tput 262144 1 3 64 64 | grep alloc
  for sz in 16 64 256 4096; do echo "### tput 2^20 x $sz"; $P tput 1048576 1 3 $sz $sz | grep alloc; done
done; done > $OUT/pvab4.log 2>&1
grep -c alloc $OUT/pvab4.log
