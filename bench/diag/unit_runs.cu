// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// bench/diag/unit_runs.cu — what a request costs as a run of small units of one free map, beside
// Scatter's pages, in the same plain kernels (bench/diag/plain_kernels.cuh).
//
//   devalloc-unit-runs [threads=1048576] [lo=2049] [hi=4096] [heap_mib=8192] [unit=256] [reps=11]
//
// creation::Runs (the `runs` preset, with the unit given) takes a request of s bytes as
// ceil(s / unit) consecutive free units of one bitmap: no directory, no size classes, no page
// states. The tool answers one question of the two-granularity heap (docs/notes/two-granularity-
// heap.md): is a run of units as cheap in a roomy heap as Scatter's page of one chunk (2049-4096
// B) or of few chunks, and how full does a tight heap get? It times, median of `reps`, the alloc
// kernel and the free kernel of Runs, then of the `scatter` preset, each on its own heap. (Its
// first version, in session 2026-12-07 thirty-sixth, had a hand-written copy of the same
// algorithm, before creation::Runs existed: results/gpu/2026-12-07_s36_H100/unit-runs.)
//
// Environment: UNIT_FILL=f (0 < f <= 1) sizes both heaps to the requests' sum over f instead of
// heap_mib (devalloc-bench's fill cells: 0.8 and 0.9 are its tight ones), so that the failed
// counts compare a run's packing with Scatter's classes in a tight heap.
//
// A diagnostic, not part of the benchmark: its figures are not records of devalloc-bench. CUDA
// only (nvcc).
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <devalloc/devalloc.hpp>

#include "plain_kernels.cuh"

namespace {

/// creation::Runs with units of U bytes, as the `runs` preset otherwise.
template <std::uint32_t U>
struct unit_config : devalloc::creation::RunsConfig {
  static constexpr std::uint32_t unit_bytes = U;
};
template <std::uint32_t U>
using runs_heap =
  devalloc::Allocator<devalloc::creation::Runs<unit_config<U>>, devalloc::distribution::Noop, devalloc::oom::ReturnNull,
                      devalloc::reserve_pool::CudaMalloc, devalloc::alignment::Shrink<16>>;

/// A type carried by value into a generic lambda.
template <class T>
struct heap_tag {
  using type = T;
};

/// Times the plain kernels over `heap` (touching each allocation) and prints one line.
template <class Handle>
void time_kernels(const char* name, Handle heap, unsigned n, unsigned lo, unsigned hi, int reps, cudaStream_t stream)
{
  const devalloc_diag::plain_timing t = devalloc_diag::time_plain_kernels(heap, n, lo, hi, reps, true, stream, [] {});
  cudaFuncAttributes attr{};
  DEVALLOC_CUDA_TRY(cudaFuncGetAttributes(&attr, devalloc_diag::one_alloc_touch<Handle>));
  std::printf(
    "%-10s threads %u, sizes %u-%u B, %d reps: alloc %.3f ms (%.2f G/s), free %.3f ms (%.2f G/s), failed %llu, "
    "%d registers\n",
    name, n, lo, hi, reps, t.alloc_ms, n / t.alloc_ms / 1e6, t.free_ms, n / t.free_ms / 1e6, t.failed, attr.numRegs);
}

}  // namespace

int main(int argc, char** argv)
{
  const unsigned n = argc > 1 ? static_cast<unsigned>(std::strtoul(argv[1], nullptr, 0)) : 1u << 20;
  const unsigned lo = argc > 2 ? static_cast<unsigned>(std::strtoul(argv[2], nullptr, 0)) : 2049u;
  const unsigned hi = argc > 3 ? static_cast<unsigned>(std::strtoul(argv[3], nullptr, 0)) : 4096u;
  const std::size_t mib = argc > 4 ? std::strtoull(argv[4], nullptr, 0) : 8192u;
  const unsigned unit = argc > 5 ? static_cast<unsigned>(std::strtoul(argv[5], nullptr, 0)) : 256u;
  const int reps = argc > 6 ? std::atoi(argv[6]) : 11;
  unsigned shift = 0;
  while ((1u << shift) < unit) { ++shift; }
  if (n == 0 || lo == 0 || hi < lo || reps < 1 || unit < 16 || (1u << shift) != unit || mib == 0) {
    std::fprintf(stderr, "usage: %s [threads>0] [lo>0] [hi>=lo] [heap_mib>0] [unit: a power of two >= 16] [reps>0]\n",
                 argv[0]);
    return 2;
  }
  // A tight heap: the requests' sum (plain_size's formula on the host) over UNIT_FILL.
  std::size_t bytes = mib << 20;
  if (const char* fill = std::getenv("UNIT_FILL")) {
    const double f = std::atof(fill);
    if (!(f > 0.0 && f <= 1.0)) {
      std::fprintf(stderr, "UNIT_FILL must be in (0, 1]\n");
      return 2;
    }
    double demand = 0;
    for (unsigned i = 0; i < n; ++i) { demand += lo + (i * 2654435761u >> 7) % (hi - lo + 1u); }
    bytes = (static_cast<std::size_t>(demand / f) + unit - 1u) / unit * unit;
    std::printf("tight heaps: %zu B, the requests' sum is %.0f %% of it\n", bytes, 100.0 * f);
  }
  cudaStream_t stream{};
  DEVALLOC_CUDA_TRY(cudaStreamCreate(&stream));
  {
    const auto run = [&](auto tag) {
      using heap_type = typename decltype(tag)::type;
      heap_type heap(bytes, stream);
      std::printf("runs: %u units of %u B\n", heap.handle().creation().units(), unit);
      time_kernels("runs", heap.handle(), n, lo, hi, reps, stream);
    };
    switch (unit) {
      case 64:
        run(heap_tag<runs_heap<64>>{});
        break;
      case 128:
        run(heap_tag<runs_heap<128>>{});
        break;
      case 256:
        run(heap_tag<runs_heap<256>>{});
        break;
      case 512:
        run(heap_tag<runs_heap<512>>{});
        break;
      default:
        std::fprintf(stderr, "unit: 64, 128, 256 or 512\n");
        return 2;
    }
  }
  {
    devalloc::presets::scatter heap(bytes, stream);
    time_kernels("scatter", heap.handle(), n, lo, hi, reps, stream);
  }
  DEVALLOC_CUDA_TRY(cudaStreamDestroy(stream));
  return 0;
}
