// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/detail/warp.hpp
//
// Warp-level primitives shared by all policies. They always take the mask of the lanes that
// actually arrived (independent thread scheduling: any subset of a warp may be here, and nothing
// assumes lock-step lanes).
//
//   CUDA: the *_sync intrinsics.
//   CPU:  inside devalloc::launch (launch_options::cpu_lanes > 1, the default) a warp is 32 lanes
//         run by the warp emulator of detail/cpu_warp.hpp: active_mask() groups the lanes that
//         arrive at one call site in random subsets, and every collective is a rendezvous of the
//         lanes of its mask, so the same warp-level code runs as on the GPU. Outside such a launch
//         (a plain std::thread, or cpu_lanes == 1) a warp is one worker: lane 0, mask 1, and the
//         "multiprocessor id" is a stable hash of the thread (set by devalloc::launch, or derived
//         from std::thread::id otherwise).
//
// The CPU backend's primitives take a trailing call_site argument (defaulted to the caller's
// file:line) that callers never pass: the emulator groups active_mask() callers by it and names it
// in its reports.
#pragma once

#include <cstdint>
#include <cstring>

#include "cpu_warp.hpp"
#include "platform.hpp"

#if DEVALLOC_BACKEND_CPU
#include <functional>
#include <thread>
#endif

DEVALLOC_NAMESPACE_BEGIN
namespace detail {

/// Lanes per warp (CPU backend: the emulator's warps; in one-lane mode only lane 0 runs).
inline constexpr unsigned warp_size = 32;

#if DEVALLOC_BACKEND_CPU
/// Per-thread stand-in for the multiprocessor id on the CPU backend outside the warp emulator.
/// 0 means "not set yet".
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
  return cpu::current_warp != nullptr ? cpu::current_warp->current : 0u;
#endif
}

/// Mask of the lanes of this warp that execute this call together (converged at this point;
/// always includes the caller). CPU emulator: the lanes that arrive at this call site together.
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE std::uint32_t active_mask(call_site site = call_site::current()) noexcept
{
#if DEVALLOC_BACKEND_CUDA
  (void)site;
  return __activemask();
#else
  return cpu::current_warp != nullptr ? cpu::current_warp->active_mask(site) : 1u;
#endif
}

/// Bit per lane of `mask` whose `predicate` is true. All lanes of `mask` must call it.
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE std::uint32_t ballot(std::uint32_t mask, bool predicate,
                                                          call_site site = call_site::current()) noexcept
{
#if DEVALLOC_BACKEND_CUDA
  (void)site;
  return __ballot_sync(mask, predicate);
#else
  if (cpu::current_warp != nullptr) {
    return static_cast<std::uint32_t>(
      cpu::current_warp->collective(cpu::op::ballot, mask, predicate ? 1u : 0u, 0, site));
  }
  (void)mask;
  return predicate ? 1u : 0u;
#endif
}

/// Value of `value` held by lane `src` of `mask` (which must be a lane of `mask`). All lanes of
/// `mask` must call it; each may name its own `src`. T: trivially copyable, at most 8 bytes.
template <class T>
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE T shuffle(std::uint32_t mask, T value, unsigned src,
                                               call_site site = call_site::current()) noexcept
{
#if DEVALLOC_BACKEND_CUDA
  (void)site;
  return __shfl_sync(mask, value, static_cast<int>(src));
#else
  static_assert(sizeof(T) <= 8, "detail::shuffle: types of at most 8 bytes (as __shfl_sync)");
  if (cpu::current_warp != nullptr) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof(T));
    bits = cpu::current_warp->collective(cpu::op::shuffle, mask, bits, src, site);
    T result;
    std::memcpy(&result, &bits, sizeof(T));
    return result;
  }
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

/// Index of the highest set bit of a non-zero word (PTX bfind; FDGMalloc's worker lane, §4.1).
DEVALLOC_HOST_DEVICE DEVALLOC_FORCEINLINE unsigned highest_bit(std::uint32_t x) noexcept
{
#if defined(__CUDA_ARCH__)
  return 31u - static_cast<unsigned>(__clz(static_cast<int>(x)));
#else
  return 31u - static_cast<unsigned>(__builtin_clz(x));
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
  if (cpu::current_warp != nullptr) { return cpu::current_warp->sm; }
  if (cpu_sm_id == 0) {
    cpu_sm_id =
      1u + static_cast<std::uint32_t>(std::hash<std::thread::id>{}(std::this_thread::get_id()) % cpu_sm_count);
  }
  return cpu_sm_id - 1u;
#endif
}

/// Number of multiprocessor ids (CUDA: %nsmid, at least the largest sm_id() + 1; CPU:
/// cpu_sm_count).
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE std::uint32_t sm_count() noexcept
{
#if DEVALLOC_BACKEND_CUDA
  std::uint32_t n;
  asm("mov.u32 %0, %%nsmid;" : "=r"(n));
  return n;
#else
  return cpu_sm_count;
#endif
}

/// Global index of the calling warp, for hashing (CUDA: from the grid; CPU: the emulated warp's
/// index in its launch, or the worker thread's sm_id() outside the emulator).
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE std::uint32_t warp_id() noexcept
{
#if DEVALLOC_BACKEND_CUDA
  const unsigned block_threads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  return block * ((block_threads + warp_size - 1) / warp_size) + tid / warp_size;
#else
  if (cpu::current_warp != nullptr) { return cpu::current_warp->index; }
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
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE unsigned rank_in(std::uint32_t mask) noexcept
{
  return popcount(lanes_below(mask));
}

/// Number of set bits of a 64-bit word.
DEVALLOC_HOST_DEVICE DEVALLOC_FORCEINLINE unsigned popcount64(std::uint64_t x) noexcept
{
#if defined(__CUDA_ARCH__)
  return static_cast<unsigned>(__popcll(static_cast<unsigned long long>(x)));
#else
  return static_cast<unsigned>(__builtin_popcountll(x));
#endif
}

/// Index of the n-th (from 0) set bit of x (n < popcount64(x)): the n lowest set bits cleared,
/// then the lowest one found by one instruction (a scan bit by bit was 15 % of the instructions
/// of Scatter's alloc kernel under mixed sizes: ncu, H100, session 2026-11-26 (tenth)).
DEVALLOC_HOST_DEVICE DEVALLOC_FORCEINLINE unsigned nth_bit64(std::uint64_t x, unsigned n) noexcept
{
  for (unsigned i = 0; i < n; ++i) { x &= x - 1u; }
#if defined(__CUDA_ARCH__)
  return static_cast<unsigned>(__ffsll(static_cast<long long>(x)) - 1);
#else
  return static_cast<unsigned>(__builtin_ctzll(x));
#endif
}

/// The lanes of `mask` whose rank in it is in [first, first + count) (rank as rank_in()).
DEVALLOC_HOST_DEVICE DEVALLOC_FORCEINLINE std::uint32_t lanes_of(std::uint32_t mask, unsigned first,
                                                                 unsigned count) noexcept
{
  std::uint32_t out = 0;
  unsigned rank = 0;
  for (std::uint32_t m = mask; m != 0; m &= m - 1u, ++rank) {
    if (rank >= first + count) { break; }
    if (rank >= first) { out |= m & (0u - m); }
  }
  return out;
}

/// The lowest `count` lanes of `mask`.
DEVALLOC_HOST_DEVICE DEVALLOC_FORCEINLINE std::uint32_t lowest_lanes(std::uint32_t mask, unsigned count) noexcept
{
  return lanes_of(mask, 0, count);
}

/// Barrier of the lanes of `mask` that also orders their memory accesses (CUDA: __syncwarp;
/// CPU emulator: a rendezvous of the lanes of `mask`, which run on one thread).
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE void sync_lanes(std::uint32_t mask, call_site site = call_site::current()) noexcept
{
#if DEVALLOC_BACKEND_CUDA
  (void)site;
  __syncwarp(mask);
#else
  if (cpu::current_warp != nullptr) { (void)cpu::current_warp->collective(cpu::op::sync, mask, 0, 0, site); }
  (void)mask;
#endif
}

/// A pause of about `ns` nanoseconds between re-reads of a word other workers are expected to
/// change (bounded waits only; CUDA: __nanosleep(ns), sm_70+, which the hardware bounds by about
/// 1 ms; CPU: yield to another lane of the warp, or to another thread, so that a descheduled
/// worker can finish; the backend's lanes are scheduled cooperatively, so `ns` is not used).
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE void pause_for(std::uint32_t ns) noexcept
{
#if DEVALLOC_BACKEND_CUDA
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  __nanosleep(ns);
#else
  (void)ns;
#endif
#else
  (void)ns;
  if (cpu::current_warp != nullptr) {
    cpu::current_warp->pause();
  } else {
    std::this_thread::yield();
  }
#endif
}

/// A short pause (32 ns on CUDA) between re-reads of a word another worker is about to change.
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE void pause_briefly() noexcept { pause_for(32); }

/// Lanes of `mask` whose `value` equals the caller's (CUDA: __match_any_sync, sm_70+).
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE std::uint32_t match_any(std::uint32_t mask, unsigned long long value,
                                                             call_site site = call_site::current()) noexcept
{
#if DEVALLOC_BACKEND_CUDA
  (void)site;
  return __match_any_sync(mask, value);
#else
  if (cpu::current_warp != nullptr) {
    return static_cast<std::uint32_t>(cpu::current_warp->collective(cpu::op::match_any, mask, value, 0, site));
  }
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
}

/// Sum of `value` over the lanes of `mask` (CUDA sm_80+: __reduce_add_sync).
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE std::uint32_t group_reduce_add(std::uint32_t mask, std::uint32_t value) noexcept
{
#if DEVALLOC_BACKEND_CUDA && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __reduce_add_sync(mask, value);
#else
#if DEVALLOC_BACKEND_CPU
  if (cpu::current_warp != nullptr) {  // one rendezvous, as __reduce_add_sync
    return static_cast<std::uint32_t>(
      cpu::current_warp->collective(cpu::op::reduce_add, mask, value, 0, call_site::current()));
  }
#endif
  std::uint32_t below = 0;
  return group_sum(mask, value, below);
#endif
}

/// Bitwise or of `value` over the lanes of `mask` (CUDA sm_80+: __reduce_or_sync).
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE std::uint32_t group_or(std::uint32_t mask, std::uint32_t value) noexcept
{
#if DEVALLOC_BACKEND_CUDA
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __reduce_or_sync(mask, value);
#else
  std::uint32_t result = 0;
  for (std::uint32_t rest = mask; rest != 0; rest &= rest - 1u) { result |= shuffle(mask, value, lowest_bit(rest)); }
  return result;
#endif
#else
  if (cpu::current_warp != nullptr) {  // one rendezvous, as __reduce_or_sync
    return static_cast<std::uint32_t>(
      cpu::current_warp->collective(cpu::op::reduce_or, mask, value, 0, call_site::current()));
  }
  (void)mask;
  return value;
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
  if (cpu::current_warp != nullptr) {  // one rendezvous, as __reduce_min_sync
    return static_cast<std::uint32_t>(
      cpu::current_warp->collective(cpu::op::reduce_min, mask, value, 0, call_site::current()));
  }
  (void)mask;
  return value;
#endif
}

}  // namespace detail
DEVALLOC_NAMESPACE_END
