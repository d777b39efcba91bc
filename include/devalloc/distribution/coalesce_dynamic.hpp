// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/distribution/coalesce_dynamic.hpp
//
// DistributionPolicy `CoalesceDynamic<PayloadAlignment>` — dynamic warp-level coalescing for any
// program (Blach et al., "Coalescing memory allocations for GPU MPI", §3.2): the lanes of a warp
// that call alloc() together share one superblock from the creation policy (any; the report used
// CUDA's malloc, creation::DeviceMalloc), as contiguous segments [header][payload] in lane order.
//
// alloc (collect + distribute; §3.2 "Implementation", steps 1-4):
//   1. The lanes that call together are detected (detail::active_mask(): any subset of a warp);
//      the lowest is the leader.
//   2. Every lane's size reaches every lane of the group by shuffle (one per member); each lane
//      lays out the whole superblock in lane order (detail::segment::place: the smallest header
//      the requested alignment allows, 8, 4 or 2 bytes, whose distance fits) and keeps its own
//      segment's place. Lanes asking more than max_request stay out (their request fails).
//   3. The leader allocates the superblock (the others ask the creation policy for 0 bytes),
//      writes its 16-byte prefix (a detail::shared_chunk_header: the tag that marks the superblock
//      live; not in the report, see below) and shuffles its base to the group.
//   4. Each lane writes its header: distance to the previous payload (to the base for the first),
//      is_superblock on the first segment, is_last on the last; a sync_lanes publishes the headers
//      before any lane returns (and so before any free).
// free (deallocate; wait-free for 8- and 4-byte headers, see detail/segment_header.hpp):
//   CAS is_free into the header. If the segment was not is_last, that is all. The last segment
//   walks down: for the previous segment, if it is free, go on from it; if not, CAS is_last into
//   it (a CAS that fails because it was freed meanwhile goes on from it: its freer saw no is_last
//   and stopped). Reaching a free is_superblock segment releases the superblock:
//   detail::coalesce::release_superblock (clears the prefix's tag, then creation.destroy(base)).
//   Every step succeeds or moves on; the walk is bounded by the segments of one superblock (32).
// The prefix: superblock = [16 B: shared_chunk_header][segment 0][segment 1]... The report's
// superblock starts with segment 0; the prefix (16 bytes a superblock, not a lane) lets the leader
// tell a block that is still live elsewhere (CUDA's malloc near a full heap returns one:
// docs/coalescing.md, Known defects) and fail the group's request instead of sharing that memory
// (detail/coalesce.hpp, unless_live).
//
// Every pointer is aligned to PayloadAlignment (default 16: 8-byte headers, every payload a
// multiple of 16). 8 gives 8-byte headers and packs segments closer; 4 and 2 let headers shrink to
// 4 and 2 bytes (payloads then are 4 (resp. 2) mod 8 (resp. 4): that is how free tells the header
// size) — the caller gives up that alignment explicitly (Allocator::alignment says so; pair with
// alignment::NoAlignment, whose padding does not undo it: policy_check). The creation policy's
// chunks must be 16-byte aligned (all in the tree are).
//
// What a free can tell: a second free of a segment while its superblock is live is a double_free;
// nothing else — headers carry no tag, so interior or foreign pointers are undefined behaviour
// (adjust_traits says so: detects_invalid_pointers and detects_double_free are false; ownership is
// still checked where the creation policy can).
// Blowup: a superblock returns to the heap only when all its segments are freed.
// Heap use: what share of the heap a fill of small requests gets is the creation policy's for
// superblock-sized blocks (adjust_traits: fills_half_the_heap is false).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "../detail/coalesce.hpp"
#include "../detail/platform.hpp"
#include "../detail/segment_header.hpp"
#include "../detail/shared_chunk.hpp"
#include "../detail/warp.hpp"
#include "../free_result.hpp"
#include "../policy_check.hpp"
#include "../traits.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace distribution {

template <std::size_t PayloadAlignment = 16>
class CoalesceDynamic {
 public:
  struct config {
    static constexpr std::size_t payload_alignment = PayloadAlignment;
  };
  static_assert(PayloadAlignment == 16 || PayloadAlignment == 8 || PayloadAlignment == 4 || PayloadAlignment == 2,
                "CoalesceDynamic: PayloadAlignment must be 16, 8 (8-byte headers), 4 (4-byte headers allowed) or 2 "
                "(2-byte headers allowed)");

  static constexpr bool combines_requests = true;
  /// Every pointer alloc() returns is a multiple of this (AllocatorHandle::alignment reads it).
  static constexpr std::size_t payload_alignment = PayloadAlignment;
  /// Largest request served (larger ones fail).
  static constexpr std::size_t max_request = detail::coalesce::max_warp_slot - 32u;

  /// Headers carry no tag (see the file comment). The share of the heap a fill of small requests
  /// gets depends on how the creation policy serves superblocks of up to 32 segments, which it
  /// does not promise (fills_half_the_heap; docs/coalescing.md, "Heap use").
  static constexpr creation_traits adjust_traits(creation_traits t) noexcept
  {
    t.fills_half_the_heap = false;
    t.detects_invalid_pointers = false;
    t.detects_double_free = false;
    t.natural_alignment = PayloadAlignment;
    return t;
  }

  /// Device. Every lane that allocates calls it. Returns the leader's superblock size, 0 for the
  /// other members, SIZE_MAX for a request above max_request.
  DEVALLOC_DEVICE std::size_t collect(std::size_t bytes) noexcept
  {
    const bool joins = bytes <= max_request;
    const std::uint32_t arrived = detail::active_mask();
    group_ = detail::ballot(arrived, joins);
    if (!joins) {
      group_ = 0;
      return ~std::size_t{0};
    }
    const auto size = static_cast<std::uint32_t>(bytes);
    const unsigned me = detail::lane_id();
    std::uint64_t cursor = detail::coalesce::superblock_prefix, prev = 0;
    unsigned last = 0;
    for (std::uint32_t rest = group_; rest != 0; rest &= rest - 1u) {
      const unsigned src = detail::lowest_bit(rest);
      const std::uint32_t b = detail::shuffle(group_, size, src);
      const detail::segment::placement at = detail::segment::place(cursor, prev, PayloadAlignment);
      if (src == me) {
        payload_ = static_cast<std::uint32_t>(at.q);
        distance_ = static_cast<std::uint32_t>(at.q - prev);
      }
      prev = at.q;
      cursor = at.q + b;
      last = src;
    }
    leader_ = detail::leader_lane(group_);
    is_last_ = me == last;
    total_ = cursor;
    return me == leader_ ? static_cast<std::size_t>(cursor) : 0u;
  }

  /// Device. This lane's payload in the superblock the leader got (nullptr on every lane if none).
  DEVALLOC_DEVICE void* distribute(void* block) noexcept
  {
    if (group_ == 0) { return nullptr; }
    if (detail::lane_id() == leader_) {
      block = detail::coalesce::adopt_superblock(block, detail::popcount(group_), total_);
    }
    auto* const base =
      reinterpret_cast<char*>(detail::shuffle(group_, reinterpret_cast<unsigned long long>(block), leader_));
    char* const payload = base == nullptr ? nullptr : base + payload_;
    if (payload != nullptr) {
      const std::uint64_t bits = (detail::lane_id() == leader_ ? detail::segment::superblock_bit : 0u) |
                                 (is_last_ ? detail::segment::last_bit : 0u);
      detail::segment::header_ref(payload).init(detail::segment::encode(distance_, bits));
    }
    detail::sync_lanes(group_);  // every header before any lane's free
    return payload;
  }

  /// Device. Frees `p` (not nullptr): see the file comment. Thread safe; any worker, any kernel.
  template <class Creation>
  DEVALLOC_DEVICE static free_result deallocate(const Creation& creation, void* p) noexcept
  {
    namespace seg = detail::segment;
    if (seg::header_bytes(reinterpret_cast<std::uintptr_t>(p)) == 0) { return free_result::invalid_pointer; }
    if constexpr (Creation::traits.checks_ownership) {
      if (!creation.owns(p)) { return free_result::invalid_pointer; }
    }
    char* cur = static_cast<char*>(p);
    const seg::header_ref mine(cur);
    std::uint64_t h = mine.load();
    for (;;) {
      if ((h & seg::free_bit) != 0) { return free_result::double_free; }
      if (mine.cas(h, h | seg::free_bit)) { break; }
    }
    if ((h & seg::last_bit) == 0) { return free_result::freed; }
    // The last segment: pass is_last down, or release the superblock (§3.2).
    for (;;) {
      if ((h & seg::superblock_bit) != 0) {
        return detail::coalesce::release_superblock(creation, cur - seg::distance_of(h));
      }
      char* const prev = cur - seg::distance_of(h);
      const seg::header_ref below(prev);
      std::uint64_t hp = below.load();
      for (;;) {
        if ((hp & seg::free_bit) != 0) { break; }                              // freed: walk on from it
        if (below.cas(hp, hp | seg::last_bit)) { return free_result::freed; }  // its owner frees later
      }
      cur = prev;
      h = hp;
    }
  }

  /// Host. "CoalesceDynamic<alignment=16>".
  static std::string classname() { return "CoalesceDynamic<alignment=" + std::to_string(PayloadAlignment) + ">"; }

 private:
  std::uint32_t group_ = 0;
  std::uint64_t total_ = 0;  // the superblock's bytes (what the leader asks for)
  std::uint32_t payload_ = 0;
  std::uint32_t distance_ = 0;
  unsigned leader_ = 0;
  bool is_last_ = false;
};

}  // namespace distribution

/// CoalesceDynamic<A> places payloads itself at alignment A: an Alignment policy that promises more
/// (padding to 16) would be a lie for A < 16 and would undo the small headers.
template <std::size_t A, class Alignment>
struct policy_check<distribution::CoalesceDynamic<A>, Alignment> {
  static_assert(Alignment::guaranteed_alignment <= A,
                "CoalesceDynamic<A>: the Alignment policy promises more alignment than A; use a larger A (16 by "
                "default) or alignment::NoAlignment");
  static constexpr bool value = true;
};

DEVALLOC_NAMESPACE_END
