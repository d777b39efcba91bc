// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/creation/scatter/search.hpp
//
// `creation::scatter_detail::search<Config>`: creation::Scatter's allocation of chunks up to one
// page — the search of ScatterAlloc (Steinberger et al. 2012, §5.3 the hash of eq. (3), §5.4 the
// region walk and super blocks, §6.1 alloc and tryUsePage) as the mallocMC thesis turned it into a
// creation policy (Eckert 2014, §4.3.5), with the changes docs/scatter.md ("Search") describes:
//
//   * class_of / accepts: the chunk size a page opened for a request gets (size classes) and the
//     chunk sizes a request may use (wastefactor, alignment).
//   * alloc_chunk: the start page (eq. (3), per-warp tiles or the per-class page sequence,
//     Config::hash_warp_term), then pass 0 (the paper's walk, super block by super block) and the
//     exhaustive pass 1; search_block walks one super block region by region (may_serve_mask:
//     scan_ahead), try_page / try_page_group try one page (one lane, or a warp group served by its
//     leader), reserve takes a reservation on a used page, open_page opens a free one.
//   * count_free_chunks: getAvailableSlots up to a page (thesis §4.3.5), with the same acceptance
//     rule as the search.
//
// The spots themselves are won through creation/scatter/fill.hpp's take_spot (the page format of
// detail/bitfield_page.hpp); requests larger than a page are creation/scatter/pages.hpp's.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../../detail/atomic.hpp"
#include "../../detail/bitfield.hpp"
#include "../../detail/bitfield_page.hpp"
#include "../../detail/hash.hpp"
#include "../../detail/platform.hpp"
#include "../../detail/probe.hpp"
#include "../../detail/warp.hpp"
#include "pages.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace creation::scatter_detail {

template <class Config>
class search : public multi_page<Config> {
  using base = multi_page<Config>;
  using page_format = detail::bitfield_page<Config::pagesize>;

 protected:
  // Scatter's configuration values the search reads (creation/scatter.hpp documents them).
  static constexpr std::uint32_t wastefactor = Config::wastefactor;
  static constexpr std::uint32_t hash_warp_term = static_cast<std::uint32_t>(Config::hash_warp_term);
  static constexpr bool size_classes = Config::size_classes;
  static constexpr std::uint32_t hash_spread = Config::hash_spread;
  static constexpr std::uint32_t sequence_fallback = static_cast<std::uint32_t>(Config::sequence_fallback);
  static constexpr std::uint32_t sequence_min_lanes = Config::sequence_min_lanes;
  static constexpr std::uint32_t sequence_shared_spots = Config::sequence_shared_spots;
  static constexpr bool scan_ahead = Config::scan_ahead;
  static constexpr std::uint32_t open_wait_reads = Config::open_wait_reads;
  static constexpr bool prefetch_state = Config::prefetch_state;

  using base::account_increment;
  using base::active_block_;
  using base::bitmasks_;
  using base::block_over;
  using base::block_pages;
  using base::blocks_;
  using base::give_back;
  using base::over_threshold;
  using base::page_data;
  using base::pages_;
  using base::pages_per_block_;
  using base::pagesize;
  using base::region_add;
  using base::region_pages_;
  using base::region_size;
  using base::regions_;
  using base::states_;
  using base::take_spot;
  using page_format::chunk_of;
  using page_format::count_of;
  using page_format::flat_spots;
  using page_format::hierarchy_threshold;
  using page_format::large_state;
  using page_format::layout_of;
  using page_format::load_state;
  using page_format::lock_count;
  using page_format::min_chunk;
  using page_format::pack;
  using page_format::segment_word;
  using typename page_format::page_layout;

 public:
  /// Pages whose states one pass-0 scan reads (scan_ahead).
  static constexpr std::uint32_t scan_width = 16;
  /// sequence_fallback 1 and 2: pages of the sequence pass 0 looks at before it walks on from the
  /// fallback page.
  static constexpr std::uint32_t sequence_walk = 16;

  /// Chunk size of a page opened for a request of `size` bytes (a multiple of 16, <= pagesize):
  /// with Config::size_classes and a flat layout, the largest multiple of the request's alignment
  /// (min(lowbit(size), 256)) with as many chunks per page as `size` and at most size x wastefactor;
  /// otherwise `size`. The result is accepted by every request of that class (accepts()).
  DEVALLOC_HOST_DEVICE static constexpr std::uint32_t class_of(std::uint32_t size) noexcept
  {
    if constexpr (!size_classes) {
      return size;
    } else {
      if (size <= hierarchy_threshold) { return size; }
      const std::uint32_t low = size & (0u - size);
      const std::uint32_t align = low < 256u ? low : 256u;
      const std::uint32_t n = flat_spots(size);
      std::uint64_t c = pagesize / n / align * align;  // >= size: size is a multiple of align, <= pagesize / n
      const std::uint64_t limit = static_cast<std::uint64_t>(size) * wastefactor / align * align;
      if (c > limit) { c = limit; }
      return static_cast<std::uint32_t>(c);
    }
  }

 protected:
  static constexpr std::uint64_t no_hash = ~std::uint64_t{0};
  /// No state read yet (never a page state: no count reaches 2^32 - 1).
  static constexpr std::uint64_t no_state = ~std::uint64_t{0};

  DEVALLOC_HOST_DEVICE static constexpr std::uint32_t round_size(std::size_t bytes) noexcept
  {
    // bytes <= pagesize <= 2^30 here
    return static_cast<std::uint32_t>((bytes + (min_chunk - 1)) / min_chunk * min_chunk);
  }

  /// Whether a page split into `chunk`-byte chunks may serve a request of `size` bytes (§6.1
  /// alloc line 11 with the wastefactor; plus: the chunk keeps the alignment the request's size
  /// carries, so AlignmentPolicy padding to N gives N-aligned pointers).
  DEVALLOC_HOST_DEVICE static constexpr bool accepts(std::uint32_t chunk, std::uint32_t size) noexcept
  {
    const std::uint32_t low = size & (0u - size);
    const std::uint32_t align = low < 256u ? low : 256u;
    return chunk >= size && chunk <= pagesize &&
           static_cast<std::uint64_t>(chunk) <= static_cast<std::uint64_t>(size) * wastefactor &&
           (chunk & (align - 1u)) == 0;
  }

  // ---------------------------------------------------------------------------------------------
  // Allocation of chunks up to one page (ScatterAlloc §6.1)

  DEVALLOC_DEVICE void* alloc_chunk(std::uint32_t size) const noexcept
  {
    DEVALLOC_PROBE(alloc_chunk);
    // The chunk size a page opened for this request gets; same chunk count per page as `size`.
    const std::uint32_t cls = class_of(size);
    const page_layout fresh = layout_of(cls);
    std::uint64_t hash;
    std::uint64_t sequence = no_hash;  // page of the class sequence tried before the walk
    if constexpr (hash_warp_term == 2u) {
      // See ScatterConfig::hash_warp_term: the lanes of this warp asking for the same class take
      // consecutive slots of the class' page sequence; slot x spread / chunks per page is the page
      // offset.
      const std::uint32_t group = detail::match_any(detail::active_mask(), cls);
      const std::uint32_t lanes = detail::popcount(group);
      const std::uint64_t slot = static_cast<std::uint64_t>(detail::warp_id()) * lanes + detail::rank_in(group);
      // No mp term in the sequence: with it, every multiprocessor's warps would open their own
      // pages of each class again (the heap then runs out of pages while they are nearly empty,
      // and pages of large chunks collide at random; docs/notes/scatter-lab.md). The lanes of a
      // warp that meet at one page are served together (try_page_group), so no lane is displaced
      // by a lost open CAS.
      hash = static_cast<std::uint64_t>(cls) * Config::hash_k_size + slot * hash_spread / fresh.spots;
      if (lanes < sequence_min_lanes && fresh.spots >= sequence_shared_spots) {
        // A small group: eq. (3)'s page (see ScatterConfig::sequence_min_lanes).
        hash = detail::scatter_hash(cls, Config::hash_k_size, detail::sm_id(), Config::hash_k_mp, 0);
      } else if constexpr (sequence_fallback != 0) {
        // The walk itself starts elsewhere (see ScatterConfig::sequence_fallback).
        sequence = hash;
        hash = sequence_fallback == 1u
                 ? detail::scatter_hash(cls, Config::hash_k_size, detail::sm_id(), Config::hash_k_mp, 0)
                 : sequence + static_cast<std::uint64_t>(detail::sm_id()) * Config::hash_k_mp;
      }
    } else {
      std::uint64_t extra = 0;
      if constexpr (hash_warp_term == 1u) {
        // Per-warp page tiles (the first version of the term).
        const std::uint32_t lanes_per_page = fresh.spots < detail::warp_size ? fresh.spots : detail::warp_size;
        const std::uint32_t pages_per_warp = (detail::warp_size + lanes_per_page - 1u) / lanes_per_page;
        const std::uint32_t warps_per_page = fresh.spots > detail::warp_size ? fresh.spots / detail::warp_size : 1u;
        extra = static_cast<std::uint64_t>(detail::warp_id() / warps_per_page) * pages_per_warp +
                detail::lane_id() / lanes_per_page;
      }
      // §5.3 eq. (3)
      hash = detail::scatter_hash(cls, Config::hash_k_size, detail::sm_id(), Config::hash_k_mp, extra);
    }
    detail::device_atomic<std::uint32_t> active(*active_block_);
    const std::uint32_t first_block = blocks_ > 1 ? active.load(detail::memory_order_relaxed) % blocks_ : 0u;
    // Pass 0: the paper's search (regions over 90 % full skipped, fetch_add reservations), super
    // block by super block from the active one, moving the active pointer past blocks that fail.
    // Pass 1: every page of every region that is not completely full, with CAS reservations that
    // never over-count, so that a heap with a free slot anywhere does not report out of memory.
    for (std::uint32_t pass = 0; pass < 2; ++pass) {
      if (pass == 1) { DEVALLOC_PROBE(pass1); }
      std::uint32_t block = first_block;
      for (std::uint32_t tried = 0; tried < blocks_; ++tried) {
        if (pass == 0 && tried == 0 && sequence != no_hash) {
          // The lane's sequence page and the few after it (the gaps hash_spread leaves), then the
          // walk from the fallback page.
          if (void* p = search_block(block, size, fresh, cls, sequence, false, sequence_walk)) { return p; }
        }
        if (void* p = search_block(block, size, fresh, cls, hash, pass != 0)) { return p; }
        const std::uint32_t next = block + 1u == blocks_ ? 0u : block + 1u;
        if (pass == 0 && blocks_ > 1) {
          std::uint32_t expected = block;  // §5.4: proceed to the next super block
          active.compare_exchange_strong(expected, next, detail::memory_order_relaxed, detail::memory_order_relaxed);
        }
        block = next;
      }
    }
    return nullptr;
  }

  /// §6.1 alloc lines 1-32 within one super block: start at the hashed page, walk region by
  /// region (skipping regions over the fill threshold), wrapping around once.
  DEVALLOC_DEVICE void* search_block(std::uint32_t block, std::uint32_t size, const page_layout& fresh,
                                     std::uint32_t cls, std::uint64_t hash, bool exhaustive,
                                     std::uint32_t limit = ~0u) const noexcept
  {
    const std::uint32_t first = block * pages_per_block_;
    const std::uint32_t n = block_pages(block);
    std::uint32_t pos = static_cast<std::uint32_t>(hash % n);
    const std::uint32_t walk = limit < n ? limit : n;  // pages to look at
    std::uint32_t left = walk;
    // prefetch_state: the first page's state, loaded before (and independently of) its region's
    // counter, so both cost one memory latency; the first try uses it instead of reading again.
    // It may be stale by the time it is used, as any relaxed read may: the try's atomics decide.
    std::uint64_t hint = no_state;
    if constexpr (prefetch_state) {
      if (!exhaustive && walk > 0) { hint = load_state(states_, first + pos); }
    }
    while (left > 0) {
      const std::uint32_t page = first + pos;
      const std::uint32_t region = page / region_pages_;
      const std::uint32_t region_pages = region_size(region);
      const std::uint32_t region_end = region * region_pages_ + region_pages;  // within this block
      std::uint32_t span = region_end - page;
      if (span > left) { span = left; }
      const std::uint32_t full = detail::atomic_load_relaxed(regions_[region]);
      // §5.4 / alloc line 6: skip regions whose pages are more than 90 % full (pass 1: only full ones).
      const bool usable = exhaustive ? full < region_pages : !over_threshold(full, region_pages);
      if (usable) {
        // scan_ahead: `may` holds the pages [scanned, scan_end) read. The walk's first page is tried
        // without a scan (it usually serves: one memory latency less on the common path).
        std::uint32_t scanned = 0, scan_end = left == walk ? 1u : 0u, may = scan_end;
        for (std::uint32_t k = 0; k < span; ++k) {
          if constexpr (scan_ahead) {
            if (!exhaustive) {
              if (k >= scan_end) {
                scanned = k;
                scan_end = span - k < scan_width ? span : k + scan_width;
                may = may_serve_mask(page + k, scan_end - k, size, cls, fresh);
              }
              const std::uint32_t rest = may >> (k - scanned);
              if (rest == 0) {
                k = scan_end - 1u;
                continue;
              }
              k += detail::lowest_bit(rest);
            }
          }
          if (void* p = try_page(page + k, size, fresh, cls, exhaustive, hint)) { return p; }
          hint = no_state;
        }
      } else {
        hint = no_state;  // the first page is not tried
        DEVALLOC_PROBE(region_skip);
        // Every region of the block is over the threshold: the rest of this walk would skip them
        // all (an exact shortcut of the paper's walk; without it, thousands of workers that started
        // in a super block that filled up meanwhile each walk all of its regions).
        if (!exhaustive && block_over(block)) { return nullptr; }
      }
      left -= span;
      pos += span;
      if (pos == n) { pos = 0; }
    }
    return nullptr;
  }

  /// scan_ahead: bit j set iff page first + j (j < n <= scan_width) may serve a request of `size`
  /// as far as a relaxed read of its state tells: free, or of a chunk size we accept and not full
  /// (or being opened). The loads are independent, so they cost about one memory latency together.
  DEVALLOC_DEVICE std::uint32_t may_serve_mask(std::uint32_t first, std::uint32_t n, std::uint32_t size,
                                               std::uint32_t cls, const page_layout& fresh) const noexcept
  {
    std::uint64_t seen[scan_width];
    DEVALLOC_UNROLL
    for (std::uint32_t j = 0; j < scan_width; ++j) { seen[j] = j < n ? load_state(states_, first + j) : large_state; }
    std::uint32_t may = 0;
    DEVALLOC_UNROLL
    for (std::uint32_t j = 0; j < scan_width; ++j) {
      const std::uint32_t c = chunk_of(seen[j]);
      const std::uint32_t count = count_of(seen[j]);
      // A page of another accepted chunk size is kept whatever its count (try_page checks it):
      // computing its chunk count here costs more than the tries it saves.
      const bool ok = seen[j] == 0 || (accepts(c, size) && (c != cls || count < fresh.spots || count >= lock_count));
      may |= static_cast<std::uint32_t>(ok) << j;
    }
    if (may != detail::low_bits(n)) { DEVALLOC_PROBE(scan_skip); }
    return may;
  }

  /// §6.1 alloc lines 8-27 for one page: use it if its chunk size fits, open it if it is free.
  DEVALLOC_DEVICE void* try_page(std::uint32_t page, std::uint32_t size, const page_layout& fresh, std::uint32_t cls,
                                 bool exhaustive, std::uint64_t hint = no_state) const noexcept
  {
    if (!exhaustive) { return try_page_group(page, size, fresh, cls, hint); }
    detail::device_atomic<std::uint64_t> state(states_[page]);
    std::uint64_t seen = state.load(detail::memory_order_relaxed);
    if (seen == 0) {
      // Free page: set its chunk size by CAS (alloc lines 16-19); see open_page.
      if (open_page(page, cls, fresh, 1u, seen)) { return take_spot(page, cls, fresh, 0u); }
      // Someone else set it meanwhile; we may still fit (alloc lines 23-27). `seen` is fresh.
    }
    const std::uint32_t chunk = chunk_of(seen);
    if (chunk == 0 || !accepts(chunk, size)) { return nullptr; }
    const page_layout layout = chunk == cls ? fresh : layout_of(chunk);
    if (count_of(seen) >= layout.spots) { return nullptr; }  // full, or being opened
    return reserve(page, chunk, layout, exhaustive);
  }

  /// Pass 0 for one page, for the lanes of the warp that arrive at this page together with the
  /// same size (match_any; any subset of a warp, on either backend): the lowest
  /// lane acts for all k of them with one atomic — it opens a free page keeping min(k, chunks)
  /// reservations, or reserves k on a page of a fitting chunk size with one fetch_add(k) and gives
  /// back what the page had no room for — then each lane with a reservation takes its spot (bit)
  /// from its own reservation index. Lanes left without a reservation go on searching alone.
  /// The only wait is __syncwarp(peers) for the leader, who never waits for anyone.
  DEVALLOC_DEVICE void* try_page_group(std::uint32_t page, std::uint32_t size, const page_layout& fresh,
                                       std::uint32_t cls, std::uint64_t hint = no_state) const noexcept
  {
    DEVALLOC_PROBE(page_try);
    const std::uint32_t peers =
      detail::match_any(detail::active_mask(), (static_cast<unsigned long long>(page) << 32) | size);
    const unsigned leader = detail::leader_lane(peers);
    const std::uint32_t rank = detail::rank_in(peers);
    std::uint32_t chunk = 0;
    std::uint32_t grant = 0;  // first reservation index << 8 | reservations granted
    if (rank == 0) {
      const std::uint32_t k = detail::popcount(peers);
      detail::device_atomic<std::uint64_t> state(states_[page]);
      // The state read with the region counter (prefetch_state), or a fresh read.
      std::uint64_t seen = hint != no_state ? hint : state.load(detail::memory_order_relaxed);
      // A page of a size we accept that another warp is opening (LOCK; hierarchical layouts
      // only): re-read it a bounded number of times instead of walking on. Walking on displaced
      // this group into the next page's warps, and those into the next (a cascade through the
      // packed pages of the class). Bounded, so nothing waits on a lane that may not run.
      for (std::uint32_t wait = 0; wait < open_wait_reads && count_of(seen) >= lock_count &&
                                   chunk_of(seen) <= pagesize && accepts(chunk_of(seen), size);
           ++wait) {
        DEVALLOC_PROBE(open_wait);
        detail::pause_briefly();
        seen = state.load(detail::memory_order_relaxed);
      }
      const std::uint32_t granted = k < fresh.spots ? k : fresh.spots;
      // Free page: open it (alloc lines 16-19).
      if (seen == 0 && open_page(page, cls, fresh, granted, seen)) {
        chunk = cls;
        grant = granted;
      } else {
        // Used page (or opened meanwhile; `seen` is then fresh): alloc lines 23-27.
        const std::uint32_t c = chunk_of(seen);
        if (c != 0 && accepts(c, size)) {
          const std::uint32_t spots = c == cls ? fresh.spots : layout_of(c).spots;
          if (count_of(seen) < spots) {
            // acquire: frees that made the room happen before the bit claims (tryUsePage 2-6).
            DEVALLOC_PROBE(reserve);
            const std::uint64_t old = state.fetch_add(k, detail::memory_order_acquire);
            account_increment(page, old, c, spots, k);
            std::uint32_t got = 0;
            if (chunk_of(old) == c && count_of(old) < spots) {
              got = spots - count_of(old) < k ? spots - count_of(old) : k;
              chunk = c;
              grant = count_of(old) << 8 | got;
            }
            if (got < k) {
              DEVALLOC_PROBE(reserve_short);
              give_back(page, c, spots, k - got);
            }
          }
        }
      }
    }
    // The leader's acquire (and the bitfields it zeroed) happen before every member's bit claim.
    detail::sync_lanes(peers);
    chunk = detail::shuffle(peers, chunk, leader);
    grant = detail::shuffle(peers, grant, leader);
    if (rank >= (grant & 0xFFu)) { return nullptr; }
    const page_layout layout = chunk == cls ? fresh : layout_of(chunk);
    return take_spot(page, chunk, layout, (grant >> 8) + rank);
  }

  /// Reserves one chunk on a page whose chunk size was seen to be `chunk` (tryUsePage lines 2-6),
  /// then picks the spot.
  DEVALLOC_DEVICE void* reserve(std::uint32_t page, std::uint32_t chunk, const page_layout& layout,
                                bool exhaustive) const noexcept
  {
    detail::device_atomic<std::uint64_t> state(states_[page]);
    std::uint64_t old;
    if (!exhaustive) {
      // One fetch_add: reserves and checks the room at once. acquire: frees that made the room
      // (bit cleared, then count released) happen before our atomicOr on the bits.
      DEVALLOC_PROBE(reserve);
      old = state.fetch_add(1u, detail::memory_order_acquire);
      account_increment(page, old, chunk, layout.spots);
      if (chunk_of(old) != chunk || count_of(old) >= layout.spots) {
        DEVALLOC_PROBE(reserve_short);
        give_back(page, chunk, layout.spots);
        return nullptr;
      }
    } else {
      old = state.load(detail::memory_order_relaxed);
      for (;;) {
        if (chunk_of(old) != chunk || count_of(old) >= layout.spots) { return nullptr; }
        DEVALLOC_PROBE(reserve);
        if (state.compare_exchange_weak(old, old + 1u, detail::memory_order_acquire, detail::memory_order_relaxed)) {
          break;
        }
      }
      account_increment(page, old, chunk, layout.spots);
    }
    return take_spot(page, chunk, layout, count_of(old));
  }

  /// Opens free page `page` (seen == 0) with chunk size `cls` of this `layout`, keeping `granted`
  /// reservations (1..chunks; the caller then takes spots from index 0). Returns false, with
  /// `seen` updated, if the page was taken meanwhile. acquire: the previous users' frees happen
  /// before our use.
  ///   Flat layouts: one CAS 0 -> (cls, granted). The page bitfield is zero whenever the state is
  ///   0 (invariant C4: frees clear their bits before giving back, a multi-page free zeroes its
  ///   page count before releasing the pages), so there is nothing to set up and no LOCK phase
  ///   in which other warps would be turned away.
  ///   Hierarchical layouts: the in-page segment words lie in what other layouts (and multi-page
  ///   chunks) use as data, so they are zeroed under LOCK: CAS 0 -> (cls, LOCK), zero, then turn
  ///   the lock into `granted` reservations (acq_rel: others reserve only after the zeroing).
  DEVALLOC_DEVICE bool open_page(std::uint32_t page, std::uint32_t cls, const page_layout& layout,
                                 std::uint32_t granted, std::uint64_t& seen) const noexcept
  {
    detail::device_atomic<std::uint64_t> state(states_[page]);
    if (!layout.hierarchical) {
      if (!state.compare_exchange_strong(seen, pack(cls, granted), detail::memory_order_acquire,
                                         detail::memory_order_relaxed)) {
        DEVALLOC_PROBE(open_lost);
        return false;
      }
      DEVALLOC_PROBE(open_won);
      if (granted >= layout.spots) { region_add(page, 1u); }
      return true;
    }
    if (!state.compare_exchange_strong(seen, pack(cls, lock_count), detail::memory_order_acquire,
                                       detail::memory_order_relaxed)) {
      DEVALLOC_PROBE(open_lost);
      return false;
    }
    DEVALLOC_PROBE(open_won);
    detail::device_atomic<std::uint32_t>(bitmasks_[page]).store(0u, detail::memory_order_relaxed);
    char* base = page_data(page);
    for (std::uint32_t s = 0; s < layout.segments(); ++s) {
      detail::device_atomic<std::uint32_t>(segment_word(base, s)).store(0u, detail::memory_order_relaxed);
    }
    const std::uint64_t before = state.fetch_sub(lock_count - granted, detail::memory_order_acq_rel);
    // Transient reservations made meanwhile may leave the page full already.
    if (count_of(before) - (lock_count - granted) >= layout.spots) { region_add(page, 1u); }
    return true;
  }

  // ---------------------------------------------------------------------------------------------
  // getAvailableSlots up to a page (thesis §4.3.5), shared by the host and the device variant

  /// Per-page count: pages [begin, pages_) with stride `step`.
  DEVALLOC_HOST_DEVICE std::uint64_t count_free_chunks(const std::uint64_t* states, std::uint32_t begin,
                                                       std::uint32_t step, std::uint32_t size) const noexcept
  {
    const page_layout fresh = layout_of(size);
    std::uint64_t slots = 0;
    for (std::uint64_t page = begin; page < pages_; page += step) {
      const std::uint64_t state = load_state(states, static_cast<std::uint32_t>(page));
      const std::uint32_t chunk = chunk_of(state);
      const std::uint32_t used = count_of(state);
      if (chunk == 0) {
        if (used == 0) { slots += fresh.spots; }  // a free page is split as this request needs
        continue;
      }
      if (!accepts(chunk, size)) { continue; }
      const std::uint32_t spots = chunk == size ? fresh.spots : layout_of(chunk).spots;
      if (used < spots) { slots += spots - used; }
    }
    return slots;
  }
};

}  // namespace creation::scatter_detail
DEVALLOC_NAMESPACE_END
