# compute-sanitizer racecheck on the list tests (110851a)
mkdir -p /tmp/t && tar -xJf .deps/gpuc/lists.tar.xz -C /tmp/t
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
s=$(date +%s)
timeout 200 compute-sanitizer --tool racecheck --print-limit 10 /tmp/t/devalloc_lists_cuda --gtest_brief=1 > $OUT/racecheck-lists.log 2>&1
echo "== racecheck lists rc=$? $(( $(date +%s) - s ))s"; grep -E "tests? ran|PASSED|FAILED|RACECHECK SUMMARY|hazard|Which is" $OUT/racecheck-lists.log | tail -8
