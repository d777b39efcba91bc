# Event counts (DIAG_PROBE=1 build of the library as it stands) of the fill heaps of 16-256 B at 50 and
# 90 % and 16 B at 80 %, at three occupancies of the alloc kernel (PROBE_SMEM 0 / 80 000 / 120 000 B:
# 3 / 2 / 1 blocks of 256 threads per multiprocessor): which events drop where the launch gets faster.
set -u
mkdir -p /tmp/p && tar -xJf .deps/gpuc/probes3.tar.xz -C /tmp/p
nvidia-smi --query-gpu=name --format=csv,noheader
for c in "37600000 mix 131072 1 2 16 256" "20900000 mix 131072 1 2 16 256" "2620000 tput 131072 1 2 16 16"; do
  for SM in 0 80000 120000; do
    set -- $c; h=$1; shift
    echo "# heap $h $* smem $SM" >> $OUT/counts3.log
    PROBE_SMEM=$SM PROBE_HEAP=$h PROBE_RESET=1 timeout 60 /tmp/p/p-counts "$@" >> $OUT/counts3.log 2>&1
  done
done
grep -E "^#|rep 5" $OUT/counts3.log | sed 's/ (max/(/g' | cut -c1-420
