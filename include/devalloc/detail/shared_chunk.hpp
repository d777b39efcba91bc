// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/detail/shared_chunk.hpp
//
// The header of a chunk that several allocations share, and its member count: the piece common to
// the policies that hand out slices of one chunk and free it when the last slice is freed —
// distribution::XMallocSIMD (mallocMC thesis §4.3.3) and the coalescing allocators' superblocks
// (distribution::CoalesceBlock, creation::CoalesceHashed; Blach et al. §3.1: "a counter at the
// beginning of each superblock ... the last thread to decrement calls free on the superblock").
//
// Layout: the first 16 bytes of the chunk (so slices start at 16 or later and keep 16-byte
// alignment): {members, bytes, tag}. `tag` = header_tag(chunk) while the chunk is shared and live:
// a magic word mixed with the address, so that neither user data nor a header copied elsewhere
// passes for one.
// leave(): the member count is decremented by CAS (acq_rel: every member's writes to its slice
// happen before the last member frees the chunk), never below 0, once for all the lanes of a warp
// that leave one chunk together. The member that takes it to 0 clears the tag and must free the
// chunk.
#pragma once

#include <cstdint>

#include "atomic.hpp"
#include "platform.hpp"
#include "warp.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace detail {

/// The first 16 bytes of a shared chunk.
struct shared_chunk_header {
  std::uint32_t members;  ///< slices not yet freed
  std::uint32_t bytes;    ///< header + the slices (what the owner's checks need; not read here)
  std::uint64_t tag;      ///< shared_chunk_tag(chunk) while the chunk is shared and live, else anything
};
static_assert(sizeof(shared_chunk_header) == 16, "the shared chunk header must take 16 bytes");

/// The tag of the header of a shared chunk at `chunk`.
DEVALLOC_HOST_DEVICE constexpr std::uint64_t shared_chunk_tag(std::uintptr_t chunk) noexcept
{
  return 0x584D616C6C6F6353ull ^ (static_cast<std::uint64_t>(chunk) * 0x9E3779B97F4A7C15ull);
}

/// Device. Makes `chunk` (16-byte aligned) a shared chunk of `members` slices spanning `bytes`.
/// Relaxed stores: the caller orders them before the members' frees (a warp or block barrier).
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE void write_shared_chunk_header(void* chunk, std::uint32_t members,
                                                                    std::uint32_t bytes) noexcept
{
  auto* h = static_cast<shared_chunk_header*>(chunk);
  device_atomic<std::uint32_t>(h->members).store(members, memory_order_relaxed);
  device_atomic<std::uint32_t>(h->bytes).store(bytes, memory_order_relaxed);
  device_atomic<std::uint64_t>(h->tag).store(shared_chunk_tag(reinterpret_cast<std::uintptr_t>(chunk)),
                                             memory_order_relaxed);
}

/// Device. True if `chunk` starts with a tagged header.
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE bool is_shared_chunk(const void* chunk) noexcept
{
  auto* h = static_cast<shared_chunk_header*>(const_cast<void*>(chunk));
  return device_atomic<std::uint64_t>(h->tag).load(memory_order_relaxed) ==
         shared_chunk_tag(reinterpret_cast<std::uintptr_t>(chunk));
}

/// Device. True if `chunk` starts a shared chunk that is live: tagged, with members left. (A chunk
/// whose last member left has its tag cleared before it returns to the heap.)
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE bool is_live_shared_chunk(const void* chunk) noexcept
{
  auto* h = static_cast<shared_chunk_header*>(const_cast<void*>(chunk));
  return is_shared_chunk(chunk) && device_atomic<std::uint32_t>(h->members).load(memory_order_relaxed) != 0;
}

/// Device. The live member count of the shared chunk at `chunk`, 0 if its header is not tagged.
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE std::uint32_t shared_chunk_members(void* chunk) noexcept
{
  if (!is_shared_chunk(chunk)) { return 0; }
  return device_atomic<std::uint32_t>(static_cast<shared_chunk_header*>(chunk)->members).load(memory_order_relaxed);
}

/// Device. The stored byte count of the shared chunk at `chunk` (meaningful while it is tagged).
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE std::uint32_t shared_chunk_bytes(void* chunk) noexcept
{
  return device_atomic<std::uint32_t>(static_cast<shared_chunk_header*>(chunk)->bytes).load(memory_order_relaxed);
}

/// What leave_shared_chunk did.
enum class leave_result : std::uint8_t {
  left,       ///< one member fewer; others remain
  last,       ///< the caller was the last member: the tag is cleared, the caller frees the chunk
  none_left,  ///< the count was 0 already (a double free): nothing changed
};

/// Device. One member leaves the shared chunk at `chunk` (see the file comment). Any subset of a
/// warp may call; the lanes that leave the same chunk together are combined (match_any): their
/// leader takes them all off the count with one CAS loop (a warp freeing the slices of one
/// chunk made up to 32 CAS loops on one word, each retried by every loser: XMallocSIMD's frees
/// of 16-byte slices ran at a fifth of Scatter's own on the H100). The outcome is that of some
/// order of single leaves: with `c` members left and `k` lanes leaving, min(c, k) lanes leave
/// (the leader gets `last` if they take the count to 0: it made the acquiring CAS), the rest get
/// none_left.
/// Lock-free: a failed CAS means another warp's member left.
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE leave_result leave_shared_chunk(void* chunk) noexcept
{
  auto* h = static_cast<shared_chunk_header*>(chunk);
  const std::uint32_t peers =
    match_any(active_mask(), static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(chunk)));
  const std::uint32_t k = popcount(peers);
  const unsigned rank = rank_in(peers);
  // Every member's writes to its slice happen before the leader's release (the barrier orders
  // them within the warp); the leader, whose CAS acquired the other warps' leaves, is the one
  // that frees the chunk.
  sync_lanes(peers);
  std::uint32_t before = 0;  // the count the group's CAS replaced
  if (rank == 0) {
    device_atomic<std::uint32_t> members(h->members);
    before = members.load(memory_order_relaxed);
    while (before != 0 && !members.compare_exchange_weak(before, before - (before < k ? before : k),
                                                         memory_order_acq_rel, memory_order_relaxed)) {}
  }
  before = shuffle(peers, before, leader_lane(peers));
  const std::uint32_t taken = before < k ? before : k;
  if (rank >= taken) { return leave_result::none_left; }
  if (rank != 0 || taken != before) { return leave_result::left; }
  // The chunk stops being shared before it returns to the heap (the free's release publishes the
  // cleared tag to the chunk's next owner).
  device_atomic<std::uint64_t>(h->tag).store(0u, memory_order_relaxed);
  return leave_result::last;
}

}  // namespace detail
DEVALLOC_NAMESPACE_END
