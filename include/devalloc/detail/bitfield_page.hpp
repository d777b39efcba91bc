// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/detail/bitfield_page.hpp
//
// `detail::bitfield_page<PageSize>`: a page split into equal chunks whose use is tracked by
// bitfields, and the packed page state word — the page part of ScatterAlloc (Steinberger et al.
// 2012, §5.2 page usage table, §6.1 tryUsePage lines 7-19, §6.2 free line 8) with the mallocMC
// thesis' hierarchical pages for small chunks (Eckert 2014, §4.3.5, fig. 2.5). Parameterised by the
// page size only, so creation policies other than creation::Scatter (creation/scatter.hpp) can
// reuse it; it holds no state: every function works on the words it is given.
//
//   * Layout (page_layout, layout_of): up to 32 chunks per page ("flat"): one 32-bit bitfield
//     marks the used chunks. With MaxSpan > 1, a chunk size of more than half a page may be laid
//     out over a span of up to MaxSpan contiguous pages (a 2720-byte chunk: 3 in 2 pages instead
//     of 1 in one), so that the rounding to whole chunks per page does not waste up to half of
//     each page; the span's first page holds its state and bitfield. Smaller chunks (below
//     hierarchy_threshold): the page holds segments of 32 chunks plus "additional" chunks; each
//     segment's 32-bit bitfield sits at the end of the page (segment s at page end - 4 (s + 1),
//     segment_word), and the page's own bitfield marks the segments that are (believed to be)
//     full. Up to 32 x 32 = 1024 chunks per page.
//   * State word (pack, chunk_of, count_of): chunk size << 32 | fill count, so that "the chunk
//     size may only change while the count is zero" is one compare-and-swap. lock_count (a count
//     above any chunk count) locks a page; large_chunk marks a page of a multi-page chunk.
//   * Spots: take_spot wins one bit with a reservation held (detail/bitfield.hpp's claim, over the
//     segments of a hierarchical page, with their full-marks: mark_segment_full); release_spot
//     clears one. The protocol around them (reservations, full-marks, memory orders) is
//     docs/scatter.md's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "atomic.hpp"
#include "bitfield.hpp"
#include "fixed_divisor.hpp"
#include "platform.hpp"
#include "probe.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace detail {

template <std::uint32_t PageSize, std::uint32_t MaxSpan = 1>
struct bitfield_page {
  /// Bytes per page.
  static constexpr std::uint32_t pagesize = PageSize;
  static_assert(pagesize >= 256 && pagesize <= (1u << 30),
                "detail::bitfield_page: the page size must be between 256 and 2^30 bytes");
  static_assert(MaxSpan >= 1 && MaxSpan <= 8, "detail::bitfield_page: MaxSpan (pages of a span) must be in 1..8");
  /// Most pages one span of chunks covers (1: every chunk lies in one page). Spans need
  /// span * pagesize to fit 32 bits: larger pages never span.
  static constexpr std::uint32_t max_span = pagesize <= (1u << 24) ? MaxSpan : 1u;
  /// Chunk sizes above this may span pages: one chunk a page wastes up to half of it. (From a
  /// quarter of a page on, spans would save a little more, sizes uniform in 16-4096 B needing
  /// 1.07 instead of 1.10 times their sum with spans of up to 4 pages (computed from the classes), but turn 2-3 chunk
  /// pages into more size classes.)
  static constexpr std::uint32_t span_min_chunk = pagesize / 2u;
  /// The bitfield word of a span's other pages: span_tail | distance to the span's first page
  /// (their state is large_state, as the inner pages of a multi-page chunk, whose word is 0 and
  /// whose first page's word is its page count, below 2^31).
  static constexpr std::uint32_t span_tail = 1u << 31;

  /// Granule of chunk sizes: every request is rounded up to a multiple of it, so every pointer is
  /// at least 16-byte aligned.
  static constexpr std::uint32_t min_chunk = 16;
  /// Chunk sizes below this use the hierarchical (two-level) page layout (thesis §4.3.5).
  static constexpr std::uint32_t hierarchy_threshold = (pagesize - 2 * sizeof(std::uint32_t)) / 33;

  /// Rounds over a hierarchical page's segments before a reservation holder gives up (take_spot).
  static constexpr std::uint32_t max_scan_rounds = 32;

  /// Marks a page that belongs to a multi-page chunk (stored as the chunk size).
  static constexpr std::uint32_t large_chunk = 0xFFFFFFFFu;
  /// Fill count of a page being opened or belonging to a multi-page chunk: larger than any chunk
  /// count plus any number of transient reservations, so that no reservation succeeds on it.
  static constexpr std::uint32_t lock_count = 1u << 30;

  DEVALLOC_HOST_DEVICE static constexpr std::uint64_t pack(std::uint32_t chunk, std::uint32_t count) noexcept
  {
    return (static_cast<std::uint64_t>(chunk) << 32) | count;
  }
  static constexpr std::uint64_t large_state = (static_cast<std::uint64_t>(large_chunk) << 32) | lock_count;

  DEVALLOC_HOST_DEVICE static constexpr std::uint32_t chunk_of(std::uint64_t state) noexcept
  {
    return static_cast<std::uint32_t>(state >> 32);
  }
  DEVALLOC_HOST_DEVICE static constexpr std::uint32_t count_of(std::uint64_t state) noexcept
  {
    return static_cast<std::uint32_t>(state);
  }

  DEVALLOC_HOST_DEVICE static std::uint64_t load_state(const std::uint64_t* states, std::uint32_t page) noexcept
  {
    return detail::device_atomic<std::uint64_t>(const_cast<std::uint64_t&>(states[page]))
      .load(detail::memory_order_relaxed);
  }

  /// How a page is split for one chunk size (thesis §4.3.5, countFreeChunksInPage).
  struct page_layout {
    std::uint32_t spots = 0;          ///< chunks on the page (the span)
    std::uint32_t span = 1;           ///< pages the chunks lie in (flat layouts only; > 1: a span)
    std::uint32_t full_segments = 0;  ///< hierarchical: segments of 32 chunks
    std::uint32_t additional = 0;     ///< hierarchical: chunks in the last, partial segment
    bool hierarchical = false;

    DEVALLOC_HOST_DEVICE constexpr std::uint32_t segments() const noexcept { return full_segments + (additional != 0); }
    DEVALLOC_HOST_DEVICE constexpr std::uint32_t segment_spots(std::uint32_t s) const noexcept
    {
      return s < full_segments ? 32u : additional;
    }
    /// Whether the chunks lie in a span of several pages: a constant false where spans are off
    /// (max_span 1), so that every span path folds away at compile time (with them present but
    /// skipped at run time, single sizes ran 20-40 % slower: docs/scatter.md, Layout, "Spans").
    DEVALLOC_HOST_DEVICE constexpr bool spans() const noexcept { return max_span > 1u && span > 1u; }
    /// Pages the chunks lie in: `span`, read only where spans are on (a constant 1 elsewhere).
    DEVALLOC_HOST_DEVICE constexpr std::uint32_t pages() const noexcept { return spans() ? span : 1u; }
  };

  /// Chunks of a flat page (chunk > hierarchy_threshold).
  DEVALLOC_HOST_DEVICE static constexpr std::uint32_t flat_spots(std::uint32_t chunk) noexcept
  {
    const std::uint32_t n = pagesize / chunk;
    return n < 32u ? n : 32u;
  }

  /// Layout of a page split into chunks of `chunk` bytes (16 <= chunk <= pagesize).
  /// Flat (chunk > hierarchy_threshold): min(pagesize / chunk, 32) chunks. Above span_min_chunk
  /// (with max_span > 1): the span of 1..max_span pages with the most chunks per page (the fewest
  /// pages among equals), its chunks laid end to end from the first page on. Hierarchical:
  /// segments of 32 chunks + one 4-byte bitfield each, then as many additional chunks as fit beside
  /// one more bitfield; at most 32 segments. That is the most chunks n <= 1024 whose bitfields fit
  /// beside them, n chunk + 4 ceil(n / 32) <= pagesize (has_spot's test), found with one division:
  /// with q = floor(32 pagesize / (32 chunk + 4)), n <= q, since each chunk takes at least
  /// chunk + 1/8 bytes (its bit), and q - 1 chunks fit, since (q - 1) chunk + 4 ceil((q - 1) / 32)
  /// <= (q - 1)(chunk + 1/8) + 31/8 <= pagesize - chunk + 30/8 < pagesize (chunks are at least
  /// min_chunk = 16 bytes); so n is q or q - 1. Flat and hierarchical share that one division (an
  /// inlined copy of layout_of sits on many paths: the instruction cache, docs/scatter.md).
  DEVALLOC_HOST_DEVICE static constexpr page_layout layout_of(std::uint32_t chunk) noexcept
  {
    // 32 pagesize in 32 bits up to 2^26-byte pages; a wider division beyond.
    using wide = std::conditional_t<(pagesize <= (1u << 26)), std::uint32_t, std::uint64_t>;
    page_layout layout{};
    const bool flat = chunk > hierarchy_threshold;
    const wide q = (flat ? wide{pagesize} : wide{32} * pagesize) / (flat ? wide{chunk} : wide{32} * chunk + 4u);
    if (flat) {
      layout.spots = q < 32u ? static_cast<std::uint32_t>(q) : 32u;
      if (max_span > 1u && chunk > span_min_chunk) {
        for (std::uint32_t n = 2; n <= max_span; ++n) {
          const std::uint32_t m = n * pagesize / chunk;  // < 2 n <= 16: chunk > pagesize / 2
          if (m * layout.span > layout.spots * n) {
            layout.span = n;
            layout.spots = m;
          }
        }
      }
      return layout;
    }
    layout.hierarchical = true;
    std::uint32_t n = 1024u;
    if (q < 1024u) {
      n = static_cast<std::uint32_t>(q);
      if (wide{n} * chunk + 4u * ((wide{n} + 31u) / 32u) > pagesize) { --n; }
    }
    layout.full_segments = n / 32u;
    layout.additional = n % 32u;
    layout.spots = n;
    return layout;
  }

  /// Whether a page split into chunks of `chunk` bytes (16 <= chunk <= pagesize) has a spot left
  /// with `count` of them reserved: count < layout_of(chunk).spots, without layout_of's divisions
  /// (a test on paths that meet pages of any chunk size). Flat: one more chunk fits in the page
  /// (at most 32). Hierarchical: one more chunk and the bitfields of the segments up to it fit
  /// (at most 1024): count + 1 chunks in ceil((count + 1) / 32) segments of 4-byte words take
  /// (count + 1) chunk + 4 ceil((count + 1) / 32) bytes, which is at most pagesize exactly for
  /// count + 1 <= full x 32 + additional (layout_of's terms: the full segments fit by
  /// definition, and the additional chunks fit beside one more word, rest >= additional x chunk
  /// + 4). Spans (max_span > 1) ask layout_of.
  DEVALLOC_HOST_DEVICE static constexpr bool has_spot(std::uint32_t chunk, std::uint32_t count) noexcept
  {
    if (max_span > 1u && chunk > span_min_chunk) { return count < layout_of(chunk).spots; }
    // 32-bit products where 1024 chunks of up to a page cannot overflow them.
    using wide = std::conditional_t<(pagesize <= (1u << 21)), std::uint32_t, std::uint64_t>;
    if (count >= (chunk > hierarchy_threshold ? 32u : 1024u)) { return false; }
    const wide next = static_cast<wide>(count) + 1u;
    if (chunk > hierarchy_threshold) { return next * chunk <= pagesize; }
    return next * chunk + 4u * ((next + 31u) / 32u) <= pagesize;
  }

  /// In-page bitfield of segment `s` (at the end of the page, thesis fig. 2.5).
  DEVALLOC_HOST_DEVICE static std::uint32_t& segment_word(char* page, std::uint32_t s) noexcept
  {
    return *reinterpret_cast<std::uint32_t*>(page + pagesize - sizeof(std::uint32_t) * (s + 1u));
  }

  /// Bytes at the end of a page that hold its segment words (at most 32 segments).
  static constexpr std::uint32_t segment_words_bytes = 32u * sizeof(std::uint32_t);

  /// Zeroes every segment word a hierarchical page can have (the page's last 128 bytes: its
  /// segment words, and below them chunk bytes no one owns while the page is being opened), with
  /// 16-byte stores and no loop: opening a page is inlined at several places in every allocating
  /// kernel, and a loop over the layout's segments, unrolled, was a few hundred instructions of
  /// each copy. Plain stores: the opener owns the page, and its release (the state's fetch_add)
  /// publishes them.
  DEVALLOC_DEVICE static void clear_segment_words(char* page) noexcept
  {
    static_assert(pagesize % 256u == 0 && pagesize >= 256u, "pages are 256-aligned multiples of 256 bytes");
#if DEVALLOC_BACKEND_CUDA && defined(__CUDA_ARCH__)
    auto* words = reinterpret_cast<uint4*>(page + pagesize - segment_words_bytes);
    DEVALLOC_UNROLL
    for (std::uint32_t i = 0; i < segment_words_bytes / sizeof(uint4); ++i) { words[i] = make_uint4(0u, 0u, 0u, 0u); }
#else
    for (std::uint32_t s = 0; s < segment_words_bytes / sizeof(std::uint32_t); ++s) {
      detail::device_atomic<std::uint32_t>(segment_word(page, s)).store(0u, detail::memory_order_relaxed);
    }
#endif
  }

  /// With a reservation held, win one bit (tryUsePage lines 7-19; hierarchical: thesis §4.3.5) of
  /// the page at `base` whose bitfield (flat: usage bits; hierarchical: segment-full marks) is
  /// `bits`, and return its chunk. If no bit can be won, calls `give_up()` (which gives the
  /// reservation back) and returns nullptr.
  template <class GiveUp>
  DEVALLOC_DEVICE static void* take_spot(std::uint32_t& bits, char* base, std::uint32_t chunk,
                                         const page_layout& layout, std::uint32_t index, GiveUp&& give_up) noexcept
  {
    if (!layout.hierarchical) {
      // Start at our reservation index: concurrent reservers of one page (of one warp or of many)
      // start on distinct bits of a fresh page (the paper starts at the lane id).
      const detail::bit_claim got = detail::bitfield_claim(bits, index, layout.spots);
      if (got.spot < layout.spots) { return base + static_cast<std::size_t>(got.spot) * chunk; }
    } else {
      // Start at the segment our reservation index points to (concurrent reservers spread over
      // segments): claimed in without reading the marks first (reservations are handed out in
      // index order, so that segment has room in most tries, and a load of the marks before the
      // claim was one more memory latency on each request's path); then skip segments marked
      // full on the first round, try every segment on later rounds (a mark may be momentarily
      // stale). A held reservation guarantees a clear bit at every moment, but a sequential scan
      // can still miss it (a bit freed behind us while the last one ahead is taken), so the scan
      // goes round again: each missed round means other workers claimed and freed bits
      // meanwhile (lock-free). The bound is only reachable when a misuse (double free) broke the
      // invariants.
      const std::uint32_t segments = layout.segments();
      std::uint32_t s = mod_small(index / 32u, segments);
      for (std::uint32_t attempt = 0; attempt < max_scan_rounds * segments;
           ++attempt, s = s + 1u == segments ? 0u : s + 1u) {
        if (attempt != 0 && attempt < segments && ((detail::atomic_load_relaxed(bits) >> s) & 1u) != 0) {
          DEVALLOC_PROBE(segment_skip);
          continue;
        }
        const std::uint32_t spots = layout.segment_spots(s);
        std::uint32_t& word = segment_word(base, s);
        const detail::bit_claim got = detail::bitfield_claim(word, index % 32u, spots);
        if (got.spot == spots) {
          DEVALLOC_PROBE(segment_skip);
          continue;
        }
        if (got.now == detail::low_bits(spots)) { mark_segment_full(bits, s, word, spots); }
        return base + (static_cast<std::size_t>(s) * 32u + got.spot) * chunk;
      }
    }
    // Reached only if a misuse (double free) broke the invariants: give the reservation back
    // instead of spinning.
    give_up();
    return nullptr;
  }

  /// Sets segment s's "full" mark in the page's bitfield `marks`, then re-checks the segment: a
  /// free that cleared a bit before the mark was set would otherwise leave a wrong mark
  /// (docs/scatter.md, invariant H2). The set is an acquire RMW: if the free's clear of the mark
  /// (a release RMW after its bit's clear) came first in the marks word's order, the set reads it
  /// (or a later RMW of its release sequence), so the re-check reads the word at or after that
  /// bit's clear and takes the mark back. Nothing of ours needs publishing (the mark is a hint and
  /// our bit was taken by its own acquire RMW), so no release: on sm_90 a release RMW is a
  /// MEMBAR.ALL.GPU, once per 32 allocations of a hierarchical page. The take-back is relaxed: it
  /// can only clear a mark, and a missing mark costs a failed claim, a wrong one a skipped round.
  DEVALLOC_DEVICE static void mark_segment_full(std::uint32_t& marks_word, std::uint32_t s, std::uint32_t& word,
                                                std::uint32_t spots) noexcept
  {
    detail::device_atomic<std::uint32_t> marks(marks_word);
    const std::uint32_t bit = 1u << s;
    marks.fetch_or(bit, detail::memory_order_acquire);
    const std::uint32_t now = detail::device_atomic<std::uint32_t>(word).load(detail::memory_order_relaxed);
    if ((now & detail::low_bits(spots)) != detail::low_bits(spots)) {
      marks.fetch_and(~bit, detail::memory_order_relaxed);
    }
  }

  /// Clears the bits `mask` of bitfield word `w` of the page at `base` with one fetch_and (flat
  /// layouts: w = 0, the page's bitfield `bits`; hierarchical: segment w's word, and the segment's
  /// full-mark in `bits` if the segment was full: pairs with mark_segment_full). Returns the word
  /// before the clear: a bit of `mask` that was already clear was not allocated (a double free).
  DEVALLOC_DEVICE static std::uint32_t release_spots(std::uint32_t& bits, char* base, const page_layout& layout,
                                                     std::uint32_t w, std::uint32_t mask,
                                                     cuda::std::memory_order order = memory_order_release) noexcept
  {
    if (!layout.hierarchical) { return bitfield_release(bits, mask, order); }
    const std::uint32_t before = bitfield_release(segment_word(base, w), mask, order);
    if ((before & mask) != 0 && before == detail::low_bits(layout.segment_spots(w))) {
      // The segment was full: clear its mark (release: our bits' clear is ordered before it, for
      // the mark's setter that reads it: mark_segment_full).
      device_atomic<std::uint32_t>(bits).fetch_and(~(1u << w), memory_order_release);
    }
    return before;
  }

  /// Clears the bit of chunk `index` of the page at `base` whose bitfield is `bits` (ScatterAlloc
  /// §6.2 free line 8; hierarchical: also the segment's full-mark). False (and nothing changed) if
  /// the bit was clear: the chunk was not allocated (a double free).
  DEVALLOC_DEVICE static bool release_spot(std::uint32_t& bits, char* base, const page_layout& layout,
                                           std::uint32_t index,
                                           cuda::std::memory_order order = memory_order_release) noexcept
  {
    const std::uint32_t w = layout.hierarchical ? index / 32u : 0u;
    const std::uint32_t bit = 1u << (index % 32u);
    return (release_spots(bits, base, layout, w, bit, order) & bit) != 0;
  }
};

}  // namespace detail
DEVALLOC_NAMESPACE_END
