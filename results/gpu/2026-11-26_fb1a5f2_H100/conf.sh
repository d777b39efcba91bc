# conformance on the GPU with per-test timings: which test is slow or hangs
mkdir -p /tmp/t && tar -xJf .deps/gpuc/tests.tar.xz -C /tmp/t devalloc_conformance_cuda 2>/dev/null || tar -xJf .deps/gpuc/tests.tar.xz -C /tmp/t
s=$(date +%s); timeout ${T:-280} /tmp/t/devalloc_conformance_cuda ${F:+--gtest_filter=$F} > $OUT/conformance-timed.log 2>&1; echo "rc=$? $(( $(date +%s) - s ))s"
grep -E "^\[ +(OK|FAILED) +\]" $OUT/conformance-timed.log | sed -E 's/.*\] (.*) \(([0-9]+) ms\)/\2 \1/' | sort -n | tail -15
echo "-- last lines"; tail -4 $OUT/conformance-timed.log | cut -c1-200
grep -cE "^\[ +OK +\]" $OUT/conformance-timed.log
