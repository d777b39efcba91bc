# Session 2026-11-27, H100 (nvidia-h100-x1), one device call:
#   cab-old / cab-new: .deps/gpuc/cab/cab.cu (copied here) against fa69686's and f0b9bbb's headers
#   (issue 13: the Circular family in 24 registers), alternated, two runs each;
#   r-base / r-mark: bench/diag/scatter_probe.cu (-DPROBE_MINIMAL=1) at f0b9bbb and with the
#   full-mark change (issue 12), through the shared runner bench/diag/probe-ab.sh, two runs each.
set -u; mkdir -p $OUT; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
(for b in cab-old cab-new cab-old cab-new; do echo "######## $b"; .deps/gpuc/cab/$b; done) > $OUT/cab.log 2>&1
bash bench/diag/probe-ab.sh .deps/gpuc/probes-mark.tar.xz ab-mark.log 2 r-base r-mark > $OUT/ab-mark-summary.txt 2>&1

# Later calls of the same session (same machine kind), each its own device call:
#   diag4k.log: DIAG_PROBE build of 015700c (d-mark) beside r-mark, 2^20 threads x 4096 / 1024 / 256 / 16 B,
#     per-allocation clock64 percentiles and the slowest lanes' events:
#       for s in 4096 1024 256 16; do PROBE_RESET=1 r-mark tput 1048576 1 2 $s $s; PROBE_SLOW=6 PROBE_RESET=1 d-mark tput 1048576 1 2 $s $s; done
#   nb.log: r-mark against r-nb (an experiment: the super block counter's updates compiled out), two runs:
#       tput 1048576; mix 1048576 512-8192; mix 131072 16-4096; PROBE_HEAP=338000000 mix 131072 16-4096
#   ab-full*.log: CELLS=cells-full.txt bash bench/diag/probe-ab.sh probes-full.tar.xz ab-full.log 2 r-mark r-shard r-full
#   ab-full2*.log: CELLS=cells-full2.txt bash bench/diag/probe-ab.sh probes-full2.tar.xz ab-full2.log 2 r-mark r-full2
#   ab-nd*.log: CELLS=cells-nd.txt bash bench/diag/probe-ab.sh probes-nd.tar.xz ab-nd.log 2 r-full2 r-nd
#   ab-ds*.log: CELLS=cells-ds.txt bash bench/diag/probe-ab.sh probes-ds.tar.xz ab-ds.log 2 r-full2 r-ds r-nd
