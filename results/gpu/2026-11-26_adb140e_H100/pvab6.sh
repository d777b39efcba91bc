# probe A/B: new (adb140e) vs x1 = directory scan skips the whole-warp slots for classes of fewer than 8 chunks a page
set -u
mkdir -p /tmp/pv && tar -xJf .deps/gpuc/pv6.tar.xz -C /tmp/pv
export PROBE_RESET=1
for run in 1 2 3; do for v in new x1; do P=/tmp/pv/$v/devalloc-scatter-probe
  echo "##### run $run $v"
  for t in 65536 262144 262144 262144 1048576; do echo "### simd 64 $t"; PROBE_SIMD_ONLY=1 $P tput $t 1 3 64 64 | grep alloc; done
  export PROBE_DEFAULT_ONLY=1
  for f in "80 167772160" "90 149130808"; do set -- $f; echo "### fill 1024 f$1"; PROBE_HEAP=$2 $P mix 131072 1 3 1024 1024 | grep alloc; done
  for f in "80 671088640" "90 596523235"; do set -- $f; echo "### fill 4096 f$1"; PROBE_HEAP=$2 $P mix 131072 1 3 4096 4096 | grep alloc; done
  for f in "80 335544320" "90 298261617"; do set -- $f; echo "### fill 2048 f$1"; PROBE_HEAP=$2 $P mix 131072 1 3 2048 2048 | grep alloc; done
  for f in "25 1081736000" "50 540868000" "80 338042500"; do set -- $f; echo "### fill 16-4096 f$1"; PROBE_HEAP=$2 $P mix 131072 1 3 16 4096 | grep alloc; done
  for f in "50 37578560" "90 20876992"; do set -- $f; echo "### fill 16-256 f$1"; PROBE_HEAP=$2 $P mix 131072 1 3 16 256 | grep alloc; done
  echo "### mix 2^20 16 4096 (8 GiB)"; PROBE_HEAP=8589934592 $P mix 1048576 1 3 16 4096 | grep alloc
  echo "### census"; $P census 16384 1 2 4 1500 | grep census
  echo "### census tight"; $P census 24576 1 2 16 4096 | grep census
  unset PROBE_DEFAULT_ONLY
done; done > $OUT/pvab6.log 2>&1
grep -c alloc $OUT/pvab6.log
