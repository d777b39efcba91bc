// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/detail/open_addressing_map.hpp
//
// A small lock-free hash map from 64-bit keys to 64-bit values in backend memory: open addressing
// with linear probing, tombstones, a power-of-two capacity fixed at creation. It is the "parallel
// hashmap" of the coalescing allocators without headers (Blach et al., "Coalescing memory
// allocations for GPU MPI", §3.1: sub-region address -> superblock base; they used cuCollections,
// which is neither in Debian nor on PyPI, hence this one). Used by distribution/coalesce_warp.hpp
// and distribution/coalesce_block_hashed.hpp through creation/with_coalesce_map.hpp.
//
// Slot = {key, value}, both 64-bit words; key 0 = empty, key 1 = tombstone (so 0 and 1 are not
// valid keys; addresses of at least 2-byte-aligned objects never are).
//   insert(k, v): probe from mix64(k); claim the first empty or tombstone slot by a CAS on its key
//                 (acq_rel), then store v (release). Returns false when `capacity` probes found no
//                 slot (the map is full): the caller must then do without the entry.
//   find(k):      probe until k (returns its value, acquire) or an empty slot (not found).
//   erase(k):     probe like find; the value is read and the key CASed from k to tombstone: of two
//                 concurrent erases of k exactly one succeeds (the other reports "not found").
// Lock-free: every operation finishes in at most `capacity` probes of its own, whatever the other
// workers do (a failed CAS means another worker's operation succeeded). No operation waits on
// another worker, so any subset of a warp, diverged or not, may call.
// Contract: keys are unique among live entries (the caller inserts a key only while it is absent:
// here, a live sub-region's address); find(k) / erase(k) of a key happen after its insert
// returned (the caller handed the key out through an ordering of its own, e.g. a warp shuffle
// after the insert). An erase racing with an insert of the same key is not supported (it would be
// a double free racing with a new allocation at that address).
// Tombstones are reused by insert and only cleared by clear(): a long-running program that
// inserts and erases keeps the table's probe lengths bounded by its capacity, not by its live size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "atomic.hpp"
#include "backend.hpp"
#include "hash.hpp"
#include "platform.hpp"
#include "../error.hpp"
#include "../stream.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace detail {

class open_addressing_map {
 public:
  static constexpr std::uint64_t empty_key = 0;
  static constexpr std::uint64_t tombstone_key = 1;

  struct slot {
    std::uint64_t key;
    std::uint64_t value;
  };

  struct find_result {
    bool found = false;
    std::uint64_t value = 0;
  };

  open_addressing_map() = default;

  /// Host. A map of `capacity` slots (rounded up to a power of two, at least 2) in backend memory,
  /// empty, ready for kernels on `stream`. Throws devalloc::error if capacity is 0 or the memory
  /// cannot be had. Release it with destroy().
  static open_addressing_map create(std::size_t capacity, stream_ref stream = {})
  {
    if (capacity == 0) { throw_error("open_addressing_map: the capacity must be at least 1"); }
    std::size_t cap = 2;
    while (cap < capacity) { cap <<= 1; }
    open_addressing_map map;
    map.slots_ = static_cast<slot*>(backend::allocate(cap * sizeof(slot), stream));
    map.mask_ = cap - 1;
    map.clear(stream);
    return map;
  }

  /// Host. Empties the map (stream-ordered; no kernel may use it meanwhile).
  void clear(stream_ref stream = {})
  {
    if (slots_ != nullptr) { backend::fill(slots_, 0, capacity() * sizeof(slot), stream); }
  }

  /// Host. Frees the slots (stream-ordered). The map is empty and unusable afterwards.
  void destroy(stream_ref stream = {}) noexcept
  {
    backend::deallocate(slots_, stream);
    slots_ = nullptr;
    mask_ = 0;
  }

  /// Host. Number of live keys, read after the work queued on `stream` (waits for that stream).
  [[nodiscard]] std::size_t size_host(stream_ref stream = {}) const
  {
    std::size_t live = 0;
    const std::size_t n = capacity();
    std::vector<slot> batch(host_batch);
    for (std::size_t base = 0; base < n; base += host_batch) {
      const std::size_t count = n - base < host_batch ? n - base : host_batch;
      backend::copy_to_host(batch.data(), slots_ + base, count * sizeof(slot), stream);
      for (std::size_t i = 0; i < count; ++i) { live += batch[i].key > tombstone_key; }
    }
    return live;
  }

  DEVALLOC_HOST_DEVICE std::size_t capacity() const noexcept { return slots_ == nullptr ? 0 : mask_ + 1; }

  /// Device. Adds k -> v (k > 1, absent). Returns false if the map is full (nothing changed).
  DEVALLOC_DEVICE bool insert(std::uint64_t k, std::uint64_t v) const noexcept
  {
    std::uint64_t i = mix64(k) & mask_;
    for (std::uint64_t probe = 0; probe <= mask_; ++probe, i = (i + 1) & mask_) {
      device_atomic<std::uint64_t> key(slots_[i].key);
      std::uint64_t seen = key.load(memory_order_relaxed);
      while (seen == empty_key || seen == tombstone_key) {
        if (key.compare_exchange_weak(seen, k, memory_order_acq_rel, memory_order_relaxed)) {
          device_atomic<std::uint64_t>(slots_[i].value).store(v, memory_order_release);
          return true;
        }
      }
    }
    return false;
  }

  /// Device. The value of k, if present.
  DEVALLOC_DEVICE find_result find(std::uint64_t k) const noexcept
  {
    std::uint64_t i = mix64(k) & mask_;
    for (std::uint64_t probe = 0; probe <= mask_; ++probe, i = (i + 1) & mask_) {
      const std::uint64_t seen = device_atomic<std::uint64_t>(slots_[i].key).load(memory_order_acquire);
      if (seen == k) { return {true, device_atomic<std::uint64_t>(slots_[i].value).load(memory_order_acquire)}; }
      if (seen == empty_key) { break; }
    }
    return {};
  }

  /// Device. Removes k and returns its value; found == false if k was absent (or another worker's
  /// erase of k won).
  DEVALLOC_DEVICE find_result erase(std::uint64_t k) const noexcept
  {
    std::uint64_t i = mix64(k) & mask_;
    for (std::uint64_t probe = 0; probe <= mask_; ++probe, i = (i + 1) & mask_) {
      device_atomic<std::uint64_t> key(slots_[i].key);
      std::uint64_t seen = key.load(memory_order_acquire);
      if (seen == k) {
        const std::uint64_t v = device_atomic<std::uint64_t>(slots_[i].value).load(memory_order_acquire);
        if (key.compare_exchange_strong(seen, tombstone_key, memory_order_acq_rel, memory_order_relaxed)) {
          return {true, v};
        }
        return {};  // another erase of k won
      }
      if (seen == empty_key) { break; }
    }
    return {};
  }

 private:
  static constexpr std::size_t host_batch = 4096;
  slot* slots_ = nullptr;
  std::uint64_t mask_ = 0;
};

}  // namespace detail
DEVALLOC_NAMESPACE_END
