// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/pool.hpp — the (pointer, size) pair that ReservePool, Alignment and Creation
// policies pass along on the host while a heap is set up.
#pragma once

#include "detail/platform.hpp"

#include <cstddef>

DEVALLOC_NAMESPACE_BEGIN

/// A contiguous range of backend memory: the pool that will hold a heap.
struct pool_span {
  void* data = nullptr;
  std::size_t bytes = 0;
};

DEVALLOC_NAMESPACE_END
