// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/detail/chunk_header.hpp
//
// The 8-byte chunk header of the Circular family (Vinkler & Havran, "Register Efficient Dynamic
// Memory Allocator for GPUs", §5.2-5.4): a chunk's state and the offset of the next chunk, in the
// 8 bytes before its payload. Two layouts with one interface, so that creation/circular.hpp is
// written once. The next offset is 32-bit in both, in 16-byte units from the start of the
// chunk's segment (creation/circular.hpp: a segment holds fewer than 2^32 units), so heaps of any
// size work with either and every offset a walker holds is one register:
//
//   chunk_header_split  CMalloc's header: a 32-bit flag word and a 32-bit next word. A claim is
//                       one CAS on the flag word; the next word is re-read by the winner.
//   chunk_header_fused  CFMalloc's header: the flag fused into the next offset, one 64-bit word
//                       (next << 32 | state). A claim is one CAS on that word, which validates the
//                       state and the next offset read together. The state and the offset each
//                       fill one half, so the word read is the two registers a walker keeps anyway
//                       (next << 2 | state took shifts and a third register: 24 instead of 16 bytes
//                       of local memory under a 24-register cap, nvcc 13, sm_90; docs/cmalloc.md).
//
// States: free (can be claimed), claimed (its claimer is splitting it: the remainder is not linked
// yet), used (owned by an allocation), absorbed (was a header, merged into the chunk before it;
// kept only for double-free reports). Claimed is state 0, which zeroed memory also reads: a pointer
// into memory that never held a header is not "used" either way.
//
// Who may do what (the safety argument is in creation/circular.hpp and docs/cmalloc.md):
//   * claim (free -> claimed): any worker that read `free` at a location that is a chunk boundary
//     for the whole time it holds the offset (circular.hpp's segment registration guarantees it).
//   * publish (claimed -> used, with the next offset of its split) / unclaim (claimed -> free):
//     only the chunk's claimer. Walkers that read `claimed` wait a little for publish instead of
//     jumping over the whole chunk to its old next, past the remainder about to be linked.
//   * release (used -> free): the owner of the allocation (dealloc); a CAS, so a concurrent
//     second free of the same pointer fails and is reported.
//   * set_next / mark_absorbed: only a worker that holds its segment's merge session, on a header
//     it read free: during the session no other worker reads or claims headers in that segment,
//     and nobody writes a free header (frees change used headers only).
// Every function here is one atomic access on the header's words, with the memory order named.
#pragma once

#include <cstdint>

#include "atomic.hpp"
#include "platform.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace detail {

/// A chunk's state as stored in its header (2 bits).
enum chunk_state : std::uint32_t { chunk_claimed = 0, chunk_free = 1, chunk_used = 2, chunk_absorbed = 3 };

/// A header as read: the state and the next chunk's offset (16-byte units from the segment's
/// start). `raw` is what a validating CAS compares against (the whole word for the fused layout,
/// the flag for the split one).
struct chunk_view {
  std::uint32_t state;
  std::uint32_t next;
  std::uint64_t raw;
};

/// CMalloc's header: [u32 flag][u32 next] (Algorithm 3's HEADER_SIZE = 8, NEXT_OFS = 4).
struct chunk_header_split {
  static constexpr const char* name = "split";

  DEVALLOC_DEVICE DEVALLOC_FORCEINLINE static std::uint32_t* flag(void* h) noexcept
  {
    return static_cast<std::uint32_t*>(h);
  }
  DEVALLOC_DEVICE DEVALLOC_FORCEINLINE static std::uint32_t* next_word(void* h) noexcept
  {
    return static_cast<std::uint32_t*>(h) + 1;
  }

  /// The flag (acquire: a header published by a split is read whole), then the next word.
  DEVALLOC_DEVICE DEVALLOC_FORCEINLINE static chunk_view load(void* h) noexcept
  {
    const std::uint32_t f = device_atomic<std::uint32_t>(*flag(h)).load(memory_order_acquire);
    const std::uint32_t n = device_atomic<std::uint32_t>(*next_word(h)).load(memory_order_acquire);
    return {f, n, f};
  }
  /// free -> claimed. The next word may have changed since `v` was read (the flag may have gone
  /// used -> free meanwhile): the winner re-reads it with claimed_next().
  DEVALLOC_DEVICE DEVALLOC_FORCEINLINE static bool claim(void* h, const chunk_view& v) noexcept
  {
    std::uint32_t expected = static_cast<std::uint32_t>(v.raw);
    return device_atomic<std::uint32_t>(*flag(h)).compare_exchange_strong(expected, chunk_claimed, memory_order_acquire,
                                                                          memory_order_relaxed);
  }
  DEVALLOC_DEVICE DEVALLOC_FORCEINLINE static std::uint32_t claimed_next(void* h, const chunk_view&) noexcept
  {
    return device_atomic<std::uint32_t>(*next_word(h)).load(memory_order_relaxed);
  }
  /// Claimer: gives back a chunk it cannot use (claimed -> free).
  DEVALLOC_DEVICE DEVALLOC_FORCEINLINE static void unclaim(void* h, std::uint32_t) noexcept
  {
    device_atomic<std::uint32_t>(*flag(h)).store(chunk_free, memory_order_release);
  }
  /// Writes a header nobody can reach yet (the remainder of a split, before it is linked).
  DEVALLOC_DEVICE DEVALLOC_FORCEINLINE static void init(void* h, std::uint32_t state, std::uint32_t next) noexcept
  {
    device_atomic<std::uint32_t>(*next_word(h)).store(static_cast<std::uint32_t>(next), memory_order_relaxed);
    device_atomic<std::uint32_t>(*flag(h)).store(state, memory_order_relaxed);
  }
  /// Claimer: claimed -> used with next offset `next` (the remainder of a split, whose header
  /// init() wrote, or the old next). Release, next word first: whoever reads the flag `used`
  /// (acquire) reads the new next and the remainder's header.
  DEVALLOC_DEVICE DEVALLOC_FORCEINLINE static void publish(void* h, const chunk_view&, std::uint32_t next) noexcept
  {
    device_atomic<std::uint32_t>(*next_word(h)).store(static_cast<std::uint32_t>(next), memory_order_release);
    device_atomic<std::uint32_t>(*flag(h)).store(chunk_used, memory_order_release);
  }
  /// Merge session, on a header it read free (the first chunk of a run): next offset `next`.
  /// Nobody else writes a free header during a session (walkers are excluded; frees change used
  /// headers only), so a store is enough.
  DEVALLOC_DEVICE DEVALLOC_FORCEINLINE static void set_next(void* h, std::uint32_t next) noexcept
  {
    device_atomic<std::uint32_t>(*next_word(h)).store(next, memory_order_release);
  }
  /// Merge session, on a header it read free: absorbed into the chunk before it.
  DEVALLOC_DEVICE DEVALLOC_FORCEINLINE static void mark_absorbed(void* h, const chunk_view&) noexcept
  {
    device_atomic<std::uint32_t>(*flag(h)).store(chunk_absorbed, memory_order_relaxed);
  }
  /// used -> free, for the header read as `v` (release: the freed chunk's contents are ordered
  /// before its next claim). False if the chunk is not used any more (a concurrent second free won).
  DEVALLOC_DEVICE DEVALLOC_FORCEINLINE static bool release(void* h, const chunk_view&) noexcept
  {
    std::uint32_t expected = chunk_used;
    return device_atomic<std::uint32_t>(*flag(h)).compare_exchange_strong(expected, chunk_free, memory_order_release,
                                                                          memory_order_relaxed);
  }
};

/// CFMalloc's header: one 64-bit word, next << 2 | state.
struct chunk_header_fused {
  static constexpr const char* name = "fused";

  DEVALLOC_DEVICE DEVALLOC_FORCEINLINE static std::uint64_t& word(void* h) noexcept
  {
    return *static_cast<std::uint64_t*>(h);
  }
  DEVALLOC_HOST_DEVICE DEVALLOC_FORCEINLINE static constexpr std::uint64_t pack(std::uint32_t state,
                                                                                std::uint32_t next) noexcept
  {
    return std::uint64_t{next} << 32 | state;
  }

  DEVALLOC_DEVICE DEVALLOC_FORCEINLINE static chunk_view load(void* h) noexcept
  {
    const std::uint64_t w = device_atomic<std::uint64_t>(word(h)).load(memory_order_acquire);
    return {static_cast<std::uint32_t>(w), static_cast<std::uint32_t>(w >> 32), w};
  }
  /// (free, next) -> (claimed, next): succeeds only if state and next are still what was read.
  DEVALLOC_DEVICE DEVALLOC_FORCEINLINE static bool claim(void* h, const chunk_view& v) noexcept
  {
    std::uint64_t expected = v.raw;
    return device_atomic<std::uint64_t>(word(h)).compare_exchange_strong(expected, pack(chunk_claimed, v.next),
                                                                         memory_order_acquire, memory_order_relaxed);
  }
  DEVALLOC_DEVICE DEVALLOC_FORCEINLINE static std::uint32_t claimed_next(void*, const chunk_view& v) noexcept
  {
    return v.next;
  }
  /// Claimer: gives back a chunk it claimed (its next offset is `next`) unsplit.
  DEVALLOC_DEVICE DEVALLOC_FORCEINLINE static void unclaim(void* h, std::uint32_t next) noexcept
  {
    device_atomic<std::uint64_t>(word(h)).store(pack(chunk_free, next), memory_order_release);
  }
  DEVALLOC_DEVICE DEVALLOC_FORCEINLINE static void init(void* h, std::uint32_t state, std::uint32_t next) noexcept
  {
    device_atomic<std::uint64_t>(word(h)).store(pack(state, next), memory_order_relaxed);
  }
  /// Claimer: (claimed, old next) -> (used, next) (release: the remainder's header, written by
  /// init(), is visible to whoever reads this word). Only the claimer changes a claimed chunk's
  /// word, so a store is enough.
  DEVALLOC_DEVICE DEVALLOC_FORCEINLINE static void publish(void* h, const chunk_view&, std::uint32_t next) noexcept
  {
    device_atomic<std::uint64_t>(word(h)).store(pack(chunk_used, next), memory_order_release);
  }
  /// Merge session, on a header it read free (see chunk_header_split::set_next): a store.
  DEVALLOC_DEVICE DEVALLOC_FORCEINLINE static void set_next(void* h, std::uint32_t next) noexcept
  {
    device_atomic<std::uint64_t>(word(h)).store(pack(chunk_free, next), memory_order_release);
  }
  DEVALLOC_DEVICE DEVALLOC_FORCEINLINE static void mark_absorbed(void* h, const chunk_view& v) noexcept
  {
    device_atomic<std::uint64_t>(word(h)).store(pack(chunk_absorbed, v.next), memory_order_relaxed);
  }
  /// (used, next) -> (free, next) for the header read as `v`: one CAS. A used header changes only
  /// by its release, so a failed CAS means a concurrent second free won.
  DEVALLOC_DEVICE DEVALLOC_FORCEINLINE static bool release(void* h, const chunk_view& v) noexcept
  {
    std::uint64_t expected = v.raw;
    return v.state == chunk_used && device_atomic<std::uint64_t>(word(h)).compare_exchange_strong(
                                      expected, pack(chunk_free, v.next), memory_order_release, memory_order_relaxed);
  }
};

}  // namespace detail
DEVALLOC_NAMESPACE_END
