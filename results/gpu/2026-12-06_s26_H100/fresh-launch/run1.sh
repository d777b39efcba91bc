set -u
cd .deps/s26 && tar xf pb.tar.xz
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
export PROBE_RESET=1 PROBE_HEAP=134217728 PROBE_DEFAULT_ONLY=1
for t in 1000 10000; do
  ./probe mix $t 1 2 16 256
  ./probe mix $t 1 2 16 16
  PROBE_SLOW=16 ./probe-counts mix $t 1 2 16 256
  PROBE_SLOW=6 ./probe-counts mix $t 1 2 16 16
done
PROBE_TRACE=3 ./probe-trace mix 1000 1 2 16 256
PROBE_TRACE=2 ./probe-trace mix 1000 1 2 16 16
PROBE_TRACE=3 ./probe-trace mix 10000 1 2 16 256
