# racecheck of the list tests built with DEVALLOC_LIST_RETRY_ROUNDS=16384 (9a231e9's tree), 5 runs, then the same binary at full speed
set -u
mkdir -p /tmp/t && tar -xJf .deps/gpuc/l16.tar.xz -C /tmp/t
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for i in 1 2 3 4 5; do s=$(date +%s)
timeout 100 compute-sanitizer --tool racecheck --print-limit 10 /tmp/t/devalloc_lists_cuda --gtest_brief=1 > $OUT/racecheck-lists16k-$i.log 2>&1
echo "== racecheck lists (retry_rounds 16384) rc=$? $(( $(date +%s) - s ))s $(grep -E "PASSED|FAILED  \]|RACECHECK SUMMARY|Which is: [1-9]" $OUT/racecheck-lists16k-$i.log | tr '\n' ' ' | cut -c1-300)"
done
s=$(date +%s); /tmp/t/devalloc_lists_cuda --gtest_brief=1 > $OUT/lists16k.log 2>&1; echo "== full speed rc=$? $(( $(date +%s) - s ))s"; tail -2 $OUT/lists16k.log
