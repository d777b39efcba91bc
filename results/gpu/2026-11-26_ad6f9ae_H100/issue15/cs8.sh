# issue 15: CUDA's malloc alone, two lanes sharing each block (DEVALLOC_STRESS_PAIR=1), heap running out
set -u
mkdir -p /tmp/cs && tar -xJf .deps/gpuc/cs.tar.xz -C /tmp/cs; C=/tmp/cs/devalloc-coalesce-stress
run() { local name=$1; shift; s=$(date +%s); timeout ${T:-60} env "$@" > /tmp/cs/o.log 2>&1; rc=$?
  echo "== $name rc=$rc $(( $(date +%s) - s ))s rounds $(grep -c 'round [0-9]' /tmp/cs/o.log), corrupt $(grep 'round [0-9]' /tmp/cs/o.log | grep -vc 'bad stamps 0 ')"
  grep 'round 0' /tmp/cs/o.log | cut -c1-170; grep 'round [0-9]' /tmp/cs/o.log | grep -v 'bad stamps 0 ' | cut -c1-170; { echo "== $name rc=$rc"; cat /tmp/cs/o.log; } >> $OUT/cs8.log; }
T=110 run "cuda-malloc pairs 16MiB 2x32B" DEVALLOC_STRESS_PAIR=1 DEVALLOC_STRESS_CUDA_HEAP=16777216 $C 270336 32 20 12 cuda-malloc
T=110 run "cuda-malloc pairs 64MiB 2x768B" DEVALLOC_STRESS_PAIR=1 DEVALLOC_STRESS_CUDA_HEAP=67108864 $C 270336 768 20 12 cuda-malloc
T=40 run "coalesce-dynamic 64MiB 32B (reference)" DEVALLOC_STRESS_CUDA_HEAP=67108864 $C 270336 32 20 6 coalesce-dynamic
