// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// bench/diag/plain_kernels.cuh — a user's plain allocating kernels, over any allocator handle:
//
//   one_alloc:       out[i] = heap.alloc(lo + hash(i) % span)
//   one_alloc_touch: the same, then the allocation's first and last byte written (as
//                    devalloc-bench's stamps touch each allocation's memory)
//   one_free:        heap.dealloc(out[i]), a null out[i] counted in *failed
//
// time_plain_kernels: the median alloc and free times of `reps` launches of them over one heap
// (bench/diag/plain_kernel.cu, bench/diag/unit_runs.cu).
//
// One definition for three users: bench/diag/plain_kernel.cu times them on a GPU, tools/kernel-regs
// prints their registers without one (it compiles plain_kernel.cu), and devalloc-bench's registers
// test records one_alloc's count beside Vinkler & Havran's probe (registers_plain_alloc). Their
// register counts need not follow devalloc-bench's own kernels': in session 2026-11-27
// (nineteenth) a Scatter change kept every bench kernel at 80 registers and took one_alloc to 96.
// CUDA only (nvcc).
#pragma once

#include <algorithm>
#include <vector>

#include <devalloc/buffer.hpp>
#include <devalloc/error.hpp>

namespace devalloc_diag {

/// The size thread i asks for: lo + a multiplicative hash of i, mod span (span >= 1).
__device__ __forceinline__ unsigned plain_size(unsigned i, unsigned lo, unsigned span)
{
  return lo + (i * 2654435761u >> 7) % span;
}

template <class Handle>
__global__ void one_alloc(Handle heap, void** out, unsigned lo, unsigned span, unsigned n)
{
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { out[i] = heap.alloc(plain_size(i, lo, span)); }
}

template <class Handle>
__global__ void one_alloc_touch(Handle heap, void** out, unsigned lo, unsigned span, unsigned n)
{
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) { return; }
  const unsigned s = plain_size(i, lo, span);
  auto* p = static_cast<unsigned char*>(heap.alloc(s));
  out[i] = p;
  if (p != nullptr) {
    p[0] = static_cast<unsigned char>(i);
    p[s - 1u] = static_cast<unsigned char>(i >> 8);
  }
}

/// Frees what one_alloc or one_alloc_touch allocated; counts the requests that got nothing.
template <class Handle>
__global__ void one_free(Handle heap, void** out, unsigned n, unsigned long long* failed)
{
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) { return; }
  if (out[i] == nullptr) {
    atomicAdd(failed, 1ull);
    return;
  }
  heap.dealloc(out[i]);
}

/// Medians of `reps` launches of the alloc kernel (one_alloc_touch with `touch`, else one_alloc)
/// and of one_free after it, over `heap`; `before_each()` runs (untimed) before each alloc launch
/// (a heap reset, or nothing). `failed`: the requests that got nothing, summed over the launches.
struct plain_timing {
  float alloc_ms = 0, free_ms = 0, first_alloc_ms = 0;
  unsigned long long failed = 0;
};

template <class Handle, class BeforeEach>
plain_timing time_plain_kernels(Handle heap, unsigned n, unsigned lo, unsigned hi, int reps, bool touch,
                                cudaStream_t stream, BeforeEach&& before_each)
{
  devalloc::buffer<void*> out(n);
  devalloc::buffer<unsigned long long> failed(1);
  constexpr int block = 256;
  const unsigned grid = (n + block - 1) / block;
  cudaEvent_t t0{}, t1{}, t2{};
  DEVALLOC_CUDA_TRY(cudaEventCreate(&t0));
  DEVALLOC_CUDA_TRY(cudaEventCreate(&t1));
  DEVALLOC_CUDA_TRY(cudaEventCreate(&t2));
  std::vector<float> alloc_ms, free_ms;
  plain_timing timing;
  for (int r = 0; r < reps; ++r) {
    before_each();
    DEVALLOC_CUDA_TRY(cudaMemsetAsync(failed.data(), 0, sizeof(unsigned long long), stream));
    DEVALLOC_CUDA_TRY(cudaEventRecord(t0, stream));
    (touch ? one_alloc_touch<Handle> : one_alloc<Handle>)<<<grid, block, 0, stream>>>(heap, out.data(), lo,
                                                                                      hi - lo + 1u, n);
    DEVALLOC_CUDA_TRY(cudaGetLastError());
    DEVALLOC_CUDA_TRY(cudaEventRecord(t1, stream));
    one_free<Handle><<<grid, block, 0, stream>>>(heap, out.data(), n, failed.data());
    DEVALLOC_CUDA_TRY(cudaGetLastError());
    DEVALLOC_CUDA_TRY(cudaEventRecord(t2, stream));
    DEVALLOC_CUDA_TRY(cudaEventSynchronize(t2));
    float a = 0, f = 0;
    DEVALLOC_CUDA_TRY(cudaEventElapsedTime(&a, t0, t1));
    DEVALLOC_CUDA_TRY(cudaEventElapsedTime(&f, t1, t2));
    alloc_ms.push_back(a);
    free_ms.push_back(f);
    unsigned long long k = 0;
    DEVALLOC_CUDA_TRY(cudaMemcpy(&k, failed.data(), sizeof k, cudaMemcpyDeviceToHost));
    timing.failed += k;
  }
  DEVALLOC_CUDA_TRY(cudaEventDestroy(t0));
  DEVALLOC_CUDA_TRY(cudaEventDestroy(t1));
  DEVALLOC_CUDA_TRY(cudaEventDestroy(t2));
  timing.first_alloc_ms = alloc_ms.front();
  std::sort(alloc_ms.begin(), alloc_ms.end());
  std::sort(free_ms.begin(), free_ms.end());
  timing.alloc_ms = alloc_ms[alloc_ms.size() / 2];
  timing.free_ms = free_ms[free_ms.size() / 2];
  return timing;
}

}  // namespace devalloc_diag
