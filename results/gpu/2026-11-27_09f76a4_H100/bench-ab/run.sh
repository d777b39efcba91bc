# A/B of devalloc-bench's own cells for Scatter: slim builds (allocators cuda-malloc and scatter
# only) of fa69686 (bench-old) and 09f76a4 (bench-new), alternated, three runs each: throughput,
# mixed, fill (quick, scatter only).
set -u
mkdir -p /tmp/ab && tar -xJf .deps/gpuc/bench-ab.tar.xz -C /tmp/ab
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for r in 1 2 3; do
  for b in bench-old bench-new; do
    /tmp/ab/$b --quick --tests throughput,mixed,fill --allocators scatter --mixed-heap 8G --out /tmp/ab/$b-$r --quiet --no-table > /tmp/ab/$b-$r.log 2>&1
    echo "== $b run $r rc=$?"
    cp /tmp/ab/$b-$r/results.json $OUT/$b-$r.json
  done
done
