# Scatter suite (whole, once, new binary) + Shrink<256> alignment test + ScatterFragmentation failure rate, base (110851a) vs follow (9a231e9), alternating
set -u
mkdir -p /tmp/st && tar -xJf .deps/gpuc/st5.tar.xz -C /tmp/st
s=$(date +%s); timeout 200 /tmp/st/scatter.follow --gtest_brief=1 > $OUT/scatter-suite.log 2>&1; echo "== scatter suite rc=$? $(( $(date +%s) - s ))s"; grep -E "PASSED|FAILED|tests? ran" $OUT/scatter-suite.log | head -8
N=${N:-40} BUDGET=${BUDGET:-200} bash .deps/gpuc/st5.sh > $OUT/st-follow.log 2>&1; tail -4 $OUT/st-follow.log
