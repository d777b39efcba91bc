// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// tests/support/patterns.hpp
//
// The suites' data patterns and the mixed request sizes drawn from the same hash, without
// GoogleTest, so that a diagnostic outside the suites (bench/diag/scatter_probe.cu's census) can
// replay a suite's load exactly.
#pragma once

#include <cstddef>
#include <cstdint>

#include <devalloc/detail/platform.hpp>

namespace devalloc::testing {

// ---------------------------------------------------------------------------------------------
// Patterns: every byte of an allocation is written with a value derived from (owner, index), and
// read back later. Two live allocations that overlap make one of the owners read a foreign value.

DEVALLOC_HOST_DEVICE inline std::uint32_t pattern_seed(std::size_t owner, std::size_t index)
{
  std::uint64_t x =
    (static_cast<std::uint64_t>(owner) << 24) ^ static_cast<std::uint64_t>(index) ^ 0x9E3779B97F4A7C15ull;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return static_cast<std::uint32_t>(x) | 1u;
}

/// Writes the pattern of `seed` into [p, p + bytes): words where p and bytes allow, bytes otherwise.
DEVALLOC_DEVICE inline void write_pattern(void* p, std::size_t bytes, std::uint32_t seed)
{
  if (((reinterpret_cast<std::uintptr_t>(p) | bytes) & 3u) == 0) {
    auto* w = static_cast<std::uint32_t*>(p);
    for (std::size_t i = 0; i < bytes / 4; ++i) { w[i] = seed * 2654435761u + static_cast<std::uint32_t>(i); }
  } else {
    auto* b = static_cast<unsigned char*>(p);
    for (std::size_t i = 0; i < bytes; ++i) { b[i] = static_cast<unsigned char>(seed + 131u * i); }
  }
}

/// Number of words (or bytes) in [p, p + bytes) that no longer hold the pattern of `seed`.
DEVALLOC_DEVICE inline unsigned pattern_errors(const void* p, std::size_t bytes, std::uint32_t seed)
{
  unsigned errors = 0;
  if (((reinterpret_cast<std::uintptr_t>(p) | bytes) & 3u) == 0) {
    const auto* w = static_cast<const std::uint32_t*>(p);
    for (std::size_t i = 0; i < bytes / 4; ++i) {
      errors += w[i] != seed * 2654435761u + static_cast<std::uint32_t>(i);
    }
  } else {
    const auto* b = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < bytes; ++i) { errors += b[i] != static_cast<unsigned char>(seed + 131u * i); }
  }
  return errors;
}

/// 1..max_bytes, varying by worker and allocation.
struct mixed_size {
  std::size_t max_bytes;
  DEVALLOC_HOST_DEVICE std::size_t operator()(std::size_t i, std::size_t k) const
  {
    return 1 + pattern_seed(i, k + 7) % max_bytes;
  }
};

}  // namespace devalloc::testing
