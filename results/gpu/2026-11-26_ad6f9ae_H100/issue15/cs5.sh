# issue 15: compute-sanitizer memcheck (device-heap bounds of CUDA's malloc) on the reproducer: coalescing over
# CUDA's malloc when its 64 MiB heap runs out, 270 336 threads x 32 B
set -u
mkdir -p /tmp/cs && tar -xJf .deps/gpuc/cs.tar.xz -C /tmp/cs; C=/tmp/cs/devalloc-coalesce-stress
for a in coalesce-block coalesce-dynamic; do
  s=$(date +%s); DEVALLOC_STRESS_CUDA_HEAP=67108864 timeout ${T:-220} compute-sanitizer --tool memcheck --print-limit 30 $C 270336 32 20 3 $a > $OUT/cs5-memcheck-$a.log 2>&1
  echo "== memcheck $a rc=$? $(( $(date +%s) - s ))s"; grep -E "round|ERROR SUMMARY|Invalid|Address|of size|bytes after|heap" $OUT/cs5-memcheck-$a.log | head -14 | cut -c1-200
done
