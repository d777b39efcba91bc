# Session 2026-11-27, H100 (nvidia-h100-x1), one device call:
#   cab-old / cab-new: .deps/gpuc/cab/cab.cu (copied here) against fa69686's and f0b9bbb's headers
#   (issue 13: the Circular family in 24 registers), alternated, two runs each;
#   r-base / r-mark: bench/diag/scatter_probe.cu (-DPROBE_MINIMAL=1) at f0b9bbb and with the
#   full-mark change (issue 12), through the shared runner bench/diag/probe-ab.sh, two runs each.
set -u; mkdir -p $OUT; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
(for b in cab-old cab-new cab-old cab-new; do echo "######## $b"; .deps/gpuc/cab/$b; done) > $OUT/cab.log 2>&1
bash bench/diag/probe-ab.sh .deps/gpuc/probes-mark.tar.xz ab-mark.log 2 r-base r-mark > $OUT/ab-mark-summary.txt 2>&1
