#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 the devalloc authors
# scripts/gpu-distributed.sh — issue 16 on a GPU machine: examples/distributed with one MPI rank per
# GPU (1, 2, 4, 8 ranks, as many as there are GPUs), Scatter and CUDA's malloc, then devalloc-bench's
# `distributed` test over the same binary. Logs in $OUT (default ./out).
#
#   OUT=... bash scripts/gpu-distributed.sh BIN [BENCH] [STEPS] [WORKERS]
#
# BIN is devalloc_example_distributed_cuda, BENCH devalloc-bench-cuda (optional). Open MPI comes from
# the machine or from .deps/openmpi-bundle.tar.xz (scripts/openmpi-bundle.sh); NCCL from the CUDA
# toolkit or PyPI's nvidia-nccl-cu13 where the binary does not find libnccl.so.2 by itself.
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0), as the device machines require.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${1:?usage: $0 BIN [BENCH] [STEPS] [WORKERS]}
bench=${2:-}
steps=${3:-20}
workers=${4:-1048576}
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
log="$OUT/distributed.log"
export NCCL_NVLS_ENABLE=0 OMPI_MCA_plm_rsh_agent=false
{
  echo "# examples/distributed on the GPU"
  echo "commit: ${DEVALLOC_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
  echo "date:   $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader | sed 's/^/gpu:    /'
} | tee "$log"
bash scripts/openmpi-bundle.sh install 2>&1 | tee -a "$log"
if ldd "$bin" | grep -q 'libnccl.so.2 => not found'; then
  for dir in /usr/local/cuda/lib64 /usr/local/cuda/lib \
    "$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))' 2>/dev/null)"; do
    if [ -n "$dir" ] && [ -f "$dir/libnccl.so.2" ]; then
      export LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
      break
    fi
  done
fi
echo "libnccl: $(ldd "$bin" | grep libnccl)" | tee -a "$log"
devices=$(nvidia-smi -L | wc -l)
flags=(--oversubscribe -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE)
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
status=0
for n in 1 2 4 8; do
  [ "$n" -le "$devices" ] || { echo "ranks $n: not run, $devices GPU(s) here" | tee -a "$log"; continue; }
  for a in device_malloc scatter; do
    run="$OUT/distributed-$n-$a.log"
    timeout 300 mpiexec -n "$n" "${flags[@]}" "$bin" --steps "$steps" --threads "$workers" --allocator "$a" >"$run" 2>&1
    rc=$?
    echo "ranks $n $a: exit $rc" | tee -a "$log"
    grep -E '^distributed: ' "$run" | tee -a "$log"
    [ $rc = 0 ] || { tail -20 "$run" | tee -a "$log"; status=1; }
  done
done
if [ -n "$bench" ]; then
  DEVALLOC_DISTRIBUTED_BIN=$bin timeout 600 "$bench" --tests distributed --quick --out "$OUT/bench-distributed" \
    >"$OUT/bench-distributed.log" 2>&1 || status=1
  sed -n '/^== distributed/,/^results:/p' "$OUT/bench-distributed.log" | tee -a "$log"
fi
exit $status
