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
//      padding gave the request. Offsets are an exclusive prefix sum over the group (shuffles).
//   4. If header + sum > pagesize the group falls back to allocating alone (a combined chunk
//      must fit one page of Scatter). Otherwise the leader requests header + sum; the others 0.
// distribute(block): the leader writes the member count into the chunk's first word (the
//   header), then broadcasts the block; lane i returns block + header + offset_i (nullptr if
//   the leader's allocation failed). creation::Scatter::destroy() recognises these interior
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
// CPU backend: a warp is one lane, so every request is allocated alone (this is Noop there).
//
// Works with creation::Scatter only (the header protocol lives in Scatter::destroy); the page
// sizes must match: devalloc::policy_check<Scatter<C1>, XMallocSIMD<C2>> asserts it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "../detail/atomic.hpp"
#include "../detail/platform.hpp"
#include "../detail/policy_checks.hpp"
#include "../detail/warp.hpp"

#ifndef DEVALLOC_SCATTER_PAGESIZE
#define DEVALLOC_SCATTER_PAGESIZE 4096
#endif

namespace devalloc {

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

  static_assert(pagesize >= 256u && pagesize <= (1u << 30),
                "XMallocSIMD: pagesize must be between 256 and 2^30 bytes (the Scatter page size it is combined with)");

  /// Device. Called by every lane that allocates; returns what this lane asks the creation policy for.
  DEVALLOC_DEVICE std::size_t collect(std::size_t bytes) noexcept
  {
    combined_ = false;
#if DEVALLOC_BACKEND_CUDA
    const std::uint32_t arrived = detail::active_mask();
    const bool small = bytes != 0 && bytes <= max_combined_request;
    const std::uint32_t group = detail::ballot(arrived, small);
    if (!small || detail::popcount(group) < 2u) { return bytes; }
    const auto size = static_cast<std::uint32_t>((bytes + 15u) & ~std::size_t{15});
    std::uint32_t align = size & (0u - size);
    if (align > 256u) { align = 256u; }
    const std::uint32_t header = detail::group_min(group, align);
    std::uint32_t below = 0;
    const std::uint32_t total = header + detail::group_sum(group, size, below);  // <= 32 * pagesize/32 + 256
    if (total > pagesize) { return bytes; }  // the same decision on every lane of the group
    group_ = group;
    leader_ = detail::leader_lane(group);
    offset_ = header + below;
    combined_ = true;
    return detail::lane_id() == leader_ ? total : 0u;
#else
    return bytes;
#endif
  }

  /// Device. This lane's pointer, given what the creation policy returned for its collected request.
  DEVALLOC_DEVICE void* distribute(void* block) noexcept
  {
    if (!combined_) { return block; }
#if DEVALLOC_BACKEND_CUDA
    if (detail::lane_id() == leader_ && block != nullptr) {
      // Thesis §4.3.3: the chunk's header counts its members (Scatter::destroy decrements it).
      detail::device_atomic<std::uint32_t>(*static_cast<std::uint32_t*>(block))
        .store(detail::popcount(group_), detail::memory_order_relaxed);
      detail::fence_device();  // the count is in place before any member can free its slice
    }
    const auto base = detail::shuffle(group_, reinterpret_cast<unsigned long long>(block), leader_);
    return base == 0 ? nullptr : reinterpret_cast<char*>(base) + offset_;
#else
    return block;
#endif
  }

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

}  // namespace devalloc
