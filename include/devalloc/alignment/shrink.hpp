// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/alignment/shrink.hpp
//
// AlignmentPolicy `Shrink<N>` (mallocMC thesis §3.4, §4.3.2): aligns the pool's start up to N
// bytes (dropping the bytes before it) and pads every request up to a multiple of N, so that every
// chunk the creation policy cuts from an N-aligned base stays N-aligned.
//
// Configuration: N, default 16, or -DDEVALLOC_SHRINK_DATA_ALIGNMENT=<N> at build time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "../detail/platform.hpp"
#include "../pool.hpp"

#ifndef DEVALLOC_SHRINK_DATA_ALIGNMENT
#define DEVALLOC_SHRINK_DATA_ALIGNMENT 16
#endif

DEVALLOC_NAMESPACE_BEGIN
namespace alignment {

template <std::size_t DataAlignment = DEVALLOC_SHRINK_DATA_ALIGNMENT>
struct Shrink {
  static_assert(DataAlignment > 0 && (DataAlignment & (DataAlignment - 1)) == 0,
                "Shrink<N>: N must be a power of two (e.g. 8, 16, 128)");

  struct config {
    static constexpr std::size_t data_alignment = DataAlignment;
  };

  /// Every pointer returned through this policy is a multiple of this.
  static constexpr std::size_t guaranteed_alignment = DataAlignment;

  /// Host. Moves the pool's start up to the next multiple of N and shrinks its size to match.
  /// A pool too small to hold one aligned byte comes back with size 0.
  static pool_span align_pool(pool_span pool) noexcept
  {
    const auto address = reinterpret_cast<std::uintptr_t>(pool.data);
    const std::size_t skip = (DataAlignment - address % DataAlignment) % DataAlignment;
    if (skip >= pool.bytes) { return {pool.data, 0}; }
    return {static_cast<char*>(pool.data) + skip, pool.bytes - skip};
  }

  /// Host and device. Rounds `bytes` up to a multiple of N; saturates instead of wrapping, so a
  /// huge request stays huge (and then fails in the creation policy).
  DEVALLOC_HOST_DEVICE static constexpr std::size_t apply_padding(std::size_t bytes) noexcept
  {
    constexpr std::size_t mask = DataAlignment - 1;
    return bytes > ~std::size_t{0} - mask ? (~std::size_t{0} & ~mask) : (bytes + mask) & ~mask;
  }

  static std::string classname() { return "Shrink<" + std::to_string(DataAlignment) + ">"; }
};

}  // namespace alignment
DEVALLOC_NAMESPACE_END
