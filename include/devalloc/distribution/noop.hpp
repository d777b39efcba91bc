// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/distribution/noop.hpp
//
// DistributionPolicy `Noop` (mallocMC thesis §3.5, §4.3.4): every worker allocates its own chunk;
// collect() and distribute() are the identity. No warp cooperation, so no blowup and the smallest
// register footprint. Frees go straight to the creation policy: deallocate(creation, p) is
// creation.destroy(p), so every pointer is judged by the creation policy alone (an interior pointer
// is an invalid free where its traits.detects_invalid_pointers says so, never a shared chunk).
#pragma once

#include <cstddef>
#include <string>

#include "../detail/platform.hpp"
#include "../free_result.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace distribution {

struct Noop {
  struct config {};

  /// Each request reaches the creation policy as it is (one allocation = one slot of its size).
  static constexpr bool combines_requests = false;

  /// Request size to pass to the creation policy for this worker.
  DEVALLOC_DEVICE DEVALLOC_FORCEINLINE std::size_t collect(std::size_t bytes) noexcept { return bytes; }

  /// This worker's pointer, given what the creation policy returned for its collected request.
  DEVALLOC_DEVICE DEVALLOC_FORCEINLINE void* distribute(void* block) noexcept { return block; }

  /// Device. Frees `p` (not nullptr, owned by `creation`): creation.destroy(p). Thread safe like
  /// alloc(). Returns what the creation policy's destroy() returned.
  template <class Creation>
  DEVALLOC_DEVICE DEVALLOC_FORCEINLINE static free_result deallocate(const Creation& creation, void* p) noexcept
  {
    return creation.destroy(p);
  }

  static std::string classname() { return "Noop"; }
};

}  // namespace distribution
DEVALLOC_NAMESPACE_END
