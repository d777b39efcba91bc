// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/distribution/coalesce_block.hpp
//
// DistributionPolicy `CoalesceBlock` — static coalescing with headers (Blach et al., "Coalescing
// memory allocations for GPU MPI", §3.1 "header based allocator"; the report's HB and HW): a
// leader allocates one superblock from the creation policy (any: the report used CUDA's malloc,
// creation::DeviceMalloc) for a group of workers and hands out its slots in rank order; before
// each slot's payload lies a 16-byte header that points to the superblock, whose counter the free
// decrements; the last free releases the superblock. Every sub-region can be freed on its own, in
// any order, by any worker, in a later kernel.
//
// Two entry points:
//   * AllocatorHandle::alloc(bytes) (the pipeline: collect/distribute): warp level — the group is
//     the lanes that call together (any subset of a warp; sizes may differ). The report's HW.
//   * AllocatorHandle::alloc_block_coalesced(bytes) -> alloc_block(): block level — a collective
//     of every thread of the thread block with the same `bytes` (the report's HB; its static
//     analysis proves that case). If the sizes differ (or are 0) every thread takes the warp path.
//     CPU backend: no thread blocks exist (detail/coalesce.hpp), so the group is the warp's lanes
//     that call together, exactly as alloc().
//
// Layout: superblock = [shared_chunk_header 16 B][slot 0][slot 1]...; slot = [slice header 16 B]
// [payload, rounded up to 16]. Slice header = {superblock base, tag}, tag = slice_tag(payload)
// while the slot is live, slice_tag(payload) ^ 1 once freed. Every pointer is 16-byte aligned
// (if the creation policy's are: every creation policy in the tree returns 16-byte aligned chunks
// here). Overhead: 16 B per allocation (the report: "at least 8 bytes between each region ... with
// padding to 16-byte alignment") + 16 B per superblock. A worker allocating alone (a group of one)
// gets a superblock of one slot, so every pointer of this policy has a header.
//
// deallocate(creation, p): p must be 16-aligned and, if the creation policy checks ownership,
// owned; its slice header must carry slice_tag(p) (else invalid_pointer: an interior pointer, or
// memory that is not a slot). The tag is CASed to the freed value (the loser of two concurrent
// frees of one slot, and any later free while the memory is not reused, gets double_free); then
// the superblock's count is decremented (detail::leave_shared_chunk, acq_rel) and the last member
// destroys the superblock (detail::coalesce::release_superblock). Lock-free, no waiting on any other
// worker. A superblock the creation policy returns while it is still live elsewhere (CUDA's malloc
// near a full heap: docs/coalescing.md, Known defects) is detected by its header and the group's
// request fails instead (detail/coalesce.hpp, unless_live).
// Requests above detail::coalesce::max_warp_slot - 16 bytes (64 MiB) fail (collect asks the
// creation policy for SIZE_MAX, which every creation policy refuses).
//
// Blowup (as XMallocSIMD): a superblock returns to the heap only when all its slots are freed.
// Heap use: a fill of small requests gets 64/80 (64-byte requests) of what the creation policy
// gives in superblocks; that share is the creation policy's (adjust_traits: fills_half_the_heap).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "../detail/atomic.hpp"
#include "../detail/coalesce.hpp"
#include "../detail/platform.hpp"
#include "../detail/shared_chunk.hpp"
#include "../detail/warp.hpp"
#include "../free_result.hpp"
#include "../traits.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace distribution {

class CoalesceBlock {
 public:
  struct config {};

  /// The creation policy is asked for superblocks, not for the workers' own sizes.
  static constexpr bool combines_requests = true;

  /// The creation policy's traits, except fills_half_the_heap: what share of the heap a fill of
  /// small requests gets is 64/80 (64-byte requests: 16-byte slice headers) of what the creation
  /// policy gives in superblocks of ~2.5 KB, which it does not promise (CUDA's malloc: an H100
  /// with CUDA 13 gave 29.5 MiB of 64-byte chunks from a 64 MiB heap; docs/coalescing.md, "Heap use").
  static constexpr creation_traits adjust_traits(creation_traits t) noexcept
  {
    t.fills_half_the_heap = false;
    return t;
  }

  /// The 16 bytes before every payload.
  struct slice_header {
    std::uint64_t base;  ///< the superblock (its shared_chunk_header)
    std::uint64_t tag;   ///< slice_tag(payload) while live, slice_tag(payload) ^ 1 once freed
  };
  static_assert(sizeof(slice_header) == 16, "CoalesceBlock: the slice header must keep payloads 16-byte aligned");

  /// Largest request served (larger ones fail).
  static constexpr std::size_t max_request = detail::coalesce::max_warp_slot - sizeof(slice_header);

  DEVALLOC_HOST_DEVICE static constexpr std::uint64_t slice_tag(std::uintptr_t payload) noexcept
  {
    return 0x436F616C65736365ull ^ (static_cast<std::uint64_t>(payload) * 0xD6E8FEB86659FD93ull);
  }

  /// Device. Every lane that allocates calls it (any subset of a warp). Returns what this lane asks
  /// the creation policy for: the superblock (leader), 0 (other members), SIZE_MAX (too large).
  DEVALLOC_DEVICE std::size_t collect(std::size_t bytes) noexcept
  {
    const std::uint32_t slot =
      bytes <= max_request ? static_cast<std::uint32_t>(sizeof(slice_header) + detail::coalesce::round16(bytes)) : 0u;
    plan_ = detail::coalesce::plan_warp(slot);
    if (plan_.group == 0) { return ~std::size_t{0}; }
    return detail::lane_id() == plan_.leader ? plan_.total : 0u;
  }

  /// Device. This lane's pointer, given what the creation policy returned for its request.
  DEVALLOC_DEVICE void* distribute(void* block) noexcept
  {
    if (plan_.group == 0) { return nullptr; }
    char* const base = detail::coalesce::share_warp(plan_, block);
    return base == nullptr ? nullptr : make_slot(base, plan_.offset);
  }

  /// Device. Block-level coalescing (see the file comment): every thread of the block calls it
  /// with the same `bytes` (after the Alignment policy's padding). Returns the thread's payload,
  /// or nullptr if the superblock could not be had (every thread of the block) or bytes is 0.
  template <class Creation>
  DEVALLOC_DEVICE static void* alloc_block(const Creation& creation, std::size_t bytes) noexcept
  {
#if DEVALLOC_BACKEND_CUDA
    const std::uint32_t slot = bytes != 0 && bytes <= max_request
                                 ? static_cast<std::uint32_t>(sizeof(slice_header) + detail::coalesce::round16(bytes))
                                 : 0u;
    const detail::coalesce::block_plan plan =
      detail::coalesce::share_block(slot, [&](std::size_t total) { return creation.create(total); });
    if (plan.uniform) {
      if (plan.base == nullptr) { return nullptr; }
      return make_slot(plan.base, detail::coalesce::superblock_prefix + plan.rank * slot);
    }
#endif
    if (bytes == 0) { return nullptr; }
    CoalesceBlock warp{};
    const std::size_t request = warp.collect(bytes);
    return warp.distribute(request != 0 && request != ~std::size_t{0} ? creation.create(request) : nullptr);
  }

  /// Device. Frees `p` (not nullptr): see the file comment. Thread safe; any worker, any kernel.
  template <class Creation>
  DEVALLOC_DEVICE static free_result deallocate(const Creation& creation, void* p) noexcept
  {
    const auto addr = reinterpret_cast<std::uintptr_t>(p);
    if (addr % 16u != 0) { return free_result::invalid_pointer; }
    if constexpr (Creation::traits.checks_ownership) {
      if (!creation.owns(static_cast<char*>(p) - sizeof(slice_header))) { return free_result::invalid_pointer; }
    }
    auto* h = reinterpret_cast<slice_header*>(static_cast<char*>(p) - sizeof(slice_header));
    detail::device_atomic<std::uint64_t> tag(h->tag);
    std::uint64_t seen = tag.load(detail::memory_order_relaxed);
    if (seen == (slice_tag(addr) ^ 1u)) { return free_result::double_free; }
    if (seen != slice_tag(addr)) { return free_result::invalid_pointer; }
    // acq_rel: the slot's writes before the superblock's release (leave_shared_chunk orders the rest).
    if (!tag.compare_exchange_strong(seen, slice_tag(addr) ^ 1u, detail::memory_order_acq_rel,
                                     detail::memory_order_relaxed)) {
      return free_result::double_free;  // a concurrent free of the same slot won
    }
    void* const base =
      reinterpret_cast<void*>(detail::device_atomic<std::uint64_t>(h->base).load(detail::memory_order_relaxed));
    switch (detail::leave_shared_chunk(base)) {
      case detail::leave_result::left:
        return free_result::freed;
      case detail::leave_result::none_left:
        return free_result::double_free;
      case detail::leave_result::last:
        break;
    }
    return detail::coalesce::release_superblock(creation, base);
  }

  /// Host. "CoalesceBlock<headers>".
  static std::string classname() { return "CoalesceBlock<headers>"; }

 private:
  /// Device. Writes the slot's header at base + offset and returns its payload.
  DEVALLOC_DEVICE static void* make_slot(char* base, std::size_t offset) noexcept
  {
    char* const payload = base + offset + sizeof(slice_header);
    auto* h = reinterpret_cast<slice_header*>(base + offset);
    detail::device_atomic<std::uint64_t>(h->base).store(reinterpret_cast<std::uint64_t>(base),
                                                        detail::memory_order_relaxed);
    detail::device_atomic<std::uint64_t>(h->tag).store(slice_tag(reinterpret_cast<std::uintptr_t>(payload)),
                                                       detail::memory_order_relaxed);
    return payload;
  }

  detail::coalesce::warp_plan plan_{};
};

}  // namespace distribution
DEVALLOC_NAMESPACE_END
