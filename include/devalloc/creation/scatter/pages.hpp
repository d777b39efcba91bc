// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/creation/scatter/pages.hpp
//
// `creation::scatter_detail::multi_page<Config>`: creation::Scatter's requests larger than a page
// (ScatterAlloc, Steinberger et al. 2012, §6.3; mallocMC thesis, Eckert 2014, fig. 2.3) and the
// runs of free pages that getAvailableSlots counts for them (thesis §4.3.5). creation/scatter.hpp
// has the overview.
//
//   * alloc_pages finds and takes `need` consecutive free pages in the free-page map
//     (detail/page_bitmap.hpp: 64 pages per word, runs found with shifts, taken by fetch_or and
//     rolled back on a conflict), from a start scattered per lane instead of the paper's serial
//     scan from the end of the heap; take_pages gives them the state (large_chunk, lock_count) and
//     the first page's bitfield the page count. free_pages releases them.
//   * Pages of a multi-page chunk count as full pages of their regions (add_run_to_regions, through
//     creation/scatter/fill.hpp's region counters).
//   * summarize_runs: the free-page runs of a range of pages, so that ranges counted by different
//     lanes (or by the host) can be stitched together.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../../detail/atomic.hpp"
#include "../../detail/bitfield_page.hpp"
#include "../../detail/hash.hpp"
#include "../../detail/page_bitmap.hpp"
#include "../../detail/platform.hpp"
#include "../../detail/warp.hpp"
#include "../../free_result.hpp"
#include "fill.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace creation::scatter_detail {

template <class Config>
class multi_page : public fill<Config> {
  using base = fill<Config>;
  using page_format = detail::bitfield_page<Config::pagesize, Config::span_pages>;

 protected:
  using base::bitmasks_;
  using base::data_;
  using base::free_map_;
  using base::page_data;
  using base::pages_;
  using base::pagesize;
  using base::region_add;
  using base::region_of;
  using base::region_pages_;
  using base::region_size;
  using base::region_sub;
  using base::regions_;
  using base::run_unit;
  using base::runs_;
  using base::states_;
  using page_format::large_state;
  using page_format::load_state;

  DEVALLOC_HOST_DEVICE static constexpr std::uint64_t pages_needed(std::size_t bytes) noexcept
  {
    return static_cast<std::uint64_t>(bytes / pagesize) + (bytes % pagesize != 0 ? 1u : 0u);
  }

  // ---------------------------------------------------------------------------------------------
  // Requests larger than a page (ScatterAlloc §6.3; thesis fig. 2.3)

  /// Finds `need` consecutive free pages in the free-page map and takes them (§6.3; the paper and
  /// the thesis scan the page table from the end of the heap, one page state at a time, and every
  /// request of a kernel scans the same pages). The scan starts at a multiple of the page count
  /// scattered by the calling lane's warp and lane (requests of one kernel look at different parts
  /// of the heap), reads 64 pages per word, four words a latency, and finds runs inside a word with
  /// shifts; it goes once around the map (word_count + need / 64 + 2 words from any start see every
  /// run: page_bitmap::find_run), so a request that fails reads each word once, not twice.
  DEVALLOC_DEVICE void* alloc_pages(std::size_t bytes) const noexcept
  {
    const std::uint64_t need64 = pages_needed(bytes);
    if (need64 > pages_) { return nullptr; }
    const auto need = static_cast<std::uint32_t>(need64);
    // The start: a multiple of the request's page count, chosen by the lane (requests of a kernel
    // spread over the heap; a run of more than half the heap starts at page 0, and big runs do not
    // cut the heap into pieces that no other big run fits).
    const std::uint32_t places = pages_ / need;
    const std::uint32_t start =
      detail::mix32(detail::warp_id() * detail::warp_size + detail::lane_id() + need * 0x9E3779B9u) % places * need;
    const std::uint32_t first = free_map_.find_run(start, need, free_map_.word_count() + need / 64u + 2u);
    if (first == detail::page_bitmap::none) { return nullptr; }
    take_pages(first, need);
    return page_data(first);
  }

  /// Requests above Config::runs_above with runs on (run_unit != 0; the two-granularity heap of
  /// docs/notes/two-granularity-heap.md): a run of ceil(bytes / run_unit) units anywhere in the
  /// free map (detail::unit_runs: the calling lanes' runs combined when one run near the lowest
  /// lane's start holds them all, else the first fit from the lane's hashed start, once around the
  /// map), its extent kept as a start and an end bit. No page state changes: the run's pages keep
  /// state 0, and a page is a class page only when all its units are free. Every calling lane
  /// must reach this call (the combined claim is a collective of the lanes present).
  DEVALLOC_DEVICE void* alloc_run(std::size_t bytes) const noexcept
  {
    static_assert(run_unit != 0, "alloc_run: runs are off (run_unit 0)");
    const std::uint64_t units = (static_cast<std::uint64_t>(bytes) + run_unit - 1u) / run_unit;
    const std::uint32_t n = units <= runs_.map().units() ? static_cast<std::uint32_t>(units) : 0u;
    const std::uint32_t first = runs_.take(n, Config::hash_k_size);
    return first == detail::unit_runs::none ? nullptr : data_ + static_cast<std::size_t>(first) * run_unit;
  }

  /// Marks the claimed pages [first, first + need) as one multi-page chunk (§6.3: every page gets
  /// the large chunk size, the first one the page count). The states may hold transient +1s of
  /// reservers that read an old directory entry: adding (large, LOCK) keeps them, and their
  /// give-back finds a chunk size they do not accept.
  DEVALLOC_DEVICE void take_pages(std::uint32_t first, std::uint32_t need) const noexcept
  {
    for (std::uint32_t k = 0; k < need; ++k) {
      detail::device_atomic<std::uint64_t>(states_[first + k]).fetch_add(large_state, detail::memory_order_relaxed);
      detail::device_atomic<std::uint32_t>(bitmasks_[first + k])
        .store(k == 0 ? need : 0u, detail::memory_order_relaxed);
    }
    add_run_to_regions(first, need, true);
  }

  /// Releases the multi-page chunk starting at page `first` (whose state was seen as large).
  /// invalid_pointer if `first` is an inner page of a multi-page chunk (page count 0 while the
  /// state is still large), double_free if another free took the page count first.
  DEVALLOC_DEVICE free_result free_pages(std::uint32_t first) const noexcept
  {
    detail::device_atomic<std::uint32_t> count(bitmasks_[first]);
    std::uint32_t need = count.load(detail::memory_order_relaxed);
    if (need == 0 || need > pages_ - first) { return free_result::invalid_pointer; }  // not a first page
    // Taking the page count to 0 claims the free: of two racing frees of one chunk, one frees it.
    // A free page's bitfield is zero (open_page relies on it); the release below publishes it.
    if (!count.compare_exchange_strong(need, 0u, detail::memory_order_relaxed, detail::memory_order_relaxed)) {
      return free_result::double_free;
    }
    add_run_to_regions(first, need, false);
    for (std::uint32_t k = 0; k < need; ++k) {
      detail::device_atomic<std::uint64_t>(states_[first + k]).fetch_sub(large_state, detail::memory_order_relaxed);
    }
    // release: our writes to the pages happen before their next owner's claim.
    free_map_.release(first, need);
    return free_result::freed;
  }

  /// Pages of a multi-page chunk count as full pages of their regions.
  DEVALLOC_DEVICE void add_run_to_regions(std::uint32_t first, std::uint32_t need, bool add) const noexcept
  {
    const std::uint64_t end = static_cast<std::uint64_t>(first) + need;
    std::uint32_t page = first;
    while (page < end) {
      const std::uint32_t region = region_of(page);
      const std::uint64_t region_end = static_cast<std::uint64_t>(region) * region_pages_ + region_size(region);
      const auto upto = static_cast<std::uint32_t>(region_end < end ? region_end : end);
      if (add) {
        region_add(page, upto - page);
      } else {
        region_sub(page, upto - page);
      }
      page = upto;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // getAvailableSlots above a page (thesis §4.3.5), shared by the host and the device variant

  /// Free-page runs of [lo, hi): the run touching lo (head), the one touching hi (tail), and the
  /// slots of `need` pages in the runs between them (inner). all_free: the whole range is free.
  struct run_summary {
    std::uint64_t head = 0, tail = 0, inner = 0;
    bool all_free = true;
  };

  DEVALLOC_HOST_DEVICE static run_summary summarize_runs(const std::uint64_t* states, std::uint32_t lo,
                                                         std::uint32_t hi, std::uint64_t need) noexcept
  {
    run_summary r;
    std::uint64_t run = 0;
    for (std::uint32_t page = lo; page < hi; ++page) {
      if (load_state(states, page) == 0) {
        ++run;
        continue;
      }
      if (r.all_free) {
        r.head = run;
        r.all_free = false;
      } else {
        r.inner += run / need;
      }
      run = 0;
    }
    if (r.all_free) {
      r.head = run;
      r.tail = run;
    } else {
      r.tail = run;
    }
    return r;
  }
};

}  // namespace creation::scatter_detail
DEVALLOC_NAMESPACE_END
