// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/creation/coalesce_hashed.hpp
//
// CreationPolicy `CoalesceHashed<Inner, Config>` — static coalescing without headers (Blach et
// al., "Coalescing memory allocations for GPU MPI", §3.1 "hashmap based allocator"; the report's
// NW and NB) over any creation policy `Inner` (the report used CUDA's malloc: Inner =
// creation::DeviceMalloc). A leader allocates one superblock from Inner for a group of workers;
// their sub-regions lie back to back in it with no gap but the 16-byte rounding, so neighbouring
// workers' memory is neighbouring memory. A device hash map (detail::open_addressing_map, sized
// by Config::map_capacity, owned by this policy) maps each sub-region's address to its
// superblock's base; the superblock's first 16 bytes count its live sub-regions
// (detail::shared_chunk_header) and the last free releases it to Inner.
//
// It is a creation policy rather than a distribution policy because it owns state (the map) that
// its free needs; it wraps Inner and forwards everything else. Use it with distribution::Noop.
//
//   create(bytes)        warp level (NW): the lanes that call together (any subset of a warp)
//                        share a superblock (detail::coalesce::plan_warp; sizes may differ). A
//                        lane alone, or one asking more than 64 MiB, gets Inner's chunk directly.
//   create_block(bytes)  block level (NB), through AllocatorHandle::alloc_block_coalesced: a
//                        collective of every thread of the block with the same size (CUDA); if the
//                        sizes differ, the warp level. CPU backend: no thread blocks, so the warp
//                        level (detail/coalesce.hpp).
//   destroy(p)           map.erase(p): found -> one member leaves the superblock (the last one
//                        destroys it in Inner); not found -> Inner.destroy(p) (a chunk allocated
//                        alone, or a pointer Inner classifies).
// If the map is full, a sub-region that cannot be entered is given back (its member leaves) and
// the lane allocates alone from Inner instead: no allocation is ever lost to the map.
// Every pointer is 16-byte aligned if Inner's chunks are (min(16, Inner's natural alignment)).
// Traits: Inner's, except detects_double_free (a second free of a sub-region is not in the map
// any more and goes to Inner, which sees a pointer inside a live chunk: invalid_pointer, or
// undefined behaviour for Inner = DeviceMalloc) and supports_shared_chunks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "../detail/coalesce.hpp"
#include "../detail/open_addressing_map.hpp"
#include "../detail/platform.hpp"
#include "../detail/shared_chunk.hpp"
#include "../detail/warp.hpp"
#include "../free_result.hpp"
#include "../pool.hpp"
#include "../stream.hpp"
#include "../traits.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace creation {

/// CoalesceHashed's configuration: the map's slots (a power of two; each 16 bytes of backend
/// memory). One entry per live coalesced sub-region; when full, requests are served alone.
template <std::size_t MapCapacity>
struct basic_coalesce_hashed_config {
  static constexpr std::size_t map_capacity = MapCapacity;
};

#ifndef DEVALLOC_COALESCE_MAP_CAPACITY
#define DEVALLOC_COALESCE_MAP_CAPACITY (std::size_t{1} << 20)
#endif

using CoalesceHashedConfig = basic_coalesce_hashed_config<DEVALLOC_COALESCE_MAP_CAPACITY>;

template <class Inner, class Config = CoalesceHashedConfig>
class CoalesceHashed {
 public:
  using config = Config;
  using inner_type = Inner;

  static_assert(Config::map_capacity >= 2, "CoalesceHashed: map_capacity must be at least 2");

  /// Inner is asked for superblocks, not for the callers' sizes (Allocator::combines_requests).
  static constexpr bool combines_requests = true;

  static constexpr creation_traits traits = [] {
    creation_traits t = Inner::traits;
    t.detects_double_free = false;
    t.supports_shared_chunks = false;
    t.natural_alignment = t.natural_alignment < 16 ? t.natural_alignment : 16;
    return t;
  }();

  CoalesceHashed() = default;

  /// Host. Inner's heap in `pool` and an empty map of Config::map_capacity slots.
  static CoalesceHashed init_heap(pool_span pool, stream_ref stream)
  {
    CoalesceHashed heap;
    heap.inner_ = Inner::init_heap(pool, stream);
    try {
      heap.map_ = detail::open_addressing_map::create(Config::map_capacity, stream);
    } catch (...) {
      heap.inner_.release(stream);
      throw;
    }
    return heap;
  }

  /// Host. Inner's reset, and an empty map.
  void finalize_heap(stream_ref stream)
  {
    inner_.finalize_heap(stream);
    map_.clear(stream);
  }

  /// Host. Frees the map and Inner's bookkeeping.
  void release(stream_ref stream) noexcept
  {
    map_.destroy(stream);
    inner_.release(stream);
  }

  /// Device. Warp-level coalesced allocation (see the file comment). Any subset of a warp.
  DEVALLOC_DEVICE void* create(std::size_t bytes) const noexcept
  {
    const std::uint32_t slot =
      bytes <= detail::coalesce::max_warp_slot ? static_cast<std::uint32_t>(detail::coalesce::round16(bytes)) : 0u;
    const detail::coalesce::warp_plan plan = detail::coalesce::plan_warp(slot);
    if (plan.group == 0 || detail::popcount(plan.group) == 1u) { return create_alone(bytes); }
    void* const block = detail::lane_id() == plan.leader ? inner_.create(plan.total) : nullptr;
    char* const base = detail::coalesce::share_warp(plan, block);
    return base == nullptr ? nullptr : enter(base, base + plan.offset, bytes);
  }

  /// Device. Block-level coalesced allocation: a collective of the whole thread block (CUDA; see
  /// the file comment and AllocatorHandle::alloc_block_coalesced). nullptr for bytes == 0.
  DEVALLOC_DEVICE void* create_block(std::size_t bytes) const noexcept
  {
#if DEVALLOC_BACKEND_CUDA
    const std::uint32_t slot = bytes != 0 && bytes <= detail::coalesce::max_warp_slot
                                 ? static_cast<std::uint32_t>(detail::coalesce::round16(bytes))
                                 : 0u;
    const detail::coalesce::block_plan plan =
      detail::coalesce::share_block(slot, [&](std::size_t total) { return inner_.create(total); });
    if (plan.uniform) {
      if (plan.base == nullptr) { return nullptr; }
      return enter(plan.base, plan.base + detail::coalesce::superblock_prefix + std::size_t{plan.rank} * slot, bytes);
    }
#endif
    return bytes == 0 ? nullptr : create(bytes);
  }

  /// Device. Frees `p` (see the file comment). Thread safe; any worker, any kernel.
  DEVALLOC_DEVICE free_result destroy(void* p) const noexcept
  {
    const detail::open_addressing_map::find_result entry = map_.erase(reinterpret_cast<std::uint64_t>(p));
    if (!entry.found) { return inner_.destroy(p); }
    void* const base = reinterpret_cast<void*>(entry.value);
    switch (detail::leave_shared_chunk(base)) {
      case detail::leave_result::left:
        return free_result::freed;
      case detail::leave_result::none_left:
        return free_result::double_free;
      case detail::leave_result::last:
        break;
    }
    return detail::coalesce::release_superblock(inner_, base);
  }

  DEVALLOC_DEVICE bool is_oom(const void* p, std::size_t bytes) const noexcept { return bytes != 0 && p == nullptr; }

  DEVALLOC_HOST_DEVICE bool owns(const void* p) const noexcept { return inner_.owns(p); }

  /// Device / host: Inner's count of free slots (combined requests take fewer, larger ones).
  DEVALLOC_DEVICE std::size_t available_slots(std::size_t slot_bytes) const noexcept
  {
    return inner_.available_slots(slot_bytes);
  }
  std::size_t available_slots_host(std::size_t slot_bytes, stream_ref stream) const
  {
    return inner_.available_slots_host(slot_bytes, stream);
  }

  /// The map (tests read its size: no entry may outlive its sub-region).
  DEVALLOC_HOST_DEVICE const detail::open_addressing_map& map() const noexcept { return map_; }
  DEVALLOC_HOST_DEVICE const Inner& inner() const noexcept { return inner_; }

  static std::string classname()
  {
    return "CoalesceHashed<" + Inner::classname() + ", map_capacity=" + std::to_string(Config::map_capacity) + ">";
  }

 private:
  /// Device. Enters sub-region `p` of the superblock at `base` into the map; if the map is full,
  /// gives the sub-region back and allocates `bytes` alone from Inner.
  DEVALLOC_DEVICE void* enter(char* base, char* p, std::size_t bytes) const noexcept
  {
    if (map_.insert(reinterpret_cast<std::uint64_t>(p), reinterpret_cast<std::uint64_t>(base))) { return p; }
    if (detail::leave_shared_chunk(base) == detail::leave_result::last) {
      detail::coalesce::release_superblock(inner_, base);
    }
    return create_alone(bytes);
  }

  /// Device. `bytes` from Inner for one lane, refused (nullptr) if the block starts a live
  /// superblock (detail::coalesce::unless_live). A block of fewer than a superblock header's 16
  /// bytes is not read (that would read past the request) and is returned unchecked.
  DEVALLOC_DEVICE void* create_alone(std::size_t bytes) const noexcept
  {
    void* const p = inner_.create(bytes);
    return bytes >= sizeof(detail::shared_chunk_header) ? detail::coalesce::unless_live(p) : p;
  }

  Inner inner_{};
  detail::open_addressing_map map_{};
};

}  // namespace creation
DEVALLOC_NAMESPACE_END
