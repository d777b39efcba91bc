# Page-size probe (4/8/16/32 KiB) on the mixed, fill and single-size cells + counts of the default on small fills,
# then racecheck of the list tests (020835b: in-flight activity resets the stale count) x2.
set -u
mkdir -p /tmp/p && tar -xJf .deps/gpuc/probe.tar.xz -C /tmp/p
P=/tmp/p/devalloc-scatter-probe; C=/tmp/p/devalloc-scatter-probe-counts
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
{
export PROBE_PAGES=1 PROBE_RESET=1
echo "### single sizes 2^20"; $P tput 1048576 1
for r in "131072 16 4096" "1048576 16 4096" "1048576 16 256" "1048576 512 8192" "131072 512 8192"; do set -- $r; echo "### mix $1 $2-$3"; $P mix $1 1 3 $2 $3; done
for c in "37578560 16 256 f50" "23486608 16 256 f80" "20876992 16 256 f90" "540868000 16 4096 f50" "338042512 16 4096 f80" "300482224 16 4096 f90" "2330176 16 16 f90" "2621440 16 16 f80" "596523248 4096 4096 f90" "37282704 256 256 f90"; do
  set -- $c; echo "### fill $4 $2-$3 heap $1"; PROBE_HEAP=$1 timeout 60 $P mix 131072 1 3 $2 $3; done
echo "### prob"; timeout 60 $P 65536 20 3 16 256
echo "### census"; $P census 16384 1 2 4 1500
} > $OUT/pages.log 2>&1
echo "pages rc=$?"; grep -E "^###|default|page" $OUT/pages.log | cut -c1-160 | head -150
{
export PROBE_DEFAULT_ONLY=1 PROBE_RESET=1
for c in "23486608 16 256 f80" "20876992 16 256 f90" "2330176 16 16 f90"; do set -- $c; echo "### counts fill $4 $2-$3"; PROBE_HEAP=$1 timeout 60 $C mix 131072 1 3 $2 $3; done
} > $OUT/counts.log 2>&1
grep -E "###|rep 3|rep 5" $OUT/counts.log | cut -c1-600
mkdir -p /tmp/t && tar -xJf .deps/gpuc/lists.tar.xz -C /tmp/t
for i in 1 2; do s=$(date +%s)
timeout 150 compute-sanitizer --tool racecheck --print-limit 10 /tmp/t/devalloc_lists_cuda --gtest_brief=1 > $OUT/racecheck-lists-$i.log 2>&1
echo "== racecheck lists rc=$? $(( $(date +%s) - s ))s"; grep -E "tests? ran|PASSED|FAILED|RACECHECK SUMMARY|Which is" $OUT/racecheck-lists-$i.log | tail -6
done
