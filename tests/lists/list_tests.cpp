// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// tests/lists/list_tests.cpp
//
// Tests of ScatterAlloc §4's list-based baselines (creation/list_first_fit.hpp,
// creation/list_per_sm.hpp; engine detail/list_heap.hpp) beyond the conformance suite: the size
// bins, carving from the frontier and giving the last chunk back to it, split on allocation and
// merge with the successor on free, the merge that recovers a fragmented heap before a request
// fails, what a second free of a merged-away chunk counts as, per-multiprocessor arenas and their
// fallback, and churn with divergent lanes on a tight heap. One source for both backends.
#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include <devalloc/creation/list_first_fit.hpp>
#include <devalloc/creation/list_per_sm.hpp>
#include <devalloc/devalloc.hpp>

#include "../support/misuse.hpp"
#include "../support/scenarios.hpp"

namespace devalloc::list_testing {
namespace {

using namespace devalloc::testing;

struct chunk_record {
  std::uint32_t u;
  std::uint32_t state;
  std::uint32_t size;
};

/// Arena a's chunks in address order up to its frontier, as one worker reads them; the frontier
/// is returned in `frontier`.
template <class Allocator>
std::vector<chunk_record> chunks_of(Allocator& allocator, std::uint32_t a, std::uint32_t& frontier)
{
  using heap_type = typename Allocator::creation_policy;
  const heap_type c = allocator.handle().creation();
  const std::size_t capacity = c.arena_end(a) - c.arena_start(a) + 1;
  buffer<std::uint32_t> out(3 * capacity + 2);
  std::uint32_t* o = out.data();
  launch(1, [=] DEVALLOC_DEVICE(std::size_t) {
    const std::uint32_t f = c.control()[a].frontier;
    std::uint32_t n = 0;
    for (std::uint32_t u = c.arena_start(a); u < f && n < capacity;) {
      const auto* h = reinterpret_cast<const typename heap_type::chunk_header*>(c.data() + 16 * std::size_t{u});
      const std::uint32_t size = static_cast<std::uint32_t>(h->info);
      o[2 + 3 * n] = u;
      o[3 + 3 * n] = static_cast<std::uint32_t>(h->info >> 32) & 3u;
      o[4 + 3 * n] = size;
      ++n;
      if (size == 0) { break; }
      u += size;
    }
    o[0] = n;
    o[1] = f;
  });
  const std::vector<std::uint32_t> host = out.to_host();
  frontier = host[1];
  std::vector<chunk_record> result;
  for (std::uint32_t k = 0; k < host[0]; ++k) { result.push_back({host[2 + 3 * k], host[3 + 3 * k], host[4 + 3 * k]}); }
  return result;
}

template <class Allocator>
std::uint32_t unit_of(Allocator& allocator, std::uintptr_t p)
{
  return static_cast<std::uint32_t>((p - reinterpret_cast<std::uintptr_t>(allocator.handle().creation().data())) / 16 -
                                    1);
}

/// One worker allocates `bytes` until it gets nullptr (at most `limit` times); returns the pointers.
template <class Allocator>
std::vector<std::uintptr_t> fill_by_one_worker(Allocator& allocator, std::size_t bytes, std::size_t limit)
{
  auto handle = allocator.handle();
  buffer<std::uintptr_t> out(limit + 1);
  std::uintptr_t* o = out.data();
  launch(1, [=] DEVALLOC_DEVICE(std::size_t) {
    std::size_t n = 0;
    while (n < limit) {
      void* p = handle.alloc(bytes);
      if (p == nullptr) { break; }
      o[1 + n++] = reinterpret_cast<std::uintptr_t>(p);
    }
    o[0] = n;
  });
  const std::vector<std::uintptr_t> host = out.to_host();
  return std::vector<std::uintptr_t>(host.begin() + 1, host.begin() + 1 + static_cast<std::ptrdiff_t>(host[0]));
}

/// One worker frees the pointers in the order given.
template <class Allocator>
void free_in_order(Allocator& allocator, const std::vector<std::uintptr_t>& ps)
{
  auto handle = allocator.handle();
  buffer<std::uintptr_t> table(ps.size());
  table.assign(ps);
  const std::uintptr_t* t = table.data();
  const std::size_t n = ps.size();
  launch(1, [=] DEVALLOC_DEVICE(std::size_t) {
    for (std::size_t i = 0; i < n; ++i) { handle.dealloc(reinterpret_cast<void*>(t[i])); }
  });
}

constexpr std::size_t small_heap = 1u << 20;
using list_heap_type = creation::ListFirstFit;
constexpr std::uint32_t used = list_heap_type::used;
constexpr std::uint32_t listed = list_heap_type::listed;

TEST(ListBins, ClassesAreOrderedAndEveryChunkOfAFittingBinFits)
{
  using bins = detail::list_bins;
  for (std::uint32_t b = 1; b < bins::count; ++b) {
    EXPECT_EQ(bins::of(bins::lower(b)), b) << b;
    if (b > 1) { EXPECT_LT(bins::lower(b - 1), bins::lower(b)) << b; }
  }
  EXPECT_EQ(bins::of(0xFFFFFFFEu), bins::count - 1);
  for (std::uint32_t need = 2; need < 100000; need += 1 + need / 7) {
    const std::uint32_t b = bins::first_fitting(need);
    EXPECT_GE(bins::lower(b), need) << need;
    EXPECT_LE(bins::of(need), b) << need;
    EXPECT_LE(b, bins::of(need) + 1) << need;
  }
}

TEST(ListFirstFit, CarvesFromTheFrontierAndTheLastChunkGoesBack)
{
  presets::list_first_fit allocator(small_heap);
  // 100 bytes, padded to 112 by Shrink<16>: need = 112 / 16 + 1 = 8 units.
  const std::uintptr_t p = single_alloc(allocator, 100);
  const std::uintptr_t q = single_alloc(allocator, 100);
  ASSERT_NE(p, 0u);
  ASSERT_NE(q, 0u);
  EXPECT_EQ(p % 16, 0u);
  EXPECT_EQ(unit_of(allocator, p), 0u);
  EXPECT_EQ(unit_of(allocator, q), 8u);
  std::uint32_t frontier = 0;
  std::vector<chunk_record> chunks = chunks_of(allocator, 0, frontier);
  EXPECT_EQ(frontier, 16u);
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(chunks[0].state, used);
  EXPECT_EQ(chunks[0].size, 8u);
  // Freeing the last chunk gives it back to the wilderness; freeing p then too (its successor is
  // the frontier now).
  single_dealloc(allocator, q);
  chunks_of(allocator, 0, frontier);
  EXPECT_EQ(frontier, 8u);
  single_dealloc(allocator, p);
  chunks = chunks_of(allocator, 0, frontier);
  EXPECT_EQ(frontier, 0u);
  EXPECT_TRUE(chunks.empty());
  // A second free of a chunk given back has no chunk start any more: an invalid free, nothing changed.
  single_dealloc(allocator, q);
  EXPECT_EQ(allocator.stats().invalid_frees, 1u);
  EXPECT_EQ(allocator.stats().double_frees, 0u);
  EXPECT_NE(check_errors_message(allocator).find("1 invalid free"), std::string::npos);
  EXPECT_EQ(single_alloc(allocator, 100), p);
}

TEST(ListFirstFit, AllocationSplitsAFreeChunkAndFreeMergesItsSuccessor)
{
  presets::list_first_fit allocator(small_heap);
  const std::uintptr_t big = single_alloc(allocator, 1008);  // 64 units
  const std::uintptr_t keep = single_alloc(allocator, 48);   // 4 units, keeps `big` off the frontier
  ASSERT_NE(big, 0u);
  ASSERT_NE(keep, 0u);
  single_dealloc(allocator, big);
  std::uint32_t frontier = 0;
  std::vector<chunk_record> chunks = chunks_of(allocator, 0, frontier);
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(chunks[0].state, listed);
  EXPECT_EQ(chunks[0].size, 64u);
  // First fit over the bins: the 8-unit request finds the 64-unit chunk and splits it.
  const std::uintptr_t small = single_alloc(allocator, 100);
  EXPECT_EQ(small, big);
  chunks = chunks_of(allocator, 0, frontier);
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[0].state, used);
  EXPECT_EQ(chunks[0].size, 8u);
  EXPECT_EQ(chunks[1].state, listed);
  EXPECT_EQ(chunks[1].size, 56u);
  EXPECT_EQ(chunks[2].state, used);
  // Free: the remainder is the top of its bin, so the freed chunk merges with it.
  single_dealloc(allocator, small);
  chunks = chunks_of(allocator, 0, frontier);
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(chunks[0].state, listed);
  EXPECT_EQ(chunks[0].size, 64u);
  // A chunk one unit larger than the request is taken whole (a 1-unit remainder holds no payload).
  EXPECT_EQ(single_alloc(allocator, 1008 - 16), big);
  chunks = chunks_of(allocator, 0, frontier);
  EXPECT_EQ(chunks[0].size, 64u);
  EXPECT_EQ(chunks[0].state, used);
  single_dealloc(allocator, big);
  single_dealloc(allocator, keep);
  EXPECT_EQ(allocator.getAvailableSlots(64), device_available_slots(allocator, 64));
  EXPECT_NO_THROW(allocator.check_errors());
}

TEST(ListFirstFit, AMergeRecoversAFragmentedHeapBeforeARequestFails)
{
  presets::list_first_fit allocator(small_heap);
  const std::size_t slots = allocator.getAvailableSlots(64);
  // Fill the heap with 64-byte chunks, then free them in address order: each finds its successor
  // used, so nothing merges on free (except the last ones, which go back to the wilderness).
  const std::vector<std::uintptr_t> ps = fill_by_one_worker(allocator, 64, 1u << 20);
  ASSERT_GT(ps.size(), small_heap / 128);
  EXPECT_EQ(ps.size(), slots);
  free_in_order(allocator, ps);
  std::uint32_t frontier = 0;
  const std::vector<chunk_record> fragments = chunks_of(allocator, 0, frontier);
  EXPECT_GT(fragments.size(), ps.size() / 2) << "the frees were expected to leave fragments";
  EXPECT_EQ(allocator.getAvailableSlots(64), slots) << "a run of free chunks counts as merged";
  // Half the heap in one request: only a merge of the fragments can serve it.
  const std::uintptr_t half = single_alloc(allocator, small_heap / 2);
  ASSERT_NE(half, 0u) << "the merge did not recover the fragmented heap";
  EXPECT_EQ(allocator.stats().failed_allocations, 1u) << "only the fill's last request may fail";
  single_dealloc(allocator, half);
  EXPECT_EQ(allocator.getAvailableSlots(64), slots);
  // ... and the heap fills to the same count again.
  const std::vector<std::uintptr_t> again = fill_by_one_worker(allocator, 64, 1u << 20);
  EXPECT_EQ(again.size(), ps.size());
  free_in_order(allocator, again);
  EXPECT_NO_THROW(allocator.check_errors());
}

/// One worker allocates `bytes` until nullptr (at most n - 1 times): the pointers in out (0 after
/// the last), the worker's multiprocessor in sm[0].
template <class Handle>
void fill_from_one_multiprocessor(Handle handle, std::size_t bytes, std::uintptr_t* o, std::size_t n, std::uint32_t* s)
{
  launch(1, [=] DEVALLOC_DEVICE(std::size_t) {
    s[0] = detail::sm_id();
    for (std::size_t k = 0; k + 1 < n; ++k) {
      void* p = handle.alloc(bytes);
      o[k] = reinterpret_cast<std::uintptr_t>(p);
      if (p == nullptr) { break; }
    }
  });
}

TEST(ListPerSM, EachMultiprocessorAllocatesInItsArenaAndFallsBackToTheOthers)
{
  presets::list_per_sm allocator(std::size_t{8} << 20);
  const auto c = allocator.handle().creation();
  ASSERT_GT(c.arenas(), 1u);
  auto handle = allocator.handle();
  // One worker fills the heap with 16 KiB chunks: its own arena first, then the others'.
  constexpr std::size_t bytes = 16384;
  buffer<std::uintptr_t> out(4096);
  buffer<std::uint32_t> sm(1);
  std::uintptr_t* o = out.data();
  std::uint32_t* s = sm.data();
  fill_from_one_multiprocessor(handle, bytes, o, 4096, s);
  const std::vector<std::uintptr_t> ps = out.to_host();
  const std::uint32_t home = sm.get(0) % c.arenas();
  std::vector<std::uintptr_t> got;
  std::set<std::uint32_t> arenas_used;
  for (std::uintptr_t p : ps) {
    if (p == 0) { break; }
    got.push_back(p);
    arenas_used.insert(c.arena_of(unit_of(allocator, p)));
  }
  ASSERT_FALSE(got.empty());
  EXPECT_EQ(c.arena_of(unit_of(allocator, got[0])), home) << "the first chunk must come from the caller's arena";
  EXPECT_EQ(arenas_used.size(), c.arenas()) << "the fallback must reach every arena before failing";
  EXPECT_EQ(allocator.getAvailableSlots(bytes), 0u);
  EXPECT_EQ(allocator.stats().failed_allocations, 1u);
  dealloc_each(allocator, got);
  EXPECT_NE(single_alloc(allocator, bytes), 0u);
  EXPECT_NO_THROW(allocator.check_errors());
}

template <class A>
class ListHeaps : public ::testing::Test {};
using list_presets = ::testing::Types<presets::list_first_fit, presets::list_per_sm>;
TYPED_TEST_SUITE(ListHeaps, list_presets);

TYPED_TEST(ListHeaps, ChurnWithDivergentLanesOnATightHeapNeverCorruptsOrFails)
{
  // Live data up to about a third of the heap, sizes up to 2 KiB, allocated and freed by every
  // other lane and in data-dependent loops: splits, merges on free and merges on the slow path
  // all run concurrently.
  constexpr std::size_t workers = scale::heap_bytes / 16384;  // 4 live chunks of 1 KiB on average each
  TypeParam allocator(scale::heap_bytes);
  unsigned long long nulls = 0;
  const unsigned long long errors = churn(allocator, workers, 24, mixed_size{2048}, &nulls);
  EXPECT_EQ(errors, 0u) << "a chunk was handed out twice";
  EXPECT_EQ(nulls, 0u);
  const auto r = live_allocations(allocator, workers, 4, mixed_size{2048}, every_other_lane{});
  EXPECT_EQ(r.returned_null, 0u);
  EXPECT_EQ(r.overlaps, 0u);
  EXPECT_EQ(r.pattern_errors, 0u);
  EXPECT_EQ(allocator.stats().double_frees + allocator.stats().invalid_frees, 0u);
}

TYPED_TEST(ListHeaps, EveryFreeChunkComesBackAfterManyRoundsOfMixedSizes)
{
  constexpr std::size_t workers = scale::heap_bytes / 32768;  // a quarter of the heap live
  TypeParam allocator(scale::heap_bytes);
  const std::size_t slots = allocator.getAvailableSlots(256);
  for (int round = 0; round < 10; ++round) {
    const auto r = live_allocations(allocator, workers, 4, mixed_size{4000}, all_workers{});
    ASSERT_EQ(r.returned_null, 0u) << "round " << round;
    ASSERT_EQ(r.overlaps, 0u);
  }
  EXPECT_EQ(allocator.getAvailableSlots(256), slots) << "memory was lost";
  EXPECT_EQ(allocator.getAvailableSlots(256), device_available_slots(allocator, 256));
}

}  // namespace
}  // namespace devalloc::list_testing
