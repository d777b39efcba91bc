// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/creation/unsafe_wrap.hpp
//
// CreationPolicy `UnsafeWrap`: AtomicWrapMalloc (AWMalloc) of Vinkler & Havran ("Register
// Efficient Dynamic Memory Allocator for GPUs", §5.1, Algorithm 2). AtomicMalloc's one atomic add
// on a circular pool: a request that does not fit behind the offset wraps to the start of the
// heap, whatever is still allocated there.
//
// UNSAFE BY DESIGN: it hands out memory that may still be in use. The name says so, and
// traits.may_overlap_live tells the test suite and the benchmark. Acceptable only where every
// allocation is dead before the heap has been gone through once more, e.g. per-step scratch
// buffers of a kernel whose live data at any time is a small fraction of the heap, used briefly
// and in allocation order (the paper's "large enough memory pool" and "brief periods"); and for
// measuring the lower bound of an allocator's cost (V&H use it so). Never for data that lives
// across a wrap; use AtomicBump (fails instead of wrapping) or the Circular family (frees).
//
// Layout of the pool: [header: 256 B, holds the offset][data: pool bytes - 256].
// Contract:
//   * create(n): thread safe, lock-free (a CAS that fails means another worker moved the offset).
//     Returns data + offset for n <= capacity; never nullptr for such n. Allocations are disjoint
//     from each other as long as the bytes requested since the last reset() (or since the last
//     wrap) fit in the heap; after a wrap they start again at the beginning of the data area.
//     nullptr only for n > capacity. Alignment comes from the AlignmentPolicy (Shrink<16>: every
//     request is a multiple of 16 and the data area is 256-aligned).
//   * destroy(p): a no-op that returns freed (memory comes back by wrapping, or by reset()).
//     It keeps no chunk boundaries: no interior-pointer or double-free detection (traits say so);
//     a pointer outside the data area is reported as invalid (owns()).
//   * available_slots(n): chunks of n bytes that fit before the next wrap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "../detail/atomic.hpp"
#include "../detail/backend.hpp"
#include "../detail/platform.hpp"
#include "../error.hpp"
#include "../free_result.hpp"
#include "../pool.hpp"
#include "../stream.hpp"
#include "../traits.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace creation {

class UnsafeWrap {
 public:
  struct config {
    /// Bytes at the start of the pool that hold the offset (keeps the data area 256-aligned).
    static constexpr std::size_t header_bytes = 256;
  };

  static constexpr creation_traits traits = [] {
    creation_traits t{};
    t.reuses_freed_memory = false;  // memory comes back by wrapping, not because it was freed
    t.exact_refill = true;
    t.checks_ownership = true;
    t.provides_available_slots = true;
    t.natural_alignment = 1;
    t.needs_pool = true;
    t.resettable = true;
    t.detects_invalid_pointers = false;
    t.detects_double_free = false;
    t.supports_shared_chunks = false;
    t.exact_available_slots = true;
    t.may_overlap_live = true;
    return t;
  }();

  UnsafeWrap() = default;

  /// Host. Sets up the heap in `pool` (offset = 0). Throws if the pool cannot hold the header and
  /// at least one byte of data.
  static UnsafeWrap init_heap(pool_span pool, stream_ref stream)
  {
    if (pool.data == nullptr || pool.bytes <= config::header_bytes) {
      detail::throw_error("UnsafeWrap: the heap needs more than " + std::to_string(config::header_bytes) +
                          " bytes (header), got " + std::to_string(pool.bytes));
    }
    UnsafeWrap heap;
    heap.offset_ = static_cast<unsigned long long*>(pool.data);
    heap.data_ = static_cast<char*>(pool.data) + config::header_bytes;
    heap.capacity_ = pool.bytes - config::header_bytes;
    heap.finalize_heap(stream);
    return heap;
  }

  /// Host. Offset back to 0 (in stream order). No kernel may be running on the heap.
  void finalize_heap(stream_ref stream) { detail::backend::fill(offset_, 0, sizeof(*offset_), stream); }

  void release(stream_ref) noexcept {}

  /// Device. Algorithm 2: add; on overflow, wrap by a CAS from the value the add produced to n
  /// (the wrapping worker takes [0, n)); a worker whose CAS fails either adds again (someone else
  /// wrapped) or retries the wrap from the value it found (others overflowed too).
  DEVALLOC_DEVICE void* create(std::size_t bytes) const noexcept
  {
    if (bytes > capacity_) { return nullptr; }
    detail::device_atomic<unsigned long long> offset(*offset_);
    unsigned long long old = offset.fetch_add(bytes, detail::memory_order_relaxed);
    if (old + bytes <= capacity_) { return data_ + old; }
    unsigned long long seen = old + bytes;
    for (;;) {
      if (offset.compare_exchange_strong(seen, bytes, detail::memory_order_relaxed, detail::memory_order_relaxed)) {
        return data_;
      }
      if (seen + bytes <= capacity_) {  // wrapped by another worker: allocate behind it
        old = offset.fetch_add(bytes, detail::memory_order_relaxed);
        if (old + bytes <= capacity_) { return data_ + old; }
        seen = old + bytes;
      }
    }
  }

  /// Device. A no-op (see the file comment); returns free_result::freed.
  DEVALLOC_DEVICE free_result destroy(void*) const noexcept { return free_result::freed; }

  DEVALLOC_DEVICE bool is_oom(const void* p, std::size_t bytes) const noexcept { return bytes != 0 && p == nullptr; }

  DEVALLOC_HOST_DEVICE bool owns(const void* p) const noexcept
  {
    const char* c = static_cast<const char*>(p);
    return c >= data_ && c < data_ + capacity_;
  }

  /// Device. Chunks of `slot_bytes` that fit before the next wrap.
  DEVALLOC_DEVICE std::size_t available_slots(std::size_t slot_bytes) const noexcept
  {
    return slots_after(detail::atomic_load_relaxed(*offset_), slot_bytes);
  }

  /// Host. Same count. No kernel may be changing the heap meanwhile.
  std::size_t available_slots_host(std::size_t slot_bytes, stream_ref stream) const
  {
    unsigned long long used = 0;
    detail::backend::copy_to_host(&used, offset_, sizeof(used), stream);
    return slots_after(used, slot_bytes);
  }

  static std::string classname() { return "UnsafeWrap<header_bytes=" + std::to_string(config::header_bytes) + ">"; }

  /// Host and device: the data area and its size (for tests).
  DEVALLOC_HOST_DEVICE char* data() const noexcept { return data_; }
  DEVALLOC_HOST_DEVICE std::size_t capacity() const noexcept { return capacity_; }

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
