// devalloc/detail/warp.hpp
//
// Warp-level primitives shared by all policies. On the CUDA backend these wrap the *_sync
// intrinsics and always take the mask of the lanes that actually arrived (independent thread
// scheduling: any subset of a warp may be here, and nothing assumes lock-step lanes). On the CPU
// backend a warp is one worker: lane 0, mask 1, and the "multiprocessor id" is a stable hash of the
// worker thread (set by devalloc::launch, or derived from std::thread::id otherwise).
#pragma once

#include <cstdint>

#include "platform.hpp"

#if DEVALLOC_BACKEND_CPU
#include <functional>
#include <thread>
#endif

namespace devalloc::detail {

#if DEVALLOC_BACKEND_CUDA
inline constexpr unsigned warp_size = 32;
#else
inline constexpr unsigned warp_size = 1;
#endif

#if DEVALLOC_BACKEND_CPU
/// Per-thread stand-in for the multiprocessor id on the CPU backend. 0 means "not set yet".
inline thread_local std::uint32_t cpu_sm_id = 0;

/// Number of distinct "multiprocessors" the CPU backend reports.
inline constexpr std::uint32_t cpu_sm_count = 64;
#endif

/// Lane index of the calling worker inside its warp.
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE unsigned lane_id() noexcept
{
#if DEVALLOC_BACKEND_CUDA
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
#else
  return 0;
#endif
}

/// Mask of the lanes of this warp that execute this call together (converged at this point).
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE std::uint32_t active_mask() noexcept
{
#if DEVALLOC_BACKEND_CUDA
  return __activemask();
#else
  return 1u;
#endif
}

/// Bit per lane of `mask` whose `predicate` is true. All lanes of `mask` must call it.
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE std::uint32_t ballot(std::uint32_t mask, bool predicate) noexcept
{
#if DEVALLOC_BACKEND_CUDA
  return __ballot_sync(mask, predicate);
#else
  (void)mask;
  return predicate ? 1u : 0u;
#endif
}

/// Value of `value` held by lane `src` of `mask`. All lanes of `mask` must call it.
template <class T>
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE T shuffle(std::uint32_t mask, T value, unsigned src) noexcept
{
#if DEVALLOC_BACKEND_CUDA
  return __shfl_sync(mask, value, static_cast<int>(src));
#else
  (void)mask;
  (void)src;
  return value;
#endif
}

/// Number of set bits.
DEVALLOC_HOST_DEVICE DEVALLOC_FORCEINLINE unsigned popcount(std::uint32_t x) noexcept
{
#if defined(__CUDA_ARCH__)
  return static_cast<unsigned>(__popc(x));
#else
  return static_cast<unsigned>(__builtin_popcount(x));
#endif
}

/// Index of the lowest set bit of a non-zero word.
DEVALLOC_HOST_DEVICE DEVALLOC_FORCEINLINE unsigned lowest_bit(std::uint32_t x) noexcept
{
#if defined(__CUDA_ARCH__)
  return static_cast<unsigned>(__ffs(static_cast<int>(x)) - 1);
#else
  return static_cast<unsigned>(__builtin_ctz(x));
#endif
}

/// Bits of `mask` strictly below the calling lane.
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE std::uint32_t lanes_below(std::uint32_t mask) noexcept
{
  return mask & ((1u << lane_id()) - 1u);
}

/// Id of the multiprocessor running the caller (CUDA: %smid; CPU: stable per-thread hash).
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE std::uint32_t sm_id() noexcept
{
#if DEVALLOC_BACKEND_CUDA
  std::uint32_t id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
#else
  if (cpu_sm_id == 0) {
    cpu_sm_id = 1u + static_cast<std::uint32_t>(std::hash<std::thread::id>{}(std::this_thread::get_id()) % cpu_sm_count);
  }
  return cpu_sm_id - 1u;
#endif
}

/// Global index of the calling warp, for hashing (CUDA: from the grid; CPU: the worker thread).
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE std::uint32_t warp_id() noexcept
{
#if DEVALLOC_BACKEND_CUDA
  const unsigned block_threads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  return block * ((block_threads + warp_size - 1) / warp_size) + tid / warp_size;
#else
  return sm_id();
#endif
}

}  // namespace devalloc::detail
