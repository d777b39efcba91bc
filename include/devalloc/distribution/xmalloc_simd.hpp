// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/distribution/xmalloc_simd.hpp
//
// DistributionPolicy `XMallocSIMD<Config>` (mallocMC thesis §4.3.3, after Huang et al.'s XMalloc):
// the lanes of a warp that call alloc() together combine their requests; one elected lane (the
// group's lowest) allocates one chunk for all of them, and every lane gets its own slice of it.
//
// collect(bytes):
//   1. mask = the lanes that arrived together (detail::active_mask()); any subset of a warp.
//   2. Lanes whose request is <= pagesize / 32 form the group (ballot). Groups of one lane, and
//      lanes with larger requests, allocate alone (collect returns their own size).
//   3. Each member's size is rounded up to 16; `header` = the largest power of two (<= 256)
//      dividing every member's size, so every slice keeps the alignment the AlignmentPolicy's
//      padding gave the request. header >= 16 >= sizeof(shared_header).
//   4. The group is cut, in lane order, into parts of at most `cap` bytes (header included), cap =
//      the largest power of two <= min(header + sum of sizes, pagesize): combined chunks then tile
//      a page exactly (thesis' version: 32 x 64 B + a header = 2112 B, one per 4 KiB page; here
//      31 x 64 B + 64 B = 2048 B, two per page). Each part's first lane (its leader) requests
//      header + the part's sizes, the others 0; offsets are prefix sums within the part (one
//      shuffle per group member, identical on every lane). A part of one lane allocates alone.
// distribute(block): the part's leader writes the chunk's header (write_header: member count,
//   chunk bytes and a tag that marks the chunk as combined), then broadcasts the block to its part;
//   lane i returns block + offset_i (nullptr if the leader's allocation failed).
// deallocate(creation, p) — this policy owns the shared-chunk protocol (thesis §4.3.3):
//   start = creation.chunk_start(p) (the creation policy must support shared chunks: its traits
//   say so, and policy_check refuses other pairings). p == start: a chunk allocated alone, freed by
//   creation.destroy(p) -- unless its first bytes hold a tagged header with live members (p is
//   then the header of a combined chunk, not a slice: invalid_pointer). p inside the chunk: a slice
//   iff the header's tag matches the chunk and p lies on a 16-byte boundary in [16, bytes);
//   otherwise invalid_pointer. The member count is decremented by CAS (acq_rel), never below 0
//   (a count of 0: double_free); the member that takes it to 0 clears the tag and destroys the
//   chunk. Undetectable: freeing one slice twice while other members are live takes two members
//   off the count (the header cannot tell which members left), so the chunk is freed while one
//   slice is still in use. A chunk left combined at Allocator::reset() keeps its header in memory;
//   distribute() clears the tag of every chunk it hands out alone, so a later solo chunk at that
//   address is never taken for a combined one.
//
// Caveat — blowup (thesis §4.3.3): a combined chunk returns to the heap only when every lane that
// shared it has freed its slice; one long-lived slice pins the memory of the whole group. Use
// distribution::Noop where lifetimes within a warp differ. Also, getAvailableSlots() counts
// slots of the requested size, not of the combined sizes this policy actually requests.
//
// Independent thread scheduling: every warp operation uses *_sync with the exact mask of the lanes
// that arrived; there is no spin lock and no wait on another lane except the shuffle in
// distribute(), which waits only for the leader, whose allocation never waits for any lane.
// CPU backend: the same code runs on the warp emulator's 32-lane warps (detail/cpu_warp.hpp),
// which group lanes in random subsets; in one-lane mode (launch_options::cpu_lanes == 1, or
// outside devalloc::launch) every group has one lane and each request is allocated alone.
//
// Works with creation policies whose traits.supports_shared_chunks is true (creation::Scatter);
// with Scatter the page sizes must match: devalloc::policy_check<Scatter<C1>, XMallocSIMD<C2>>
// asserts both.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "../detail/atomic.hpp"
#include "../detail/platform.hpp"
#include "../free_result.hpp"
#include "../policy_check.hpp"
#include "../detail/shared_chunk.hpp"
#include "../detail/warp.hpp"

#include "../detail/scatter_pagesize.hpp"

DEVALLOC_NAMESPACE_BEGIN

namespace creation {
template <class Config>
class Scatter;
}  // namespace creation

namespace distribution {

/// XMallocSIMD's configuration with its setting as a template argument (so that files built with
/// different -DDEVALLOC_SCATTER_PAGESIZE values get different types). Derive to override.
template <std::uint32_t PageSize>
struct basic_xmalloc_simd_config {
  /// Must equal the page size of the creation::Scatter it is combined with.
  static constexpr std::uint32_t pagesize = PageSize;
};

/// Default configuration: the page size of creation::ScatterConfig (same macro).
using XMallocSIMDConfig = basic_xmalloc_simd_config<DEVALLOC_SCATTER_PAGESIZE>;

template <class Config = XMallocSIMDConfig>
class XMallocSIMD {
 public:
  using config = Config;
  static constexpr std::uint32_t pagesize = Config::pagesize;
  /// Largest request that is combined with others.
  static constexpr std::uint32_t max_combined_request = pagesize / 32u;
  /// The creation policy is asked for combined sizes, not for the lanes' own (both backends): one
  /// allocation does not take exactly one getAvailableSlots(size) slot, and fill counts depend on
  /// which lanes arrive together. Tests that check slot accounting can skip it on this flag.
  static constexpr bool combines_requests = true;

  static_assert(pagesize >= 256u && pagesize <= (1u << 30),
                "XMallocSIMD: pagesize must be between 256 and 2^30 bytes (the Scatter page size it is combined with)");

  /// The first 16 bytes of a combined chunk (the header is at least 16 bytes; no slice covers it):
  /// detail::shared_chunk_header {members, bytes, tag}, shared with the coalescing policies.
  using shared_header = detail::shared_chunk_header;

  /// The tag of the header of a combined chunk at `chunk`: a magic word mixed with the address, so
  /// that neither user data nor a header copied elsewhere passes for one.
  DEVALLOC_HOST_DEVICE static constexpr std::uint64_t header_tag(std::uintptr_t chunk) noexcept
  {
    return detail::shared_chunk_tag(chunk);
  }

  /// Device. Makes `chunk` (16-byte aligned, at least `bytes` >= 16 bytes) a combined chunk of
  /// `members` slices (what distribute() does on the leader; public so that tests can build one).
  /// Relaxed stores: the caller orders them before the members' frees (distribute: sync_lanes).
  DEVALLOC_DEVICE static void write_header(void* chunk, std::uint32_t members, std::uint32_t bytes) noexcept
  {
    detail::write_shared_chunk_header(chunk, members, bytes);
  }

  /// Device. The live member count of the combined chunk at `chunk`, 0 if its header is not tagged
  /// (a chunk allocated alone, or one whose last member has left).
  DEVALLOC_DEVICE static std::uint32_t members_of(void* chunk) noexcept { return detail::shared_chunk_members(chunk); }

  /// Device. Frees `p` (not nullptr, owned by `creation`): see the file comment, deallocate().
  /// Thread safe like alloc(). Returns what the free did (free_result).
  template <class Creation>
  DEVALLOC_DEVICE static free_result deallocate(const Creation& creation, void* p) noexcept
  {
    static_assert(Creation::traits.supports_shared_chunks,
                  "XMallocSIMD::deallocate: the creation policy must support shared chunks (chunk_start)");
    char* const start = static_cast<char*>(creation.chunk_start(p));
    char* const c = static_cast<char*>(p);
    if (start == nullptr) { return creation.destroy(p); }  // no live chunk: the creation policy classifies p
    if (start == c) {
      // A chunk allocated alone -- or the header of a combined one, which is no member's pointer.
      return members_of(start) != 0 ? free_result::invalid_pointer : creation.destroy(p);
    }
    const auto offset = static_cast<std::size_t>(c - start);
    if (!detail::is_shared_chunk(start) || offset < sizeof(shared_header) || offset % 16u != 0 ||
        offset >= detail::shared_chunk_bytes(start)) {
      return free_result::invalid_pointer;  // inside a chunk that is not combined, or not on a slice
    }
    // acq_rel: every member's writes to its slice happen before the last member frees the chunk
    // (and so before its next owner's use). The last member clears the tag before the chunk
    // returns to the heap (the destroy's release publishes it to the chunk's next owner).
    const detail::leave_result left = detail::leave_shared_chunk(start);
    if (left == detail::leave_result::none_left) { return free_result::double_free; }  // every member has left
    if (left == detail::leave_result::left) { return free_result::freed; }
    return creation.destroy(start);
  }

  /// The part of the group a lane belongs to (see the file comment, step 4).
  struct part {
    std::uint32_t mask = 0;    ///< lanes of the part
    std::uint32_t offset = 0;  ///< the lane's slice: chunk + offset (header included)
    std::uint32_t total = 0;   ///< header + the sizes of the part's lanes
    unsigned leader = 0;       ///< the part's first lane, which allocates
  };

  /// Largest power of two <= min(total, pagesize) (total >= 1): the size combined chunks may have.
  DEVALLOC_HOST_DEVICE static constexpr std::uint32_t part_cap(std::uint32_t total) noexcept
  {
    std::uint32_t limit = total < pagesize ? total : pagesize;
    std::uint32_t cap = 1;
    while (limit >>= 1) { cap <<= 1; }
    return cap;
  }

  /// Greedy partition of `group` in lane order into parts of at most `cap` bytes, header
  /// included; returns the part of lane `me`. `size_of(lane)` gives a member's size (a multiple
  /// of `header`) and is called once for every lane of `group`, lowest first, on every lane (on
  /// the device it is a shuffle, so all lanes of `group` must call partition together).
  template <class SizeOf>
  DEVALLOC_HOST_DEVICE static part partition(std::uint32_t group, unsigned me, std::uint32_t header, std::uint32_t cap,
                                             SizeOf size_of)
  {
    part mine{};
    std::uint32_t run = 0, run_mask = 0;
    unsigned run_leader = 0;
    bool in_run = false;
    for (std::uint32_t rest = group; rest != 0; rest &= rest - 1u) {
      const unsigned src = detail::lowest_bit(rest);
      const std::uint32_t v = size_of(src);
      if (run != 0 && header + run + v > cap) {  // close the part being built
        if (in_run) {
          mine.mask = run_mask;
          mine.total = header + run;
          in_run = false;
        }
        run = 0;
        run_mask = 0;
      }
      if (run_mask == 0) { run_leader = src; }
      if (src == me) {
        mine.offset = header + run;
        mine.leader = run_leader;
        in_run = true;
      }
      run += v;
      run_mask |= 1u << src;
    }
    if (in_run) {
      mine.mask = run_mask;
      mine.total = header + run;
    }
    return mine;
  }

  /// Device. Called by every lane that allocates; returns what this lane asks the creation policy for.
  DEVALLOC_DEVICE std::size_t collect(std::size_t bytes) noexcept
  {
    combined_ = false;
    const std::uint32_t arrived = detail::active_mask();
    const bool small = bytes != 0 && bytes <= max_combined_request;
    const std::uint32_t group = detail::ballot(arrived, small);
    if (!small || detail::popcount(group) < 2u) { return bytes; }
    const auto size = static_cast<std::uint32_t>((bytes + 15u) & ~std::size_t{15});
    std::uint32_t align = size & (0u - size);
    if (align > 256u) { align = 256u; }
    const std::uint32_t header = detail::group_min(group, align);
    const std::uint32_t total = header + detail::group_reduce_add(group, size);  // <= pagesize + 256
    const part p = partition(group, detail::lane_id(), header, part_cap(total),
                             [&](unsigned src) { return detail::shuffle(group, size, src); });
    if (detail::popcount(p.mask) < 2u) { return bytes; }  // a part of one: allocate alone
    group_ = p.mask;
    leader_ = p.leader;
    offset_ = p.offset;
    total_ = p.total;
    combined_ = true;
    return detail::lane_id() == leader_ ? p.total : 0u;
  }

  /// Device. This lane's pointer, given what the creation policy returned for its collected request.
  DEVALLOC_DEVICE void* distribute(void* block) noexcept
  {
    if (!combined_) {
      // A chunk allocated alone must not carry a header tag left in its memory by an earlier
      // combined chunk at the same address (a reset() frees combined chunks without clearing their
      // headers): its free would be taken for a slice's. One relaxed store into the caller's memory.
      if (block != nullptr) {
        detail::device_atomic<std::uint64_t>(static_cast<shared_header*>(block)->tag)
          .store(0u, detail::memory_order_relaxed);
      }
      return block;
    }
    if (detail::lane_id() == leader_ && block != nullptr) {
      // Thesis §4.3.3: the chunk's header counts its members (deallocate() decrements it).
      write_header(block, detail::popcount(group_), total_);
    }
    // Orders the header store before everything the members do after this call (their frees).
    detail::sync_lanes(group_);
    const auto base = detail::shuffle(group_, reinterpret_cast<unsigned long long>(block), leader_);
    return base == 0 ? nullptr : reinterpret_cast<char*>(base) + offset_;
  }

  /// Host. "XMallocSIMD<pagesize=...>".
  static std::string classname() { return "XMallocSIMD<pagesize=" + std::to_string(pagesize) + ">"; }

 private:
  std::uint32_t group_ = 0;
  std::uint32_t offset_ = 0;
  std::uint32_t total_ = 0;
  unsigned leader_ = 0;
  bool combined_ = false;
};

}  // namespace distribution

/// XMallocSIMD hands out pointers into chunks shared by several lanes; its deallocate() needs the
/// creation policy's chunk_start() (traits.supports_shared_chunks) to find their headers.
template <class Creation, class SimdConfig>
struct policy_check<Creation, distribution::XMallocSIMD<SimdConfig>> {
  static_assert(Creation::traits.supports_shared_chunks,
                "XMallocSIMD shares one chunk among several lanes and needs a creation policy that supports shared "
                "chunks (traits.supports_shared_chunks and chunk_start(p), e.g. creation::Scatter); use "
                "distribution::Noop with this creation policy");
  static constexpr bool value = Creation::traits.supports_shared_chunks;
};

/// Scatter and XMallocSIMD must agree on the page size (thesis §4.2, PolicyCheck2); Scatter
/// supports shared chunks.
template <class ScatterConfig, class SimdConfig>
struct policy_check<creation::Scatter<ScatterConfig>, distribution::XMallocSIMD<SimdConfig>> {
  static_assert(ScatterConfig::pagesize == SimdConfig::pagesize,
                "Scatter + XMallocSIMD: the page sizes differ; give XMallocSIMD's config the same pagesize as "
                "Scatter's (or change DEVALLOC_SCATTER_PAGESIZE, which sets both defaults)");
  static constexpr bool value = true;
};

DEVALLOC_NAMESPACE_END
