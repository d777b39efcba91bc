// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/detail/fixed_divisor.hpp
//
// Division by a divisor fixed when a heap is created (a segment's size, say), without a divide
// instruction on the device: the host stores the reciprocal r = floor((2^N - 1) / d) once; a
// quotient is then one multiply-high and one correction (q = mulhi(x, r) is floor(x / d) or one
// less, since x r / 2^N > x / d - 1). GPUs have no integer divider: nvcc expands a 32-bit `/` into
// a float reciprocal and fix-ups, and a 64-bit one into a called subroutine whose registers count
// against every kernel that calls it (issue 13: the Circular family's register target).
// mod_small: a remainder whose dividend is nearly always below the divisor already.
#pragma once

#include <cstdint>
#include <type_traits>

#include "platform.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace detail {

/// High half of the full product a * b (32- or 64-bit unsigned).
template <class T>
DEVALLOC_HOST_DEVICE DEVALLOC_FORCEINLINE T mulhi(T a, T b) noexcept
{
  static_assert(std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::uint64_t>,
                "detail::mulhi: T must be std::uint32_t or std::uint64_t");
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 4) {
    return __umulhi(a, b);
  } else {
    return __umul64hi(a, b);
  }
#else
  if constexpr (sizeof(T) == 4) {
    return static_cast<T>((std::uint64_t{a} * b) >> 32);
  } else {  // four 32 x 32-bit products (no 128-bit type in ISO C++)
    const std::uint64_t lo = 0xFFFFFFFFull;
    const std::uint64_t p0 = (a & lo) * (b & lo);
    const std::uint64_t p1 = (a & lo) * (b >> 32);
    const std::uint64_t p2 = (a >> 32) * (b & lo);
    const std::uint64_t mid = (p0 >> 32) + (p1 & lo) + (p2 & lo);
    return (a >> 32) * (b >> 32) + (p1 >> 32) + (p2 >> 32) + (mid >> 32);
  }
#endif
}

/// x % m for an x that is nearly always below m already (a reservation index and the chunk count
/// or segment count of its page): the division only when needed. Divisions like these were 7 % of
/// the instructions of Scatter's alloc kernel under mixed sizes (ncu, H100, session 2026-11-26
/// (tenth)). m > 0.
DEVALLOC_HOST_DEVICE DEVALLOC_FORCEINLINE std::uint32_t mod_small(std::uint32_t x, std::uint32_t m) noexcept
{
  return x < m ? x : x % m;
}

/// x / d for a d fixed at construction (d >= 1). Trivially copyable: part of a device handle.
template <class T>
class fixed_divisor {
 public:
  fixed_divisor() = default;
  DEVALLOC_HOST_DEVICE explicit fixed_divisor(T d) noexcept : d_(d), r_(static_cast<T>(~T{0} / d)) {}

  DEVALLOC_HOST_DEVICE DEVALLOC_FORCEINLINE T divisor() const noexcept { return d_; }
  /// floor(x / d), exact for every x.
  DEVALLOC_HOST_DEVICE DEVALLOC_FORCEINLINE T quotient(T x) const noexcept
  {
    T q = mulhi(x, r_);
    if (x - q * d_ >= d_) { ++q; }
    return q;
  }

 private:
  T d_ = 1;
  T r_ = ~T{0};
};

}  // namespace detail
DEVALLOC_NAMESPACE_END
