set -u
export DEVALLOC_COMMIT=${DEVALLOC_COMMIT:?}
bash .deps/gpuc/final-t2.sh
s=$(date +%s); timeout 120 compute-sanitizer --tool memcheck --print-limit 10 /tmp/t/devalloc_coalesce_cuda --gtest_brief=1 > $OUT/memcheck-coalesce.log 2>&1
echo "== memcheck coalesce suite rc=$? $(( $(date +%s) - s ))s"; grep -E "tests? ran|PASSED|FAILED|ERROR SUMMARY" $OUT/memcheck-coalesce.log | tail -3
F='Conformance/ListFirstFit_NoAlignment.*:Conformance/FDG*:Conformance/UnsafeWrap*:HostApi*:Conformance/AtomicBump*' T=200 bash .deps/gpuc/conf.sh; mv $OUT/conformance-timed.log $OUT/conformance-timed-2.log
bash .deps/gpuc/eval15.sh
