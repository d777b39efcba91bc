// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/creation/device_malloc.hpp
//
// CreationPolicy `DeviceMalloc`: the platform's own allocator as a baseline (Vinkler & Havran §4.2
// "CudaMalloc"; mallocMC thesis §2.4.3). CUDA: the built-in device malloc()/free(), whose heap is
// sized by reserve_pool::CudaSetLimits. CPU: std::malloc()/std::free() behind a byte limit of the
// heap size, so that filling "the heap" ends in out-of-memory as it does on the GPU.
//
// Contract: pointers are 16-byte aligned; create() returns nullptr when the heap is exhausted and,
// without asking CUDA, for any request larger than the heap (CUDA 13's device malloc has been seen
// to return a non-null pointer for malloc(SIZE_MAX));
// destroy() of a pointer it did not return, of a pointer inside a chunk, or a second destroy() is
// undefined behaviour (as for free()): this policy checks neither ownership, nor chunk starts, nor
// double frees (traits say so), and destroy() returns free_result::freed. getAvailableSlots() is
// not provided.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "../detail/atomic.hpp"
#include "../detail/backend.hpp"
#include "../detail/platform.hpp"
#include "../free_result.hpp"
#include "../pool.hpp"
#include "../stream.hpp"
#include "../traits.hpp"

#if DEVALLOC_BACKEND_CPU
#include <cstdlib>
#endif

DEVALLOC_NAMESPACE_BEGIN
namespace creation {

class DeviceMalloc {
 public:
  struct config {};

  static constexpr creation_traits traits{/*reuses_freed_memory*/ true,
                                          /*exact_refill*/ true,
                                          /*checks_ownership*/ false,
                                          /*provides_available_slots*/ false,
                                          /*natural_alignment*/ 16,
                                          /*needs_pool*/ false,
                                          /*resettable*/ false,
                                          /*detects_invalid_pointers*/ false,
                                          /*detects_double_free*/ false,
                                          /*supports_shared_chunks*/ false};

  DeviceMalloc() = default;

  /// Host. `pool.bytes` is the heap limit; `pool.data` is unused (CUDA owns its malloc heap).
  static DeviceMalloc init_heap(pool_span pool, stream_ref stream)
  {
    DeviceMalloc heap;
    heap.limit_ = pool.bytes;
#if DEVALLOC_BACKEND_CPU
    heap.used_ = static_cast<unsigned long long*>(detail::backend::allocate(sizeof(unsigned long long), stream));
    heap.finalize_heap(stream);
#else
    (void)stream;
#endif
    return heap;
  }

  /// Host. CUDA's heap cannot be reset from the host; chunks not freed stay allocated.
  /// CPU: the byte count restarts at 0 (chunks not freed leak, as they would on the GPU).
  void finalize_heap(stream_ref)
  {
#if DEVALLOC_BACKEND_CPU
    *used_ = 0;
#endif
  }

  /// Host. Releases the policy's own bookkeeping (CPU backend only).
  void release(stream_ref stream) noexcept
  {
#if DEVALLOC_BACKEND_CPU
    detail::backend::deallocate(used_, stream);
    used_ = nullptr;
#else
    (void)stream;
#endif
  }

  DEVALLOC_DEVICE void* create(std::size_t bytes) const noexcept
  {
    if (bytes > limit_) { return nullptr; }
#if DEVALLOC_BACKEND_CUDA
    return ::malloc(bytes);
#else
    detail::device_atomic<unsigned long long> used(*used_);
    const unsigned long long before = used.fetch_add(bytes, detail::memory_order_relaxed);
    if (before + bytes > limit_) {
      used.fetch_sub(bytes, detail::memory_order_relaxed);
      return nullptr;
    }
    auto* block = static_cast<std::size_t*>(std::malloc(bytes + header_bytes));
    if (block == nullptr) {
      used.fetch_sub(bytes, detail::memory_order_relaxed);
      return nullptr;
    }
    *block = bytes;
    return reinterpret_cast<char*>(block) + header_bytes;
#endif
  }

  /// Device. Frees a pointer create() returned (anything else is undefined behaviour, see the file
  /// comment). Returns free_result::freed.
  DEVALLOC_DEVICE free_result destroy(void* p) const noexcept
  {
#if DEVALLOC_BACKEND_CUDA
    ::free(p);
#else
    auto* block = reinterpret_cast<std::size_t*>(static_cast<char*>(p) - header_bytes);
    detail::device_atomic<unsigned long long>(*used_).fetch_sub(*block, detail::memory_order_relaxed);
    std::free(block);
#endif
    return free_result::freed;
  }

  DEVALLOC_DEVICE bool is_oom(const void* p, std::size_t bytes) const noexcept { return bytes != 0 && p == nullptr; }

  static std::string classname()
  {
    return DEVALLOC_BACKEND_CUDA ? "DeviceMalloc(CUDA malloc)" : "DeviceMalloc(std::malloc)";
  }

 private:
  std::size_t limit_ = 0;  // the heap size: larger requests fail at once
#if DEVALLOC_BACKEND_CPU
  static constexpr std::size_t header_bytes = 16;  // keeps std::malloc's 16-byte alignment
  unsigned long long* used_ = nullptr;
#endif
};

}  // namespace creation
DEVALLOC_NAMESPACE_END
