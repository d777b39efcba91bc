#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 the devalloc authors
# A/B runner for scatter_probe builds on a GPU machine: every cell of every binary, the binaries
# alternated within each run (so that a drift of the machine hits both alike), `runs` times.
#   bash bench/diag/probe-ab.sh ARCHIVE LOG RUNS BINARY...
# ARCHIVE: a tar.xz of the stripped probe binaries (built elsewhere: nvcc ... -DPROBE_MINIMAL=1
# bench/diag/scatter_probe.cu, one binary per library version); LOG: written under $OUT;
# CELLS (environment, optional): a file of cells, one per line, "HEAP MODE ARGS..." (HEAP 0: the
# probe's own heap; lines starting with # skipped); the default covers issue 12's cells: single
# sizes at 2^20 threads, mixed ranges, fills of small and mixed sizes, XMallocSIMD, the census and
# the probability test. Prints a summary (one line per cell and binary) at the end.
set -u
archive=$1; log=$OUT/$2; runs=$3; shift 3
mkdir -p /tmp/probe-ab && tar -xJf "$archive" -C /tmp/probe-ab
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$log"
default_cells="0 tput 1048576 1 2
0 mix 1048576 1 2 16 256
0 mix 131072 1 2 16 4096
0 mix 1048576 1 2 16 4096
0 mix 1048576 1 2 512 8192
75200000 mix 131072 1 2 16 256
23500000 mix 131072 1 2 16 256
2600000 tput 131072 1 2 16 16
338000000 mix 131072 1 2 16 4096
simd tput 262144 1 2 64 64
census census 16384 1 3 4 1500
prob prob"
cells=$default_cells
if [ -n "${CELLS:-}" ]; then cells=$(grep -v '^#' "$CELLS"); fi
for r in $(seq 1 "$runs"); do
  for b in "$@"; do
    echo "######## $b run $r" >> "$log"
    while read -r h args; do
      [ -z "$h" ] && continue
      case $h in
        0) PROBE_RESET=1 timeout 60 /tmp/probe-ab/$b $args | tail -1 | sed "s/^/$args | /" ;;
        simd) PROBE_SIMD_ONLY=1 PROBE_RESET=1 timeout 60 /tmp/probe-ab/$b $args | tail -1 | sed "s/^/XMallocSIMD $args | /" ;;
        census) timeout 60 /tmp/probe-ab/$b $args | tail -1 ;;
        prob) echo "# probability test"; timeout 60 /tmp/probe-ab/$b | grep -E "^default|launch us" | head -3 ;;
        *) PROBE_HEAP=$h PROBE_RESET=1 timeout 60 /tmp/probe-ab/$b $args | tail -1 | sed "s/^/heap $h $args | /" ;;
      esac
    done <<< "$cells" >> "$log" 2>&1
  done
done
grep -E "####|^tput|^mix|^heap|^default|^XMalloc|census|launch us" "$log" |
  sed -E 's/launch us: median *([0-9.]+).*in a sequence \(median\) *([0-9.]+)/launch \1 seq \2/; s/\[!![^]]*\] //g' | cut -c1-300
