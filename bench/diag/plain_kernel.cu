// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// bench/diag/plain_kernel.cu — a plain user kernel over the `scatter` preset, timed.
//
//   __global__ void one_alloc(H heap, void** out, ...) { out[i] = heap.alloc(lo + hash(i) % span); }
//
// devalloc-bench's kernels write and verify what they allocate, and their register counts did not
// follow the library's in session 2026-11-27 (nineteenth): a change kept every bench kernel at 80
// registers while this kernel went to 96 (tools/kernel-regs prints the count without a GPU). This
// tool reports the kernel's registers, its resident blocks of 256 threads per multiprocessor and
// the median rate of `reps` alloc and free launches on one heap (each launch after a free-all).
//
//   devalloc-plain-kernel [threads=1048576] [lo=16] [hi=4096] [heap_mib=8192] [reps=11]
//
// Environment: PLAIN_FRESH=1 resets the heap before each alloc launch (as devalloc-bench's cells
// do; the reset is not timed), PLAIN_TOUCH=1 writes the first and the last byte of each allocation
// in the alloc kernel (as devalloc-bench's stamps do).
//
// -DPLAIN_PRESET=<preset> builds it over another preset (default scatter); tools/kernel-regs
// compiles this file and prints its kernels' registers without a GPU.
//
// A diagnostic, not part of the benchmark: its figures are not records of devalloc-bench.
#include <cstdio>
#include <cstdlib>

#include <devalloc/devalloc.hpp>

#include "plain_kernels.cuh"

namespace {

#ifndef PLAIN_PRESET
#define PLAIN_PRESET scatter  // a preset of include/devalloc/presets.hpp (tools/kernel-regs sets it)
#endif
using heap_type = devalloc::presets::PLAIN_PRESET;
using handle_type = heap_type::handle_type;

// The kernels (one definition, shared with devalloc-bench's registers test and tools/kernel-regs;
// devalloc_diag::time_plain_kernels launches all three).
const auto one_alloc = devalloc_diag::one_alloc<handle_type>;

}  // namespace

int main(int argc, char** argv)
{
  const unsigned n = argc > 1 ? static_cast<unsigned>(std::strtoul(argv[1], nullptr, 0)) : 1u << 20;
  const unsigned lo = argc > 2 ? static_cast<unsigned>(std::strtoul(argv[2], nullptr, 0)) : 16u;
  const unsigned hi = argc > 3 ? static_cast<unsigned>(std::strtoul(argv[3], nullptr, 0)) : 4096u;
  const std::size_t mib = argc > 4 ? std::strtoull(argv[4], nullptr, 0) : 8192u;
  const int reps = argc > 5 ? std::atoi(argv[5]) : 11;
  if (n == 0 || lo == 0 || hi < lo || reps < 1) {
    std::fprintf(stderr, "usage: %s [threads>0] [lo>0] [hi>=lo] [heap_mib] [reps>0]\n", argv[0]);
    return 2;
  }
  const bool fresh = std::getenv("PLAIN_FRESH") != nullptr && std::atoi(std::getenv("PLAIN_FRESH")) != 0;
  const bool touch = std::getenv("PLAIN_TOUCH") != nullptr && std::atoi(std::getenv("PLAIN_TOUCH")) != 0;
  constexpr int block = 256;
  cudaFuncAttributes attr{};
  DEVALLOC_CUDA_TRY(cudaFuncGetAttributes(&attr, one_alloc));
  int resident = 0;
  DEVALLOC_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, one_alloc, block, 0));
  std::printf("one_alloc: %d registers, %zu bytes local, %d resident blocks of %d\n", attr.numRegs, attr.localSizeBytes,
              resident, block);

  cudaStream_t stream{};
  DEVALLOC_CUDA_TRY(cudaStreamCreate(&stream));
  {
    heap_type heap(mib << 20, stream);
    const devalloc_diag::plain_timing t =
      devalloc_diag::time_plain_kernels(heap.handle(), n, lo, hi, reps, touch, stream, [&] {
        if (fresh) { heap.reset(stream); }
      });
    std::printf(
      "%s%sthreads %u, sizes %u-%u B, heap %zu MiB, %d reps: alloc %.3f ms (%.2f G/s, first %.3f ms), "
      "free %.3f ms (%.2f G/s), failed %llu\n",
      fresh ? "fresh heaps, " : "", touch ? "touched, " : "", n, lo, hi, mib, reps, t.alloc_ms, n / t.alloc_ms / 1e6,
      t.first_alloc_ms, t.free_ms, n / t.free_ms / 1e6, t.failed);
  }
  DEVALLOC_CUDA_TRY(cudaStreamDestroy(stream));
  return 0;
}
