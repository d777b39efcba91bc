#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 the devalloc authors
# A/B runner for devalloc-bench builds on a GPU machine (probe-ab.sh's counterpart for the
# benchmark's own cells): the builds alternated within each round (so that a drift of the machine
# hits all alike), ROUNDS rounds, Scatter only, quick scale, 8 GiB mixed heaps.
#   NAMES="base x" ROUNDS=3 TESTS=throughput,mixed,fill,prob bash bench/diag/bench-ab.sh ARCHIVE
# ARCHIVE: a tar.xz of stripped devalloc-bench-cuda binaries named as in NAMES, built elsewhere
# (`cmake --preset cuda -DCMAKE_CUDA_ARCHITECTURES=90`, then `ninja devalloc-bench-cuda`; a "slim"
# build keeps only the cuda_malloc and scatter lines of bench/allocators.hpp's list and builds in
# about 2.5 minutes on 2 cores). Writes $OUT/r.tgz (r/NAME-ROUND/results.json and logs),
# $OUT/regs.txt (registers and stack of each build's Scatter kernels, cuobjdump) and $OUT/gpu.txt.
# Tables: unpack r.tgz, gzip each results.json to NAME-ROUND.json.gz, `tools/ab-table DIR scatter NAMES`.
set -u
archive=${1:?archive of devalloc-bench-cuda builds}
: "${NAMES:?NAMES=\"base x\"}" "${ROUNDS:=3}" "${TESTS:=throughput,mixed,fill,prob}"
bins=/tmp/bench-ab
rm -rf "$bins" "$OUT/r" && mkdir -p "$bins" "$OUT/r"
tar -xJf "$archive" -C "$bins"
nvidia-smi -L > "$OUT/gpu.txt"
cuobjdump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
for n in $NAMES; do
  echo "== $n"
  # One line per distinct (kernel family, registers, stack) of the Scatter kernels, with its count.
  "$cuobjdump" --dump-resource-usage "$bins/$n" 2>/dev/null | awk '
    /Function/ { name = $2; sub(/:$/, "", name); keep = (name ~ /Scatter/) }
    /REG:/ && keep { for (i = 1; i <= NF; i++) { if ($i ~ /^REG:/) r = substr($i, 5); if ($i ~ /^STACK:/) s = substr($i, 7) }
                     k = name; sub(/^_Z[NL]*[0-9]*/, "", k); gsub(/[0-9].*/, "", k); print k, r, s }' | sort | uniq -c
done > "$OUT/regs.txt" 2>&1
for i in $(seq 1 "$ROUNDS"); do
  for n in $NAMES; do
    start=$(date +%s)
    "$bins/$n" --quick --tests "$TESTS" --allocators scatter --mixed-heap 8G --out "$OUT/r/$n-$i" --quiet --no-table \
      > "$OUT/r/$n-$i.log" 2>&1
    echo "$n-$i rc=$? $(($(date +%s) - start)) s"
  done
done
(cd "$OUT" && tar czf r.tgz r && rm -rf r)
