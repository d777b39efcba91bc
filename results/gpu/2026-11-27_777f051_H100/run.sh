# One call: the benchmark's own Scatter cells of 77903c1 (bench-vb), 0638603 (bench-spec) and
# 777f051 (bench-hier), slim builds alternated, three runs; then the GPU tests of 777f051.
set -u
mkdir -p /tmp/ab && tar -xJf .deps/gpuc/slim3.tar.xz -C /tmp/ab
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
s=$(date +%s)
for r in 1 2 3; do
  for b in bench-vb bench-spec bench-hier; do
    /tmp/ab/$b --quick --tests throughput,mixed,fill,large --allocators scatter --mixed-heap 8G --out /tmp/ab/$b-$r --quiet --no-table > /tmp/ab/$b-$r.log 2>&1
    echo "== $b run $r rc=$? $(( $(date +%s) - s ))s"
    mkdir -p $OUT/ab && gzip -c /tmp/ab/$b-$r/results.json > $OUT/ab/$b-$r.json.gz
  done
done
tar -czf $OUT/ab.tar.gz -C $OUT ab && rm -rf $OUT/ab
DEVALLOC_COMMIT=777f051 bash scripts/gpu-prebuilt.sh tests .deps/gpuc/final-tests.tar.xz
# A lead (not committed code): one-chunk pages opened full in the directory round (p-one) against 777f051 (p-hier).
CELLS=.deps/gpuc/cells-spec.txt bash bench/diag/probe-ab.sh .deps/gpuc/probes-one.tar.xz ab-one.log 2 p-hier p-one > /dev/null 2>&1
grep -E "####|^tput|^mix|^heap|census|^default|^XMalloc" $OUT/ab-one.log | sed -E 's/ \| default +\| / | /; s/\(alloc [0-9.]+ ms\)//g; s/\[!![^]]*\] //g; s/launch us: median.*in a sequence/seq/' | cut -c1-200
