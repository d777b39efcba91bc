// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/detail/atomic.hpp
//
// One spelling of atomics for both backends: CCCL's cuda::atomic_ref, which compiles to GPU atomics
// under nvcc and to std::atomic_ref-like host atomics under g++. Every call site names its scope
// (always device: the heap is shared by all workers of the device) and its memory order.
#pragma once

#include <cuda/atomic>
#include <cuda/std/atomic>
#if defined(__CUDACC__)
#include <cuda/ptx>
#endif

#include "platform.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace detail {

/// Device-scope atomic view of a heap word. `T` must be a 4- or 8-byte integer.
template <class T>
using device_atomic = cuda::atomic_ref<T, cuda::thread_scope_device>;

using cuda::std::memory_order_acq_rel;
using cuda::std::memory_order_acquire;
using cuda::std::memory_order_relaxed;
using cuda::std::memory_order_release;
using cuda::std::memory_order_seq_cst;

/// Shorthand: relaxed atomic load of a heap word.
template <class T>
DEVALLOC_HOST_DEVICE DEVALLOC_FORCEINLINE T atomic_load_relaxed(T& word) noexcept
{
  return device_atomic<T>(word).load(memory_order_relaxed);
}

/// A device-scope fence of the given order: one release fence before several relaxed RMWs costs
/// one fence, where release RMWs cost one each (Scatter's free path). A release fence on sm_90 and
/// later is PTX's `fence.release.gpu` (cuda::ptx, PTX ISA 8.6): cuda::atomic_thread_fence emits
/// `fence.acq_rel.gpu` for it, whose acquire half adds an invalidation of the multiprocessor's whole
/// L1 cache (SASS CCTL.IVALL after the MEMBAR) that a release does not need.
DEVALLOC_HOST_DEVICE DEVALLOC_FORCEINLINE void device_fence(cuda::std::memory_order order) noexcept
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && defined(__cccl_ptx_isa) && __cccl_ptx_isa >= 860
  if (order == memory_order_release) {
    cuda::ptx::fence(cuda::ptx::sem_release, cuda::ptx::scope_gpu);
    return;
  }
#endif
  cuda::atomic_thread_fence(order, cuda::thread_scope_device);
}

}  // namespace detail
DEVALLOC_NAMESPACE_END
