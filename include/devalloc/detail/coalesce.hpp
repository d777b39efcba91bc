// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/detail/coalesce.hpp
//
// The parts the static coalescing allocators share (Blach et al., "Coalescing memory allocations
// for GPU MPI", §3.1): one leader allocates a superblock for a group of workers, whose slots lie
// back to back in it in rank order, so that neighbouring workers get neighbouring memory.
//
// Superblock = [detail::shared_chunk_header: 16 bytes, member count][slot 0][slot 1]... The
// member count starts at the number of slots; each free takes one off (leave_shared_chunk) and the
// last one frees the superblock (§3.1: "the last thread to decrement will call free using the
// superblock's base address"). What a slot holds besides the payload (a header, or nothing and a
// map entry) is the caller's business: distribution::CoalesceBlock, creation::CoalesceHashed.
//
// Groups:
//   warp:  plan_warp()/share_warp(): the lanes that call together (detail::active_mask(): any
//          subset of a warp, diverged or not). Slot sizes may differ; offsets are exclusive prefix
//          sums over the group in lane order (detail::group_sum: one shuffle per member). The
//          leader (lowest lane) allocates and writes the header, a sync_lanes orders that before
//          anything a member does with its slot, and a shuffle hands the base to the group. No
//          lane waits for anything but the leader's allocation.
//   block: share_block() (CUDA): a collective of every thread of the thread block, all with the
//          same slot size (the "static" case the report's analysis proves: every thread allocates
//          the same number of bytes). One __syncthreads_and checks that; if the sizes differ,
//          or any is 0, share_block returns block_plan::uniform == false on every thread and the
//          caller takes the warp path. Thread 0 allocates; the base reaches the block through
//          shared memory between two barriers. Every thread of the block must call it (threads that
//          return early make it hang: launch a multiple of the block size), like __syncthreads.
//          CPU backend: there are no thread blocks (launch runs warps on threads, one warp at a
//          time, so a block-wide barrier between warps could never complete); share_block is not
//          defined and the block-level entry points use the warp group there (documented on each).
//
// A block that is live already: a creation policy must never hand out memory that is still live,
// but CUDA's device malloc has been seen to return the start of a live superblock when its heap
// was nearly full (issue 15; docs/coalescing.md, Known defects). Every superblock a leader gets is
// checked for a live superblock header first (unless_live: one 16-byte read); such a block is
// neither used nor freed (it is someone else's), and the group's request fails. For that check to
// never mistake a freed superblock for a live one, release_superblock clears the tag and fences
// before the creation policy sees the free. Blocks that start inside a live superblock, or that
// overlap a live allocation of another kind, are not detected.
#pragma once

#include <cstddef>
#include <cstdint>

#include "atomic.hpp"
#include "platform.hpp"
#include "shared_chunk.hpp"
#include "warp.hpp"
#include "../free_result.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace detail {
namespace coalesce {

/// Bytes before the first slot: the superblock's shared_chunk_header.
inline constexpr std::uint32_t superblock_prefix = sizeof(shared_chunk_header);

/// Largest slot a lane brings into a warp superblock (32 of them fit 32-bit offsets); larger
/// requests are served alone (the callers say how).
inline constexpr std::uint32_t max_warp_slot = 1u << 26;

/// `bytes` rounded up to a multiple of 16.
DEVALLOC_HOST_DEVICE constexpr std::size_t round16(std::size_t bytes) noexcept
{
  return (bytes + 15u) & ~std::size_t{15};
}

/// Device. `block` (from the creation policy; may be nullptr), or nullptr if it starts a live
/// superblock (see the file comment): the caller then fails the request and leaves the block alone.
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE void* unless_live(void* block) noexcept
{
  return block != nullptr && is_live_shared_chunk(block) ? nullptr : block;
}

/// Device. The leader's step between the creation policy and the group: `block` (may be nullptr)
/// becomes the group's superblock of `members` members and `total` bytes (its header written), or
/// nullptr if there is none or it starts a live superblock (unless_live).
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE void* adopt_superblock(void* block, std::uint32_t members,
                                                            std::uint64_t total) noexcept
{
  block = unless_live(block);
  if (block != nullptr) {
    write_shared_chunk_header(block, members, total > 0xffffffffu ? 0xffffffffu : static_cast<std::uint32_t>(total));
  }
  return block;
}

/// Device. Gives the superblock at `base`, whose last member has left, back to the creation policy:
/// the tag is cleared (again, if leave_shared_chunk did) and a device-scope release fence orders
/// that before the policy's free, so that the block's next owner does not take it for a live
/// superblock (unless_live). Returns what the creation policy's destroy() returns.
template <class Creation>
DEVALLOC_DEVICE free_result release_superblock(const Creation& creation, void* base) noexcept
{
  device_atomic<std::uint64_t>(static_cast<shared_chunk_header*>(base)->tag).store(0u, memory_order_relaxed);
  device_fence(memory_order_release);
  return creation.destroy(base);
}

/// A lane's place in the superblock of the lanes that called together.
struct warp_plan {
  std::uint32_t group = 0;   ///< lanes of the superblock; 0: the caller did not join (slot 0)
  unsigned leader = 0;       ///< lowest lane of group: allocates
  std::uint32_t offset = 0;  ///< this lane's slot: base + offset
  std::uint32_t total = 0;   ///< superblock bytes: the leader's request
};

/// Device. Called by every lane that allocates (any subset of a warp, together). `slot`: this
/// lane's slot bytes (a multiple of 16, at most max_warp_slot), or 0 to stay out.
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE warp_plan plan_warp(std::uint32_t slot) noexcept
{
  const std::uint32_t arrived = active_mask();
  const std::uint32_t group = ballot(arrived, slot != 0);
  warp_plan plan;
  if (slot == 0) { return plan; }
  std::uint32_t below = 0;
  const std::uint32_t sum = group_sum(group, slot, below);
  plan.group = group;
  plan.leader = leader_lane(group);
  plan.offset = superblock_prefix + below;
  plan.total = superblock_prefix + sum;
  return plan;
}

/// Device. The superblock base on every lane of plan.group (nullptr on all if the leader's
/// `block` is nullptr or starts a live superblock: unless_live). The leader writes the header
/// (members = the group's size) first.
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE char* share_warp(const warp_plan& plan, void* block) noexcept
{
  if (lane_id() == plan.leader) { block = adopt_superblock(block, popcount(plan.group), plan.total); }
  sync_lanes(plan.group);  // the header before every member's free
  return reinterpret_cast<char*>(shuffle(plan.group, reinterpret_cast<unsigned long long>(block), plan.leader));
}

#if DEVALLOC_BACKEND_CUDA
/// A thread's place in its block's superblock.
struct block_plan {
  bool uniform = false;    ///< every thread asked for the same non-zero slot; else: take the warp path
  char* base = nullptr;    ///< the superblock (nullptr: the leader's allocation failed)
  std::uint32_t rank = 0;  ///< linear thread index in the block: slot = base + prefix + rank * slot
  std::uint32_t members = 0;
};

/// Device (CUDA). Collective of the whole thread block (see the file comment). `create(bytes)` is
/// called by thread 0 only, for superblock_prefix + members * slot bytes (a block that starts a
/// live superblock counts as none: unless_live).
template <class Create>
DEVALLOC_DEVICE block_plan share_block(std::uint32_t slot, Create&& create)
{
  __shared__ unsigned long long shared_base;
  __shared__ std::uint32_t shared_slot;
  const unsigned rank = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned members = blockDim.x * blockDim.y * blockDim.z;
  if (rank == 0) { shared_slot = slot; }
  __syncthreads();
  block_plan plan;
  plan.uniform = __syncthreads_and(slot != 0 && slot == shared_slot) != 0;
  if (!plan.uniform) { return plan; }
  if (rank == 0) {
    const std::size_t total = superblock_prefix + static_cast<std::size_t>(members) * slot;
    void* const block = adopt_superblock(create(total), members, total);
    shared_base = reinterpret_cast<unsigned long long>(block);
  }
  __syncthreads();  // the header and the base before every thread's use
  plan.base = reinterpret_cast<char*>(shared_base);
  plan.rank = rank;
  plan.members = members;
  return plan;
}
#endif

}  // namespace coalesce
}  // namespace detail
DEVALLOC_NAMESPACE_END
