// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/creation/atomic_bump.hpp
//
// CreationPolicy `AtomicBump`: AtomicMalloc of Vinkler & Havran ("Register Efficient Dynamic
// Memory Allocator for GPUs", §4.1, Algorithm 1). One device-scope atomic add on a 64-bit offset
// per request; memory is never reused by dealloc(), only by Allocator::reset() (free-all).
//
// Layout of the pool: [header: 256 B, holds the offset][data: pool bytes - 256].
// Contract:
//   * create(n) returns data + old_offset, where old_offset is a multiple of nothing in particular:
//     alignment comes from the AlignmentPolicy (Shrink<N> pads every n to a multiple of N and the
//     data area starts 256-aligned), so Shrink<N> with N <= 256 gives N-aligned pointers.
//   * a request that does not fit returns nullptr and leaves the offset unchanged once the heap is
//     full (the offset is tested before the add, so it cannot wrap).
//   * destroy() is a no-op that returns free_result::freed for every pointer (it keeps no record of
//     chunk boundaries, so it cannot tell interior pointers or double frees: traits say so);
//     owns(p) is true for pointers inside the data area.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "../detail/atomic.hpp"
#include "../detail/backend.hpp"
#include "../detail/platform.hpp"
#include "../pool.hpp"
#include "../traits.hpp"
#include "../error.hpp"
#include "../free_result.hpp"
#include "../stream.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace creation {

class AtomicBump {
 public:
  struct config {
    /// Bytes at the start of the pool that hold the offset (keeps the data area 256-aligned).
    static constexpr std::size_t header_bytes = 256;
  };

  static constexpr creation_traits traits{/*reuses_freed_memory*/ false,
                                          /*exact_refill*/ true,
                                          /*checks_ownership*/ true,
                                          /*provides_available_slots*/ true,
                                          /*natural_alignment*/ 1,
                                          /*needs_pool*/ true,
                                          /*resettable*/ true,
                                          /*detects_invalid_pointers*/ false,
                                          /*detects_double_free*/ false,
                                          /*supports_shared_chunks*/ false,
                                          /*combines_requests*/ false,
                                          /*frees_individually*/ false};

  AtomicBump() = default;

  /// Host. Sets up the heap in `pool` (offset = 0). Throws if the pool cannot hold the header and
  /// at least one byte of data.
  static AtomicBump init_heap(pool_span pool, stream_ref stream)
  {
    if (pool.data == nullptr || pool.bytes <= config::header_bytes) {
      detail::throw_error("AtomicBump: the heap needs more than " + std::to_string(config::header_bytes) +
                          " bytes (header), got " + std::to_string(pool.bytes));
    }
    AtomicBump heap;
    heap.offset_ = static_cast<unsigned long long*>(pool.data);
    heap.data_ = static_cast<char*>(pool.data) + config::header_bytes;
    heap.capacity_ = pool.bytes - config::header_bytes;
    heap.finalize_heap(stream);
    return heap;
  }

  /// Host. Forgets every allocation: the offset goes back to 0 (in stream order on `stream`). No
  /// kernel may be running on the heap when the stream reaches this point.
  void finalize_heap(stream_ref stream) { detail::backend::fill(offset_, 0, sizeof(*offset_), stream); }

  /// Host. The policy owns no memory beside the pool: nothing to release.
  void release(stream_ref) noexcept {}

  /// Device. Thread safe. Returns `bytes` bytes or nullptr when they do not fit.
  DEVALLOC_DEVICE void* create(std::size_t bytes) const noexcept
  {
    detail::device_atomic<unsigned long long> offset(*offset_);
    // Refuse without touching the offset once the heap is full or the request alone is too big:
    // the 64-bit offset then grows by at most (concurrent requests x capacity) and never wraps.
    if (bytes > capacity_ || offset.load(detail::memory_order_relaxed) >= capacity_) { return nullptr; }
    const unsigned long long old = offset.fetch_add(bytes, detail::memory_order_relaxed);
    if (old + bytes > capacity_) { return nullptr; }
    return data_ + old;
  }

  /// Device. AtomicMalloc cannot free single chunks: a no-op (memory returns on Allocator::reset())
  /// that changes nothing, whatever the pointer; returns free_result::freed.
  DEVALLOC_DEVICE free_result destroy(void*) const noexcept { return free_result::freed; }

  DEVALLOC_DEVICE bool is_oom(const void* p, std::size_t bytes) const noexcept { return bytes != 0 && p == nullptr; }

  DEVALLOC_HOST_DEVICE bool owns(const void* p) const noexcept
  {
    const char* c = static_cast<const char*>(p);
    return c >= data_ && c < data_ + capacity_;
  }

  /// Device. Chunks of `slot_bytes` that still fit behind the offset.
  DEVALLOC_DEVICE std::size_t available_slots(std::size_t slot_bytes) const noexcept
  {
    return slots_after(detail::atomic_load_relaxed(*offset_), slot_bytes);
  }

  /// Host. Same count, read from the host. No kernel may be changing the heap meanwhile.
  std::size_t available_slots_host(std::size_t slot_bytes, stream_ref stream) const
  {
    unsigned long long used = 0;
    detail::backend::copy_to_host(&used, offset_, sizeof(used), stream);
    return slots_after(used, slot_bytes);
  }

  /// Host. "AtomicBump<header_bytes=...>" (every setting of its config).
  static std::string classname() { return "AtomicBump<header_bytes=" + std::to_string(config::header_bytes) + ">"; }

 private:
  DEVALLOC_HOST_DEVICE std::size_t slots_after(unsigned long long used, std::size_t slot_bytes) const noexcept
  {
    if (slot_bytes == 0 || used >= capacity_) { return 0; }
    return static_cast<std::size_t>((capacity_ - used) / slot_bytes);
  }

  unsigned long long* offset_ = nullptr;
  char* data_ = nullptr;
  std::size_t capacity_ = 0;
};

}  // namespace creation
DEVALLOC_NAMESPACE_END
