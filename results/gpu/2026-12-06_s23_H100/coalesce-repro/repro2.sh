#!/bin/bash
set -u
d=$(cd "$(dirname "$0")" && pwd); mkdir -p /tmp/fb && tar xJf "$d/bench.tar.xz" -C /tmp/fb
for a in coalesce-block coalesce-dynamic; do s=$(date +%s)
timeout 120 compute-sanitizer --tool memcheck --print-limit 200 /tmp/fb/devalloc-bench-cuda --quick --tests scatter-ops --allocators $a --out /tmp/mc-$a --quiet --no-table > $OUT/memcheck-$a.log 2>&1
echo "memcheck $a rc=$? $(($(date +%s)-s)) s"; grep -E "^========= [A-Z]" $OUT/memcheck-$a.log | sort | uniq -c | sort -rn | head -8 | cut -c1-200
grep -E "^=========     at " $OUT/memcheck-$a.log | sort | uniq -c | sort -rn | head -8 | cut -c1-200
done
