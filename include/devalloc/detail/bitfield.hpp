// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/detail/bitfield.hpp
//
// 32-bit allocation bitfields (ScatterAlloc §5.2 and §6.1): a set bit marks a used spot. Shared by
// the page usage table and the in-page (second-level) bitfields of detail/bitfield_page.hpp
// (creation/scatter.hpp).
//
//   * next_free_bit — the "bit magic" of tryUsePage lines 13-18: from the value an atomicOr
//     returned, the closest free spot after the one just tried, wrapping around (no loop over
//     the bits: one mask and one find-first-set).
//   * bitfield_claim — tryUsePage lines 7-19: try the start spot with atomicOr; on a collision jump
//     to next_free_bit of the returned value and try again, until a bit is won or the field is
//     full.
//   * bitfield_release — free line 8: clear bits (one fetch_and for the frees of one word).
//
// Memory order: a release clears its bit with release order and a claim takes its bit with acquire
// order, so whoever wins a bit that a free cleared also sees everything the freeing worker wrote
// into that chunk before (the chunk's data is handed over through the bit, whatever else orders
// the two workers). Scatter additionally orders the bit operations through the page's fill count.
#pragma once

#include <cstdint>

#include "atomic.hpp"
#include "fixed_divisor.hpp"
#include "platform.hpp"
#include "probe.hpp"
#include "warp.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace detail {

/// Mask of the lowest `n` bits, n in 0..32.
DEVALLOC_HOST_DEVICE constexpr std::uint32_t low_bits(unsigned n) noexcept
{
  return n >= 32u ? ~std::uint32_t{0} : (std::uint32_t{1} << n) - 1u;
}

/// The free spot (clear bit of `used` among the lowest `spots` bits) closest after `from`, cyclically
/// (ScatterAlloc §6.1, tryUsePage lines 13-18). Returns `spots` when every spot is used.
/// Requires spots in 1..32 and from < spots.
DEVALLOC_HOST_DEVICE DEVALLOC_FORCEINLINE unsigned next_free_bit(std::uint32_t used, unsigned from,
                                                                 unsigned spots) noexcept
{
  const std::uint32_t free_bits = ~used & low_bits(spots);
  if (free_bits == 0) { return spots; }
  const std::uint32_t after = free_bits & ~low_bits(from + 1u);  // free spots strictly above `from`
  return lowest_bit(after != 0 ? after : free_bits);
}

/// Result of bitfield_claim: `spot` is the bit won (or `spots` when the field was full) and `now`
/// the field's value right after our atomicOr (so the caller can tell whether it became full).
struct bit_claim {
  unsigned spot;
  std::uint32_t now;
};

/// Claims one clear bit among the lowest `spots` bits of `word`, starting at `start % spots`
/// (ScatterAlloc §6.1, tryUsePage lines 7-19). Lock-free: each failed atomicOr tells exactly which
/// bits were taken, and the next try goes to a bit that was free at that moment. Gives up (returns
/// spot == spots) only when the value returned by an atomicOr shows every spot in use.
/// Scope: device; order: acquire (pairs with bitfield_release).
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE bit_claim bitfield_claim(std::uint32_t& word, unsigned start,
                                                              unsigned spots) noexcept
{
  device_atomic<std::uint32_t> field(word);
  unsigned spot = mod_small(start, spots);
  for (;;) {
    const std::uint32_t bit = std::uint32_t{1} << spot;
    const std::uint32_t old = field.fetch_or(bit, memory_order_acquire);
    if ((old & bit) == 0) { return {spot, old | bit}; }
    DEVALLOC_PROBE(claim_retry);
    spot = next_free_bit(old, spot, spots);
    if (spot == spots) { return {spots, old}; }
  }
}

/// Clears the bits `mask` of `word` (one per chunk freed; a warp's frees of one word together) and
/// returns the value before (ScatterAlloc §6.2, free line 8). Scope: device; order: release (the
/// freeing workers' writes to their chunks happen before the next claim of these bits), or relaxed
/// where the callers have issued a release fence before.
DEVALLOC_DEVICE DEVALLOC_FORCEINLINE std::uint32_t bitfield_release(
  std::uint32_t& word, std::uint32_t mask, cuda::std::memory_order order = memory_order_release) noexcept
{
  return device_atomic<std::uint32_t>(word).fetch_and(~mask, order);
}

}  // namespace detail
DEVALLOC_NAMESPACE_END
