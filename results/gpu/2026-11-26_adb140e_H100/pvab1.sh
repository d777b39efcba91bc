# probe A/B: 110851a (old) vs adb140e (new) library, same probe source, alternating
set -u
mkdir -p /tmp/pv && tar -xJf .deps/gpuc/pv.tar.xz -C /tmp/pv
export PROBE_DEFAULT_ONLY=1 PROBE_RESET=1
for run in 1 2 3; do for v in old new; do P=/tmp/pv/$v/devalloc-scatter-probe
  echo "##### run $run $v"
  for r in "16 4096" "16 256" "512 8192"; do
    echo "### mix 2^20 $r (8 GiB)"; PROBE_HEAP=8589934592 $P mix 1048576 1 3 $r
  done
  echo "### mix 2^17 16 4096 (1 GiB)"; PROBE_HEAP=1073741824 $P mix 131072 1 3 16 4096
  for sz in 16 64 256 4096; do echo "### tput 2^20 x $sz"; $P tput 1048576 1 3 $sz $sz; done
done; done > $OUT/pvab.log 2>&1
cat $OUT/pvab.log | cut -c1-220 | head -150
