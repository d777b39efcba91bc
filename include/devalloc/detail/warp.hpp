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

DEVALLOC_NAMESPACE_BEGIN
namespace detail {

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


// ---------------------------------------------------------------------------------------------
// Group primitives over an arbitrary lane mask (used by distribution/xmalloc_simd.hpp and the
// warp-cooperative getAvailableSlots of creation/scatter.hpp). Every lane of `mask` must call them
// with the same `mask`; lanes outside `mask` must not. Under independent thread scheduling the
// *_sync intrinsics wait for exactly the lanes of `mask`, so any subset of a warp may use them.

/// Lowest lane of a non-empty `mask`: the group's leader.
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE unsigned leader_lane(std::uint32_t mask) noexcept { return lowest_bit(mask); }

/// Rank of the calling lane among the lanes of `mask` (0 for the leader).
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE unsigned rank_in(std::uint32_t mask) noexcept { return popcount(lanes_below(mask)); }

/// Barrier of the lanes of `mask` that also orders their memory accesses (CUDA: __syncwarp).
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE void sync_lanes(std::uint32_t mask) noexcept
{
#if DEVALLOC_BACKEND_CUDA
  __syncwarp(mask);
#else
  (void)mask;
#endif
}

/// A short pause between re-reads of a word another worker is about to change (bounded waits
/// only; CUDA: __nanosleep, sm_70+; CPU: yield, so that a descheduled worker can finish).
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE void pause_briefly() noexcept
{
#if DEVALLOC_BACKEND_CUDA
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  __nanosleep(32);
#endif
#else
  std::this_thread::yield();
#endif
}

/// Lanes of `mask` whose `value` equals the caller's (CUDA: __match_any_sync, sm_70+).
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE std::uint32_t match_any(std::uint32_t mask, unsigned long long value) noexcept
{
#if DEVALLOC_BACKEND_CUDA
  return __match_any_sync(mask, value);
#else
  (void)value;
  return mask;
#endif
}

/// Sum of `value` over the lanes of `mask`; `below` receives the sum over the lanes of `mask`
/// strictly below the caller (exclusive prefix sum). One shuffle per lane of `mask`: correct for
/// any subset of a warp, not only for contiguous ones.
template <class T>
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE T group_sum(std::uint32_t mask, T value, T& below) noexcept
{
#if DEVALLOC_BACKEND_CUDA
  T total = 0;
  T prefix = 0;
  const unsigned me = lane_id();
  for (std::uint32_t rest = mask; rest != 0; rest &= rest - 1u) {
    const unsigned src = lowest_bit(rest);
    const T v = shuffle(mask, value, src);
    if (src < me) { prefix += v; }
    total += v;
  }
  below = prefix;
  return total;
#else
  (void)mask;
  below = 0;
  return value;
#endif
}

/// Sum of `value` over the lanes of `mask` (CUDA sm_80+: __reduce_add_sync).
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE std::uint32_t group_reduce_add(std::uint32_t mask, std::uint32_t value) noexcept
{
#if DEVALLOC_BACKEND_CUDA && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __reduce_add_sync(mask, value);
#else
  std::uint32_t below = 0;
  return group_sum(mask, value, below);
#endif
}

/// Minimum of `value` over the lanes of `mask`.
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE std::uint32_t group_min(std::uint32_t mask, std::uint32_t value) noexcept
{
#if DEVALLOC_BACKEND_CUDA
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __reduce_min_sync(mask, value);
#else
  std::uint32_t result = value;
  for (std::uint32_t rest = mask; rest != 0; rest &= rest - 1u) {
    const std::uint32_t v = shuffle(mask, value, lowest_bit(rest));
    result = v < result ? v : result;
  }
  return result;
#endif
#else
  (void)mask;
  return value;
#endif
}

}  // namespace detail
DEVALLOC_NAMESPACE_END
