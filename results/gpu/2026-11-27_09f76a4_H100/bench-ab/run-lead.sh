# Leads for the 256 B loss (not committed code): slim builds of 09f76a4 (bench-new) and two
# variants of it: vA = the full-open page's region_add before its lanes take their chunks (as
# open_page did), vB = no full open in the directory round (open_page and a bit claim per lane, as
# before 4e10148, the rest of 09f76a4 kept). Alternated, three runs: throughput and mixed (quick).
set -u
mkdir -p /tmp/ab && tar -xJf .deps/gpuc/bench-ab3.tar.xz -C /tmp/ab
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for r in 1 2 3; do
  for b in bench-new bench-vA bench-vB; do
    /tmp/ab/$b --quick --tests throughput,mixed --allocators scatter --mixed-heap 8G --out /tmp/ab/$b-$r --quiet --no-table > /tmp/ab/$b-$r.log 2>&1
    echo "== $b run $r rc=$?"
    cp /tmp/ab/$b-$r/results.json $OUT/$b-$r.json
  done
done
