// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/creation/list_first_fit.hpp
//
// CreationPolicy `ListFirstFit`: the first list-based baseline of ScatterAlloc (Steinberger et al.,
// "ScatterAlloc: Massively Parallel Dynamic Memory Allocation for the GPU", 2012, §4; the "size
// list" allocator of its §7): one segment list of chunks with 16-byte headers, free lists in 128
// size bins (exact below 16 units of 16 bytes, then four per power of two), first fit over the
// bins in size order, split on allocation, merge with the successor on free. The whole heap is
// one arena (one set of bins, one frontier). The engine, its merging rules and the argument why
// it is safe under any scheduling are in detail/list_heap.hpp; docs/lists.md has the full design.
//
// Differences from the paper's allocator, all for safety under independent thread scheduling:
// the free lists are lock-free tagged stacks (no locks a diverged lane could starve); the segment
// list has no stored pointers (a chunk's successor is at its start plus its size; no predecessor
// link, so a free chunk merges only with what follows it); a successor is merged on free only if
// it is the top of its bin (the only place it can be taken from without a lock); every other run
// of free chunks is merged when a request finds nothing (detail/list_heap.hpp, "Merge"); the heap's
// untouched tail is carved by one CAS instead of being one huge free chunk (so the first requests
// of a kernel do not all pop and split the same chunk).
//
// Contract:
//   * create(bytes): thread safe; any subset of a warp may call; nobody waits for another worker
//     except for a bounded number of rescans (config::retry_rounds) while another worker holds
//     free memory privately. Returns a 16-byte aligned pointer to bytes bytes, or nullptr if no
//     free chunk or frontier room holds bytes + 16 after merging (bytes == 0: nullptr, as every
//     policy; more than the heap: nullptr).
//   * destroy(p): thread safe. freed for the start of a live allocation; invalid_pointer for a
//     pointer outside the data area, misaligned, or not at a chunk's start (inside a chunk, or a
//     chunk merged away meanwhile: traits.detects_invalid_pointers); double_free for a chunk that
//     is free. Both misuses change nothing. Undefined: freeing memory again after it was handed
//     out again.
//   * available_slots(n): slots of n bytes in the free memory, each run of free chunks (and the
//     untouched tail) counted as one chunk, as a merge makes it. Exact while the heap does not
//     change; an allocation may take more than its slot (a chunk one unit larger is taken whole):
//     traits.exact_available_slots is false.
#pragma once

#include <cstddef>
#include <string>

#include "../detail/list_heap.hpp"
#include "../detail/platform.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace creation {

/// Configuration of ListFirstFit. `RetryRounds`: rescans of a request that found nothing while
/// another worker holds free memory privately (default DEVALLOC_LIST_RETRY_ROUNDS).
template <unsigned RetryRounds = DEVALLOC_LIST_RETRY_ROUNDS>
struct basic_list_first_fit_config {
  /// One arena: one set of bins for the whole heap (the paper's size list).
  static constexpr unsigned arenas = 1;
  /// Unused with one arena.
  static constexpr std::size_t min_arena_bytes = 0;
  static constexpr unsigned retry_rounds = RetryRounds;
  /// Size bins (fixed: exact sizes below 16 units, then 4 per power of two up to 2^32 units).
  static constexpr unsigned bins = detail::list_bins::count;
  static_assert(RetryRounds >= 1,
                "basic_list_first_fit_config: RetryRounds must be at least 1 (one scan after merging; raise it "
                "if requests fail while others split chunks)");

  /// "ListFirstFit<arenas=1, bins=128, retry_rounds=16384>"
  static std::string classname()
  {
    return "ListFirstFit<arenas=1, bins=" + std::to_string(bins) + ", retry_rounds=" + std::to_string(retry_rounds) +
           ">";
  }
};

using ListFirstFitConfig = basic_list_first_fit_config<>;

/// ScatterAlloc §4's size-list baseline (see the file comment).
template <class Config = ListFirstFitConfig>
using BasicListFirstFit = detail::list_heap<Config>;
using ListFirstFit = BasicListFirstFit<>;

}  // namespace creation
DEVALLOC_NAMESPACE_END
