# probe A/B: class slots per heap pages: new (P/128, default) vs s64, s32, s16
set -u
mkdir -p /tmp/pv && tar -xJf .deps/gpuc/pv5.tar.xz -C /tmp/pv
export PROBE_DEFAULT_ONLY=1 PROBE_RESET=1
for run in 1 2; do for v in new s64 s32 s16; do P=/tmp/pv/$v/devalloc-scatter-probe
  echo "##### run $run $v"
  for f in "25 75157120" "50 37578560" "80 23486608" "90 20876992"; do set -- $f
    echo "### fill 16-256 f$1"; PROBE_HEAP=$2 $P mix 131072 1 3 16 256 | grep alloc; done
  for f in "50 4194304" "90 2330176"; do set -- $f
    echo "### fill 16 f$1"; PROBE_HEAP=$2 $P mix 131072 1 3 16 16 | grep alloc; done
  echo "### fill 256 f90"; PROBE_HEAP=37282702 $P mix 131072 1 3 256 256 | grep alloc
  echo "### fill 4096 f90"; PROBE_HEAP=596523235 $P mix 131072 1 3 4096 4096 | grep alloc
  for f in "25 1081736000" "50 540868000" "80 338042500" "90 300482666"; do set -- $f
    echo "### fill 16-4096 f$1"; PROBE_HEAP=$2 $P mix 131072 1 3 16 4096 | grep alloc; done
  echo "### mix 2^17 16 4096 (1 GiB)"; PROBE_HEAP=1073741824 $P mix 131072 1 3 16 4096 | grep alloc
  echo "### mix 2^17 16 256 (128 MiB)"; PROBE_HEAP=134217728 $P mix 131072 1 3 16 256 | grep alloc
  echo "### census"; $P census 16384 1 1 4 1500 | grep census
  echo "### census tight"; $P census 24576 1 1 16 4096 | grep census
done; done > $OUT/pvab5.log 2>&1
grep -c alloc $OUT/pvab5.log
