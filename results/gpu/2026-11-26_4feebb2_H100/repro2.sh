# repro.sh did not reproduce it alone (5 runs, memcheck 0 errors). In the failing run coalesce-block
# ran right after cuda-malloc in the same process (one CUDA malloc heap of 2 GiB). Both, in that order.
set -u
mkdir -p /tmp/b && tar -xJf .deps/gpuc/final-bench.tar.xz -C /tmp/b
for i in 1 2 3; do
  timeout 90 /tmp/b/devalloc-bench-cuda --quick --tests scatter-ops --allocators cuda-malloc,coalesce-block --out /tmp/q$i --no-table > $OUT/repro2-$i.log 2>&1
  echo "run $i rc=$? $(grep -cE 'IllegalAddress|illegal' $OUT/repro2-$i.log) illegal-address lines"
done
timeout 300 compute-sanitizer --tool memcheck --print-limit 5 /tmp/b/devalloc-bench-cuda --quick --tests scatter-ops --allocators cuda-malloc,coalesce-block --out /tmp/qs --no-table > $OUT/repro2-memcheck.log 2>&1
echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|Invalid|at 0x|by thread|Address" $OUT/repro2-memcheck.log | head -14
