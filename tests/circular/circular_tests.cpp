// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// tests/circular/circular_tests.cpp
//
// Tests of the Circular family (creation/circular.hpp: CMalloc, CFMalloc, CMMalloc, CFMMalloc)
// and UnsafeWrap (creation/unsafe_wrap.hpp) beyond the conformance suite: the pre-split binary
// heap (eq. 1), split and merge, MAX_FRAG, reuse after free, the defragmenting slow path,
// concurrent alloc/free with divergent lanes, OOM counts and slots before/after free-all, bad
// input, per-multiprocessor sub-heaps, the wrap under concurrency, and detail::fixed_divisor (the
// segment lookup of destroy()). One source for both
// backends (g++ and, through a one-line .cu, nvcc); launches live in free functions.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <devalloc/creation/circular.hpp>
#include <devalloc/creation/unsafe_wrap.hpp>
#include <devalloc/detail/fixed_divisor.hpp>
#include <devalloc/devalloc.hpp>

#include "../support/misuse.hpp"
#include "../support/scenarios.hpp"

namespace devalloc::circular_testing {
namespace {

using namespace devalloc::testing;

struct chunk_record {
  std::uint64_t u;
  std::uint32_t state;
  std::uint64_t next;
};

/// The chunk list of the whole heap as one worker reads it, segment by segment (start, state and next
/// offset, all in units from the heap's start).
template <class Allocator>
std::vector<chunk_record> chunks_of(Allocator& allocator)
{
  using creation_type = typename Allocator::creation_policy;
  using header = typename creation_type::header;
  const creation_type c = allocator.handle().creation();
  const std::size_t capacity = c.total_units() + 1;
  buffer<std::uint64_t> out(3 * capacity + 1);
  std::uint64_t* o = out.data();
  launch(1, [=] DEVALLOC_DEVICE(std::size_t) {
    std::uint64_t n = 0;
    for (std::uint32_t s = 0; s < c.segments(); ++s) {
      const std::uint64_t start = c.segment_start(s);
      for (std::uint64_t u = start; u < c.segment_end(s) && n < capacity;) {
        const detail::chunk_view v = header::load(c.data() + 16 * u + 8);
        const std::uint64_t next = start + v.next;  // headers hold offsets from the segment's start
        o[1 + 3 * n] = u;
        o[2 + 3 * n] = v.state;
        o[3 + 3 * n] = next;
        ++n;
        if (next <= u) { break; }
        u = next;
      }
    }
    o[0] = n;
  });
  const std::vector<std::uint64_t> host = out.to_host();
  std::vector<chunk_record> result;
  for (std::uint64_t k = 0; k < host[0]; ++k) {
    result.push_back({host[1 + 3 * k], static_cast<std::uint32_t>(host[2 + 3 * k]), host[3 + 3 * k]});
  }
  return result;
}

template <class Allocator>
std::uint64_t unit_of(Allocator& allocator, std::uintptr_t p)
{
  return (p - reinterpret_cast<std::uintptr_t>(allocator.handle().creation().data())) / 16 - 1;
}

/// Worker i of `workers` allocates `bytes` once (lane 0 of each warp only, if `one_per_warp`) and
/// records the pointer and its multiprocessor id.
template <class Allocator>
void alloc_with_sm(Allocator& allocator, std::size_t workers, std::size_t bytes, std::vector<std::uintptr_t>& ptrs,
                   std::vector<std::uint32_t>& sms)
{
  auto handle = allocator.handle();
  buffer<std::uintptr_t> p(workers);
  buffer<std::uint32_t> s(workers);
  std::uintptr_t* pp = p.data();
  std::uint32_t* ss = s.data();
  launch(workers, [=] DEVALLOC_DEVICE(std::size_t i) {
    ss[i] = detail::sm_id();
    pp[i] = reinterpret_cast<std::uintptr_t>(handle.alloc(bytes));
  });
  ptrs = p.to_host();
  sms = s.to_host();
}

/// `workers` workers each allocate chunks of `bytes` in a loop of `rounds` until the request
/// total exceeds the heap several times (UnsafeWrap); returns nullptrs and misplaced pointers.
template <class Allocator>
std::pair<unsigned long long, unsigned long long> wrap_storm(Allocator& allocator, std::size_t workers,
                                                             std::size_t rounds, std::size_t bytes)
{
  auto handle = allocator.handle();
  const char* lo = handle.creation().data();
  const char* hi = lo + handle.creation().capacity();
  buffer<unsigned long long> c(2);
  unsigned long long* cc = c.data();
  launch(workers, [=] DEVALLOC_DEVICE(std::size_t) {
    for (std::size_t r = 0; r < rounds; ++r) {
      char* p = static_cast<char*>(handle.alloc(bytes));
      if (p == nullptr) {
        count(cc[0]);
      } else if (p < lo || p + bytes > hi || reinterpret_cast<std::uintptr_t>(p) % 16 != 0) {
        count(cc[1]);
      }
      handle.dealloc(p);
    }
  });
  return {c.get(0), c.get(1)};
}

/// The segments whose chunks are not merged: neither untouched (every chunk free, of the
/// pre-split size of eq. 1; the last segment's leftover chunk aside) nor free of two consecutive
/// free chunks. Each entry: segment index, chunks in it, adjacent free pairs in it.
struct unmerged_segment {
  std::uint32_t segment;
  std::size_t chunks;
  std::size_t free_pairs;
};

template <class Allocator>
std::vector<unmerged_segment> unmerged_segments(Allocator& allocator)
{
  const auto c = allocator.handle().creation();
  const std::vector<chunk_record> chunks = chunks_of(allocator);
  const std::uint64_t R = c.root_units();
  std::vector<unmerged_segment> result;
  std::size_t k = 0;
  for (std::uint32_t s = 0; s < c.segments(); ++s) {
    const std::uint64_t end = c.segment_end(s);
    const std::uint64_t presplit_size = R >> (s % c.levels());
    std::size_t in = 0, free_pairs = 0;
    bool untouched = true;
    for (bool previous_free = false; k < chunks.size() && chunks[k].u < end; ++k, ++in) {
      const bool is_free = chunks[k].state == detail::chunk_free;
      free_pairs += previous_free && is_free;
      previous_free = is_free;
      untouched =
        untouched && is_free && (chunks[k].u >= c.segments() * R || chunks[k].next - chunks[k].u == presplit_size);
    }
    if (!untouched && free_pairs != 0) { result.push_back({s, in, free_pairs}); }
  }
  return result;
}

std::string describe(const std::vector<unmerged_segment>& segments)
{
  std::string text;
  for (const unmerged_segment& s : segments) {
    text += " segment " + std::to_string(s.segment) + ": " + std::to_string(s.chunks) + " chunks, " +
            std::to_string(s.free_pairs) + " adjacent free pairs;";
  }
  return text;
}

/// Worker i allocates size(i, 0) bytes in a first launch; in a second launch the even workers free
/// theirs while the odd ones allocate and free `rounds` more chunks each (so frees meet registered
/// walkers); the odd workers' first chunks stay live and are returned.
template <class Allocator, class Size>
std::vector<std::uintptr_t> free_among_walkers(Allocator& allocator, std::size_t workers, std::size_t rounds, Size size)
{
  auto handle = allocator.handle();
  buffer<std::uintptr_t> first(workers);
  std::uintptr_t* table = first.data();
  launch(workers,
         [=] DEVALLOC_DEVICE(std::size_t i) { table[i] = reinterpret_cast<std::uintptr_t>(handle.alloc(size(i, 0))); });
  launch(workers, [=] DEVALLOC_DEVICE(std::size_t i) {
    if (i % 2 == 0) {
      handle.dealloc(reinterpret_cast<void*>(table[i]));
      table[i] = 0;
      return;
    }
    for (std::size_t r = 1; r <= rounds; ++r) { handle.dealloc(handle.alloc(size(i, r))); }
  });
  return first.to_host();
}

template <class A>
class CircularFamily : public ::testing::Test {};

using circular_presets =
  ::testing::Types<presets::circular, presets::circular_fused, presets::circular_multi, presets::circular_fused_multi>;
TYPED_TEST_SUITE(CircularFamily, circular_presets);

constexpr std::size_t small_heap = 1u << 20;

TYPED_TEST(CircularFamily, PresplitIsTheBinaryHeapOfEquationOne)
{
  TypeParam allocator(small_heap);
  const auto c = allocator.handle().creation();
  const std::vector<chunk_record> chunks = chunks_of(allocator);
  const std::uint64_t R = c.root_units();
  const std::uint32_t L = c.levels();
  ASSERT_GE(L, 1u);
  ASSERT_EQ(c.segments(), c.sub_heaps() * L);
  EXPECT_GE((R >> (L - 1)) * 16, TypeParam::creation_policy::config::min_presplit_bytes);
  // Walk the chunks in order: sub-heap h, level l has 2^l chunks of R / 2^l units (C(i) = R / 2^floor(log2 i)).
  std::size_t k = 0;
  std::uint64_t u = 0;
  for (std::uint32_t s = 0; s < c.segments(); ++s) {
    const std::uint32_t level = s % L;
    for (std::uint64_t j = 0; j < (std::uint64_t{1} << level); ++j, ++k) {
      ASSERT_LT(k, chunks.size());
      EXPECT_EQ(chunks[k].u, u);
      EXPECT_EQ(chunks[k].state, detail::chunk_free);
      EXPECT_EQ(chunks[k].next - chunks[k].u, R >> level) << "segment " << s << " chunk " << j;
      u = chunks[k].next;
    }
  }
  if (u < c.total_units()) {  // the leftover chunk
    ASSERT_EQ(chunks.size(), k + 1);
    EXPECT_EQ(chunks[k].next, c.total_units());
  } else {
    EXPECT_EQ(chunks.size(), k);
  }
  EXPECT_LT(c.total_units() - c.segments() * R, c.sub_heaps() * ((std::uint64_t{L} << L) + L + 1))
    << "too much left over";
}

TYPED_TEST(CircularFamily, AllocationSplitsAndFreeMergesBack)
{
  TypeParam allocator(small_heap);
  const auto c = allocator.handle().creation();
  const std::vector<chunk_record> before = chunks_of(allocator);
  // 100 bytes, padded to 112 by Shrink<16>: need = (112 + 8 + 15) / 16 = 8 units.
  const std::uintptr_t p = single_alloc(allocator, 100);
  ASSERT_NE(p, 0u);
  EXPECT_EQ(p % 16, 0u);
  const std::uint64_t u = unit_of(allocator, p);
  const auto where = std::find_if(before.begin(), before.end(), [&](const chunk_record& r) { return r.u == u; });
  ASSERT_NE(where, before.end()) << "the allocation does not start at a pre-split chunk";
  const std::vector<chunk_record> split = chunks_of(allocator);
  EXPECT_EQ(split.size(), before.size() + 1) << "the chunk was not split";
  const auto it = std::find_if(split.begin(), split.end(), [&](const chunk_record& r) { return r.u == u; });
  ASSERT_NE(it, split.end());
  EXPECT_EQ(it->state, detail::chunk_used);
  EXPECT_EQ(it->next, u + 8);
  EXPECT_EQ((it + 1)->state, detail::chunk_free);
  EXPECT_EQ((it + 1)->next, where->next);

  single_dealloc(allocator, p);
  const std::vector<chunk_record> merged = chunks_of(allocator);
  EXPECT_EQ(merged.size(), before.size()) << "free did not merge the chunk with its free remainder";
  const auto m = std::find_if(merged.begin(), merged.end(), [&](const chunk_record& r) { return r.u == u; });
  ASSERT_NE(m, merged.end());
  EXPECT_EQ(m->state, detail::chunk_free);
  EXPECT_EQ(m->next, where->next);
  // Reuse after free: the next request of the same size gets the same chunk back (hint = merged
  // chunk), when it comes from the same sub-heap (on a GPU the next launch may run on another SM).
  if (c.sub_heaps() == 1 || DEVALLOC_BACKEND_CPU) { EXPECT_EQ(single_alloc(allocator, 100), p); }
}

TYPED_TEST(CircularFamily, ChunksBelowMaxFragTimesTheRequestAreTakenWhole)
{
  TypeParam allocator(small_heap);
  const auto c = allocator.handle().creation();
  // A request of a little more than half the first segment: its chunk (R units) is taken whole.
  const std::uint64_t R = c.root_units();
  const std::size_t bytes = static_cast<std::size_t>((R / 2 + 1) * 16);
  const std::size_t chunks_before = chunks_of(allocator).size();
  const std::uintptr_t p = single_alloc(allocator, bytes);
  ASSERT_NE(p, 0u);
  const std::uint64_t u = unit_of(allocator, p);
  const std::vector<chunk_record> after = chunks_of(allocator);
  EXPECT_EQ(after.size(), chunks_before) << "a chunk of less than max_frag x the request was split";
  const auto it = std::find_if(after.begin(), after.end(), [&](const chunk_record& r) { return r.u == u; });
  ASSERT_NE(it, after.end());
  EXPECT_EQ(it->next - it->u, R);
  EXPECT_EQ(TypeParam::creation_policy::slots_in(R, R / 2 + 2), 1u);
  EXPECT_EQ(TypeParam::creation_policy::slots_in(100, 10), 10u);
  EXPECT_EQ(TypeParam::creation_policy::slots_in(9, 10), 0u);
  single_dealloc(allocator, p);
}

TYPED_TEST(CircularFamily, ConcurrentAllocAndFreeWithDivergentLanesNeverOverlap)
{
  TypeParam allocator(small_heap);
  // Small heap, many workers: splits, merges, merge sessions refused, defragmentation and OOM all happen.
  for (int round = 0; round < 3; ++round) {
    const auto r = live_allocations(allocator, 512, 6, mixed_size{700}, data_dependent_loop{});
    EXPECT_EQ(r.pattern_errors, 0u);
    EXPECT_EQ(r.overlaps, 0u);
    EXPECT_EQ(r.misaligned, 0u);
    unsigned long long nulls = 0;
    EXPECT_EQ(churn(allocator, 512, 6, mixed_size{400}, &nulls), 0u) << "a chunk was handed out twice";
    const auto odd = live_allocations(allocator, 512, 3, mixed_size{3000}, every_other_lane{});
    EXPECT_EQ(odd.pattern_errors, 0u);
    EXPECT_EQ(odd.overlaps, 0u);
  }
  EXPECT_EQ(allocator.stats().invalid_frees + allocator.stats().double_frees, 0u);
  // Everything was freed: the whole heap is available again (runs of free chunks count as one).
  TypeParam fresh(small_heap);
  EXPECT_EQ(allocator.getAvailableSlots(64), fresh.getAvailableSlots(64));
}

TYPED_TEST(CircularFamily, OutOfMemoryCountsAndSlotsBeforeAndAfterFreeAll)
{
  TypeParam allocator(small_heap);
  constexpr std::size_t chunk = 48;
  const std::size_t slots_before = allocator.getAvailableSlots(chunk);
  EXPECT_EQ(slots_before, device_available_slots(allocator, chunk));
  heap_filler<TypeParam> filler(allocator, chunk, 128);
  const fill_result first = filler.fill();
  EXPECT_EQ(first.workers_that_saw_null, 128u);
  EXPECT_EQ(allocator.stats().failed_allocations, 128u);
  EXPECT_EQ(first.overlaps, 0u);
  EXPECT_EQ(first.pattern_errors, 0u);
  EXPECT_LE(first.chunks, slots_before);
  EXPECT_GE(first.chunks, slots_before * 3 / 4) << "more than a quarter of the heap was wasted";
  EXPECT_LE(allocator.getAvailableSlots(chunk), slots_before - first.chunks);
  filler.free_fill();
  EXPECT_EQ(allocator.getAvailableSlots(chunk), slots_before) << "memory was lost by freeing";
  const fill_result again = filler.fill();
  EXPECT_GE(again.chunks, first.chunks * 9 / 10);
  EXPECT_EQ(again.overlaps, 0u);
  filler.free_fill();
  // One request of a whole segment after the chunks were freed by many workers: the merge runs
  // (or the defragmenting slow path) give the segment back as one chunk.
  const auto c = allocator.handle().creation();
  const std::size_t segment_bytes = static_cast<std::size_t>(c.root_units()) * 16 - 8;
  const std::uintptr_t big = single_alloc(allocator, segment_bytes);
  EXPECT_NE(big, 0u) << "free chunks of a segment were not merged back into one";
  single_dealloc(allocator, big);
  EXPECT_EQ(single_alloc(allocator, segment_bytes + 16 * c.total_units()), 0u);
}

TYPED_TEST(CircularFamily, ConcurrentFreesLeaveEverySegmentMerged)
{
  // A free-only launch after an alloc launch (live_allocations' last launch), many workers: every
  // free that finds its segment busy (a merge session, or walkers) marks it dirty, and the
  // session's owner or the segment's last walker merges the whole segment. When the launch ends no
  // segment has two free chunks in a row (issue 13: before, a free merged only with the chunks
  // after it, and only when nobody else was in its segment).
  TypeParam allocator(small_heap);
  for (int round = 0; round < 6; ++round) {
    const auto r = live_allocations(allocator, 2048, 4, mixed_size{256}, all_workers{});
    EXPECT_EQ(r.overlaps + r.pattern_errors, 0u);
    const std::vector<unmerged_segment> unmerged = unmerged_segments(allocator);
    EXPECT_TRUE(unmerged.empty()) << "round " << round << ":" << describe(unmerged);
  }
  EXPECT_EQ(allocator.stats().invalid_frees + allocator.stats().double_frees, 0u);
}

TYPED_TEST(CircularFamily, FreesAmongWalkersAreMergedWhenTheLastWalkerLeaves)
{
  TypeParam allocator(small_heap);
  for (int round = 0; round < 4; ++round) {
    const std::vector<std::uintptr_t> live = free_among_walkers(allocator, 2048, 3, mixed_size{200});
    const std::vector<unmerged_segment> unmerged = unmerged_segments(allocator);
    EXPECT_TRUE(unmerged.empty()) << "round " << round << ":" << describe(unmerged);
    dealloc_each(allocator, live);
    EXPECT_TRUE(unmerged_segments(allocator).empty()) << "round " << round << " after freeing the rest";
  }
  EXPECT_EQ(allocator.stats().invalid_frees + allocator.stats().double_frees, 0u);
}

TYPED_TEST(CircularFamily, ReuseLaunchesThenOneWholeSegmentPerSegment)
{
  // Conformance's ManyLaunchesReuseOneHeap on a small heap (40 launches that allocate, verify and
  // free; about half the heap live at once), then requests of a whole segment: after the free
  // launches each segment is one chunk.
  TypeParam allocator(small_heap);
  const auto c = allocator.handle().creation();
  for (int launch_index = 0; launch_index < 40; ++launch_index) {
    const auto r = live_allocations(allocator, 256, 4, mixed_size{1024}, all_workers{});
    EXPECT_EQ(r.returned_null, 0u) << "launch " << launch_index;
    EXPECT_EQ(r.overlaps + r.pattern_errors, 0u);
    const std::vector<unmerged_segment> unmerged = unmerged_segments(allocator);
    EXPECT_TRUE(unmerged.empty()) << "launch " << launch_index << ":" << describe(unmerged);
    if (::testing::Test::HasFailure()) { FAIL() << "stopped at launch " << launch_index; }
  }
  // Padded to 16 by Shrink<16>, plus the 8-byte header: exactly R units, one whole segment.
  const std::size_t segment_bytes = static_cast<std::size_t>(c.root_units()) * 16 - 16;
  std::vector<std::uintptr_t> whole;
  for (std::uint32_t s = 0; s < c.segments(); ++s) { whole.push_back(single_alloc(allocator, segment_bytes)); }
  EXPECT_EQ(std::count(whole.begin(), whole.end(), std::uintptr_t{0}), 0) << "a segment did not come back whole";
  dealloc_each(allocator, whole);
}

TYPED_TEST(CircularFamily, BadPointersAreReportedAndChangeNothing)
{
  TypeParam allocator(small_heap);
  const std::uintptr_t p = alloc_patterned(allocator, 64, 7u);
  const std::uintptr_t q = single_alloc(allocator, 64);
  ASSERT_NE(p, 0u);
  ASSERT_NE(q, 0u);
  single_dealloc(allocator, p + 8);  // not 16-aligned
  single_dealloc(allocator, p + 1);
  EXPECT_EQ(allocator.stats().invalid_frees, 2u);
  const std::uintptr_t data = reinterpret_cast<std::uintptr_t>(allocator.handle().creation().data());
  single_dealloc(allocator, data - 64);  // the control words: not owned
  EXPECT_EQ(allocator.stats().invalid_frees, 3u);
  single_dealloc(allocator, q);
  single_dealloc(allocator, q);  // double free: the header is free (or absorbed)
  EXPECT_EQ(allocator.stats().double_frees, 1u);
  EXPECT_EQ(pattern_errors_at(allocator, p, 64, 7u), 0u);
  single_dealloc(allocator, p);
  EXPECT_EQ(allocator.stats().double_frees, 1u);
  EXPECT_EQ(allocator.stats().invalid_frees, 3u);
  EXPECT_THROW(allocator.check_errors(), devalloc::error);
}

TYPED_TEST(CircularFamily, MultiVariantsServeEachMultiprocessorFromItsSubHeap)
{
  TypeParam allocator(8u << 20);
  const auto c = allocator.handle().creation();
  std::vector<std::uintptr_t> ptrs;
  std::vector<std::uint32_t> sms;
  alloc_with_sm(allocator, 2048, 64, ptrs, sms);
  std::size_t home = 0, total = 0;
  for (std::size_t i = 0; i < ptrs.size(); ++i) {
    if (ptrs[i] == 0) { continue; }
    ++total;
    const std::uint32_t sub = c.segment_of(unit_of(allocator, ptrs[i])) / c.levels();
    home += sub == sms[i] % c.sub_heaps();
  }
  EXPECT_EQ(total, ptrs.size());
  if (TypeParam::creation_policy::config::sub_heaps == 1) {
    EXPECT_EQ(c.sub_heaps(), 1u);
  } else {
    EXPECT_GT(c.sub_heaps(), 1u);
    EXPECT_EQ(home, total) << "an allocation left its multiprocessor's sub-heap although it had room";
  }
  dealloc_each(allocator, ptrs);
}

/// The header protocol of a claim (detail/chunk_header.hpp), one worker, for both layouts: a
/// claim leaves the header `claimed` with its old next (what walkers wait on), a second claim from
/// the same view fails, publish makes it `used` with the split's next, unclaim gives it back free.
template <class Header>
std::vector<std::uint64_t> claim_protocol()
{
  buffer<std::uint64_t> words(4);  // a header (8 bytes, 8-aligned) and room
  buffer<std::uint64_t> out(12);
  std::uint64_t* w = words.data();
  std::uint64_t* o = out.data();
  launch(1, [=] DEVALLOC_DEVICE(std::size_t) {
    void* h = w;
    Header::init(h, detail::chunk_free, 100);
    const detail::chunk_view free_view = Header::load(h);
    o[0] = free_view.state;
    o[1] = free_view.next;
    o[2] = Header::claim(h, free_view) ? 1 : 0;
    const detail::chunk_view claimed = Header::load(h);
    o[3] = claimed.state;
    o[4] = claimed.next;                         // the old next until publish
    o[5] = Header::claim(h, free_view) ? 1 : 0;  // a walker with the stale view loses
    Header::publish(h, free_view, 40);
    const detail::chunk_view used = Header::load(h);
    o[6] = used.state;
    o[7] = used.next;
    Header::init(h, detail::chunk_free, 100);  // claim and give back unsplit
    const detail::chunk_view again = Header::load(h);
    o[8] = Header::claim(h, again) ? 1 : 0;
    Header::unclaim(h, Header::claimed_next(h, again));
    const detail::chunk_view back = Header::load(h);
    o[9] = back.state;
    o[10] = back.next;
  });
  return out.to_host();
}

TEST(ChunkHeader, AClaimIsVisibleUntilItsClaimerPublishesTheSplit)
{
  for (const auto& got : {claim_protocol<detail::chunk_header_split>(), claim_protocol<detail::chunk_header_fused>()}) {
    EXPECT_EQ(got[0], detail::chunk_free);
    EXPECT_EQ(got[1], 100u);
    EXPECT_EQ(got[2], 1u) << "the first claim of a free header wins";
    EXPECT_EQ(got[3], detail::chunk_claimed) << "a claimed chunk must not read used before its split is linked";
    EXPECT_EQ(got[4], 100u);
    EXPECT_EQ(got[5], 0u) << "a claim from a stale view of a claimed header must fail";
    EXPECT_EQ(got[6], detail::chunk_used);
    EXPECT_EQ(got[7], 40u) << "publish links the remainder";
    EXPECT_EQ(got[8], 1u);
    EXPECT_EQ(got[9], detail::chunk_free) << "unclaim gives the chunk back free";
    EXPECT_EQ(got[10], 100u);
  }
}

/// Quotients by detail::fixed_divisor computed on the device, for dividends around multiples of
/// the divisor and at the type's ends.
template <class T>
void expect_fixed_divisor_quotients(const std::vector<T>& divisors)
{
  std::vector<T> xs;
  for (const T d : divisors) {
    for (const T k : {T{0}, T{1}, T{2}, T{1000}, static_cast<T>(~T{0} / d)}) {
      const T m = static_cast<T>(k * d);
      for (const T x : {m, static_cast<T>(m - 1), static_cast<T>(m + 1), static_cast<T>(m + d - 1)}) {
        xs.push_back(x);
      }
    }
    xs.push_back(~T{0});
    xs.push_back(static_cast<T>(~T{0} - 1));
  }
  const std::size_t n = xs.size();
  const std::size_t per = n / divisors.size();
  buffer<T> dev_x(n);
  buffer<T> dev_d(divisors.size());
  buffer<T> out(n);
  dev_x.assign(xs);
  dev_d.assign(divisors);
  T* px = dev_x.data();
  T* pd = dev_d.data();
  T* po = out.data();
  launch(n, [=] DEVALLOC_DEVICE(std::size_t i) { po[i] = detail::fixed_divisor<T>(pd[i / per]).quotient(px[i]); });
  const std::vector<T> got = out.to_host();
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_EQ(got[i], xs[i] / divisors[i / per]) << xs[i] << " / " << divisors[i / per];
  }
}

TEST(FixedDivisor, QuotientsEqualIntegerDivision)
{
  expect_fixed_divisor_quotients<std::uint32_t>({1u, 3u, 7u, 1000u, (1u << 31) + 11u, 0xFFFFFFFFu});
  expect_fixed_divisor_quotients<std::uint64_t>(
    {1ull, 3ull, 4096ull, 1000003ull, (1ull << 33) + 5ull, (1ull << 63) + 1ull, ~0ull});
}

TEST(Circular, PoolsWhoseSegmentsOutgrowThirtyTwoBitOffsetsAreRefused)
{
  // Offsets inside a segment are 32-bit (16-byte units): a 64 TiB pool has segments of more than
  // 2^32 units. The check comes before the heap is touched, so a pool that does not exist is enough.
  const pool_span huge{reinterpret_cast<void*>(std::uintptr_t{1} << 20), (std::size_t{64} << 40)};
  EXPECT_THROW((void)creation::Circular::init_heap(huge, stream_ref{}), devalloc::error);
  EXPECT_THROW((void)creation::CircularFused::init_heap(huge, stream_ref{}), devalloc::error);
}

TEST(UnsafeWrapPolicy, WrapsUnderConcurrencyAndStaysInsideTheHeap)
{
  presets::unsafe_wrap allocator(64u << 10);
  // 1024 workers x 16 requests of 256 B = 4 MiB through a 64 KiB heap: many concurrent wraps.
  const auto r = wrap_storm(allocator, 1024, 16, 256);
  EXPECT_EQ(r.first, 0u) << "a wrapping policy returned nullptr for a request that fits";
  EXPECT_EQ(r.second, 0u) << "a pointer outside the data area or misaligned";
  EXPECT_EQ(allocator.stats().failed_allocations, 0u);
  EXPECT_EQ(single_alloc(allocator, (64u << 10) + 1), 0u);
}

}  // namespace
}  // namespace devalloc::circular_testing
