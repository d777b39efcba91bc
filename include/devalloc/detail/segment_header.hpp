// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/detail/segment_header.hpp
//
// The segment headers of dynamic warp-level coalescing (Blach et al., "Coalescing memory
// allocations for GPU MPI", §3.2; distribution/coalesce_dynamic.hpp): each segment of a
// superblock is [header][payload]; the header, directly before the payload, holds
//   bit 0  is_free        the segment was freed
//   bit 1  is_superblock  the first segment of the superblock (its distance leads to the base)
//   bit 2  is_last        the highest not-yet-freed segment: its free passes the flag down or
//                         releases the superblock
//   bits 3..  distance    (payload - previous payload) / 2; for the first segment (payload - base) / 2
// Header size 8, 4 or 2 bytes, read back from the payload's address (§3.2 "Optimizations"):
//   payload % 8 == 0 -> 8 bytes, payload % 8 == 4 -> 4 bytes, payload % 4 == 2 -> 2 bytes
// (odd payloads do not exist). So a 4-byte header gives up 8-byte alignment and a 2-byte header
// 4-byte alignment: they are only used when the caller asks for less alignment (place()).
// The largest distance: 8 B: 2^62 bytes, 4 B: 2^30 bytes, 2 B: 2^14 - 2 bytes; place() falls
// back to a larger header when the distance does not fit.
//
// Atomic access (header_ref): 8- and 4-byte headers are aligned words. A 2-byte header at
// payload - 2 (a multiple of 4) is the low half (little-endian: both backends) of the aligned
// 32-bit word that also holds the payload's first two bytes; it is changed by CAS on that word,
// which keeps whatever the payload holds (a CAS that fails because the owner wrote its payload
// is retried: lock-free rather than wait-free for 2-byte headers, and a mixed-size access that
// the C++ memory model does not describe, though every GPU and x86 performs it as intended).
#pragma once

#include <cstddef>
#include <cstdint>

#include "atomic.hpp"
#include "platform.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace detail {
namespace segment {

inline constexpr std::uint64_t free_bit = 1u;
inline constexpr std::uint64_t superblock_bit = 2u;
inline constexpr std::uint64_t last_bit = 4u;
inline constexpr unsigned distance_shift = 3;

/// Header bytes of the segment whose payload is at `payload` (0: odd, not a payload).
DEVALLOC_HOST_DEVICE constexpr unsigned header_bytes(std::uintptr_t payload) noexcept
{
  return payload % 8u == 0 ? 8u : payload % 8u == 4u ? 4u : payload % 4u == 2u ? 2u : 0u;
}

/// Largest distance in bytes a header of `h` bytes holds.
DEVALLOC_HOST_DEVICE constexpr std::uint64_t max_distance(unsigned h) noexcept
{
  return h >= 8 ? (~std::uint64_t{0} >> distance_shift) * 2u
                : ((std::uint64_t{1} << (8u * h - distance_shift)) - 1u) * 2u;
}

DEVALLOC_HOST_DEVICE constexpr std::uint64_t encode(std::uint64_t distance, std::uint64_t bits) noexcept
{
  return ((distance / 2u) << distance_shift) | bits;
}
DEVALLOC_HOST_DEVICE constexpr std::uint64_t distance_of(std::uint64_t header) noexcept
{
  return (header >> distance_shift) * 2u;
}

/// Where a segment goes: payload offset q (from the 16-byte aligned superblock base) and header
/// bytes h.
struct placement {
  std::uint64_t q = 0;
  unsigned h = 8;
};

/// The first payload offset at or after `cursor` (+ its header) with header size h: q % 8 == 0
/// (and q % alignment == 0 for alignment 16) for h == 8, q % 8 == 4 for 4, q % 4 == 2 for 2.
DEVALLOC_HOST_DEVICE constexpr std::uint64_t first_payload(std::uint64_t cursor, unsigned h,
                                                           std::size_t alignment) noexcept
{
  const std::uint64_t low = cursor + h;
  if (h == 8) {
    const std::uint64_t a = alignment > 8 ? alignment : 8;
    return (low + a - 1u) / a * a;
  }
  const std::uint64_t m = h == 4 ? 8u : 4u;  // q = k * m + h
  return low % m <= h ? low - low % m + h : low - low % m + m + h;
}

/// Places the next segment after `cursor` (end of the previous payload), whose previous payload is
/// at `prev` (the base, 0, for the first segment). `alignment` (16, 8, 4 or 2) is what the caller
/// must get: the smallest header it allows whose distance fits (§3.2: "reducing the header size to
/// four or two bytes if possible").
DEVALLOC_HOST_DEVICE constexpr placement place(std::uint64_t cursor, std::uint64_t prev, std::size_t alignment) noexcept
{
  for (unsigned h = alignment >= 8 ? 8u : static_cast<unsigned>(alignment); h < 8u; h *= 2u) {
    const std::uint64_t q = first_payload(cursor, h, alignment);
    if (q - prev <= max_distance(h)) { return {q, h}; }
  }
  return {first_payload(cursor, 8u, alignment), 8u};
}

/// Atomic view of the header of the segment whose payload is at `payload` (see the file comment).
class header_ref {
 public:
  DEVALLOC_DEVICE explicit header_ref(void* payload) noexcept
      : at_(static_cast<char*>(payload)), h_(header_bytes(reinterpret_cast<std::uintptr_t>(payload)))
  {}

  DEVALLOC_DEVICE unsigned bytes() const noexcept { return h_; }

  /// The header's value (acquire: the writes before the free that set a bit it shows).
  DEVALLOC_DEVICE std::uint64_t load() const noexcept
  {
    if (h_ == 8) { return device_atomic<std::uint64_t>(*word64()).load(memory_order_acquire); }
    const std::uint32_t w = device_atomic<std::uint32_t>(*word32()).load(memory_order_acquire);
    return h_ == 4 ? w : (w & 0xffffu);
  }

  /// Replaces the header by `desired` if it is `expected` (acq_rel); else `expected` = the header.
  DEVALLOC_DEVICE bool cas(std::uint64_t& expected, std::uint64_t desired) const noexcept
  {
    if (h_ == 8) {
      return device_atomic<std::uint64_t>(*word64()).compare_exchange_strong(expected, desired, memory_order_acq_rel,
                                                                             memory_order_acquire);
    }
    device_atomic<std::uint32_t> word(*word32());
    if (h_ == 4) {
      auto e = static_cast<std::uint32_t>(expected);
      const bool ok = word.compare_exchange_strong(e, static_cast<std::uint32_t>(desired), memory_order_acq_rel,
                                                   memory_order_acquire);
      expected = e;
      return ok;
    }
    std::uint32_t seen = word.load(memory_order_acquire);
    for (;;) {
      if ((seen & 0xffffu) != (expected & 0xffffu)) {
        expected = seen & 0xffffu;
        return false;
      }
      const std::uint32_t want = (seen & 0xffff0000u) | static_cast<std::uint32_t>(desired & 0xffffu);
      if (word.compare_exchange_weak(seen, want, memory_order_acq_rel, memory_order_acquire)) { return true; }
    }
  }

  /// Writes the header of a new segment (relaxed: the caller's barrier publishes it).
  DEVALLOC_DEVICE void init(std::uint64_t value) const noexcept
  {
    if (h_ == 8) {
      device_atomic<std::uint64_t>(*word64()).store(value, memory_order_relaxed);
    } else if (h_ == 4) {
      device_atomic<std::uint32_t>(*word32()).store(static_cast<std::uint32_t>(value), memory_order_relaxed);
    } else {
      device_atomic<std::uint32_t> word(*word32());
      std::uint32_t seen = word.load(memory_order_relaxed);
      while (!word.compare_exchange_weak(seen, (seen & 0xffff0000u) | static_cast<std::uint32_t>(value & 0xffffu),
                                         memory_order_relaxed, memory_order_relaxed)) {}
    }
  }

 private:
  DEVALLOC_DEVICE std::uint64_t* word64() const noexcept { return reinterpret_cast<std::uint64_t*>(at_ - 8); }
  DEVALLOC_DEVICE std::uint32_t* word32() const noexcept
  {
    return reinterpret_cast<std::uint32_t*>(at_ - (h_ == 4 ? 4 : 2));
  }

  char* at_;
  unsigned h_;
};

}  // namespace segment
}  // namespace detail
DEVALLOC_NAMESPACE_END
