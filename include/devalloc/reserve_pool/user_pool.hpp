// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/reserve_pool/user_pool.hpp
//
// ReservePoolPolicy `UserPool`: the heap lives in memory the caller owns and passes in (device
// memory on the CUDA backend, host memory on the CPU backend), e.g. a slice of an RMM or PyTorch
// buffer. The allocator never frees it; the caller must keep it alive longer than the allocator.
//
//   devalloc::Allocator<..., devalloc::reserve_pool::UserPool, ...> a(bytes, UserPool{ptr, bytes});
#pragma once

#include <cstddef>
#include <string>

#include "../pool.hpp"
#include "../error.hpp"
#include "../stream.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace reserve_pool {

class UserPool {
 public:
  struct config {};

  static constexpr bool provides_pool = true;
  /// The memory is the caller's: nothing is taken from the device's free memory.
  static constexpr bool takes_memory = false;

  UserPool() = default;
  UserPool(void* memory, std::size_t bytes) noexcept : memory_{memory, bytes} {}

  /// Host. Returns the caller's memory; throws devalloc::error if none was given or it is smaller
  /// than the requested heap.
  pool_span reserve(std::size_t bytes, stream_ref) const
  {
    if (memory_.data == nullptr) {
      detail::throw_error("UserPool: no memory was given; construct the allocator with UserPool{pointer, bytes}");
    }
    if (bytes > memory_.bytes) {
      detail::throw_error("UserPool: heap of " + std::to_string(bytes) + " bytes requested, but the given memory has " +
                          std::to_string(memory_.bytes) + " bytes");
    }
    return {memory_.data, bytes};
  }

  /// Host. The memory stays the caller's: nothing is freed.
  void release(pool_span, stream_ref) noexcept {}

  static std::string classname() { return "UserPool"; }

 private:
  pool_span memory_{};
};

}  // namespace reserve_pool
DEVALLOC_NAMESPACE_END
