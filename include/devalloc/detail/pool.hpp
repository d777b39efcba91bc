// devalloc/detail/pool.hpp — the (pointer, size) pair that ReservePool, Alignment and Creation
// policies pass along on the host while a heap is set up.
#pragma once

#include <cstddef>

namespace devalloc {

/// A contiguous range of backend memory: the pool that will hold a heap.
struct pool_span {
  void* data = nullptr;
  std::size_t bytes = 0;
};

}  // namespace devalloc
