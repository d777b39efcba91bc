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

#if DEVALLOC_BACKEND_CPU
/// Where the CPU warp emulator may switch to another resident warp before an atomic (set by
/// detail/cpu_warp.hpp; a no-op until a launch with several resident warps per thread).
inline thread_local void (*cpu_preempt_hook)() noexcept = nullptr;

/// CPU backend: cuda::atomic_ref with a preemption point before each operation, so that the warp
/// emulator can interleave resident warps at every atomic, as a GPU's warps interleave at every
/// instruction (launch_options::cpu_resident_warps; without it the hook is null and this is
/// cuda::atomic_ref).
///
/// Device-scope atomic view of a heap word. `T` must be a 4- or 8-byte integer.
template <class T>
class device_atomic : public cuda::atomic_ref<T, cuda::thread_scope_device> {
  using base = cuda::atomic_ref<T, cuda::thread_scope_device>;
  static void preempt() noexcept
  {
    if (cpu_preempt_hook != nullptr) { cpu_preempt_hook(); }
  }

 public:
  explicit device_atomic(T& word) noexcept : base(word) {}

  T load(cuda::std::memory_order o = cuda::std::memory_order_seq_cst) const noexcept
  {
    preempt();
    return base::load(o);
  }
  void store(T v, cuda::std::memory_order o = cuda::std::memory_order_seq_cst) const noexcept
  {
    preempt();
    base::store(v, o);
  }
  T exchange(T v, cuda::std::memory_order o = cuda::std::memory_order_seq_cst) const noexcept
  {
    preempt();
    return base::exchange(v, o);
  }
  bool compare_exchange_strong(T& expected, T desired, cuda::std::memory_order success,
                               cuda::std::memory_order failure) const noexcept
  {
    preempt();
    return base::compare_exchange_strong(expected, desired, success, failure);
  }
  bool compare_exchange_weak(T& expected, T desired, cuda::std::memory_order success,
                             cuda::std::memory_order failure) const noexcept
  {
    preempt();
    return base::compare_exchange_weak(expected, desired, success, failure);
  }
// The read-modify-write operations, each with the preemption point before it (one definition
// for all of them, undefined below).
#define DEVALLOC_CPU_ATOMIC_RMW(op)                                                     \
  template <class U>                                                                    \
  T op(U v, cuda::std::memory_order o = cuda::std::memory_order_seq_cst) const noexcept \
  {                                                                                     \
    preempt();                                                                          \
    return base::op(static_cast<T>(v), o);                                              \
  }
  DEVALLOC_CPU_ATOMIC_RMW(fetch_add)
  DEVALLOC_CPU_ATOMIC_RMW(fetch_sub)
  DEVALLOC_CPU_ATOMIC_RMW(fetch_or)
  DEVALLOC_CPU_ATOMIC_RMW(fetch_and)
  DEVALLOC_CPU_ATOMIC_RMW(fetch_xor)
  DEVALLOC_CPU_ATOMIC_RMW(fetch_min)
  DEVALLOC_CPU_ATOMIC_RMW(fetch_max)
#undef DEVALLOC_CPU_ATOMIC_RMW
};
#else
/// Device-scope atomic view of a heap word. `T` must be a 4- or 8-byte integer.
template <class T>
using device_atomic = cuda::atomic_ref<T, cuda::thread_scope_device>;
#endif

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
