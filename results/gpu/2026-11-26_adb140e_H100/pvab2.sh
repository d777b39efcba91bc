# probe A/B: old 110851a, new adb140e, v1 = new with slot_shared() false, v2 = new with 0455de1 reverted
set -u
mkdir -p /tmp/pv && tar -xJf .deps/gpuc/pv2.tar.xz -C /tmp/pv
export PROBE_DEFAULT_ONLY=1 PROBE_RESET=1
for run in 1 2 3; do for v in old new v1 v2; do P=/tmp/pv/$v/devalloc-scatter-probe
  echo "##### run $run $v"
  for r in "16 4096" "16 256" "512 8192"; do
    echo "### mix 2^20 $r (8 GiB)"; PROBE_HEAP=8589934592 $P mix 1048576 1 3 $r | grep alloc
  done
  echo "### mix 2^17 16 4096 (1 GiB)"; PROBE_HEAP=1073741824 $P mix 131072 1 3 16 4096 | grep alloc
  echo "### fill 16-256 f50"; PROBE_HEAP=37578560 $P mix 131072 1 3 16 256 | grep alloc
done; done > $OUT/pvab2.log 2>&1
grep -E "#####|alloc" $OUT/pvab2.log | cut -c1-120 | head -150
