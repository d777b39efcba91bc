// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/creation/scatter/pages.hpp
//
// `creation::scatter_detail::multi_page<Config>`: creation::Scatter's requests larger than a page
// (ScatterAlloc, Steinberger et al. 2012, §6.3; mallocMC thesis, Eckert 2014, fig. 2.3) and the
// runs of free pages that getAvailableSlots counts for them (thesis §4.3.5). creation/scatter.hpp
// has the overview.
//
//   * alloc_pages searches `need` consecutive free pages from the end of the heap downwards and
//     reserves them top-down by CAS 0 -> (large_chunk, lock_count) (reserve_pages), rolling back on
//     a conflict; the first page's bitfield holds the page count. free_pages releases them.
//   * Pages of a multi-page chunk count as full pages of their regions (add_run_to_regions, through
//     creation/scatter/fill.hpp's region counters).
//   * summarize_runs: the free-page runs of a range of pages, so that ranges counted by different
//     lanes (or by the host) can be stitched together.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../../detail/atomic.hpp"
#include "../../detail/bitfield_page.hpp"
#include "../../detail/platform.hpp"
#include "../../free_result.hpp"
#include "fill.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace creation::scatter_detail {

template <class Config>
class multi_page : public fill<Config> {
  using base = fill<Config>;
  using page_format = detail::bitfield_page<Config::pagesize>;

 protected:
  using base::bitmasks_;
  using base::page_data;
  using base::pages_;
  using base::pagesize;
  using base::region_add;
  using base::region_pages_;
  using base::region_size;
  using base::region_sub;
  using base::regions_;
  using base::states_;
  using page_format::large_state;
  using page_format::load_state;

  static constexpr std::uint32_t no_conflict = 0xFFFFFFFFu;

  DEVALLOC_HOST_DEVICE static constexpr std::uint64_t pages_needed(std::size_t bytes) noexcept
  {
    return static_cast<std::uint64_t>(bytes / pagesize) + (bytes % pagesize != 0 ? 1u : 0u);
  }

  // ---------------------------------------------------------------------------------------------
  // Requests larger than a page (ScatterAlloc §6.3; thesis fig. 2.3)

  /// Searches `need` consecutive free pages from the end of the heap downwards (regions whose
  /// pages are all in use are skipped at once), reserves them from the top by CAS 0 -> large, and
  /// on a conflict gives the reserved ones back and continues below the conflict.
  DEVALLOC_DEVICE void* alloc_pages(std::size_t bytes) const noexcept
  {
    const std::uint64_t need64 = pages_needed(bytes);
    if (need64 > pages_) { return nullptr; }
    const auto need = static_cast<std::uint32_t>(need64);
    std::int64_t i = static_cast<std::int64_t>(pages_) - 1;
    std::uint32_t run = 0;
    while (i >= 0) {
      const auto page = static_cast<std::uint32_t>(i);
      const std::uint32_t region = page / region_pages_;
      const std::uint32_t region_first = region * region_pages_;
      if (page == region_first + region_size(region) - 1u &&
          detail::atomic_load_relaxed(regions_[region]) >= region_size(region)) {
        run = 0;  // every page of the region is full or part of a multi-page chunk
        i = static_cast<std::int64_t>(region_first) - 1;
        continue;
      }
      if (load_state(states_, page) != 0) {
        run = 0;
        --i;
        continue;
      }
      if (++run < need) {
        --i;
        continue;
      }
      const std::uint32_t conflict = reserve_pages(page, need);
      if (conflict == no_conflict) { return page_data(page); }
      run = 0;
      i = static_cast<std::int64_t>(conflict) - 1;
    }
    return nullptr;
  }

  /// Reserves pages [first, first + need) (§6.3: set every page's chunk size; roll back on
  /// conflict). Returns no_conflict or the page that was taken by someone else.
  DEVALLOC_DEVICE std::uint32_t reserve_pages(std::uint32_t first, std::uint32_t need) const noexcept
  {
    for (std::uint32_t k = need; k-- > 0;) {
      std::uint64_t expected = 0;
      // acquire: the previous users' frees of these pages happen before our use.
      if (!detail::device_atomic<std::uint64_t>(states_[first + k])
             .compare_exchange_strong(expected, large_state, detail::memory_order_acquire,
                                      detail::memory_order_relaxed)) {
        for (std::uint32_t j = k + 1u; j < need; ++j) {
          detail::device_atomic<std::uint64_t>(states_[first + j]).fetch_sub(large_state, detail::memory_order_release);
        }
        return first + k;
      }
    }
    for (std::uint32_t k = 0; k < need; ++k) {
      detail::device_atomic<std::uint32_t>(bitmasks_[first + k])
        .store(k == 0 ? need : 0u, detail::memory_order_relaxed);
    }
    add_run_to_regions(first, need, true);
    return no_conflict;
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
      // release: our writes to the pages happen before their next user's acquire.
      detail::device_atomic<std::uint64_t>(states_[first + k]).fetch_sub(large_state, detail::memory_order_release);
    }
    return free_result::freed;
  }

  /// Pages of a multi-page chunk count as full pages of their regions.
  DEVALLOC_DEVICE void add_run_to_regions(std::uint32_t first, std::uint32_t need, bool add) const noexcept
  {
    const std::uint64_t end = static_cast<std::uint64_t>(first) + need;
    std::uint32_t page = first;
    while (page < end) {
      const std::uint32_t region = page / region_pages_;
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
