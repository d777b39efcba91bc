// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/detail/unit_runs.hpp
//
// `detail::unit_runs`: runs of consecutive units of a detail::page_bitmap handed out as
// allocations, each run's extent kept as two boundary bits (its first unit in one bitmap, its
// last unit in another), so that a free needs no count beside the run: 2 bits of bookkeeping a
// unit where a 32-bit count cost 32 (1.6 % of a heap of 256-byte units). The runs of
// docs/notes/two-granularity-heap.md, shared by creation::Runs (every request a run) and by any
// policy that serves its larger requests as runs of small units.
//
//   * take       — a run of n units for the calling lane: the lanes that call together first
//                  try one run for all of them near the lowest lane's hashed start (combine:
//                  Blach's per-warp coalescing, each lane the part at its prefix sum), else the
//                  first fitting run from the lane's own hashed start, once around the map
//                  (page_bitmap::find_run); then mark_bounds.
//   * give_back  — frees the run that starts at a unit: clearing its start bit claims the free
//                  (of two racing frees one wins), the first end bit at or after it is the run's
//                  last unit (no other run ends inside a live run), then the units are released.
//   * run_containing — the first unit of the live run that holds a unit (a snapshot).
//
// Memory order (device scope): a run's units are claimed with acquire and released with release
// (page_bitmap), so its next owner sees everything the last one wrote. The boundary bits are
// relaxed: a run's bits are written by its owner after the claim and cleared by the freeing
// thread before the release, and the user's hand-over of the pointer orders the free after the
// allocation.
#pragma once

#include <cstdint>

#include "../free_result.hpp"
#include "atomic.hpp"
#include "hash.hpp"
#include "page_bitmap.hpp"
#include "platform.hpp"
#include "warp.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace detail {

/// View of a unit map and its two boundary bitmaps (each words_for(units) 64-bit words, zero
/// when no run is live). Trivially copyable; the words live in the caller's memory.
class unit_runs {
 public:
  static constexpr std::uint32_t none = page_bitmap::none;
  /// Most units the lanes of one call take as one run (combine): 16 map words.
  static constexpr std::uint32_t combine_most = 1024;

  unit_runs() = default;
  DEVALLOC_HOST_DEVICE unit_runs(page_bitmap map, std::uint64_t* starts, std::uint64_t* ends) noexcept
      : map_(map), starts_(starts), ends_(ends)
  {}

  /// 64-bit words of one boundary bitmap (and of the unit map) for `units` units.
  DEVALLOC_HOST_DEVICE static constexpr std::uint32_t words_for(std::uint32_t units) noexcept
  {
    return page_bitmap::words_for(units);
  }
  DEVALLOC_HOST_DEVICE const page_bitmap& map() const noexcept { return map_; }
  DEVALLOC_HOST_DEVICE std::uint64_t* starts() const noexcept { return starts_; }
  DEVALLOC_HOST_DEVICE std::uint64_t* ends() const noexcept { return ends_; }

  /// Device. Thread safe; any subset of a warp may call together, and every lane of the call
  /// must reach it (the lanes' collective steps use the mask of the lanes present). Takes a run
  /// of n units for the caller (n == 0: the lane takes part in the collective steps and gets
  /// none) and returns its first unit, or `none` when no run of n free units was found. `salt`
  /// spreads the hashed starts of different users of one map.
  DEVALLOC_DEVICE std::uint32_t take(std::uint32_t n, std::uint32_t salt = 0) const noexcept
  {
    const std::uint32_t combined = combine(n, salt);
    if (n == 0 || n > units_of_map()) { return none; }
    std::uint32_t first = combined;
    if (first == none) {
      // Lanes start apart (a claim of one word by many lanes at once would retry), the same lane
      // at the same place: a thread's allocations pack where it last found room. One pass over
      // the map and the words a run from before the start may reach into: every run.
      const std::uint32_t start = aligned_start(start_for(warp_id() * warp_size + lane_id(), n, salt), n);
      first = map_.find_run(start, n, map_.word_count() + n / 64u + 2u);
      if (first == none) { return none; }
    }
    mark_bounds(first, n);
    return first;
  }

  /// Device. Records the run [first, first + n) that the caller claimed in the map: its start and
  /// end bits (one bit each, or both in one word).
  DEVALLOC_DEVICE void mark_bounds(std::uint32_t first, std::uint32_t n) const noexcept
  {
    const std::uint32_t last = first + n - 1u;
    device_atomic<std::uint64_t>(starts_[first / 64u])
      .fetch_or(std::uint64_t{1} << (first % 64u), memory_order_relaxed);
    device_atomic<std::uint64_t>(ends_[last / 64u]).fetch_or(std::uint64_t{1} << (last % 64u), memory_order_relaxed);
  }

  /// Device. Thread safe. Frees the run whose first unit is `first`: freed, or (nothing changed)
  /// double_free when no run starts there and the unit is free, invalid_pointer when no run
  /// starts there and the unit is taken (inside a run, or in units the map's other users own).
  /// Of two racing frees of one run, one frees it; the other reads double_free or invalid_pointer.
  DEVALLOC_DEVICE free_result give_back(std::uint32_t first) const noexcept
  {
    if (first >= units_of_map()) { return free_result::invalid_pointer; }
    const std::uint64_t bit = std::uint64_t{1} << (first % 64u);
    const std::uint64_t old = device_atomic<std::uint64_t>(starts_[first / 64u]).fetch_and(~bit, memory_order_relaxed);
    if ((old & bit) == 0) { return map_.taken(first) ? free_result::invalid_pointer : free_result::double_free; }
    const std::uint32_t last = end_from(first);
    if (last == none) { return free_result::invalid_pointer; }  // unreachable while the bits are consistent
    device_atomic<std::uint64_t>(ends_[last / 64u])
      .fetch_and(~(std::uint64_t{1} << (last % 64u)), memory_order_relaxed);
    // release: the run's contents happen before its next owner's claim.
    map_.release(first, last - first + 1u);
    return free_result::freed;
  }

  /// Host and device. The first end bit at or after unit u (the last unit of the run that holds
  /// u, while one does), or `none`.
  DEVALLOC_HOST_DEVICE std::uint32_t end_from(std::uint32_t u) const noexcept
  {
    const std::uint32_t words = map_.word_count();
    std::uint64_t bits = atomic_load_relaxed(ends_[u / 64u]) & ~bit_range_below(u % 64u);
    for (std::uint32_t w = u / 64u;;) {
      if (bits != 0) { return w * 64u + lowest_bit64(bits); }
      if (++w == words) { return none; }
      bits = atomic_load_relaxed(ends_[w]);
    }
  }

  /// Host and device. The first unit of the live run that holds unit u, or `none` (u free, or in
  /// units the map's other users own). A relaxed snapshot: exact while that run stays live.
  DEVALLOC_HOST_DEVICE std::uint32_t run_containing(std::uint32_t u) const noexcept
  {
    if (u >= units_of_map() || !map_.taken(u)) { return none; }
    // The nearest start at or below u, then its run's end must reach u.
    std::uint64_t bits = atomic_load_relaxed(starts_[u / 64u]) & bit_range_upto(u % 64u);
    for (std::uint32_t w = u / 64u;;) {
      if (bits != 0) {
        const std::uint32_t first = w * 64u + highest_bit64(bits);
        const std::uint32_t last = end_from(first);
        return last != none && last >= u ? first : none;
      }
      if (w == 0) { return none; }
      bits = atomic_load_relaxed(starts_[--w]);
    }
  }

  /// Where the search for n units by the lane with global index `key` starts: a unit hashed from
  /// both and `salt`, spread over the whole map (a multiply-shift, no division).
  DEVALLOC_HOST_DEVICE std::uint32_t start_for(std::uint32_t key, std::uint32_t n,
                                               std::uint32_t salt = 0) const noexcept
  {
    return static_cast<std::uint32_t>(
      (std::uint64_t{mix32(key * 0x9E3779B9u + n * 0x85EBCA6Bu + salt)} * units_of_map()) >> 32);
  }

 private:
  /// Device. The calling lanes' requests as one run (coalescing, Blach's per-warp allocation, and
  /// the batched page claims of creation::Scatter): the lowest calling lane looks for a run of
  /// the lanes' summed units near its hashed start (a few map words: a heap without such a run
  /// nearby sends every lane its own way at the cost of those reads) and each lane gets the units
  /// of its prefix sum. Returns the caller's first unit, or `none` (one caller, a sum of 0 or over
  /// combine_most units, or no run found). Each part gets its own bounds: it is freed on its own.
  /// Every lane of the call runs the same collective steps.
  DEVALLOC_DEVICE std::uint32_t combine(std::uint32_t n, std::uint32_t salt) const noexcept
  {
    const std::uint32_t mask = active_mask();
    if (popcount(mask) < 2u) { return none; }
    std::uint32_t below = 0;
    const std::uint32_t total = group_sum(mask, n, below);
    if (total == 0 || total > combine_most || total > units_of_map()) { return none; }
    const unsigned leader = leader_lane(mask);
    std::uint32_t first = none;
    if (lane_id() == leader) {
      const std::uint32_t start = aligned_start(start_for(warp_id() * warp_size + leader, total, salt), total);
      first = map_.find_run(start, total, 2u * page_bitmap::batch + total / 64u + 2u);
    }
    first = shuffle(mask, first, leader);
    return first == none || n == 0 ? none : first + below;
  }

  DEVALLOC_HOST_DEVICE std::uint32_t units_of_map() const noexcept { return map_.units(); }
  /// A search start for n units moved down to a multiple of the largest power of two <= n (at most
  /// 64: a map word): runs of one size then start at multiples of it wherever the map is free, so
  /// that equal requests leave no gaps between them (4 KiB requests of 256-byte units fill whole
  /// aligned groups of 16, as pages would), and a combined run starts at a word.
  DEVALLOC_HOST_DEVICE static std::uint32_t aligned_start(std::uint32_t start, std::uint32_t n) noexcept
  {
    const std::uint32_t align = n >= 64u ? 64u : 1u << highest_bit(n == 0 ? 1u : n);
    return start & ~(align - 1u);
  }
  /// Bits [0, k) of a word (k < 64) and bits [0, k] (k < 64).
  DEVALLOC_HOST_DEVICE static std::uint64_t bit_range_below(unsigned k) noexcept
  {
    return (std::uint64_t{1} << k) - 1u;
  }
  DEVALLOC_HOST_DEVICE static std::uint64_t bit_range_upto(unsigned k) noexcept
  {
    return k == 63u ? ~std::uint64_t{0} : (std::uint64_t{1} << (k + 1u)) - 1u;
  }

  page_bitmap map_;
  std::uint64_t* starts_ = nullptr;  // bit u: a live run starts at unit u
  std::uint64_t* ends_ = nullptr;    // bit u: a live run ends at unit u
};

}  // namespace detail
DEVALLOC_NAMESPACE_END
