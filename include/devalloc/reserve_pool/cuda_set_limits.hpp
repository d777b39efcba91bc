// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/reserve_pool/cuda_set_limits.hpp
//
// ReservePoolPolicy `CudaSetLimits` (mallocMC thesis §3.3): sizes CUDA's own device-malloc heap
// with cudaDeviceSetLimit(cudaLimitMallocHeapSize) instead of handing out an addressable pool. Only
// creation::DeviceMalloc uses it.
//
// CUDA allows the limit to change only before the first kernel that calls malloc/free has run in
// the process. If it can no longer change, a limit already at least as large is accepted; a smaller
// one throws devalloc::error. The heap is process-wide: two live DeviceMalloc allocators share it.
// CPU backend (its CPU equivalent): the size becomes the byte limit that DeviceMalloc enforces on
// std::malloc.
#pragma once

#include <cstddef>
#include <string>

#include "../detail/backend.hpp"
#include "../pool.hpp"
#include "../error.hpp"
#include "../stream.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace reserve_pool {

struct CudaSetLimits {
  struct config {};

  /// The creation policy receives no addressable pool: data == nullptr, bytes == the limit.
  static constexpr bool provides_pool = false;
  /// The heap's bytes are taken from the device's free memory (so the host checks they are there).
  static constexpr bool takes_memory = true;

  /// Host. Sets CUDA's device malloc heap size (device-wide; not stream-ordered: CUDA offers no
  /// stream-ordered form). Throws devalloc::error if the limit can no longer change.
  pool_span reserve(std::size_t bytes, stream_ref)
  {
    detail::backend::require_device();
#if DEVALLOC_BACKEND_CUDA
    std::size_t current = 0;
    DEVALLOC_CUDA_TRY(cudaDeviceGetLimit(&current, cudaLimitMallocHeapSize));
    if (current == bytes) { return {nullptr, bytes}; }
    const cudaError_t status = cudaDeviceSetLimit(cudaLimitMallocHeapSize, bytes);
    if (status != cudaSuccess) {
      (void)cudaGetLastError();
      if (current < bytes) {
        detail::throw_error("CudaSetLimits: cannot set CUDA's malloc heap to " + std::to_string(bytes) + " bytes (" +
                            cudaGetErrorString(status) + "); it is fixed at " + std::to_string(current) +
                            " bytes once a kernel using malloc has run: create the DeviceMalloc allocator first");
      }
    }
#endif
    return {nullptr, bytes};
  }

  void release(pool_span, stream_ref) noexcept {}

  static std::string classname() { return DEVALLOC_BACKEND_CUDA ? "CudaSetLimits" : "CudaSetLimits(host limit)"; }
};

}  // namespace reserve_pool
DEVALLOC_NAMESPACE_END
