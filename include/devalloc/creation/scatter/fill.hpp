// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/creation/scatter/fill.hpp
//
// `creation::scatter_detail::fill<Config>`: creation::Scatter's fill accounting per region and
// super block, and the give-back and free paths that drive it (creation/scatter.hpp has the
// overview; docs/scatter.md states the invariants C2, C6, C7 and 9 kept here):
//
//   * Regions (ScatterAlloc, Steinberger et al. 2012, §5.4) count their full pages; a region whose
//     full pages exceed 90 % of its pages is skipped by the search's pass 0 (over_threshold); a
//     sample of a super block's region counters tells the walk when to leave it (block_over).
//   * Reservations (the fill count in the page state) are given back with the reset of a fully
//     freed page (§6.2 free lines 9-16, give_back); the chunk's bit is won and released through
//     detail/bitfield_page.hpp (take_spot, free_chunk).
//   * A free in a super block other than the active one may make it active again (§5.4,
//     maybe_reactivate; the mallocMC thesis' fix, Eckert 2014, §5.4).
#pragma once

#include <cstddef>
#include <cstdint>

#include "../../detail/atomic.hpp"
#include "../../detail/bitfield_page.hpp"
#include "../../detail/hash.hpp"
#include "../../detail/platform.hpp"
#include "../../detail/probe.hpp"
#include "../../detail/warp.hpp"
#include "heap.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace creation::scatter_detail {

template <class Config>
class fill : public heap<Config> {
  using base = heap<Config>;
  using page_format = detail::bitfield_page<Config::pagesize, Config::span_pages>;

 protected:
  static constexpr bool resetfreedpages = Config::resetfreedpages;

  using base::active_block_;
  using base::bitmasks_;
  using base::block_regions;
  using base::free_map_;
  using base::page_data;
  using base::pages_per_block_;
  using base::pagesize;
  using base::region_of;
  using base::region_pages_;
  using base::region_size;
  using base::regions_;
  using base::room_max_spots;
  using base::room_stride;
  using base::room_stripes;
  using base::rooms_;
  using base::states_;
  using page_format::chunk_of;
  using page_format::count_of;
  using page_format::large_state;
  using page_format::layout_of;
  using page_format::pack;
  using page_format::span_min_chunk;
  using page_format::span_tail;
  using typename page_format::page_layout;

  /// §5.4: pass 0 skips a region whose full pages exceed 90 % of its pages.
  DEVALLOC_HOST_DEVICE static constexpr bool over_threshold(std::uint32_t full, std::uint32_t pages) noexcept
  {
    return static_cast<std::uint64_t>(full) * 10u > static_cast<std::uint64_t>(pages) * 9u;
  }

  /// Region counters of a super block that block_over reads.
  static constexpr std::uint32_t block_samples = 32;

  /// Whether the walk's pass 0 leaves super block `block` (§5.4: every region over the
  /// threshold): every region counter of a block of at most block_samples regions (exact), else
  /// block_samples of them, spread evenly over the block from region `from` on (the walk's current
  /// region, so that each look samples other regions), are all over the threshold. A sample, not
  /// a count: it may say so while a region it did not read is under the threshold, and the
  /// request then goes on to the next super block or to pass 1 (which reads every region with
  /// room), never to a wrong failure. The counters are read together (independent loads: one
  /// memory latency). Until session 2026-12-06 the block kept counters of its regions over the
  /// threshold, exact, at the price of a wait on every allocation that filled a page (region_add;
  /// docs/scatter.md, "The region counter's wait").
  DEVALLOC_DEVICE bool block_over(std::uint32_t block, std::uint32_t from) const noexcept
  {
    const std::uint32_t n = block_regions(block);
    const std::uint32_t first = region_of(block * pages_per_block_);
    std::uint32_t under = 0;
    DEVALLOC_UNROLL
    for (std::uint32_t k = 0; k < block_samples; ++k) {
      if (k < n) {
        // (k n / block_samples for every k < n would read the same few regions of a small block.)
        const std::uint32_t step =
          n <= block_samples ? k : static_cast<std::uint32_t>(std::uint64_t{k} * n / block_samples);
        std::uint32_t r = from - first + step;
        if (r >= n) { r -= n; }
        r += first;
        under += over_threshold(detail::atomic_load_relaxed(regions_[r]), region_size(r)) ? 0u : 1u;
      }
    }
    return under == 0;
  }

  /// Region counter +delta / -delta: one RMW whose value nobody waits for (a page that fills or
  /// stops being full; invariant 7 keeps each exact at rest).
  DEVALLOC_DEVICE void region_add(std::uint32_t page, std::uint32_t delta) const noexcept
  {
    detail::device_atomic<std::uint32_t>(regions_[region_of(page)]).fetch_add(delta, detail::memory_order_relaxed);
  }
  DEVALLOC_DEVICE void region_sub(std::uint32_t page, std::uint32_t delta) const noexcept
  {
    detail::device_atomic<std::uint32_t>(regions_[region_of(page)]).fetch_sub(delta, detail::memory_order_relaxed);
  }

  /// No room counter (room_key).
  static constexpr std::uint32_t room_none = ~0u;
  /// The room counter (word of a stripe) of pages of `spots` chunks, or of spans of `spots` chunks
  /// (`span`: chunks above half a page with span_pages > 1; a span starts at 3 chunks in 2 pages,
  /// and such a chunk size in one page is one chunk a page): pages of 2 .. room_max_spots chunks
  /// (flat pages of few chunks) and every span are counted; a page of one chunk with room is a free
  /// page, in the free-page map, and pages of more chunks are found by the directory and the walk.
  DEVALLOC_HOST_DEVICE static constexpr std::uint32_t room_key(bool span, std::uint32_t spots) noexcept
  {
    if (page_format::max_span > 1u && span) { return spots >= 2u ? room_max_spots + spots - 2u : room_none; }
    return spots >= 2u && spots <= room_max_spots ? spots - 1u : room_none;
  }
  /// Whether chunk size `chunk` (of a page's state) is a span's when the page holds `spots` > 1 of
  /// them: above half a page with span_pages > 1 (a constant false without spans).
  DEVALLOC_HOST_DEVICE static constexpr bool span_chunk(std::uint32_t chunk) noexcept
  {
    return page_format::max_span > 1u && chunk > span_min_chunk;
  }

  /// The room counters (not in the paper): per chunk count m = 2 .. room_max_spots, the pages of
  /// m chunks that have room (chunk size set, fill count < m), and with spans per chunk count of
  /// a span the spans that have room (counted at their first page; `span`: the page's chunks
  /// are a span's, room_key), in room_stripes copies (heap.hpp) that sum to it. Every change of
  /// a page's state that makes it gain or lose room adds `delta` (+1 or -1 as a 32-bit
  /// wrap-around) in the stripe of the page: the open of a page that keeps room (open_page), the
  /// count reaching m (account_increment) and leaving it (give_back), the reset of an emptied
  /// page (give_back). Each of these is decided from the value its own atomic returned, so the
  /// counters are exact at rest (check_invariants_host); in between they lag the states by one
  /// relaxed RMW. search.hpp's alloc_counted reads them so that a request of few chunks a page
  /// (or of a span's size) reads only the pages of the stripes with room, never every page (the
  /// exhaustive pass: 13-23 ms on the H100 for such a request in sizes uniform in 16-4096 B at
  /// 80 % fill; with spans, before they had counters, the 16-4096 B fill at 90 % ran at 2.4 M
  /// allocs/s, with them 20.7 M: docs/scatter.md, "Room counters for spans, kept").
  DEVALLOC_DEVICE void room_add(std::uint32_t page, bool span, std::uint32_t spots, std::uint32_t delta) const noexcept
  {
    if constexpr (page_format::max_span > 1u) {
      room_add_key(page, room_key(span, spots), delta);
    } else {
      // room_key's pages without spans, tested before the key is formed: as the default build
      // compiled before span counters (the key's compare with room_none cost branches there).
      if (spots < 2u || spots > room_max_spots) { return; }
      room_word_add(page, spots - 1u, delta);
    }
  }
  /// room_add for a key from room_key (room_none: nothing).
  DEVALLOC_DEVICE void room_add_key(std::uint32_t page, std::uint32_t key, std::uint32_t delta) const noexcept
  {
    if (key != room_none) { room_word_add(page, key, delta); }
  }
  /// Adds `delta` to room counter `key` (below room_stride) of `page`'s stripe.
  DEVALLOC_DEVICE void room_word_add(std::uint32_t page, std::uint32_t key, std::uint32_t delta) const noexcept
  {
    // One stripe a page, page mod room_stripes: the pages that fill and empty at once (a warp's
    // neighbours in the free-page map) add to different words.
    std::uint32_t& word = rooms_[page % room_stripes * room_stride + key];
    detail::device_atomic<std::uint32_t>(word).fetch_add(delta, detail::memory_order_relaxed);
  }

  /// A +1 on the count of `page` returned `before`: the page became full iff the count reached
  /// the chunk count of the page's actual chunk size (§5.4: "fills up one page" -> region + 1;
  /// and it has no room left: room_add).
  DEVALLOC_DEVICE void account_increment(std::uint32_t page, std::uint64_t before, std::uint32_t chunk,
                                         std::uint32_t spots, std::uint32_t k = 1u) const noexcept
  {
    const std::uint32_t actual = chunk_of(before);
    if (actual == 0 || actual > pagesize) { return; }
    const std::uint32_t n = actual == chunk ? spots : layout_of(actual).spots;
    if (count_of(before) < n && count_of(before) + k >= n) {
      region_add(page, 1u);
      room_add(page, span_chunk(actual), n, ~0u);
    }
  }

  /// Gives `m` reservations (or transient +1s) back: fetch_sub with `order` (free line 9: release;
  /// a failed reservation, which wrote nothing, relaxed), the region counter when the page stops
  /// being full, and the reset of a fully freed page (free lines 10-16) by whoever takes the count
  /// to zero: CAS (chunk, 0) -> 0, then the page goes back to the free-page map (release).
  /// Returns the state before the fetch_sub.
  DEVALLOC_DEVICE std::uint64_t give_back(std::uint32_t page, std::uint32_t chunk, std::uint32_t spots,
                                          std::uint32_t m = 1u,
                                          cuda::std::memory_order order = detail::memory_order_release) const noexcept
  {
    detail::device_atomic<std::uint64_t> state(states_[page]);
    const std::uint64_t before = state.fetch_sub(m, order);
    const std::uint32_t actual = chunk_of(before);
    if (actual == 0 || actual > pagesize) { return before; }
    const std::uint32_t n = actual == chunk ? spots : layout_of(actual).spots;
    // With spans the room counter's key is computed here, before the reset (span_chunk, layout_of
    // after it kept two more registers live in devalloc-bench's one-allocation kernel: 82 instead
    // of 80 with span_pages 4); without spans after it, as the key is n - 1 (here it moved the
    // plain kernel of tools/kernel-regs from 69 to 72 registers).
    [[maybe_unused]] const std::uint32_t key = page_format::max_span > 1u ? room_key(span_chunk(actual), n) : room_none;
    // +1 if the page was full and is not now, -1 if it is reset below (it had room then): a warp
    // that frees a full page's chunks together does both, and adds nothing (room_add).
    std::uint32_t room = 0;
    if (count_of(before) >= n && count_of(before) - m < n) {
      region_sub(page, 1u);
      room = 1u;
    }
    if constexpr (resetfreedpages) {
      if (count_of(before) == m) {
        // Fails harmlessly if someone reserved in between: they reset when they leave.
        std::uint64_t expected = pack(actual, 0u);
        // acquire: the frees whose give-backs came before (their release fences) happen before the
        // release of the page below, so its next owner sees them through the free-page map.
        if (state.compare_exchange_strong(expected, 0u, detail::memory_order_acquire, detail::memory_order_relaxed)) {
          room -= 1u;
          release_reset(page, actual);
        }
      }
    }
    if (room != 0) {
      if constexpr (page_format::max_span > 1u) {
        room_add_key(page, key, room);
      } else {
        room_add(page, false, n, room);
      }
    }
    return before;
  }

  /// The page was reset (its state taken to 0 by the caller's acquire CAS): it goes back to the
  /// free-page map, a span's other pages with it (their marks cleared first).
  DEVALLOC_DEVICE void release_reset(std::uint32_t page, std::uint32_t chunk) const noexcept
  {
    DEVALLOC_PROBE(page_reset);
    std::uint32_t span = 1u;
    if constexpr (page_format::max_span > 1u) {
      if (chunk > span_min_chunk) { span = layout_of(chunk).span; }
      if (span > 1u) { unmark_span(page, span); }
    }
    // release: everything done on the page (by us, and by the frees our CAS's acquire read from)
    // happens before the next owner's claim.
    free_map_.release(page, span);
  }

  /// The calling lane gives back all `spots` chunks of a full page at once (a warp freed every
  /// chunk of it: free_chunk): its state goes from (chunk, spots) to 0 with one acquire CAS, the
  /// region counter loses the full page and the page is reset (the room counter gains and loses
  /// it: nothing to add), one dependent atomic fewer than give_back's fetch_sub and reset CAS.
  /// Returns false, having changed nothing, if the state is not exactly that (a transient +1 of a
  /// reserver; resetfreedpages 0): the caller gives back with give_back then.
  DEVALLOC_DEVICE bool free_full_page(std::uint32_t page, std::uint32_t chunk, std::uint32_t spots) const noexcept
  {
    if constexpr (!resetfreedpages) {
      return false;
    } else {
      std::uint64_t expected = pack(chunk, spots);
      if (!detail::device_atomic<std::uint64_t>(states_[page])
             .compare_exchange_strong(expected, 0u, detail::memory_order_acquire, detail::memory_order_relaxed)) {
        return false;
      }
      region_sub(page, 1u);
      release_reset(page, chunk);
      return true;
    }
  }

  /// Marks pages first + 1 .. first + span - 1 as the other pages of the span whose first page is
  /// `first` (the caller took all of them in the free-page map and opens the first one after
  /// this): state large_state (added: transient +1s of reservers that read an old directory entry
  /// stay, and their give-back finds a chunk size they do not accept) and bitfield span_tail |
  /// distance. Without region counts (the region counters count the first page only, full when
  /// the span is). Inlined, as page_bitmap::claim_group: out of line (an ABI call), the two took
  /// the allocating kernels of span_pages 4 to 112 registers and a 184-byte stack, inlined 80 and
  /// 48 bytes (tools/kernel-regs, nvcc 13, sm_90; span_pages 1: 69 and 48 bytes, neither is
  /// compiled in; docs/scatter.md, "Spans inlined, measured again").
  DEVALLOC_DEVICE void mark_span(std::uint32_t first, std::uint32_t span) const noexcept
  {
    for (std::uint32_t d = 1; d < span; ++d) {
      detail::device_atomic<std::uint32_t>(bitmasks_[first + d]).store(span_tail | d, detail::memory_order_relaxed);
      detail::device_atomic<std::uint64_t>(states_[first + d]).fetch_add(large_state, detail::memory_order_relaxed);
    }
  }
  /// Undoes mark_span when the span's first page is reset (before the pages go back to the map).
  DEVALLOC_DEVICE void unmark_span(std::uint32_t first, std::uint32_t span) const noexcept
  {
    for (std::uint32_t d = 1; d < span; ++d) {
      detail::device_atomic<std::uint32_t>(bitmasks_[first + d]).store(0u, detail::memory_order_relaxed);
      detail::device_atomic<std::uint64_t>(states_[first + d]).fetch_sub(large_state, detail::memory_order_relaxed);
    }
  }

  /// With a reservation held, win one bit (detail::bitfield_page::take_spot); if none can be won,
  /// give the reservation back.
  DEVALLOC_DEVICE void* take_spot(std::uint32_t page, std::uint32_t chunk, const page_layout& layout,
                                  std::uint32_t index) const noexcept
  {
    return page_format::take_spot(bitmasks_[page], page_data(page), chunk, layout, index,
                                  [&] { give_back(page, chunk, layout.spots); });
  }

  // ---------------------------------------------------------------------------------------------
  // Free (ScatterAlloc §6.2)

  /// Frees chunk `index` of page `page` (chunk size `chunk`) for the lanes of the warp that free
  /// chunks of one page together (match_any on page and chunk size: any subset of a warp, either
  /// backend): one fetch_and per bitfield word for the lanes whose chunks share it (their bits
  /// or-ed: group_or), then one give-back of all the page's freed chunks by the lowest lane — a
  /// warp that frees what it allocated from one page costs two atomics instead of 64; one that
  /// frees every chunk of a full page resets it with one CAS (free_full_page). Returns
  /// false for this lane (and frees nothing for it) if its bit was clear (a double free) or a lower
  /// lane of the call frees the same chunk. `offer` is set on the lane that gave back if the page
  /// was full and keeps live chunks (destroy() then offers it to the class directory).
  /// Memory order: every lane issues a release fence before the collectives, then the word and
  /// page leaders' RMWs are relaxed: the fence orders the lane's chunk data before the warp
  /// barrier that precedes them (the CUDA Programming Guide's fence-then-barrier pattern), and a
  /// claim of the bit or a reservation that reads the count synchronises with it, at the cost of
  /// one fence instead of release RMWs (docs/scatter.md, "Memory order").
  DEVALLOC_DEVICE bool free_chunk(std::uint32_t page, std::uint32_t chunk, const page_layout& layout,
                                  std::uint32_t index, bool& offer) const noexcept
  {
    DEVALLOC_PROBE(free_chunk);
    detail::device_fence(detail::memory_order_release);
    const std::uint32_t peers =
      detail::match_any(detail::active_mask(), (static_cast<unsigned long long>(page) << 32) | chunk);
    // Lanes that free the same chunk: the lowest frees it, the others are double frees.
    const bool first = detail::rank_in(detail::match_any(peers, index)) == 0;
    const std::uint32_t w = layout.hierarchical ? index / 32u : 0u;
    const std::uint32_t bit = first ? 1u << (index % 32u) : 0u;
    const std::uint32_t word_peers = detail::match_any(peers, w);
    const std::uint32_t mask = detail::group_or(word_peers, bit);
    std::uint32_t before_bits = 0;
    if (detail::rank_in(word_peers) == 0) {
      before_bits =
        page_format::release_spots(bitmasks_[page], page_data(page), layout, w, mask, detail::memory_order_relaxed);
    }
    before_bits = detail::shuffle(word_peers, before_bits, detail::leader_lane(word_peers));
    const bool freed = (before_bits & bit) != 0;
    const std::uint32_t n = detail::popcount(detail::ballot(peers, freed));
    offer = false;
    if (n != 0 && detail::rank_in(peers) == 0 && !(n == layout.spots && free_full_page(page, chunk, n))) {
      const std::uint64_t before = give_back(page, chunk, layout.spots, n, detail::memory_order_relaxed);
      offer = count_of(before) == layout.spots && chunk_of(before) == chunk && layout.spots > n;
    }
    return freed;
  }

  /// §5.4: a free in a super block other than the active one makes it active with a chance of
  /// (free pages of the freed page's region) / (8 x region pages).
  DEVALLOC_DEVICE void maybe_reactivate(std::uint32_t page, const void* p) const noexcept
  {
    detail::device_atomic<std::uint32_t> active(*active_block_);
    std::uint32_t current = active.load(detail::memory_order_relaxed);
    const std::uint32_t block = page / pages_per_block_;
    if (block == current) { return; }
    const std::uint32_t region = region_of(page);
    const std::uint32_t pages = region_size(region);
    std::uint32_t full = detail::atomic_load_relaxed(regions_[region]);
    if (full > pages) { full = pages; }
    const std::uint32_t roll = detail::random_bits(reinterpret_cast<std::uintptr_t>(p)) % (8u * pages);
    if (roll < pages - full) {
      active.compare_exchange_strong(current, block, detail::memory_order_relaxed, detail::memory_order_relaxed);
    }
  }
};

}  // namespace creation::scatter_detail
DEVALLOC_NAMESPACE_END
