# Issue 12, session eighth: the Scatter suite and the Scatter conformance factories of 9f2ef51 on the
# GPU; a probe A/B (bench/diag/scatter_probe.cu, PROBE_MINIMAL builds of b48955e's library = old and
# 9f2ef51's = new, alternated twice in one call): fill-like heaps (PROBE_HEAP, reset before every
# repetition), roomy mixed sizes, single sizes, the probability test; then the event counts of the
# new build (DIAG_PROBE=1) in the fill heaps. At most 8 files come back: logs are appended.
set -u
mkdir -p /tmp/new && tar -xJf .deps/gpuc/new.tar.xz -C /tmp/new
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/gpus.txt
s=$(date +%s); timeout 240 /tmp/new/devalloc_scatter_tests_cuda > $OUT/test-scatter.log 2>&1
echo "== scatter suite rc=$? $(( $(date +%s) - s ))s"; tail -3 $OUT/test-scatter.log
s=$(date +%s); timeout 200 /tmp/new/devalloc_conformance_cuda --gtest_filter='*Scatter*:*XMalloc*' > $OUT/conformance-scatter.log 2>&1
echo "== conformance rc=$? $(( $(date +%s) - s ))s"; tail -3 $OUT/conformance-scatter.log
# fill heaps, 2^17 threads: 16-256 B (demand ~18.8 MB) at 50 / 80 / 90 %, 16-4096 B (~270 MB) at 50 / 80 / 90 %
cells=("37600000 mix 131072 1 2 16 256" "23500000 mix 131072 1 2 16 256" "20900000 mix 131072 1 2 16 256"
       "541000000 mix 131072 1 2 16 4096" "338000000 mix 131072 1 2 16 4096" "300500000 mix 131072 1 2 16 4096")
for r in 1 2; do
  for b in old new; do
    s=$(date +%s)
    {
      echo "######## $b run $r"
      for c in "${cells[@]}"; do set -- $c; h=$1; shift; echo "# heap $h: $*"; PROBE_HEAP=$h PROBE_RESET=1 timeout 60 /tmp/new/probe-$b "$@" | tail -1; done
      echo "# roomy"; PROBE_RESET=1 timeout 60 /tmp/new/probe-$b mix 131072 1 2 16 4096 | tail -1
      PROBE_RESET=1 timeout 60 /tmp/new/probe-$b mix 1048576 1 2 16 4096 | tail -1
      PROBE_RESET=1 timeout 60 /tmp/new/probe-$b mix 1048576 1 2 16 256 | tail -1
      PROBE_RESET=1 timeout 60 /tmp/new/probe-$b mix 1048576 1 2 512 8192 | tail -1
      PROBE_RESET=1 timeout 60 /tmp/new/probe-$b tput 1048576 1 2 | tail -1
      echo "# probability test (2^16 threads, 16-256 B)"; timeout 60 /tmp/new/probe-$b | tail -3
    } >> $OUT/probe-ab.log 2>&1
    echo "== ab $b run $r $(( $(date +%s) - s ))s"
  done
done
grep -E "^#|default|simd" $OUT/probe-ab.log | cut -c1-150
for c in "${cells[@]}"; do set -- $c; h=$1; shift; echo "# heap $h: $*" >> $OUT/probe-counts.log; PROBE_HEAP=$h PROBE_RESET=1 timeout 60 /tmp/new/probe-counts "$@" >> $OUT/probe-counts.log 2>&1; done
echo "== counts"; grep -E "rep 5|^#" $OUT/probe-counts.log | cut -c1-400
