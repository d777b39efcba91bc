// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// tests/conformance/conformance.cpp
//
// The conformance suite: one set of tests, instantiated over every allocator factory in
// allocators.hpp, compiled once for the CPU backend (g++) and once, unchanged, for the CUDA
// backend (nvcc, through conformance.cu). Checks are chosen by each allocator's traits; a test is
// skipped only where the traits (and the policy's documentation) say the allocator does not do it.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "allocators.hpp"
#include "../support/misuse.hpp"
#include "../support/scenarios.hpp"

namespace devalloc::testing {
namespace {

template <class Factory>
class Conformance : public ::testing::Test {
 protected:
  using allocator_type = typename Factory::allocator;
  static constexpr creation_traits traits = allocator_type::traits;

  allocator_type make() { return Factory::make(scale::heap_bytes); }
};

TYPED_TEST_SUITE(Conformance, all_factories, factory_names);

template <class Result>
void expect_clean(const Result& r, const char* scenario)
{
  EXPECT_EQ(r.returned_null, 0u) << scenario << ": the heap had room for every request";
  EXPECT_EQ(r.pattern_errors, 0u) << scenario << ": data written to one allocation was changed by another";
  EXPECT_EQ(r.misaligned, 0u) << scenario << ": pointers not aligned to Allocator::alignment";
  EXPECT_EQ(r.overlaps, 0u) << scenario << ": live allocations overlap";
}

TYPED_TEST(Conformance, ConcurrentAllocationsAreDisjointAlignedAndKeepTheirData)
{
  auto allocator = this->make();
  const auto r = live_allocations(allocator, scale::workers, 4, mixed_size{256}, all_workers{});
  EXPECT_EQ(r.requested, scale::workers * 4);
  expect_clean(r, "all workers");
  EXPECT_EQ(allocator.stats().failed_allocations, 0u);
}

TYPED_TEST(Conformance, SubsetsOfAWarpAndDivergentLoopsAllocateCorrectly)
{
  auto allocator = this->make();
  expect_clean(live_allocations(allocator, scale::workers, 4, mixed_size{200}, every_other_lane{}), "every other lane");
  expect_clean(live_allocations(allocator, scale::workers, 4, mixed_size{200}, one_lane_per_warp{}),
               "one lane per warp");
  const auto loop = live_allocations(allocator, scale::workers, 11, mixed_size{200}, data_dependent_loop{});
  EXPECT_GT(loop.requested, scale::workers * 4);
  expect_clean(loop, "data-dependent loop");
}

TYPED_TEST(Conformance, AlignmentHoldsForEverySize)
{
  auto allocator = this->make();
  // Sizes 1..1000 cover odd sizes, sizes just above and below powers of two, and multi-word sizes.
  const auto r = live_allocations(allocator, scale::workers / 4, 2, mixed_size{1000}, all_workers{});
  expect_clean(r, "sizes 1..1000");
}

TYPED_TEST(Conformance, ChurnInsideOneLaunchNeverCorruptsData)
{
  auto allocator = this->make();
  unsigned long long nulls = 0;
  const unsigned long long errors = churn(allocator, scale::workers, 8, mixed_size{128}, &nulls);
  EXPECT_EQ(errors, 0u) << "a chunk freed and reallocated while still in use by its owner";
  EXPECT_EQ(nulls, 0u);
}

TYPED_TEST(Conformance, ManyLaunchesReuseOneHeap)
{
  auto allocator = this->make();
  // 40 launches that each allocate, verify and free: together they request several times the heap,
  // so this passes only if memory comes back (by dealloc, or by reset() where dealloc cannot).
  std::size_t requested = 0;
  for (int launch_index = 0; launch_index < 40; ++launch_index) {
    const auto r = live_allocations(allocator, scale::workers, 4, mixed_size{1024}, all_workers{});
    expect_clean(r, "launch");
    requested += r.requested;
    if constexpr (!TestFixture::traits.reuses_freed_memory) { allocator.reset(); }
    if (::testing::Test::HasFailure()) { FAIL() << "stopped at launch " << launch_index; }
  }
  static_assert(40 * scale::workers * 4 * 512 > scale::heap_bytes, "the test must request more than the heap in total");
  EXPECT_EQ(requested, 40 * scale::workers * 4);
}

TYPED_TEST(Conformance, RandomChurnOfMixedAndLargeSizesLosesNothing)
{
  using allocator_type = typename TestFixture::allocator_type;
  constexpr creation_traits traits = TestFixture::traits;
  if constexpr (traits.may_overlap_live) {
    GTEST_SKIP() << "documented: this creation policy hands out live memory again once it wraps around "
                    "(traits.may_overlap_live)";
  } else {
    // Sizes 1..5000 B and, one request in 16, up to twice the heap (runs of pages, requests that
    // cannot fit), any subset of a warp calling, frees racing with allocations; then everything
    // is freed. Three seeds, each a different mix; a failure names its seed (random_churn replays it).
    constexpr std::size_t probes[] = {16, 64, 3000, 70000};
    for (const std::uint32_t seed : {1u, 2u, 3u}) {
      SCOPED_TRACE("seed " + std::to_string(seed));
      auto allocator = this->make();
      std::size_t fresh_slots[4] = {};
      if constexpr (allocator_type::providesAvailableSlots) {
        for (int k = 0; k < 4; ++k) { fresh_slots[k] = allocator.getAvailableSlots(probes[k]); }
      }
      // The fresh heap's fill of 64 B (FillUntilOutOfMemory... checks that freeing it loses nothing).
      constexpr bool refill = traits.reuses_freed_memory && traits.exact_refill && !allocator_type::combines_requests;
      heap_filler<allocator_type> filler(allocator, 64, scale::fill_workers);
      std::size_t fresh_fill = 0;
      if constexpr (refill) {
        fresh_fill = filler.fill().chunks;
        filler.free_fill();
      }
      const random_churn_result r =
        random_churn(allocator, scale::workers, 40, 5000, 2 * scale::heap_bytes, seed, traits.frees_individually);
      EXPECT_EQ(r.pattern_errors, 0u) << "live allocations overlapped (data written to one was changed by another)";
      EXPECT_GT(r.allocations, 0u);
      if constexpr (traits.needs_pool) {
        // A heap of its own (not CUDA's process heap): a request above it fails, and the churn
        // asks for some (up to twice the heap, one request in 32).
        EXPECT_EQ(r.beyond_heap, 0u) << "requests of more than the heap's " << allocator.heap_bytes()
                                     << " B got memory";
        EXPECT_GT(r.returned_null, 0u) << "no request failed, though some asked for more than the heap";
      }
      if constexpr (!traits.frees_individually && traits.resettable) { allocator.reset(); }
      // Everything is free again: the heap offers what a fresh one offered, for every size.
      if constexpr (allocator_type::providesAvailableSlots && traits.reuses_freed_memory && traits.exact_refill) {
        for (int k = 0; k < 4; ++k) {
          EXPECT_EQ(allocator.getAvailableSlots(probes[k]), fresh_slots[k])
            << "slots of " << probes[k] << " B after the churn, against the fresh heap's";
        }
      }
      if constexpr (refill) {
        const fill_result after = filler.fill();
        filler.free_fill();
        EXPECT_EQ(after.chunks, fresh_fill) << "a fill of 64 B after the churn got a different count than before it";
        EXPECT_EQ(after.pattern_errors, 0u);
        EXPECT_EQ(after.overlaps, 0u);
      }
      if (::testing::Test::HasFailure()) { return; }
    }
  }
}

/// The body of FillUntilOutOfMemoryFreeAllAndFillAgainGivesTheSameCount.
template <class allocator_type>
void fill_free_fill(allocator_type& allocator)
{
  constexpr std::size_t chunk = 64;
  constexpr creation_traits traits = allocator_type::traits;
  heap_filler<allocator_type> filler(allocator, chunk, scale::fill_workers);

  std::size_t slots_before = 0;
  if constexpr (allocator_type::providesAvailableSlots) { slots_before = allocator.getAvailableSlots(chunk); }

  const fill_result first = filler.fill();
  EXPECT_EQ(first.workers_that_saw_null, scale::fill_workers) << "every worker must have run out of memory";
  EXPECT_EQ(first.pattern_errors, 0u);
  EXPECT_EQ(first.overlaps, 0u);
  if constexpr (traits.fills_half_the_heap) {
    EXPECT_GE(first.chunks * chunk, scale::heap_bytes / 2) << "less than half of the heap was usable";
  } else {
    // Documented (traits.fills_half_the_heap is false: the coalescing distribution policies, whose
    // superblocks' share of the heap is the creation policy's): the heap was usable at all; what
    // freeing loses is checked against this first fill below.
    EXPECT_GT(first.chunks, 0u) << "nothing of the heap was usable";
  }
  EXPECT_EQ(allocator.stats().failed_allocations, first.workers_that_saw_null)
    << "each worker's final nullptr is one failed allocation";
  if constexpr (allocator_type::providesAvailableSlots && !allocator_type::combines_requests) {
    EXPECT_GE(slots_before, first.chunks) << "more chunks were allocated than getAvailableSlots announced";
    if constexpr (traits.exact_available_slots) {
      EXPECT_EQ(allocator.getAvailableSlots(chunk), slots_before - first.chunks)
        << "each allocation must take exactly one slot";
    } else {  // documented: an allocation may take more than one slot's memory
      EXPECT_LE(allocator.getAvailableSlots(chunk), slots_before - first.chunks)
        << "each allocation must take at least one slot";
    }
  }

  filler.free_fill();
  if constexpr (traits.reuses_freed_memory) {
    if constexpr (allocator_type::providesAvailableSlots) {
      EXPECT_EQ(allocator.getAvailableSlots(chunk), slots_before) << "memory was lost by freeing";
    }
    const fill_result again = filler.fill();
    // Combined requests (XMallocSIMD) pack differently depending on which lanes arrive together.
    if constexpr (traits.exact_refill && !allocator_type::combines_requests) {
      EXPECT_EQ(again.chunks, first.chunks) << "memory was lost: the second fill got a different count";
    } else if constexpr (allocator_type::combines_requests) {
      // Stable on a GPU, where whole warps arrive together; on the CPU's warp emulator the lanes
      // arrive in random subsets, so the packing (and the count) varies from fill to fill, and only
      // the slot counts above measure what freeing lost.
      if (DEVALLOC_BACKEND_CUDA) {
        EXPECT_GE(again.chunks, first.chunks * 99 / 100) << "more than 1% of the heap was lost by freeing";
      } else if constexpr (traits.fills_half_the_heap) {
        EXPECT_GE(again.chunks * chunk, scale::heap_bytes / 2) << "less than half of the heap was usable again";
      } else {
        EXPECT_GE(again.chunks * 2, first.chunks) << "more than half of the first fill was lost by freeing";
      }
    } else {
      EXPECT_GE(again.chunks, first.chunks * 9 / 10) << "more than 10% of the heap was lost by freeing";
    }
    EXPECT_EQ(again.pattern_errors, 0u);
    EXPECT_EQ(again.overlaps, 0u);
    filler.free_fill();
  } else {
    // Documented: this creation policy never reuses freed memory (e.g. AtomicBump).
    const fill_result again = filler.fill();
    if constexpr (allocator_type::combines_requests) {
      // A combining policy (FDGMalloc) ran out for its lanes' combined requests; fewer lanes may
      // still fit in what was left. Freed memory is not among it (DeallocIsANoOp... checks that).
      EXPECT_LE(again.chunks * chunk, scale::heap_bytes / 20) << "much more than the rest of the heap was handed out";
    } else {
      EXPECT_EQ(again.chunks, 0u) << "a policy that does not reuse memory handed out freed memory";
    }
    EXPECT_EQ(again.overlaps, 0u);
    filler.free_fill();
  }

  if constexpr (traits.resettable) {
    filler.fill();
    allocator.reset();
    filler.forget();
    if constexpr (allocator_type::providesAvailableSlots) {
      EXPECT_EQ(allocator.getAvailableSlots(chunk), slots_before) << "reset() did not return every slot";
    }
    const fill_result after_reset = filler.fill();
    if constexpr (allocator_type::combines_requests) {  // packing: see the second fill above
      if (DEVALLOC_BACKEND_CUDA) {
        // 2 %: where the fill runs out depends on which warps still have room in their last
        // combined chunk. (FDGMalloc_Scatter on an H100 failed this once at ead0e19, 97.6 %: its
        // fills then used 52-56 % of the heap, the losers of concurrent superblock opens leaving
        // theirs nearly empty; since open_superblock gives those back, 94.5-94.9 %, and a fill
        // after reset() within 0.4 % of the first.)
        EXPECT_GE(after_reset.chunks, first.chunks * 98 / 100) << "reset() did not return the whole heap";
      } else if constexpr (traits.fills_half_the_heap) {
        EXPECT_GE(after_reset.chunks * chunk, scale::heap_bytes / 2) << "reset() did not return the whole heap";
      } else {
        EXPECT_GE(after_reset.chunks * 2, first.chunks) << "reset() did not return the whole heap";
      }
    } else {
      EXPECT_EQ(after_reset.chunks, first.chunks) << "reset() did not return the whole heap";
    }
    EXPECT_EQ(after_reset.pattern_errors, 0u);
    filler.free_fill();
  }
}

TYPED_TEST(Conformance, FillUntilOutOfMemoryFreeAllAndFillAgainGivesTheSameCount)
{
  if constexpr (TestFixture::traits.may_overlap_live) {
    GTEST_SKIP() << "documented: this creation policy never runs out of memory, it wraps around "
                    "(traits.may_overlap_live; WrappingPoliciesHandOutTheHeapInCircularOrder checks it)";
  } else {
    auto allocator = this->make();
    fill_free_fill(allocator);
  }
}

TYPED_TEST(Conformance, WrappingPoliciesHandOutTheHeapInCircularOrder)
{
  if constexpr (!TestFixture::traits.may_overlap_live) {
    GTEST_SKIP() << "this creation policy does not wrap around (traits.may_overlap_live is false): "
                    "FillUntilOutOfMemory... checks that it runs out instead";
  } else {
    // What a wrapping policy promises: everything allocated since reset() that fits in the heap
    // once is disjoint; then allocation goes on from the start of the heap instead of failing.
    constexpr std::size_t chunk = 4096;
    auto allocator = this->make();
    const std::size_t slots = allocator.getAvailableSlots(chunk);
    ASSERT_GE(slots * chunk, scale::heap_bytes / 2);
    const std::vector<std::uintptr_t> first = alloc_once_each(allocator, slots, chunk);
    std::vector<std::pair<std::uintptr_t, std::size_t>> ranges;
    std::uintptr_t lowest = ~std::uintptr_t{0};
    for (std::uintptr_t p : first) {
      EXPECT_NE(p, 0u) << "a request that fits in the heap failed";
      EXPECT_EQ(p % TestFixture::allocator_type::alignment, 0u);
      ranges.emplace_back(p, chunk);
      lowest = std::min(lowest, p);
    }
    EXPECT_EQ(count_overlaps(ranges), 0u) << "allocations that fit in the heap once overlap";
    EXPECT_EQ(allocator.getAvailableSlots(chunk), 0u);
    const std::uintptr_t wrapped = single_alloc(allocator, chunk);
    EXPECT_EQ(wrapped, lowest) << "the allocation after a full heap must wrap to the start";
    EXPECT_EQ(allocator.stats().failed_allocations, 0u) << "a wrapping policy never runs out";
    EXPECT_EQ(single_alloc(allocator, scale::heap_bytes + 1), 0u) << "more than the heap must still fail";
    allocator.reset();
    EXPECT_EQ(allocator.getAvailableSlots(chunk), slots);
  }
}

TYPED_TEST(Conformance, SizeZeroReturnsNullAndIsNotAFailure)
{
  auto allocator = this->make();
  EXPECT_EQ(single_alloc(allocator, 0), 0u);
  EXPECT_EQ(allocator.stats().failed_allocations, 0u);
}

TYPED_TEST(Conformance, RequestsLargerThanTheHeapFailCleanly)
{
  auto allocator = this->make();
  EXPECT_EQ(single_alloc(allocator, scale::heap_bytes + 1), 0u);
  EXPECT_EQ(single_alloc(allocator, std::numeric_limits<std::size_t>::max()), 0u);
  EXPECT_EQ(single_alloc(allocator, std::numeric_limits<std::size_t>::max() / 2 + 3), 0u);
  EXPECT_EQ(allocator.stats().failed_allocations, 3u);
  // The heap is still fully usable afterwards.
  const std::uintptr_t p = single_alloc(allocator, 100);
  EXPECT_NE(p, 0u);
  single_dealloc(allocator, p);
}

TYPED_TEST(Conformance, DeallocOfNullptrIsANoOp)
{
  auto allocator = this->make();
  single_dealloc(allocator, 0);
  EXPECT_EQ(allocator.stats().invalid_frees, 0u);
  EXPECT_NO_THROW(allocator.check_errors());
}

TYPED_TEST(Conformance, ForeignPointersAreReportedOnTheHost)
{
  if constexpr (!TestFixture::traits.checks_ownership) {
    GTEST_SKIP() << "documented: this creation policy does not check ownership (dealloc of a foreign pointer is "
                    "undefined behaviour, as for free())";
  } else {
    auto allocator = this->make();
    buffer<std::uint64_t> elsewhere(16);
    single_dealloc(allocator, reinterpret_cast<std::uintptr_t>(elsewhere.data() + 3));
    EXPECT_EQ(allocator.stats().invalid_frees, 1u);
    EXPECT_EQ(allocator.stats().double_frees, 0u);
    const std::string message = check_errors_message(allocator);
    EXPECT_NE(message.find("1 invalid free"), std::string::npos) << message;
    EXPECT_NO_THROW(allocator.check_errors()) << "check_errors() reports each misuse once";
    const auto r = live_allocations(allocator, scale::workers, 2, mixed_size{128}, all_workers{});
    expect_clean(r, "after a foreign free");
  }
}

TYPED_TEST(Conformance, InteriorPointersAreInvalidFreesAndTheChunkStaysLive)
{
  if constexpr (!TestFixture::traits.detects_invalid_pointers) {
    GTEST_SKIP() << "documented: this creation policy cannot tell a pointer inside a chunk from its start "
                    "(traits.detects_invalid_pointers is false)";
  } else {
    using allocator_type = typename TestFixture::allocator_type;
    constexpr std::size_t bytes = 64;
    constexpr std::uint32_t seed = 0xC0FFEEu;
    auto allocator = this->make();
    std::size_t slots_before = 0;
    if constexpr (allocator_type::providesAvailableSlots) { slots_before = allocator.getAvailableSlots(bytes); }
    const std::uintptr_t p = alloc_patterned(allocator, bytes, seed);
    ASSERT_NE(p, 0u);
    single_dealloc(allocator, p + 16);
    single_dealloc(allocator, p + 1);
    single_dealloc(allocator, p + bytes - 16);
    EXPECT_EQ(allocator.stats().invalid_frees, 3u);
    EXPECT_EQ(allocator.stats().double_frees, 0u);
    EXPECT_EQ(pattern_errors_at(allocator, p, bytes, seed), 0u) << "an interior free changed the live chunk";
    // The chunk is still allocated: no allocation made now may overlap it.
    const std::vector<std::uintptr_t> others = alloc_once_each(allocator, scale::fill_workers, bytes);
    std::size_t overlapping = 0;
    for (std::uintptr_t q : others) { overlapping += q != 0 && q < p + bytes && p < q + bytes; }
    EXPECT_EQ(overlapping, 0u) << "an interior free returned the live chunk to the heap";
    dealloc_each(allocator, others);
    EXPECT_EQ(pattern_errors_at(allocator, p, bytes, seed), 0u);
    const std::string message = check_errors_message(allocator);
    EXPECT_NE(message.find("3 invalid free"), std::string::npos) << message;
    EXPECT_NE(message.find("0 double free"), std::string::npos) << message;
    EXPECT_EQ(check_errors_message(allocator), "") << "check_errors() reports each misuse once";
    single_dealloc(allocator, p);  // the real free still works, once
    EXPECT_EQ(allocator.stats().invalid_frees, 0u);
    EXPECT_EQ(allocator.stats().double_frees, 0u);
    if constexpr (allocator_type::providesAvailableSlots && !allocator_type::combines_requests) {
      EXPECT_EQ(allocator.getAvailableSlots(bytes), slots_before) << "a slot was lost or freed twice";
    }
  }
}

TYPED_TEST(Conformance, DoubleFreesAreCountedAndChangeNothing)
{
  if constexpr (!TestFixture::traits.detects_double_free) {
    GTEST_SKIP() << "documented: this creation policy does not detect double frees (traits.detects_double_free "
                    "is false; a second free is a no-op or undefined behaviour)";
  } else {
    using allocator_type = typename TestFixture::allocator_type;
    constexpr std::size_t bytes = 64;
    constexpr std::uint32_t seed = 0xBADF00Du;
    auto allocator = this->make();
    std::size_t slots_before = 0;
    if constexpr (allocator_type::providesAvailableSlots) { slots_before = allocator.getAvailableSlots(bytes); }
    const std::uintptr_t p = single_alloc(allocator, bytes);
    const std::uintptr_t keep = alloc_patterned(allocator, bytes, seed);
    ASSERT_NE(p, 0u);
    ASSERT_NE(keep, 0u);
    single_dealloc(allocator, p);
    EXPECT_EQ(allocator.stats().double_frees, 0u);
    single_dealloc(allocator, p);
    single_dealloc(allocator, p);
    EXPECT_EQ(allocator.stats().double_frees, 2u);
    EXPECT_EQ(allocator.stats().invalid_frees, 0u);
    EXPECT_EQ(pattern_errors_at(allocator, keep, bytes, seed), 0u) << "a double free changed another chunk";
    const std::string message = check_errors_message(allocator);
    EXPECT_NE(message.find("0 invalid free"), std::string::npos) << message;
    EXPECT_NE(message.find("2 double free"), std::string::npos) << message;
    EXPECT_EQ(check_errors_message(allocator), "") << "check_errors() reports each misuse once";
    single_dealloc(allocator, keep);
    if constexpr (allocator_type::providesAvailableSlots && !allocator_type::combines_requests) {
      EXPECT_EQ(allocator.getAvailableSlots(bytes), slots_before) << "a double free gave a slot back twice";
    }
    const auto r = live_allocations(allocator, scale::workers, 2, mixed_size{128}, all_workers{});
    expect_clean(r, "after double frees");
    EXPECT_EQ(allocator.stats().double_frees + allocator.stats().invalid_frees, 0u);
  }
}

TYPED_TEST(Conformance, AvailableSlotsAgreeOnHostAndDevice)
{
  using allocator_type = typename TestFixture::allocator_type;
  if constexpr (!allocator_type::providesAvailableSlots) {
    GTEST_SKIP() << "documented: this creation policy does not provide getAvailableSlots";
  } else {
    auto allocator = this->make();
    const std::size_t sizes[] = {1, 16, 64, 256, 4096, 100000};
    for (std::size_t s : sizes) {
      EXPECT_EQ(allocator.getAvailableSlots(s), device_available_slots(allocator, s)) << s;
    }
    std::uintptr_t held[3] = {single_alloc(allocator, 48), single_alloc(allocator, 300), single_alloc(allocator, 5000)};
    for (std::size_t s : sizes) {
      EXPECT_EQ(allocator.getAvailableSlots(s), device_available_slots(allocator, s)) << s;
      EXPECT_GT(allocator.getAvailableSlots(s), 0u) << s;
    }
    EXPECT_EQ(allocator.getAvailableSlots(0), 0u);
    EXPECT_EQ(allocator.getAvailableSlots(scale::heap_bytes + 1), 0u);
    for (std::uintptr_t p : held) { single_dealloc(allocator, p); }
  }
}

TYPED_TEST(Conformance, InfoNamesEveryPolicy)
{
  using A = typename TestFixture::allocator_type;
  const std::string info = A::info("\n");
  for (const std::string& name :
       {A::creation_policy::classname(), A::distribution_policy::classname(), A::oom_policy::classname(),
        A::reserve_pool_policy::classname(), A::alignment_policy::classname()}) {
    EXPECT_NE(info.find(name), std::string::npos) << name << " missing from " << info;
  }
}

TYPED_TEST(Conformance, MovingTransfersTheHeap)
{
  auto first = this->make();
  const std::uintptr_t p = single_alloc(first, 64);
  ASSERT_NE(p, 0u);
  auto second = std::move(first);
  EXPECT_THROW((void)first.handle(), devalloc::error);  // NOLINT(bugprone-use-after-move): tested on purpose
  single_dealloc(second, p);
  EXPECT_NE(single_alloc(second, 64), 0u);
  static_assert(std::is_trivially_copyable_v<typename TestFixture::allocator_type::handle_type>);
  static_assert(!std::is_copy_constructible_v<typename TestFixture::allocator_type>);
}

// --- Policies that free all at once, and warp-contiguous policies (traits.frees_individually,
// traits.warp_contiguous; FDGMalloc, issue 14) ---

/// Worker i allocates `bytes` once and writes the pattern of (i, 0); returns every pointer.
template <class Allocator>
std::vector<std::uintptr_t> alloc_patterned_each(Allocator& allocator, std::size_t workers, std::size_t bytes)
{
  auto handle = allocator.handle();
  buffer<std::uintptr_t> out(workers);
  std::uintptr_t* o = out.data();
  launch(workers, [=] DEVALLOC_DEVICE(std::size_t i) {
    void* p = handle.alloc(bytes);
    if (p != nullptr) { write_pattern(p, bytes, pattern_seed(i, 0)); }
    o[i] = reinterpret_cast<std::uintptr_t>(p);
  });
  return out.to_host();
}

/// Words of the chunks of alloc_patterned_each that no longer hold their pattern.
inline unsigned long long pattern_errors_each(const std::vector<std::uintptr_t>& ps, std::size_t bytes)
{
  buffer<std::uintptr_t> table(ps.size());
  table.assign(ps);
  buffer<unsigned long long> errors(1);
  const std::uintptr_t* t = table.data();
  unsigned long long* e = errors.data();
  launch(ps.size(), [=] DEVALLOC_DEVICE(std::size_t i) {
    if (t[i] != 0) { count(e[0], pattern_errors(reinterpret_cast<const void*>(t[i]), bytes, pattern_seed(i, 0))); }
  });
  return errors.get(0);
}

/// Worker i makes `rounds` allocations of size_of(i, k) (multiples of 16); returns every pointer
/// (worker-major).
template <class Allocator>
std::vector<std::uintptr_t> alloc_rounds(Allocator& allocator, std::size_t workers, std::size_t rounds)
{
  auto handle = allocator.handle();
  buffer<std::uintptr_t> out(workers * rounds);
  std::uintptr_t* o = out.data();
  launch(workers, [=] DEVALLOC_DEVICE(std::size_t i) {
    for (std::size_t k = 0; k < rounds; ++k) {
      const std::size_t bytes = 16 * (1 + pattern_seed(i, k) % 8);
      void* p = handle.alloc(bytes);
      if (p != nullptr) { write_pattern(p, bytes, pattern_seed(i, k)); }
      o[i * rounds + k] = reinterpret_cast<std::uintptr_t>(p);
    }
  });
  return out.to_host();
}

TYPED_TEST(Conformance, DeallocIsANoOpUntilResetWhereTheTraitsSaySo)
{
  if constexpr (TestFixture::traits.frees_individually) {
    GTEST_SKIP() << "this creation policy frees allocations one at a time (FillUntilOutOfMemory... checks that)";
  } else {
    using allocator_type = typename TestFixture::allocator_type;
    constexpr std::size_t bytes = 96;
    auto allocator = this->make();
    std::size_t slots_fresh = 0;
    if constexpr (allocator_type::providesAvailableSlots) { slots_fresh = allocator.getAvailableSlots(bytes); }
    const std::vector<std::uintptr_t> first = alloc_patterned_each(allocator, scale::workers, bytes);
    for (std::uintptr_t p : first) { ASSERT_NE(p, 0u); }
    std::size_t slots_held = 0;
    if constexpr (allocator_type::providesAvailableSlots) { slots_held = allocator.getAvailableSlots(bytes); }
    dealloc_each(allocator, first);
    EXPECT_EQ(pattern_errors_each(first, bytes), 0u) << "dealloc() is documented as a no-op but changed the memory";
    if constexpr (allocator_type::providesAvailableSlots) {
      EXPECT_EQ(allocator.getAvailableSlots(bytes), slots_held) << "dealloc() is documented as a no-op";
    }
    // The memory of the first chunks is not handed out again before reset().
    const std::vector<std::uintptr_t> second = alloc_patterned_each(allocator, scale::workers, bytes);
    std::vector<std::pair<std::uintptr_t, std::size_t>> ranges;
    for (std::uintptr_t p : first) { ranges.emplace_back(p, bytes); }
    for (std::uintptr_t p : second) {
      ASSERT_NE(p, 0u);
      ranges.emplace_back(p, bytes);
    }
    EXPECT_EQ(count_overlaps(ranges), 0u) << "memory given to dealloc() was handed out again before reset()";
    EXPECT_EQ(pattern_errors_each(first, bytes), 0u);
    allocator.reset();
    if constexpr (allocator_type::providesAvailableSlots) {
      EXPECT_EQ(allocator.getAvailableSlots(bytes), slots_fresh) << "reset() did not return every byte";
    }
    EXPECT_EQ(allocator.stats().failed_allocations, 0u);
    EXPECT_NO_THROW(allocator.check_errors());
  }
}

TYPED_TEST(Conformance, AWarpsRequestsTileOneRangeWhereTheTraitsSaySo)
{
  if constexpr (!TestFixture::traits.warp_contiguous) {
    GTEST_SKIP() << "documented: this creation policy does not promise contiguous memory per warp "
                    "(traits.warp_contiguous is false)";
  } else {
    DEVALLOC_TEST_NEEDS_WARPS_OF(32u, "the workers of a 32-worker group must be one warp");
    constexpr std::size_t warps = 8, rounds = 3;  // <= 3 x 32 x 128 B per warp: one superblock
    auto allocator = this->make();
    const std::vector<std::uintptr_t> ps = alloc_rounds(allocator, warps * 32, rounds);
    for (std::size_t w = 0; w < warps; ++w) {
      std::vector<std::pair<std::uintptr_t, std::size_t>> mine;
      for (std::size_t i = w * 32; i < (w + 1) * 32; ++i) {
        for (std::size_t k = 0; k < rounds; ++k) {
          ASSERT_NE(ps[i * rounds + k], 0u);
          mine.emplace_back(ps[i * rounds + k], 16 * (1 + pattern_seed(i, k) % 8));
        }
      }
      std::sort(mine.begin(), mine.end());
      std::size_t gaps = 0;
      for (std::size_t n = 1; n < mine.size(); ++n) { gaps += mine[n - 1].first + mine[n - 1].second != mine[n].first; }
      EXPECT_EQ(gaps, 0u) << "warp " << w << ": its requests do not tile one range";
    }
    std::vector<std::pair<std::uintptr_t, std::size_t>> all;
    for (std::size_t i = 0; i < ps.size(); ++i) {
      all.emplace_back(ps[i], 16 * (1 + pattern_seed(i / rounds, i % rounds) % 8));
    }
    EXPECT_EQ(count_overlaps(all), 0u);
  }
}

}  // namespace
}  // namespace devalloc::testing
