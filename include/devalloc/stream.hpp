// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/stream.hpp
//
// devalloc::stream_ref: the stream on which an allocator's host operations (construction, stats(),
// reset(), getAvailableSlots(), destruction) run, in CCCL's terms.
//
//   CUDA backend: cuda::stream_ref (CCCL, <cuda/stream_ref>): a non-owning cudaStream_t. A
//                 default-constructed one is CUDA's default stream.
//   CPU backend:  a stand-in with the same interface (get(), wait(), ready()); every host
//                 operation of the CPU backend completes before it returns, so there is nothing
//                 to order.
#pragma once

#include "detail/platform.hpp"

#if DEVALLOC_BACKEND_CUDA
#include <cuda/stream_ref>
#endif

DEVALLOC_NAMESPACE_BEGIN

#if DEVALLOC_BACKEND_CUDA
/// The stream host operations are ordered on (CCCL's non-owning stream reference).
using stream_ref = ::cuda::stream_ref;
#else
/// CPU backend stand-in for cuda::stream_ref: one implicit stream on which everything has already
/// completed. Trivially copyable; all instances compare equal.
class stream_ref {
 public:
  using value_type = void*;

  constexpr stream_ref() noexcept = default;

  /// The underlying handle (always nullptr on the CPU backend).
  [[nodiscard]] constexpr value_type get() const noexcept { return nullptr; }
  /// Waits for the work on the stream: there is none outstanding on the CPU backend.
  void wait() const noexcept {}
  /// True: the CPU backend never has outstanding work.
  [[nodiscard]] constexpr bool ready() const noexcept { return true; }

  friend constexpr bool operator==(stream_ref, stream_ref) noexcept { return true; }
  friend constexpr bool operator!=(stream_ref, stream_ref) noexcept { return false; }
};
#endif

DEVALLOC_NAMESPACE_END
