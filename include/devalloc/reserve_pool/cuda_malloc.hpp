// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/reserve_pool/cuda_malloc.hpp
//
// ReservePoolPolicy `CudaMalloc` (mallocMC thesis §3.3, §4.3.1 "SimpleCudaMalloc"): one pool of
// exactly the heap size, taken with cudaMalloc when the allocator is built and released with
// cudaFree when it is destroyed. On the CPU backend, the same policy takes a 256-byte aligned block
// of host memory (its CPU equivalent).
#pragma once

#include <cstddef>
#include <string>

#include "../detail/backend.hpp"
#include "../pool.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace reserve_pool {

struct CudaMalloc {
  struct config {};

  /// The creation policy receives an addressable pool.
  static constexpr bool provides_pool = true;
  /// The heap's bytes are taken from the device's free memory (so the host checks they are there).
  static constexpr bool takes_memory = true;

  /// Host. Device memory usable in stream order on `stream` (cudaMallocAsync). Throws
  /// devalloc::error if the memory cannot be had (the message names the free memory).
  pool_span reserve(std::size_t bytes, stream_ref stream) { return {detail::backend::allocate(bytes, stream), bytes}; }

  /// Host. Returns the memory in stream order on `stream`. Never throws.
  void release(pool_span pool, stream_ref stream) noexcept { detail::backend::deallocate(pool.data, stream); }

  static std::string classname() { return DEVALLOC_BACKEND_CUDA ? "CudaMalloc" : "CudaMalloc(host memory)"; }
};

}  // namespace reserve_pool
DEVALLOC_NAMESPACE_END
