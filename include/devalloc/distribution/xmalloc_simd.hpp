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
//      padding gave the request.
//   4. The group is cut, in lane order, into parts of at most `cap` bytes (header included), cap =
//      the largest power of two <= min(header + sum of sizes, pagesize): combined chunks then tile
//      a page exactly (thesis' version: 32 x 64 B + a header = 2112 B, one per 4 KiB page; here
//      31 x 64 B + 64 B = 2048 B, two per page). Each part's first lane (its leader) requests
//      header + the part's sizes, the others 0; offsets are prefix sums within the part (one
//      shuffle per group member, identical on every lane). A part of one lane allocates alone.
// distribute(block): the part's leader writes the member count into the chunk's first word
//   (the header), then broadcasts the block to its part; lane i returns block + offset_i
//   (nullptr if the leader's allocation failed). creation::Scatter::destroy() recognises these interior
//   pointers: each free decrements the header, the last one frees the whole chunk.
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
// Works with creation::Scatter only (the header protocol lives in Scatter::destroy); the page
// sizes must match: devalloc::policy_check<Scatter<C1>, XMallocSIMD<C2>> asserts it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "../detail/atomic.hpp"
#include "../detail/platform.hpp"
#include "../policy_check.hpp"
#include "../detail/warp.hpp"

#include "../detail/scatter_pagesize.hpp"

DEVALLOC_NAMESPACE_BEGIN

namespace creation {
template <class Config>
class Scatter;
}  // namespace creation

namespace distribution {

/// Default configuration: the page size of creation::ScatterConfig (same macro).
struct XMallocSIMDConfig {
  /// Must equal the page size of the creation::Scatter it is combined with.
  static constexpr std::uint32_t pagesize = DEVALLOC_SCATTER_PAGESIZE;
};

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
    combined_ = true;
    return detail::lane_id() == leader_ ? p.total : 0u;
  }

  /// Device. This lane's pointer, given what the creation policy returned for its collected request.
  DEVALLOC_DEVICE void* distribute(void* block) noexcept
  {
    if (!combined_) { return block; }
    if (detail::lane_id() == leader_ && block != nullptr) {
      // Thesis §4.3.3: the chunk's header counts its members (Scatter::destroy decrements it).
      detail::device_atomic<std::uint32_t>(*static_cast<std::uint32_t*>(block))
        .store(detail::popcount(group_), detail::memory_order_relaxed);
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
  unsigned leader_ = 0;
  bool combined_ = false;
};

}  // namespace distribution

/// XMallocSIMD hands out pointers into chunks shared by several lanes; only creation::Scatter
/// knows how to free those (its destroy() implements the header protocol).
template <class Creation, class SimdConfig>
struct policy_check<Creation, distribution::XMallocSIMD<SimdConfig>> {
  static_assert(sizeof(Creation) == 0,
                "XMallocSIMD works only with creation::Scatter (which frees the chunks it shares between lanes); "
                "use distribution::Noop with other creation policies");
  static constexpr bool value = false;
};

/// Scatter and XMallocSIMD must agree on the page size (thesis §4.2, PolicyCheck2).
template <class ScatterConfig, class SimdConfig>
struct policy_check<creation::Scatter<ScatterConfig>, distribution::XMallocSIMD<SimdConfig>> {
  static_assert(ScatterConfig::pagesize == SimdConfig::pagesize,
                "Scatter + XMallocSIMD: the page sizes differ; give XMallocSIMD's config the same pagesize as "
                "Scatter's (or change DEVALLOC_SCATTER_PAGESIZE, which sets both defaults)");
  static constexpr bool value = true;
};

DEVALLOC_NAMESPACE_END
