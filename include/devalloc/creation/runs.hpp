// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/creation/runs.hpp
//
// CreationPolicy `Runs<Config>`: every request is a run of ceil(bytes / unit_bytes) consecutive
// free units of one bitmap (detail::page_bitmap, 64 units a word); the run's extent is kept as a
// start and an end bit (detail::unit_runs), and a free releases the run's bits. No size classes, no directory, no page
// states: a request's memory is rounded up to one unit at most, and any free run serves any size,
// so a heap of mixed sizes above a few units fills almost completely (docs/notes/two-granularity-
// heap.md: step 1 of its plan, the runs that the two-granularity heap would use above 512 B).
//
// Not in the seed papers. Its measured place (H100, bench/diag/unit_runs.cu, the same plain
// kernels as Scatter, results/gpu/2026-12-07_s36_H100/unit-runs): 256-byte units serve sizes
// uniform in 16-4096 B at 2^20 / 2^17 threads at 3.99 / 3.67 G allocs/s (Scatter 3.22 / 2.54),
// fill a heap of 16-4096 B requests to 80 % without a failure (Scatter: 10 % failing), but every
// request takes a whole unit (64 B requests use a quarter of 256-byte units), and a request that
// finds no run reads the whole map (four words a latency). Prefer `scatter` for small sizes, Runs
// for mixed sizes of a few hundred bytes up.
//
// The lanes that call create together take one run for all of them when one lies near the first
// lane's start (combine: Blach's coalescing of a warp's requests, each part with its own bounds,
// freed on its own). Measured against the lane-by-lane claims (H100, results/gpu/
// 2026-12-07_s37_H100/runs-combined, plain kernels of the `runs` preset, 2^20 threads, 8 GiB):
// 16-4096 B 3.96 -> 4.83 G allocs/s (2^17: 3.31 -> 4.18 G), 2049-4096 B 3.92 -> 4.09 G, 256 B 4.37 ->
// 6.62 G, 16 B 4.87 -> 7.92 G, frees 11-15 -> 13-36 G; slower: 512-8192 B 3.83 -> 3.47 G (cause
// not measured; a warp's sum averages 544 units, under combine_most). Tight heaps of 16-4096 B
// (unit_runs, 3 launches): at 90 % none of the requests fails where 3.3 % (2^17 threads) and 0.46 %
// (2^20) did (a warp's run leaves no gaps between its parts), 2^20 threads in 4.6 ms instead of
// 146 ms; at 80 % 2^17 threads 0.46 -> 0.74 G, 2^20 threads 3.10 -> 2.22 G (slower).
//
// Layout of the pool: [free map, run starts, run ends: 3 x ceil(units / 64) x 8 B][padding to a
// 256-byte address][data: units x unit_bytes]. (Until session 2026-12-07, thirty-eighth, a 32-bit
// count a unit where the bounds are 2 bits: 1.6 % of the heap at 256-byte units, now 0.1 %.)
// Contract:
//   * create(n): a pointer to unit_bytes-aligned memory (the data area starts at a 256-byte
//     address, so pointers are aligned to min(unit_bytes, 256)), or nullptr when no run of
//     ceil(n / unit_bytes) free units is found. Thread safe; lock-free (a lost claim retries with
//     the bits it saw). Any subset of a warp may call it together (the lanes' collective steps
//     use the mask of the lanes present); their runs are then often adjacent, never promised so
//     (traits: warp_contiguous false).
//   * destroy(p): p must be a pointer create() returned; a pointer not at a unit boundary, inside a
//     run, or outside the data area gives invalid_pointer; a second free of a run whose units are
//     still free gives double_free; neither changes anything. The policy keeps no history, so a
//     unit-aligned pointer on free memory that no run ever started at also reads as double_free,
//     and of two racing frees of one run the loser may read invalid_pointer (the winner has not
//     released the units yet): either way counted as misuse, nothing changed.
//   * available_slots(n): the runs of n bytes that fit in the free stretches (a run is placed at
//     the first fit from a hashed start, so one allocation can split a stretch: not exact).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../detail/atomic.hpp"
#include "../detail/backend.hpp"
#include "../detail/hash.hpp"
#include "../detail/page_bitmap.hpp"
#include "../detail/platform.hpp"
#include "../detail/unit_runs.hpp"
#include "../detail/warp.hpp"
#include "../error.hpp"
#include "../free_result.hpp"
#include "../pool.hpp"
#include "../stream.hpp"
#include "../traits.hpp"

#ifndef DEVALLOC_RUNS_UNIT_BYTES
#define DEVALLOC_RUNS_UNIT_BYTES 256
#endif

DEVALLOC_NAMESPACE_BEGIN
namespace creation {

/// Runs' configuration (a build flag overrides the default: -DDEVALLOC_RUNS_UNIT_BYTES=...).
struct RunsConfig {
  /// Bytes of one unit: the granularity of every request (a power of two, 16 to 4096). Smaller units
  /// round less but cost more bookkeeping (3 bits a unit: the map and the run bounds) and longer
  /// map scans; 256 serves sizes of a few hundred bytes up.
  static constexpr std::uint32_t unit_bytes = DEVALLOC_RUNS_UNIT_BYTES;
};

template <class Config = RunsConfig>
class Runs {
 public:
  using config = Config;
  static constexpr std::uint32_t unit_bytes = Config::unit_bytes;
  static_assert(unit_bytes >= 16 && unit_bytes <= 4096 && (unit_bytes & (unit_bytes - 1u)) == 0,
                "Runs: Config::unit_bytes must be a power of two from 16 to 4096");

  static constexpr creation_traits traits{/*reuses_freed_memory*/ true,
                                          /*exact_refill*/ true,
                                          /*checks_ownership*/ true,
                                          /*provides_available_slots*/ true,
                                          /*natural_alignment*/ unit_bytes < 256 ? unit_bytes : 256,
                                          /*needs_pool*/ true,
                                          /*resettable*/ true,
                                          /*detects_invalid_pointers*/ true,
                                          /*detects_double_free*/ true,
                                          /*supports_shared_chunks*/ false,
                                          /*combines_requests*/ false,
                                          /*frees_individually*/ true,
                                          /*warp_contiguous*/ false,
                                          /*exact_available_slots*/ false,
                                          /*may_overlap_live*/ false,
                                          /*fills_half_the_heap*/ unit_bytes <= 128};

  Runs() = default;

  /// Host. Lays the heap out in `pool` (every unit free). Throws devalloc::error if the pool
  /// cannot hold the bookkeeping and one unit, or has more than 2^32 - 1 units.
  static Runs init_heap(pool_span pool, stream_ref stream)
  {
    const std::size_t fixed = 3u * 8u + 256u;  // a partial word of each bitmap, the alignment
    if (pool.data == nullptr || pool.bytes < fixed + unit_bytes + 1u) {
      detail::throw_error("Runs: the heap needs at least " + std::to_string(fixed + unit_bytes + 1u) +
                          " bytes (bookkeeping and one unit of " + std::to_string(unit_bytes) + " B), got " +
                          std::to_string(pool.bytes));
    }
    // The most units whose three bitmaps and data fit after the data area's alignment.
    std::uint64_t units = (pool.bytes - fixed) * 8u / (8u * unit_bytes + 3u);
    if (units > 0xFFFFFFFFull) { units = 0xFFFFFFFFull; }
    Runs heap;
    for (; units > 0; --units) {  // a few steps at most: the data area's alignment
      const std::size_t words = detail::unit_runs::words_for(static_cast<std::uint32_t>(units));
      const auto base = reinterpret_cast<std::uintptr_t>(pool.data);
      const std::uintptr_t data = (base + 3u * words * 8u + 255u) & ~std::uintptr_t{255};
      if (data + units * unit_bytes <= base + pool.bytes) {
        auto* map = static_cast<std::uint64_t*>(pool.data);
        heap.runs_ =
          detail::unit_runs(detail::page_bitmap(map, static_cast<std::uint32_t>(units)), map + words, map + 2u * words);
        heap.data_ = reinterpret_cast<char*>(data);
        heap.units_ = static_cast<std::uint32_t>(units);
        break;
      }
    }
    if (units == 0) {
      detail::throw_error("Runs: the heap of " + std::to_string(pool.bytes) + " bytes cannot hold one unit");
    }
    heap.finalize_heap(stream);
    return heap;
  }

  /// Host. Frees every run at once: the map and the run bounds go back to 0 (in stream order on
  /// `stream`). No kernel may be running on the heap when the stream reaches this point.
  void finalize_heap(stream_ref stream)
  {
    detail::backend::fill(runs_.map().words(), 0, 3u * sizeof(std::uint64_t) * runs_.map().word_count(), stream);
  }

  /// Host. The policy owns no memory beside the pool: nothing to release.
  void release(stream_ref) noexcept {}

  /// Device. Thread safe. A run of ceil(bytes / unit_bytes) free units (the first that fits from a
  /// start hashed by the calling lane, looking through the whole map once), or nullptr.
  DEVALLOC_DEVICE void* create(std::size_t bytes) const noexcept
  {
    // The lanes that call together (any subset of a warp) first try one run for all of them
    // (detail::unit_runs, combine); a lane whose request is 0 or larger than the heap takes part
    // with 0 units.
    const bool valid = bytes != 0 && bytes <= static_cast<std::size_t>(units_) * unit_bytes;
    const auto n = valid ? static_cast<std::uint32_t>((bytes + unit_bytes - 1u) / unit_bytes) : 0u;
    const std::uint32_t first = runs_.take(n);
    return first == detail::unit_runs::none ? nullptr : data_ + static_cast<std::size_t>(first) * unit_bytes;
  }

  /// Device. Thread safe. Releases the run that starts at `p`; see the contract above for the
  /// pointers it refuses.
  DEVALLOC_DEVICE free_result destroy(void* p) const noexcept
  {
    if (!owns(p)) { return free_result::invalid_pointer; }
    const auto offset = static_cast<std::size_t>(static_cast<const char*>(p) - data_);
    if (offset % unit_bytes != 0) { return free_result::invalid_pointer; }
    return runs_.give_back(static_cast<std::uint32_t>(offset / unit_bytes));
  }

  DEVALLOC_DEVICE bool is_oom(const void* p, std::size_t bytes) const noexcept { return bytes != 0 && p == nullptr; }

  DEVALLOC_HOST_DEVICE bool owns(const void* p) const noexcept
  {
    const char* c = static_cast<const char*>(p);
    return c >= data_ && c < data_ + static_cast<std::size_t>(units_) * unit_bytes;
  }

  /// Device. Runs of `slot_bytes` that fit in the free stretches of the map (one thread reads the
  /// whole map, a step per free stretch: detail::free_stretch_counter). Not synchronized with
  /// concurrent alloc/dealloc.
  DEVALLOC_DEVICE std::size_t available_slots(std::size_t slot_bytes) const noexcept
  {
    if (slot_bytes == 0) { return 0; }
    detail::free_stretch_counter counter{units_for(slot_bytes)};
    const detail::page_bitmap& map = runs_.map();
    for (std::uint32_t w = 0; w < map.word_count(); ++w) {
      counter.add_word(detail::atomic_load_relaxed(map.words()[w]), map.valid(w));
    }
    return static_cast<std::size_t>(counter.finish());
  }

  /// Host. The same count from a copy of the map. No kernel may be changing the heap meanwhile.
  std::size_t available_slots_host(std::size_t slot_bytes, stream_ref stream) const
  {
    if (slot_bytes == 0) { return 0; }
    const detail::page_bitmap& map = runs_.map();
    std::vector<std::uint64_t> words(map.word_count());
    detail::backend::copy_to_host(words.data(), map.words(), words.size() * sizeof(std::uint64_t), stream);
    detail::free_stretch_counter counter{units_for(slot_bytes)};
    for (std::uint32_t w = 0; w < map.word_count(); ++w) { counter.add_word(words[w], map.valid(w)); }
    return static_cast<std::size_t>(counter.finish());
  }

  /// Host. "Runs<unit_bytes=...>" (every setting of its config).
  static std::string classname() { return "Runs<unit_bytes=" + std::to_string(unit_bytes) + ">"; }

  /// Units of the heap (host and device).
  DEVALLOC_HOST_DEVICE std::uint32_t units() const noexcept { return units_; }

 private:
  /// Units a request of `bytes` takes.
  DEVALLOC_HOST_DEVICE static std::uint64_t units_for(std::size_t bytes) noexcept
  {
    return (static_cast<std::uint64_t>(bytes) + unit_bytes - 1u) / unit_bytes;
  }

  detail::unit_runs runs_;  // the unit map and the runs' bounds
  char* data_ = nullptr;
  std::uint32_t units_ = 0;
};

}  // namespace creation
DEVALLOC_NAMESPACE_END
