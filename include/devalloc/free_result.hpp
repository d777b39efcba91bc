// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/free_result.hpp
//
// What a free did. Every creation policy's device destroy(p) and every distribution policy's
// deallocate(creation, p) returns one; AllocatorHandle::dealloc() counts the misuses in
// allocator_stats, and Allocator::check_errors() reports them on the host.
#pragma once

#include "detail/platform.hpp"

DEVALLOC_NAMESPACE_BEGIN

enum class free_result : unsigned char {
  /// The pointer was the start of a live allocation (or a live slice of a shared chunk) and was
  /// returned to the heap.
  freed,
  /// The pointer is not one the allocator handed out: outside the heap, inside a chunk, in the
  /// heap's bookkeeping, or on memory no allocation can start at. Nothing was changed.
  invalid_pointer,
  /// The pointer is where an allocation started, but nothing is live there any more (it was
  /// freed before). Nothing was changed.
  double_free,
};

/// "freed", "invalid pointer", "double free" (host and device).
DEVALLOC_HOST_DEVICE constexpr const char* to_string(free_result r) noexcept
{
  return r == free_result::freed ? "freed" : r == free_result::invalid_pointer ? "invalid pointer" : "double free";
}

DEVALLOC_NAMESPACE_END
