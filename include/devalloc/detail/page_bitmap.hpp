// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/detail/page_bitmap.hpp
//
// A bitmap of units (pages) in 64-bit words, one bit per unit, a set bit = the unit is taken. The
// owner of a unit is whoever set its bit; nothing else grants a unit. Used by creation::Scatter as
// its free-page map (docs/scatter.md, "Free pages"); reusable by any policy that hands out units
// of a fixed size one at a time or in runs.
//
//   * claim_one  — one clear bit near a start position (claim_some for one unit): a blind fetch_or
//                  at the start position first (one latency where the map is free there), else
//                  the next words read a few at once (independent loads, about one memory
//                  latency) and a clear bit of the first word that has one taken by fetch_or; a
//                  lost race retries in the same word with the value the fetch_or returned
//                  (lock-free: each failure shows a bit someone else took).
//   * claim_run  — n consecutive units from a given first unit: fetch_or word by word, rolled back
//                  on the first conflict (a unit that was already taken).
//   * find_run   — n consecutive clear bits from a start word onwards (runs may cross words; a
//                  run of n <= 64 inside one word is found with shifts, not bit by bit), claimed
//                  with claim_run; a conflict re-reads and goes on.
//   * claim_group — one free aligned group of n units (units [g n, g n + n)), claimed with claim_run.
//   * release    — clears bits (fetch_and).
//
// Memory order (device scope): a claim is acquire and a release is release, so whoever claims a
// unit sees everything its previous owner did before releasing it.
#pragma once

#include <cstdint>

#include "atomic.hpp"
#include "platform.hpp"
#include "warp.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace detail {

/// Bit tricks on 64-bit words (CUDA intrinsics on the device, builtins on the host).
DEVALLOC_HOST_DEVICE DEVALLOC_FORCEINLINE unsigned lowest_bit64(std::uint64_t x) noexcept
{
#if defined(__CUDA_ARCH__)
  return static_cast<unsigned>(__ffsll(static_cast<long long>(x)) - 1);
#else
  return static_cast<unsigned>(__builtin_ctzll(x));
#endif
}

/// Index of the highest set bit of x (x != 0).
DEVALLOC_HOST_DEVICE DEVALLOC_FORCEINLINE unsigned highest_bit64(std::uint64_t x) noexcept
{
#if defined(__CUDA_ARCH__)
  return 63u - static_cast<unsigned>(__clzll(static_cast<long long>(x)));
#else
  return 63u - static_cast<unsigned>(__builtin_clzll(x));
#endif
}

/// Number of trailing one bits of x (64 if every bit is set).
DEVALLOC_HOST_DEVICE DEVALLOC_FORCEINLINE unsigned trailing_ones64(std::uint64_t x) noexcept
{
  return ~x == 0 ? 64u : lowest_bit64(~x);
}

/// Number of leading one bits of x (64 if every bit is set).
DEVALLOC_HOST_DEVICE DEVALLOC_FORCEINLINE unsigned leading_ones64(std::uint64_t x) noexcept
{
  if (~x == 0) { return 64u; }
#if defined(__CUDA_ARCH__)
  return static_cast<unsigned>(__clzll(static_cast<long long>(~x)));
#else
  return static_cast<unsigned>(__builtin_clzll(~x));
#endif
}

/// Mask of bits [lo, lo + n) of a word, lo < 64, 1 <= n <= 64 - lo.
DEVALLOC_HOST_DEVICE DEVALLOC_FORCEINLINE std::uint64_t bit_range64(unsigned lo, unsigned n) noexcept
{
  return (n >= 64u ? ~std::uint64_t{0} : ((std::uint64_t{1} << n) - 1u)) << lo;
}

/// Bit i of the result is set iff bits i .. i + n - 1 of `free_bits` are all set (1 <= n <= 64).
DEVALLOC_HOST_DEVICE DEVALLOC_FORCEINLINE std::uint64_t run_starts64(std::uint64_t free_bits, unsigned n) noexcept
{
  std::uint64_t t = free_bits;
  unsigned have = 1;  // t marks starts of runs of `have` set bits
  while (have < n && t != 0) {
    const unsigned step = n - have < have ? n - have : have;
    t &= t >> step;
    have += step;
  }
  return t;
}

/// Counts the runs of `n` units that fit in the free stretches of a map read word by word, in
/// order (bit set = taken): a stretch is cut by taken units and by the map's end, and holds
/// stretch / n runs. A word costs one step per free stretch it holds (trailing_ones64), not one
/// per bit: a count over the map of an 8 GiB heap of 256-byte units is 2^19 words. Used by
/// getAvailableSlots of creation::Runs (device: one thread reads the whole map; host: a copy).
struct free_stretch_counter {
  std::uint64_t n;            ///< units a run takes (0: counts nothing)
  std::uint64_t stretch = 0;  ///< free units ending at the last bit read
  std::uint64_t runs = 0;     ///< runs of closed stretches

  /// The next word of the map; `valid` are the bits of it that stand for units (page_bitmap::valid:
  /// the low bits, all 64 but in the last word).
  DEVALLOC_HOST_DEVICE void add_word(std::uint64_t word, std::uint64_t valid) noexcept
  {
    const unsigned bits = ~valid == 0 ? 64u : trailing_ones64(valid);
    const std::uint64_t free_bits = ~word & valid;
    const std::uint64_t taken_bits = word & valid;
    unsigned pos = 0;
    while (pos < bits) {
      const unsigned f = trailing_ones64(free_bits >> pos);  // free units from pos (< 64 - pos unless all)
      const unsigned free_here = f < bits - pos ? f : bits - pos;
      stretch += free_here;
      pos += free_here;
      if (pos >= bits) { break; }
      close();
      const unsigned t = trailing_ones64(taken_bits >> pos);
      pos += t < bits - pos ? t : bits - pos;
    }
  }
  /// Ends the current stretch (a taken unit, or the map's end).
  DEVALLOC_HOST_DEVICE void close() noexcept
  {
    if (n != 0) { runs += stretch / n; }
    stretch = 0;
  }
  /// The count, after the map's last word.
  DEVALLOC_HOST_DEVICE std::uint64_t finish() noexcept
  {
    close();
    return runs;
  }
};

/// View of a page bitmap: `words` 64-bit words covering `units` units (the bits of the last word
/// beyond `units` are never handed out). Trivially copyable; the words live in the caller's memory
/// and start zero (every unit free).
class page_bitmap {
 public:
  static constexpr std::uint32_t none = 0xFFFFFFFFu;
  /// Words one claim_one round reads together.
  static constexpr std::uint32_t batch = 4;
  /// Pages a word holds and units a page has, as detail::page_groups names them (a page is a unit).
  static constexpr std::uint32_t pages_per_word = 64;
  static constexpr std::uint32_t units_per_page = 1;
  /// Lost claims of one find_run whose words it reads again without charging them to its budget.
  static constexpr std::uint32_t lost_rereads = 64;

  page_bitmap() = default;
  DEVALLOC_HOST_DEVICE page_bitmap(std::uint64_t* words, std::uint32_t units) noexcept
      : words_(words), units_(units), count_((units + 63u) / 64u)
  {}

  DEVALLOC_HOST_DEVICE static constexpr std::uint32_t words_for(std::uint32_t units) noexcept
  {
    return (units + 63u) / 64u;
  }
  DEVALLOC_HOST_DEVICE std::uint32_t word_count() const noexcept { return count_; }
  DEVALLOC_HOST_DEVICE std::uint32_t units() const noexcept { return units_; }
  DEVALLOC_HOST_DEVICE std::uint64_t* words() const noexcept { return words_; }

  /// Bits of word w that stand for units.
  DEVALLOC_HOST_DEVICE std::uint64_t valid(std::uint32_t w) const noexcept
  {
    const std::uint32_t rest = units_ - w * 64u;
    return rest >= 64u ? ~std::uint64_t{0} : bit_range64(0, rest);
  }

  /// Whether unit u is taken (a snapshot; `order` acquire pairs with a release mark()).
  DEVALLOC_HOST_DEVICE bool taken(std::uint32_t u, cuda::std::memory_order order = memory_order_relaxed) const noexcept
  {
    return ((device_atomic<std::uint64_t>(words_[u / 64u]).load(order) >> (u % 64u)) & 1u) != 0;
  }

  /// Host and device. Whether unit u is taken in a copy of the map's words.
  DEVALLOC_HOST_DEVICE static bool taken_in(const std::uint64_t* words, std::uint32_t u) noexcept
  {
    return ((words[u / 64u] >> (u % 64u)) & 1u) != 0;
  }

  /// Device. Sets unit u's bit whatever it was (`order` release: what the caller wrote before is
  /// visible to whoever sees the bit with an acquire taken()).
  DEVALLOC_DEVICE void mark(std::uint32_t u, cuda::std::memory_order order = memory_order_release) const noexcept
  {
    device_atomic<std::uint64_t>(words_[u / 64u]).fetch_or(std::uint64_t{1} << (u % 64u), order);
  }

  /// Device. Claims one free unit, looking at up to `max_words` words from the word of unit
  /// `start` (wrapping), `batch` words per memory latency; inside a word it takes the first free
  /// bit at or after start's bit (cyclically), so claimers that start at different units of one
  /// word rarely collide. Returns the unit, or `none` if the words looked at had no free unit.
  DEVALLOC_DEVICE std::uint32_t claim_one(std::uint32_t start, std::uint32_t max_words) const noexcept
  {
    const word_claim got = claim_some(start, 1u, max_words);
    return got.word == none ? none : got.word * 64u + lowest_bit64(got.bits);
  }

  /// Result of claim_some: the word and the bits of it that the call took.
  struct word_claim {
    std::uint32_t word;  ///< `none`: no free unit in the words looked at
    std::uint64_t bits;
    std::uint32_t used = 0;  ///< taken units of `word` right after the claim (a sample of the map's fill)
  };

  /// Device. Claims up to `want` (1..64) free units of one word: the start word first, blind (a
  /// fetch_or of the `want` bits from start's bit onwards, cyclically, without reading the word
  /// first: a bit that was taken already stays taken and is not the caller's), then, knowing the
  /// word from that fetch_or's value, the rest of its free bits up to `want`; if the start word
  /// had none, the first word with a free unit among up to `max_words` - 1 words after it
  /// (`batch` read per memory latency; its free bits taken from start's bit onwards, cyclically,
  /// with one fetch_or). `bits` may hold fewer than `want` (the word had fewer, or others took
  /// some meanwhile); the caller asks again. Consecutive units in one word: the states and pages
  /// the caller then touches are neighbours. Where the start word is free around start's bit (a
  /// map that is not full there) the claim is one atomic's latency instead of a read's and an
  /// atomic's.
  DEVALLOC_DEVICE word_claim claim_some(std::uint32_t start, std::uint32_t want, std::uint32_t max_words) const noexcept
  {
    if (count_ == 0 || want == 0 || max_words == 0) { return {none, 0}; }
    std::uint32_t w = (start % units_) / 64u;
    const unsigned rotate = start % 64u;
    if (max_words > count_) { max_words = count_; }
    const std::uint32_t n = want < 64u ? want : 64u;
    // The blind claim: bits rotate .. rotate + n - 1 (wrapping to bit 0) of the start word.
    const std::uint64_t upper = bit_range64(rotate, n < 64u - rotate ? n : 64u - rotate);
    const std::uint64_t blind = (upper | (n > 64u - rotate ? bit_range64(0, n - (64u - rotate)) : 0u)) & valid(w);
    const std::uint64_t before = device_atomic<std::uint64_t>(words_[w]).fetch_or(blind, memory_order_acquire);
    std::uint64_t value = before | blind;
    std::uint64_t got = blind & ~before;  // the blind bits that were free: the caller's now
    const std::uint32_t have = popcount64(got);
    if (have < n) { got |= take_free(w, value, n - have, rotate); }
    if (got != 0) { return {w, got, popcount64(value)}; }
    // The start word is full: the words after it, `batch` at a time.
    return scan_words(
      w, max_words, [this](std::uint64_t value, std::uint32_t wj) { return (~value & valid(wj)) != 0; },
      [&](std::uint32_t wj, std::uint64_t& known) { return take_free(wj, known, n, rotate); });
  }

  /// Device. The words after word w (up to max_words - 1 of them, wrapping), `batch` read per
  /// memory latency: the first whose value `has_room(value, word)` accepts and from which
  /// `take(word, value)` (value: the word as read, updated by the take) gets bits. Returns that
  /// word, the bits and the popcount of its value after the take, or {none, 0}. Shared by the
  /// claims of units (claim_some) and of pages of several units (detail::page_groups).
  template <class HasRoom, class Take>
  DEVALLOC_DEVICE word_claim scan_words(std::uint32_t w, std::uint32_t max_words, HasRoom has_room,
                                        Take take) const noexcept
  {
    if (max_words > count_) { max_words = count_; }
    for (std::uint32_t seen = 1; seen < max_words; seen += batch) {
      std::uint64_t values[batch];
      DEVALLOC_UNROLL
      for (std::uint32_t j = 0; j < batch; ++j) {
        const std::uint32_t wj = wrap(w + 1u + j);
        values[j] = seen + j < max_words ? atomic_load_relaxed(words_[wj]) : ~std::uint64_t{0};
      }
      // The words with room, found without a branch per word (a full map's scan, the failing
      // requests of a tight heap, reads batch after batch of full words), then one take for them,
      // not one unrolled copy per word: the word is picked from the registers by an unrolled
      // select (code size: every allocating kernel carries this loop).
      std::uint32_t with_free = 0;
      DEVALLOC_UNROLL
      for (std::uint32_t j = 0; j < batch; ++j) { with_free |= has_room(values[j], wrap(w + 1u + j)) ? 1u << j : 0u; }
      DEVALLOC_NO_UNROLL
      for (; with_free != 0; with_free &= with_free - 1u) {
        const std::uint32_t j = lowest_bit(with_free);
        const std::uint32_t wj = wrap(w + 1u + j);
        std::uint64_t known = values[0];
        DEVALLOC_UNROLL
        for (std::uint32_t i = 1; i < batch; ++i) { known = i == j ? values[i] : known; }
        const std::uint64_t bits = take(wj, known);
        if (bits != 0) { return {wj, bits, popcount64(known)}; }
      }
      w = wrap(w + batch);
    }
    return {none, 0};
  }

  /// Device. Claims unit u if it is free.
  DEVALLOC_DEVICE bool claim_unit(std::uint32_t u) const noexcept
  {
    const std::uint64_t mask = std::uint64_t{1} << (u % 64u);
    return (device_atomic<std::uint64_t>(words_[u / 64u]).fetch_or(mask, memory_order_acquire) & mask) == 0;
  }

  /// Device. Claims units [first, first + n) (n >= 1, inside the map), all or none. Returns
  /// `none` on success, else the first unit found taken (every bit this call set is cleared again).
  DEVALLOC_DEVICE std::uint32_t claim_run(std::uint32_t first, std::uint32_t n) const noexcept
  {
    // The words of the run `batch` at a time: their fetch_ors issued together (one latency for a
    // run of up to `batch` words, not one a word), then checked; on a conflict every bit this
    // call set is cleared again (the words of the batch it set bits in, and the batches before).
    const std::uint64_t end = static_cast<std::uint64_t>(first) + n;
    const std::uint32_t last_word = static_cast<std::uint32_t>((end - 1u) / 64u);
    for (std::uint32_t w0 = first / 64u; w0 <= last_word; w0 += batch) {
      std::uint64_t masks[batch];
      std::uint64_t olds[batch];
      DEVALLOC_UNROLL
      for (std::uint32_t j = 0; j < batch; ++j) {
        masks[j] = run_mask(first, end, w0 + j);
        olds[j] =
          masks[j] == 0 ? 0 : device_atomic<std::uint64_t>(words_[w0 + j]).fetch_or(masks[j], memory_order_acquire);
      }
      std::uint32_t conflict = none;
      DEVALLOC_UNROLL
      for (std::uint32_t j = batch; j-- > 0;) {
        if ((olds[j] & masks[j]) != 0) { conflict = (w0 + j) * 64u + lowest_bit64(olds[j] & masks[j]); }
      }
      if (conflict != none) {
        DEVALLOC_UNROLL
        for (std::uint32_t j = 0; j < batch; ++j) {
          const std::uint64_t mine = masks[j] & ~olds[j];
          if (mine != 0) { device_atomic<std::uint64_t>(words_[w0 + j]).fetch_and(~mine, memory_order_relaxed); }
        }
        if (w0 * 64u > first) { release(first, w0 * 64u - first, memory_order_relaxed); }
        return conflict;
      }
    }
    return none;
  }

  /// The bits of word w inside units [first, end) (0: none).
  DEVALLOC_HOST_DEVICE static std::uint64_t run_mask(std::uint32_t first, std::uint64_t end, std::uint32_t w) noexcept
  {
    const std::uint64_t lo = std::uint64_t{w} * 64u;
    const std::uint64_t from = first > lo ? first : lo;
    const std::uint64_t to = end < lo + 64u ? end : lo + 64u;
    return from >= to ? 0 : bit_range64(static_cast<unsigned>(from - lo), static_cast<unsigned>(to - from));
  }

  /// Device. Claims one aligned group of n units (units [g n, g n + n) for some g, 1 <= n <= 64),
  /// all or none: looks at up to `max_words` words from the word of unit `start` (wrapping; a
  /// group that crosses the map's end does not exist), finds the groups that are free in a word
  /// with shifts (run_starts64 on the aligned starts), a group that crosses into the next word
  /// by reading that word too, and takes a group with claim_run (a lost race goes on looking).
  /// Returns the group's first unit, or `none`. Groups at fixed places keep the map countable:
  /// a free group is a free group whoever looks (creation::Scatter's spans of pages).
  DEVALLOC_DEVICE std::uint32_t claim_group(std::uint32_t start, std::uint32_t n,
                                            std::uint32_t max_words) const noexcept
  {
    if (count_ == 0 || n == 0 || n > units_ || n > 64u) { return none; }
    const std::uint32_t end = units_ / n * n;  // units past the last whole group are never handed out
    if (max_words > count_) { max_words = count_; }
    std::uint32_t w = (start % units_) / 64u;
    for (std::uint32_t seen = 0; seen < max_words; ++seen, w = w + 1u == count_ ? 0u : w + 1u) {
      const std::uint32_t base = w * 64u;
      if (base >= end) { continue; }
      // Bit p: unit base + p starts a group (every n-th bit from the first group start, by doubling).
      std::uint64_t aligned = 1;
      for (std::uint32_t width = n; width < 64u; width *= 2u) { aligned |= aligned << width; }
      aligned <<= (n - base % n) % n;
      const std::uint64_t free_bits = ~atomic_load_relaxed(words_[w]) & valid(w);
      std::uint64_t starts = run_starts64(free_bits, n) & aligned;
      // A group that starts in this word's top n - 1 units and ends in the next word.
      std::uint32_t cross = none;
      if (n > 1u) {
        const std::uint64_t high = aligned & ~bit_range64(0, 65u - n);  // starts p > 64 - n
        if (high != 0) {
          const unsigned p = lowest_bit64(high);
          const std::uint32_t first = base + p;
          if (first + n <= end && (free_bits >> p) == (~std::uint64_t{0} >> p)) {
            const std::uint64_t next_free = ~atomic_load_relaxed(words_[w + 1u]) & valid(w + 1u);
            if ((next_free & bit_range64(0, p + n - 64u)) == bit_range64(0, p + n - 64u)) { cross = first; }
          }
        }
      }
      for (; starts != 0; starts &= starts - 1u) {
        const std::uint32_t first = base + lowest_bit64(starts);
        if (first + n > end) { break; }
        if (claim_run(first, n) == none) { return first; }
      }
      if (cross != none && claim_run(cross, n) == none) { return cross; }
    }
    return none;
  }
  /// Device. Releases units [first, first + n). `order`: release when the units' owner hands
  /// them back (the next claimer's acquire pairs with it); relaxed to undo a claim that failed.
  DEVALLOC_DEVICE void release(std::uint32_t first, std::uint32_t n,
                               cuda::std::memory_order order = memory_order_release) const noexcept
  {
    const std::uint64_t end = static_cast<std::uint64_t>(first) + n;
    std::uint32_t u = first;
    while (u < end) {
      const unsigned lo = u % 64u;
      const std::uint64_t rest = end - u;
      const unsigned len = rest < 64u - lo ? static_cast<unsigned>(rest) : 64u - lo;
      device_atomic<std::uint64_t>(words_[u / 64u]).fetch_and(~bit_range64(lo, len), order);
      u += len;
    }
  }

  /// Device. Finds and claims n consecutive free units, scanning up to `max_words` words (at most
  /// twice the map) from the word of unit `start` onwards, `batch` words read per memory latency;
  /// a run never spans the end of the map, after the last word the scan continues at word 0 (so
  /// count + n / 64 + 2 words from any start see every run). Returns the first unit, or `none`.
  /// (One word a latency, a request that found no run in a full map of 8 GiB / 256 B units read
  /// 65 000 words one after another: bench/diag/unit_runs.cu, 33-74 ms a tight launch.) A claim
  /// lost to another thread reads again from the word where its run started, uncharged for the
  /// first `lost_rereads` losses: charged, and with the carry of free units reset, a contended
  /// scan could end before its last word or skip a run reaching into the word it read again, and
  /// return `none` while a run was free (docs/notes/two-granularity-heap.md).
  /// (PageBitmap.ContendedFindRunsLeaveNoRunBehind checks that no run is left behind.)
  DEVALLOC_DEVICE std::uint32_t find_run(std::uint32_t start, std::uint32_t n, std::uint32_t max_words) const noexcept
  {
    if (count_ == 0 || n == 0 || n > units_) { return none; }
    if (max_words > 2u * count_) { max_words = 2u * count_; }
    std::uint32_t w = (start % units_) / 64u;
    std::uint32_t run = 0;  // free units ending at the top of the previous word (contiguous)
    std::uint32_t seen = 0;
    std::uint32_t lost = 0;  // lost claims read again without charge
    while (seen < max_words) {
      std::uint64_t values[batch];
      DEVALLOC_UNROLL
      for (std::uint32_t j = 0; j < batch; ++j) {
        values[j] = seen + j < max_words ? atomic_load_relaxed(words_[wrap(w + j)]) : ~std::uint64_t{0};
      }
      // The words of the batch in order, from registers (an unrolled select, not one unrolled copy
      // of the test per word: code size); a lost claim reads from its word again.
      DEVALLOC_NO_UNROLL
      for (std::uint32_t j = 0; j < batch && seen < max_words; ++j, ++seen) {
        std::uint64_t value = values[0];
        DEVALLOC_UNROLL
        for (std::uint32_t i = 1; i < batch; ++i) { value = i == j ? values[i] : value; }
        if (w == 0) { run = 0; }
        const std::uint64_t full_valid = valid(w);
        const std::uint64_t free_bits = ~value & full_valid;
        std::uint32_t first = none;
        const unsigned low = trailing_ones64(free_bits);
        if (run > 0 && run + low >= n) {
          first = w * 64u - run;
        } else if (n <= 64u) {
          const std::uint64_t starts = run_starts64(free_bits, n);
          if (starts != 0) { first = w * 64u + lowest_bit64(starts); }
        }
        if (first != none) {
          if (claim_run(first, n) == none) { return first; }
          // Lost a race: read again, in a new batch, from the word where the run started (its
          // bits and those of the words after it changed), for the first `lost_rereads` losses
          // without charging the words read again to the budget (so a contended scan still sees
          // every word once at least); later losses charge this word (each loss is another
          // claimer's progress, so the scan ends).
          if (lost < lost_rereads) {
            ++lost;
            seen -= w - first / 64u;  // the words from the run's first to this one, read again
            w = first / 64u;
          } else {
            ++seen;
          }
          run = 0;
          break;
        }
        if (free_bits == full_valid && full_valid == ~std::uint64_t{0}) {
          run += 64u;
        } else {
          run = free_bits == 0 ? 0u : leading_ones64(free_bits | ~full_valid) - (64u - popcount_valid(full_valid));
        }
        w = w + 1u == count_ ? 0u : w + 1u;
      }
    }
    return none;
  }

 private:
  /// Takes up to `want` of the free bits of word `w` whose value the caller last saw as `value`
  /// (the first free bits from bit `rotate` upwards, then from bit 0) with one fetch_or, again
  /// with the returned value while others took the chosen bits first (at most 64 times). Returns
  /// the bits taken (0: the word had no free unit); `value` ends as the word's last value seen,
  /// the bits taken included.
  DEVALLOC_DEVICE std::uint64_t take_free(std::uint32_t w, std::uint64_t& value, std::uint32_t want,
                                          unsigned rotate) const noexcept
  {
    // Every loop here rolled: inlined in claim_some five times (its start word and one copy per
    // word of its batch, until session 2026-12-06, twenty-third) with its loops unrolled, take_free
    // was 1 838 instructions (11 % of Scatter's alloc kernel) and 27 % of the instructions a tight
    // heap's launch executed (ncu, H100; docs/scatter.md, "The instruction cache").
    DEVALLOC_NO_UNROLL
    for (unsigned tries = 0; tries < 64u; ++tries) {
      const std::uint64_t free_bits = ~value & valid(w);
      if (free_bits == 0) { return 0; }
      const std::uint64_t above = free_bits & ~bit_range64(0, rotate);
      std::uint64_t mask = 0;
      std::uint32_t taken = 0;
      DEVALLOC_NO_UNROLL
      for (std::uint64_t f = above; f != 0 && taken < want; f &= f - 1u, ++taken) { mask |= f & (0u - f); }
      DEVALLOC_NO_UNROLL
      for (std::uint64_t f = free_bits & ~above; f != 0 && taken < want; f &= f - 1u, ++taken) { mask |= f & (0u - f); }
      const std::uint64_t before = device_atomic<std::uint64_t>(words_[w]).fetch_or(mask, memory_order_acquire);
      value = before | mask;
      const std::uint64_t got = mask & ~before;
      if (got != 0) { return got; }
    }
    return 0;
  }
  /// w % count_ for w < count_ + batch, without a division where count_ >= batch (a division per
  /// word read was 1.5 % of the instructions of Scatter's alloc kernel under mixed sizes).
  DEVALLOC_HOST_DEVICE DEVALLOC_FORCEINLINE std::uint32_t wrap(std::uint32_t w) const noexcept
  {
    if (w < count_) { return w; }
    return w - count_ < count_ ? w - count_ : w % count_;
  }

  DEVALLOC_HOST_DEVICE static unsigned popcount_valid(std::uint64_t valid_bits) noexcept
  {
    return valid_bits == ~std::uint64_t{0} ? 64u : trailing_ones64(valid_bits);
  }

  std::uint64_t* words_ = nullptr;
  std::uint32_t units_ = 0;
  std::uint32_t count_ = 0;
};

}  // namespace detail
DEVALLOC_NAMESPACE_END
