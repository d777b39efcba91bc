// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/detail/hash.hpp
//
// Hashing used to scatter requests over a heap (ScatterAlloc §5.3) and a cheap source of per-call
// pseudo-random bits (for the probabilistic super block reactivation of §5.4).
#pragma once

#include <cstdint>

#include "platform.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace detail {

/// ScatterAlloc §5.3, eq. (3), before the "mod SP": S · k_S + mp · k_mp (+ `extra`, the optional
/// warp term of creation::Scatter). Computed in 64 bits: S · k_S alone exceeds 2^32 for pages of
/// more than 112 KiB with the paper's k_S = 38183. The caller reduces it modulo the page count.
DEVALLOC_HOST_DEVICE constexpr std::uint64_t scatter_hash(std::uint64_t size, std::uint64_t k_size, std::uint64_t mp,
                                                          std::uint64_t k_mp, std::uint64_t extra) noexcept
{
  return size * k_size + mp * k_mp + extra;
}

/// MurmurHash3's 32-bit finalizer: a bijective mix in which every input bit affects every output bit.
DEVALLOC_HOST_DEVICE constexpr std::uint32_t mix32(std::uint32_t h) noexcept
{
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  h *= 0xC2B2AE35u;
  h ^= h >> 16;
  return h;
}

/// splitmix64's finalizer: a bijective 64-bit mix (hash of an address: detail/open_addressing_map.hpp).
DEVALLOC_HOST_DEVICE constexpr std::uint64_t mix64(std::uint64_t h) noexcept
{
  h ^= h >> 30;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 27;
  h *= 0x94D049BB133111EBull;
  h ^= h >> 31;
  return h;
}

/// 32 pseudo-random bits for a decision that only needs to be unpredictable across calls, not
/// reproducible: `seed` mixed with the GPU's cycle counter (CUDA) or a per-thread counter (CPU).
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE std::uint32_t random_bits(std::uint64_t seed) noexcept
{
#if DEVALLOC_BACKEND_CUDA
  const auto t = static_cast<std::uint64_t>(clock64());
#else
  thread_local std::uint64_t counter = 0;
  const std::uint64_t t = ++counter * 0x9E3779B97F4A7C15ull;
#endif
  const std::uint64_t x = seed ^ t;
  return mix32(static_cast<std::uint32_t>(x) ^ mix32(static_cast<std::uint32_t>(x >> 32)));
}

}  // namespace detail
DEVALLOC_NAMESPACE_END
