// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/detail/page_groups.hpp
//
// `detail::page_groups<G>`: a free-page map whose pages are aligned groups of G units of a unit
// bitmap (detail::page_bitmap), so that one map hands out whole pages (a page is free when all of
// its G units are) and runs of single units (detail::unit_runs) without either overlapping the
// other: the two granularities of docs/notes/two-granularity-heap.md. Its page-level operations
// have page_bitmap's names and contracts with page indices in place of units; `page_map<G>` is
// page_bitmap itself for G == 1 (one unit a page: the code and the layout of a map of pages).
//
//   * claim_some — up to `want` free pages of one word (64 / G pages a word): a blind fetch_or of
//                  the wanted pages' units at the start word, then, knowing the word, its other
//                  free pages; else the next words, `batch` read per memory latency. Pages whose
//                  units were partly taken already (by a run) are not the caller's: the units
//                  the fetch_or set in them are cleared again at once.
//   * claim_unit, claim_run, claim_group, release, taken — page_bitmap's over the pages' units.
//
// Memory order as page_bitmap's: a claim is acquire, a release is release.
#pragma once

#include <cstdint>
#include <type_traits>

#include "atomic.hpp"
#include "page_bitmap.hpp"
#include "platform.hpp"
#include "warp.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace detail {

template <std::uint32_t G>
class page_groups {
  static_assert(G >= 2 && G <= 64 && (G & (G - 1u)) == 0,
                "detail::page_groups: the units of a page must be a power of two from 2 to 64 (one unit a "
                "page is page_bitmap itself: page_map<1>)");

 public:
  static constexpr std::uint32_t none = page_bitmap::none;
  static constexpr std::uint32_t units_per_page = G;
  static constexpr std::uint32_t pages_per_word = 64u / G;
  static constexpr std::uint32_t batch = page_bitmap::batch;
  using word_claim =
    page_bitmap::word_claim;  ///< `bits`: the word's pages taken (bit i: page word * pages_per_word + i)

  page_groups() = default;
  /// `words`: page_bitmap::words_for(pages * G) 64-bit words, zero (every page free).
  DEVALLOC_HOST_DEVICE page_groups(std::uint64_t* words, std::uint32_t pages) noexcept
      : units_(words, pages * G), pages_(pages)
  {}

  DEVALLOC_HOST_DEVICE static constexpr std::uint32_t words_for(std::uint32_t pages) noexcept
  {
    return page_bitmap::words_for(pages * G);
  }
  DEVALLOC_HOST_DEVICE std::uint32_t word_count() const noexcept { return units_.word_count(); }
  DEVALLOC_HOST_DEVICE std::uint64_t* words() const noexcept { return units_.words(); }
  /// The map of units (runs of units are taken and released there).
  DEVALLOC_HOST_DEVICE const page_bitmap& units() const noexcept { return units_; }
  /// Bits of word w that stand for units.
  DEVALLOC_HOST_DEVICE std::uint64_t valid(std::uint32_t w) const noexcept { return units_.valid(w); }

  /// Whether any unit of page `page` is taken (a snapshot).
  DEVALLOC_HOST_DEVICE bool taken(std::uint32_t page,
                                  cuda::std::memory_order order = memory_order_relaxed) const noexcept
  {
    return page_units(device_atomic<std::uint64_t>(words()[page / pages_per_word]).load(order), page) != 0;
  }
  /// Host and device. Whether any unit of page `page` is taken in a copy of the map's words.
  DEVALLOC_HOST_DEVICE static bool taken_in(const std::uint64_t* words, std::uint32_t page) noexcept
  {
    return page_units(words[page / pages_per_word], page) != 0;
  }
  /// Host and device. The units of page `page` in `word` (its map word), as the low G bits.
  DEVALLOC_HOST_DEVICE static std::uint64_t page_units(std::uint64_t word, std::uint32_t page) noexcept
  {
    constexpr std::uint64_t page_bits = G == 64u ? ~std::uint64_t{0} : (std::uint64_t{1} << G) - 1u;
    return (word >> (page % pages_per_word * G)) & page_bits;
  }

  /// Device. One free page near page `start` (claim_some for one page), or `none`.
  DEVALLOC_DEVICE std::uint32_t claim_one(std::uint32_t start, std::uint32_t max_words) const noexcept
  {
    const word_claim got = claim_some(start, 1u, max_words);
    return got.word == none ? none : got.word * pages_per_word + lowest_bit64(got.bits);
  }

  /// Device. Up to `want` free pages of one word (see the file comment); `bits` may hold fewer
  /// than `want` (the caller asks again), `used` is the word's taken units right after the claim.
  DEVALLOC_DEVICE word_claim claim_some(std::uint32_t start, std::uint32_t want, std::uint32_t max_words) const noexcept
  {
    const std::uint32_t count = word_count();
    if (count == 0 || want == 0 || max_words == 0) { return {none, 0}; }
    start %= pages_;
    std::uint32_t w = start / pages_per_word;
    const unsigned rotate = start % pages_per_word;
    if (max_words > count) { max_words = count; }
    const std::uint32_t n = want < pages_per_word ? want : pages_per_word;
    // The blind claim: pages rotate .. rotate + n - 1 of the start word (wrapping to page 0).
    const std::uint64_t wanted_pages = rotate_pages(low_pages(n), rotate) & valid_pages(w);
    std::uint64_t value = 0;
    std::uint64_t got = take(w, wanted_pages, value);
    const std::uint32_t have = popcount64(got);
    if (have < n) { got |= take_free(w, value, n - have, rotate); }
    if (got != 0) { return {w, got, popcount64(value)}; }
    return units_.scan_words(
      w, max_words,
      [this](std::uint64_t known, std::uint32_t wj) { return (free_pages(known) & valid_pages(wj)) != 0; },
      [&](std::uint32_t wj, std::uint64_t& known) { return take_free(wj, known, n, rotate); });
  }

  /// Device. Claims page `page` if all of its units are free.
  DEVALLOC_DEVICE bool claim_unit(std::uint32_t page) const noexcept { return units_.claim_run(page * G, G) == none; }

  /// Device. Claims pages [first, first + n), all or none: `none` on success, else a page found
  /// (partly) taken.
  DEVALLOC_DEVICE std::uint32_t claim_run(std::uint32_t first, std::uint32_t n) const noexcept
  {
    const std::uint32_t conflict = units_.claim_run(first * G, n * G);
    return conflict == none ? none : conflict / G;
  }

  /// Device. One free aligned group of n pages (n G <= 64), as page_bitmap::claim_group.
  DEVALLOC_DEVICE std::uint32_t claim_group(std::uint32_t start, std::uint32_t n,
                                            std::uint32_t max_words) const noexcept
  {
    if (n == 0 || n * G > 64u) { return none; }
    const std::uint32_t first = units_.claim_group((start % pages_) * G, n * G, max_words);
    return first == none ? none : first / G;
  }

  /// Device. Releases pages [first, first + n).
  DEVALLOC_DEVICE void release(std::uint32_t first, std::uint32_t n,
                               cuda::std::memory_order order = memory_order_release) const noexcept
  {
    units_.release(first * G, n * G, order);
  }

  /// Pages whose G units are all clear in `value` (bit i: page i of the word), before masking
  /// with the pages the word has.
  DEVALLOC_HOST_DEVICE static std::uint64_t free_pages(std::uint64_t value) noexcept
  {
    std::uint64_t t = ~value;
    for (std::uint32_t s = 1; s < G; s *= 2u) { t &= t >> s; }  // bit u: units u .. u + G - 1 free
    std::uint64_t pages = 0;
    for (std::uint32_t i = 0; i < pages_per_word; ++i) { pages |= ((t >> (i * G)) & 1u) << i; }
    return pages;
  }
  /// The units of the pages in `pages` (bit i: page i of a word).
  DEVALLOC_HOST_DEVICE static std::uint64_t expand(std::uint64_t pages) noexcept
  {
    constexpr std::uint64_t page_bits = G == 64u ? ~std::uint64_t{0} : (std::uint64_t{1} << G) - 1u;
    std::uint64_t units = 0;
    for (std::uint32_t i = 0; i < pages_per_word; ++i) { units |= ((0u - ((pages >> i) & 1u)) & page_bits) << (i * G); }
    return units;
  }

 private:
  DEVALLOC_HOST_DEVICE static constexpr std::uint64_t low_pages(std::uint32_t n) noexcept
  {
    return n >= 64u ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1u;
  }
  /// Pages `pages` (bit i: page i) moved up by `by` within a word's pages, wrapping.
  DEVALLOC_HOST_DEVICE static std::uint64_t rotate_pages(std::uint64_t pages, unsigned by) noexcept
  {
    if (by == 0) { return pages; }
    const std::uint64_t all = low_pages(pages_per_word);
    return ((pages << by) | (pages >> (pages_per_word - by))) & all;
  }
  /// Pages of word w that exist (the last word may hold fewer).
  DEVALLOC_HOST_DEVICE std::uint64_t valid_pages(std::uint32_t w) const noexcept
  {
    const std::uint32_t rest = pages_ - w * pages_per_word;
    return rest >= pages_per_word ? low_pages(pages_per_word) : low_pages(rest);
  }

  /// Device. One fetch_or of the units of `pages` in word w: returns the pages that were wholly
  /// free before it (the caller's now); the units it set in pages partly taken before are cleared
  /// again. `value`: the word as this call leaves it (as far as it knows).
  DEVALLOC_DEVICE std::uint64_t take(std::uint32_t w, std::uint64_t pages, std::uint64_t& value) const noexcept
  {
    const std::uint64_t mask = expand(pages);
    const std::uint64_t before = device_atomic<std::uint64_t>(words()[w]).fetch_or(mask, memory_order_acquire);
    const std::uint64_t got = pages & free_pages(before);
    const std::uint64_t undo = mask & ~before & ~expand(got);
    if (undo != 0) { device_atomic<std::uint64_t>(words()[w]).fetch_and(~undo, memory_order_relaxed); }
    value = before | expand(got);
    return got;
  }

  /// Device. Up to `want` of the free pages of word w whose value the caller last saw as `value`
  /// (from page `rotate` upwards, then from page 0), again with the value seen while others took
  /// the chosen pages first (at most 64 times). Returns the pages taken.
  DEVALLOC_DEVICE std::uint64_t take_free(std::uint32_t w, std::uint64_t& value, std::uint32_t want,
                                          unsigned rotate) const noexcept
  {
    DEVALLOC_NO_UNROLL
    for (unsigned tries = 0; tries < 64u; ++tries) {
      const std::uint64_t avail = free_pages(value) & valid_pages(w);
      if (avail == 0) { return 0; }
      const std::uint64_t above = avail & ~low_pages(rotate);
      std::uint64_t chosen = 0;
      std::uint32_t taken = 0;
      DEVALLOC_NO_UNROLL
      for (std::uint64_t f = above; f != 0 && taken < want; f &= f - 1u, ++taken) { chosen |= f & (0u - f); }
      DEVALLOC_NO_UNROLL
      for (std::uint64_t f = avail & ~above; f != 0 && taken < want; f &= f - 1u, ++taken) { chosen |= f & (0u - f); }
      const std::uint64_t got = take(w, chosen, value);
      if (got != 0) { return got; }
    }
    return 0;
  }

  page_bitmap units_;
  std::uint32_t pages_ = 0;
};

/// The free-page map of pages of G units: page_bitmap itself for one unit a page.
template <std::uint32_t G>
using page_map = std::conditional_t<G == 1u, page_bitmap, page_groups<G>>;

}  // namespace detail
DEVALLOC_NAMESPACE_END
