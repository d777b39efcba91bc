// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// bench/diag/plain_kernels.cuh — a user's plain allocating kernels, over any allocator handle:
//
//   one_alloc:       out[i] = heap.alloc(lo + hash(i) % span)
//   one_alloc_touch: the same, then the allocation's first and last byte written (as
//                    devalloc-bench's stamps touch each allocation's memory)
//   one_free:        heap.dealloc(out[i]), a null out[i] counted in *failed
//
// One definition for three users: bench/diag/plain_kernel.cu times them on a GPU, tools/kernel-regs
// prints their registers without one (it compiles plain_kernel.cu), and devalloc-bench's registers
// test records one_alloc's count beside Vinkler & Havran's probe (registers_plain_alloc). Their
// register counts need not follow devalloc-bench's own kernels': in session 2026-11-27
// (nineteenth) a Scatter change kept every bench kernel at 80 registers and took one_alloc to 96.
// CUDA only (nvcc).
#pragma once

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

}  // namespace devalloc_diag
