// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/alignment/no_alignment.hpp
//
// AlignmentPolicy `NoAlignment` (mallocMC thesis §3.4): leaves the pool and every request as they
// are. Pointers are then only as aligned as the creation policy makes them on its own (its
// `natural_alignment`); AtomicBump with odd sizes returns byte-aligned pointers.
#pragma once

#include <cstddef>
#include <string>

#include "../detail/platform.hpp"
#include "../pool.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace alignment {

struct NoAlignment {
  struct config {};

  static constexpr std::size_t guaranteed_alignment = 1;

  static pool_span align_pool(pool_span pool) noexcept { return pool; }

  DEVALLOC_HOST_DEVICE static constexpr std::size_t apply_padding(std::size_t bytes) noexcept { return bytes; }

  static std::string classname() { return "NoAlignment"; }
};

}  // namespace alignment
DEVALLOC_NAMESPACE_END
