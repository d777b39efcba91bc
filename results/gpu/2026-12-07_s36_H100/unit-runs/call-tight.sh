#!/usr/bin/env bash
set -u
for f in 0.5 0.8 0.9; do
  for r in "16 4096" "512 8192" "16 256"; do
    echo "== fill $f 131072 $r unit 256"; UNIT_FILL=$f timeout 60 .deps/s43/ur 131072 $r 1 256 3 2>&1
  done
  echo "== fill $f 131072 16 4096 unit 128"; UNIT_FILL=$f timeout 60 .deps/s43/ur 131072 16 4096 1 128 3 2>&1
  echo "== fill $f 1048576 16 4096 unit 256"; UNIT_FILL=$f timeout 60 .deps/s43/ur 1048576 16 4096 1 256 3 2>&1
done > $OUT/unit-runs-fill.log
cat $OUT/unit-runs-fill.log | grep -v "^unit runs"
