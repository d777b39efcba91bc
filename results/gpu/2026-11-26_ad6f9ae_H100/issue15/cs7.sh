# issue 15: CUDA's malloc alone, each block freed by the neighbouring lane (DEVALLOC_STRESS_CROSS=1), heap running out
set -u
mkdir -p /tmp/cs && tar -xJf .deps/gpuc/cs.tar.xz -C /tmp/cs; C=/tmp/cs/devalloc-coalesce-stress
run() { local name=$1; shift; s=$(date +%s); timeout ${T:-60} env "$@" > /tmp/cs/o.log 2>&1; rc=$?
  echo "== $name rc=$rc $(( $(date +%s) - s ))s"; grep -E "round" /tmp/cs/o.log | grep -v "bad stamps 0 " | cut -c1-190; echo "rounds $(grep -c round /tmp/cs/o.log), corrupt $(grep round /tmp/cs/o.log | grep -vc 'bad stamps 0 ')"; { echo "== $name rc=$rc"; cat /tmp/cs/o.log; } >> $OUT/cs7.log; }
T=130 run "cuda-malloc cross 4MiB 32B" DEVALLOC_STRESS_CROSS=1 DEVALLOC_STRESS_CUDA_HEAP=4194304 $C 270336 32 20 24 cuda-malloc
T=100 run "cuda-malloc cross 16MiB 128B" DEVALLOC_STRESS_CROSS=1 DEVALLOC_STRESS_CUDA_HEAP=16777216 $C 270336 128 20 8 cuda-malloc
T=60 run "cuda-malloc cross 64MiB 16..1552B x 67584" DEVALLOC_STRESS_CROSS=1 DEVALLOC_STRESS_CUDA_HEAP=67108864 $C 67584 0 20 8 cuda-malloc
