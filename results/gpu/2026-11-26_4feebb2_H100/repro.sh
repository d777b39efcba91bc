# The first quick run of 4feebb2 stopped at an illegal address in scatter-ops / coalesce-block
# (CUDA malloc + CoalesceBlock; no Scatter code) at 270 336 threads x 128 B. Repeat that test and
# allocator alone, then once under compute-sanitizer memcheck.
set -u
mkdir -p /tmp/b && tar -xJf .deps/gpuc/final-bench.tar.xz -C /tmp/b
for i in 1 2 3 4 5; do
  timeout 60 /tmp/b/devalloc-bench-cuda --quick --tests scatter-ops --allocators coalesce-block --out /tmp/r$i --no-table > $OUT/repro-$i.log 2>&1
  echo "run $i rc=$? $(grep -cE 'IllegalAddress|illegal' $OUT/repro-$i.log) illegal-address lines"
done
timeout 240 compute-sanitizer --tool memcheck --print-limit 5 /tmp/b/devalloc-bench-cuda --quick --tests scatter-ops --allocators coalesce-block --out /tmp/rs --no-table > $OUT/repro-memcheck.log 2>&1
echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|Invalid|at 0x|by thread" $OUT/repro-memcheck.log | head -12
