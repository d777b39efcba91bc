# Bisect of devalloc-bench's own Scatter cells over this session's commits: slim builds
# (cuda-malloc and scatter only) of fa69686 (bench-old), 015700c (bench-mark: full-marks),
# 4e10148 (bench-full: + block counters split, pages opened full), 09f76a4 (bench-new: + the
# dense-map flag sampled); alternated, two runs each: throughput and mixed (quick, scatter only).
set -u
mkdir -p /tmp/ab && tar -xJf .deps/gpuc/bench-ab2.tar.xz -C /tmp/ab
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for r in 1 2; do
  for b in bench-old bench-mark bench-full bench-new; do
    /tmp/ab/$b --quick --tests throughput,mixed --allocators scatter --mixed-heap 8G --out /tmp/ab/$b-$r --quiet --no-table > /tmp/ab/$b-$r.log 2>&1
    echo "== $b run $r rc=$?"
    cp /tmp/ab/$b-$r/results.json $OUT/$b-$r.json
  done
done
