// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/creation/list_per_sm.hpp
//
// CreationPolicy `ListPerSM`: the second list-based baseline of ScatterAlloc (Steinberger et al.
// 2012, §4, last paragraph; the "mp lists" allocator of its §7): ListFirstFit's segment list and
// size bins, with the heap cut into one arena per multiprocessor (its own share of the heap, its
// own 128 bins and frontier). A worker allocates in the arena of detail::sm_id() and falls back
// to the other multiprocessors' arenas, in order, when its own has nothing; a chunk is freed into
// the arena it lies in, whoever frees it. The paper reports ten times the throughput of the single
// list for it (distributing requests of different multiprocessors to different memory).
//
// Everything else (chunks, bins, split, merge, safety, misuse) is ListFirstFit's engine,
// detail/list_heap.hpp; docs/lists.md has the full design.
//
// Contract: as ListFirstFit (creation/list_first_fit.hpp), and:
//   * the largest request is one arena (about heap / arenas, less 16 bytes): a chunk never
//     crosses an arena's end;
//   * a request fails only after every arena's bins and frontier were searched (and merged).
#pragma once

#include <cstddef>
#include <string>

#include "../detail/list_heap.hpp"
#include "../detail/platform.hpp"

#ifndef DEVALLOC_LIST_MIN_ARENA_BYTES
/// ListPerSM: smallest arena; a heap too small for one arena per multiprocessor gets fewer.
#define DEVALLOC_LIST_MIN_ARENA_BYTES 65536
#endif

DEVALLOC_NAMESPACE_BEGIN
namespace creation {

/// Configuration of ListPerSM. `Arenas`: 0 = one per multiprocessor of the device (the CPU
/// backend's 64 stand-in ids), any other value = that many. `MinArenaBytes`: fewer arenas where
/// they would be smaller. `RetryRounds`: as ListFirstFit's.
template <std::size_t MinArenaBytes = DEVALLOC_LIST_MIN_ARENA_BYTES, unsigned RetryRounds = DEVALLOC_LIST_RETRY_ROUNDS,
          unsigned Arenas = 0>
struct basic_list_per_sm_config {
  static constexpr unsigned arenas = Arenas;
  static constexpr std::size_t min_arena_bytes = MinArenaBytes;
  static constexpr unsigned retry_rounds = RetryRounds;
  static constexpr unsigned bins = detail::list_bins::count;
  static_assert(MinArenaBytes >= 4096,
                "basic_list_per_sm_config: MinArenaBytes must be at least 4096 (an arena holds 128 bins of control "
                "words besides its chunks)");
  static_assert(RetryRounds >= 1,
                "basic_list_per_sm_config: RetryRounds must be at least 1 (one scan after merging; raise it if "
                "requests fail while others split chunks)");

  /// "ListPerSM<arenas=per-multiprocessor, min_arena_bytes=65536, bins=128, retry_rounds=16384>"
  static std::string classname()
  {
    return "ListPerSM<arenas=" + (arenas == 0 ? std::string("per-multiprocessor") : std::to_string(arenas)) +
           ", min_arena_bytes=" + std::to_string(min_arena_bytes) + ", bins=" + std::to_string(bins) +
           ", retry_rounds=" + std::to_string(retry_rounds) + ">";
  }
};

using ListPerSMConfig = basic_list_per_sm_config<>;

/// ScatterAlloc §4's mp-lists baseline (see the file comment).
template <class Config = ListPerSMConfig>
using BasicListPerSM = detail::list_heap<Config>;
using ListPerSM = BasicListPerSM<>;

}  // namespace creation
DEVALLOC_NAMESPACE_END
