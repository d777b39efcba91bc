# Library fix 4f68349 (CoalesceHashed: lone lanes' blocks read only from 16 bytes up): the coalescing suite and its
# memcheck, conformance part 1 (every coalescing factory), the stress tool at HEAD over a 64 MiB CUDA heap.
set -u
mkdir -p /tmp/t && tar -xJf .deps/gpuc/tests.tar.xz -C /tmp/t
{ nvidia-smi -L; date -u; echo "commit ${DEVALLOC_COMMIT:-?}"; } | tee $OUT/gpus-c.txt
s=$(date +%s); timeout 60 /tmp/t/devalloc_coalesce_cuda --gtest_brief=1 > $OUT/test-coalesce_cuda.log 2>&1; echo "== coalesce suite rc=$? $(( $(date +%s) - s ))s"; grep -E "PASSED|FAILED|SKIPPED  \]" $OUT/test-coalesce_cuda.log | head -5
s=$(date +%s); timeout 150 compute-sanitizer --tool memcheck --print-limit 10 /tmp/t/devalloc_coalesce_cuda --gtest_brief=1 > $OUT/memcheck-coalesce.log 2>&1
echo "== memcheck coalesce suite rc=$? $(( $(date +%s) - s ))s"; grep -E "tests? ran|PASSED|FAILED|ERROR SUMMARY" $OUT/memcheck-coalesce.log | tail -4
F='-Conformance/ListFirstFit_NoAlignment.*:Conformance/FDG*:Conformance/UnsafeWrap*:HostApi*:Conformance/AtomicBump*' T=280 bash .deps/gpuc/conf.sh; mv $OUT/conformance-timed.log $OUT/conformance-timed-1.log
mkdir -p /tmp/cs && tar -xJf .deps/gpuc/cs.tar.xz -C /tmp/cs
for a in coalesce-block coalesce-dynamic coalesce-hashed; do
  s=$(date +%s); DEVALLOC_STRESS_CUDA_HEAP=67108864 timeout 60 /tmp/cs/devalloc-coalesce-stress 270336 32 20 4 $a > /tmp/cs/o.log 2>&1; echo "== stress 64MiB $a rc=$? $(( $(date +%s) - s ))s"; grep -E " round " /tmp/cs/o.log | cut -c1-200; cat /tmp/cs/o.log >> $OUT/coalesce-stress-small-heap.log
done
# Issue 15's MPI collectives (fb1a5f2's benchmark binary: the bench call's): CUDA's malloc against the coalescing allocators
# (this line named the member devalloc-bench-cuda and failed: the archive holds ./devalloc-bench-cuda; the next
# call ran the two lines below again with that name: mpi-eval/)
mkdir -p /tmp/b && tar -xJf .deps/gpuc/bench.tar.xz -C /tmp/b devalloc-bench-cuda
s=$(date +%s); timeout 150 /tmp/b/devalloc-bench-cuda --quick --tests mpi --allocators cuda-malloc,scatter,coalesce-block,coalesce-hashed,coalesce-dynamic \
  --pair-budget 25 --run-budget 120 --out $OUT/mpi-eval > $OUT/mpi-eval.log 2>&1; echo "== mpi rc=$? $(( $(date +%s) - s ))s"; grep -E "all-to-all|reduce|broadcast" $OUT/mpi-eval.log | head -12 | cut -c1-250
