// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/traits.hpp
//
// What a creation policy promises. The host class reads these to choose code paths, and the
// conformance suite reads them to choose its checks: a policy skips a check only where its traits
// say it does not do that thing (mallocMC thesis §4.2, "traits structure").
#pragma once

#include "detail/platform.hpp"

#include <cstddef>

#include "free_result.hpp"

DEVALLOC_NAMESPACE_BEGIN

struct creation_traits {
  /// dealloc() of one pointer makes its memory available to later alloc() calls.
  bool reuses_freed_memory = true;
  /// Filling the heap, freeing every chunk and filling again yields the same number of chunks.
  bool exact_refill = true;
  /// dealloc() recognises pointers it never handed out and reports them instead of corrupting.
  bool checks_ownership = true;
  /// getAvailableSlots() is implemented (host and device).
  bool provides_available_slots = true;
  /// Alignment of every pointer create() returns, before any AlignmentPolicy padding.
  std::size_t natural_alignment = 1;
  /// The policy needs an addressable pool from the ReservePoolPolicy.
  bool needs_pool = true;
  /// finalize_heap() frees every allocation at once, so Allocator::reset() is available.
  bool resettable = true;
  /// destroy() recognises a pointer inside the heap that is not the start of a live allocation
  /// (inside a chunk, in the heap's bookkeeping, on free memory) and returns
  /// free_result::invalid_pointer without changing anything (AllocatorHandle::dealloc counts it).
  bool detects_invalid_pointers = true;
  /// destroy() recognises a second free of an allocation whose memory has not been handed out
  /// again meanwhile and returns free_result::double_free without changing anything.
  bool detects_double_free = true;
  /// Device `void* chunk_start(const void* p) const` is implemented: the start of the live chunk
  /// that contains p, or nullptr. Distribution policies that share one chunk among several
  /// allocations (distribution::XMallocSIMD) need it, and chunks of at least 16 bytes.
  bool supports_shared_chunks = false;
  /// create() serves the requests of the lanes that call together from one chunk of the heap it
  /// builds on (creation::FDGMalloc: a warp's superblock): one alloc() then does not take exactly
  /// one getAvailableSlots(size) slot, and how many chunks fit depends on which lanes arrive
  /// together (Allocator::combines_requests is true, as for a combining distribution policy).
  bool combines_requests = false;
  /// dealloc() returns one allocation's memory (at once, or once its shared chunk is free). False:
  /// dealloc() is a no-op and memory returns only all at once (Allocator::reset(), or the policy's
  /// own release functions, e.g. FDGMalloc's tidyUp()/end()); freed memory keeps its contents.
  bool frees_individually = true;
  /// The lanes of one warp that allocate together get one contiguous range (in lane order on a
  /// GPU, where they call converged), as long as it fits the policy's block (FDGMalloc's
  /// superblock): a warp's requests made from a fresh heap tile one gap-free range.
  bool warp_contiguous = false;
  /// getAvailableSlots(n) is exact: each allocation of n bytes takes exactly one slot (so after a
  /// fill the count drops by the number of chunks allocated). False where an allocation may take
  /// more than one slot's memory (e.g. the Circular family takes small chunks whole): the count
  /// then drops by at least the number of allocations, and still returns to its first value once
  /// everything is freed.
  bool exact_available_slots = true;
  /// create() may hand out memory that is still allocated (creation::UnsafeWrap wraps around the
  /// heap instead of running out): allocations are disjoint only while everything allocated since
  /// the last reset() fits in the heap once. Such a policy never returns nullptr for a request the
  /// heap can hold, so the suite checks its circular order instead of filling it until out of memory.
  bool may_overlap_live = false;
  /// Filling the heap with equal small chunks (the conformance suite: 64 bytes) until out of memory
  /// hands out at least half of the heap's bytes. False where the allocator cannot promise that
  /// because its requests reach the heap as blocks of another size whose usable fraction belongs
  /// to the creation policy beneath: distribution::CoalesceBlock and distribution::CoalesceDynamic
  /// ask it for superblocks of up to 32 slots plus headers (2-3 KB for 64-byte requests), and
  /// CUDA's own malloc (creation::DeviceMalloc) serves blocks of that size with an undocumented
  /// overhead (docs/coalescing.md, "Heap use"). The suite then checks only that the heap was
  /// usable at all and that freeing loses nothing.
  bool fills_half_the_heap = true;
};

DEVALLOC_NAMESPACE_END
