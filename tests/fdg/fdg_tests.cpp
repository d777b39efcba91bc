// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// tests/fdg/fdg_tests.cpp
//
// FDGMalloc's own tests (creation/fdg_malloc.hpp, issue 14), on both backends: the paper's warp
// API (start / alloc / tidyUp / end / keep + resume) with patterns and host-side overlap checks,
// contiguity of a header's memory, tidyUp then alloc again, end() and Allocator::reset() giving
// every byte back (the underlying allocator's getAvailableSlots before == after, and a counting
// underlying allocator whose live chunks must come back to 0), requests larger than a superblock,
// list chaining past the list capacity, divergent callers, and misuse (the paper's Listing 2).
// On the CPU backend every launch runs 32-lane warps whose lanes the emulator schedules at random
// and groups in random subsets at every call site, so "any subset of a warp" is what runs here.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <devalloc/creation/fdg_malloc.hpp>
#include <devalloc/devalloc.hpp>

#include "../support/misuse.hpp"
#include "../support/scenarios.hpp"

namespace devalloc::testing {

// ---------------------------------------------------------------------------------------------
// A counting underlying allocator: DeviceMalloc plus a device counter of live chunks, so that
// tests can see that everything FDGMalloc took came back (on both backends).

class CountingMalloc {
 public:
  static constexpr creation_traits traits = creation::DeviceMalloc::traits;

  static CountingMalloc init_heap(pool_span pool, stream_ref stream)
  {
    CountingMalloc heap;
    heap.inner_ = creation::DeviceMalloc::init_heap(pool, stream);
    heap.live_ = static_cast<unsigned long long*>(detail::backend::allocate(sizeof(unsigned long long), stream));
    detail::backend::fill(heap.live_, 0, sizeof(unsigned long long), stream);
    return heap;
  }
  void finalize_heap(stream_ref stream) { inner_.finalize_heap(stream); }
  void release(stream_ref stream) noexcept
  {
    inner_.release(stream);
    detail::backend::deallocate(live_, stream);
  }
  DEVALLOC_DEVICE void* create(std::size_t bytes) const noexcept
  {
    void* p = inner_.create(bytes);
    if (p != nullptr) { detail::device_atomic<unsigned long long>(*live_).fetch_add(1, detail::memory_order_relaxed); }
    return p;
  }
  DEVALLOC_DEVICE free_result destroy(void* p) const noexcept
  {
    detail::device_atomic<unsigned long long>(*live_).fetch_sub(1, detail::memory_order_relaxed);
    return inner_.destroy(p);
  }
  DEVALLOC_DEVICE bool is_oom(const void* p, std::size_t bytes) const noexcept { return bytes != 0 && p == nullptr; }
  static std::string classname() { return "CountingMalloc"; }
  /// Host. Chunks created and not destroyed.
  unsigned long long live_host() const
  {
    unsigned long long n = 0;
    detail::backend::copy_to_host(&n, live_, sizeof(n));
    return n;
  }

 private:
  creation::DeviceMalloc inner_{};
  unsigned long long* live_ = nullptr;
};

/// Small superblocks and lists, so that a few warps chain many lists (and go past superblocks).
using SmallConfig = creation::basic_fdg_config<1024, 16, 3, 64, 256, false>;
/// Debug messages on (misuse tests), whatever NDEBUG says.
using DebugConfig = creation::basic_fdg_config<32768, 16, 126, 64, 256, true>;
using ReleaseConfig = creation::basic_fdg_config<32768, 16, 126, 64, 256, false>;

template <class Creation, class ReservePool = reserve_pool::CudaMalloc>
using fdg_allocator = Allocator<Creation, distribution::Noop, oom::ReturnNull, ReservePool, alignment::Shrink<16>>;

using fdg_scatter = presets::fdg;
using fdg_small = fdg_allocator<creation::FDGMalloc<SmallConfig>>;
using fdg_counting =
  fdg_allocator<creation::FDGMalloc<creation::FDGConfig, CountingMalloc>, reserve_pool::CudaSetLimits>;
using fdg_counting_small = fdg_allocator<creation::FDGMalloc<SmallConfig, CountingMalloc>, reserve_pool::CudaSetLimits>;
using fdg_counting_direct =
  fdg_allocator<creation::FDGMalloc<creation::FDGDirectConfig, CountingMalloc>, reserve_pool::CudaSetLimits>;
using fdg_debug = fdg_allocator<creation::FDGMalloc<DebugConfig>>;
using fdg_release = fdg_allocator<creation::FDGMalloc<ReleaseConfig>>;

#if DEVALLOC_BACKEND_CUDA
constexpr std::size_t heap_bytes = 256u << 20;
constexpr std::size_t workers = 4096;
#else
constexpr std::size_t heap_bytes = 16u << 20;
constexpr std::size_t workers = 256;
#endif

/// Size of allocation k of worker i in the warp-API scenarios: 1..max_bytes, or a large one.
struct sizes {
  std::size_t max_bytes;
  std::uint32_t large_every;  // 0: none; else every large_every-th allocation is large_bytes
  std::size_t large_bytes;
  DEVALLOC_HOST_DEVICE std::size_t operator()(std::size_t i, std::size_t k) const
  {
    if (large_every != 0 && pattern_seed(i, k) % large_every == 0) { return large_bytes; }
    return 1 + pattern_seed(i, k + 3) % max_bytes;
  }
};

/// 16..256 B, multiples of 16 (AHeadersMemoryIsContiguous).
struct sized {
  DEVALLOC_HOST_DEVICE std::size_t operator()(std::size_t i, std::size_t k) const
  {
    return std::size_t{16} * (1 + pattern_seed(i, k) % 16);
  }
};

struct warp_run {
  std::vector<std::uintptr_t> pointers;  // worker-major, per_worker each
  std::vector<std::uintptr_t> headers;   // per worker: the header keep() returned
  unsigned long long pattern_errors = 0;
  unsigned long long misaligned = 0;
  unsigned long long nulls = 0;
};

/// Kernel 1: every worker (a `caller` subset, in data-dependent loops) starts a header, makes
/// per_worker allocations of size(i, k), writes them, keeps the header (strategy 3). Kernel 2:
/// every worker verifies its memory, resumes its header and ends it (strategy 2).
template <class A, class Size>
warp_run start_alloc_keep_resume_end(A& allocator, std::size_t n, std::size_t per_worker, Size size,
                                     bool divergent = false)
{
  auto handle = allocator.handle();
  buffer<std::uintptr_t> pointers(n * per_worker);
  buffer<std::uintptr_t> headers(n);
  buffer<unsigned long long> counters(3);
  std::uintptr_t* ps = pointers.data();
  std::uintptr_t* hs = headers.data();
  unsigned long long* c = counters.data();
  launch(n, [=] DEVALLOC_DEVICE(std::size_t i) {
    auto warp = handle.creation().start();
    for (std::size_t k = 0; k < per_worker; ++k) {
      void* p = nullptr;
      if (divergent && i % 3 == 0) {  // three call sites of alloc, reached by different lanes
        p = warp.alloc(size(i, k));
      } else if (divergent && i % 3 == 1) {
        if (k % 2 == 0) {
          p = warp.alloc(size(i, k));
        } else {
          p = warp.alloc(size(i, k));
        }
      } else {
        p = warp.alloc(size(i, k));
      }
      ps[i * per_worker + k] = reinterpret_cast<std::uintptr_t>(p);
      if (p == nullptr) {
        count(c[2]);
        continue;
      }
      if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0) { count(c[1]); }
      write_pattern(p, size(i, k), pattern_seed(i, k));
    }
    hs[i] = reinterpret_cast<std::uintptr_t>(warp.keep());
  });
  launch(n, [=] DEVALLOC_DEVICE(std::size_t i) {
    for (std::size_t k = 0; k < per_worker; ++k) {
      const void* p = reinterpret_cast<const void*>(ps[i * per_worker + k]);
      if (p != nullptr) { count(c[0], pattern_errors(p, size(i, k), pattern_seed(i, k))); }
    }
    auto warp = handle.creation().resume(reinterpret_cast<creation::fdg_header*>(hs[i]));
    warp.end();
  });
  warp_run r;
  r.pointers = pointers.to_host();
  r.headers = headers.to_host();
  r.pattern_errors = counters.get(0);
  r.misaligned = counters.get(1);
  r.nulls = counters.get(2);
  return r;
}

template <class Size>
std::size_t overlaps_of(const warp_run& r, std::size_t per_worker, Size size)
{
  std::vector<std::pair<std::uintptr_t, std::size_t>> ranges;
  for (std::size_t j = 0; j < r.pointers.size(); ++j) {
    if (r.pointers[j] != 0) { ranges.emplace_back(r.pointers[j], size(j / per_worker, j % per_worker)); }
  }
  return count_overlaps(std::move(ranges));
}

// ---------------------------------------------------------------------------------------------

TEST(FDGMalloc, WarpApiAllocationsAreDisjointAlignedAndEndReturnsEveryByte)
{
  fdg_scatter allocator(heap_bytes);
  const std::size_t slots_before = allocator.getAvailableSlots(16);
  const sizes size{300, 0, 0};
  const warp_run r = start_alloc_keep_resume_end(allocator, workers, 8, size);
  EXPECT_EQ(r.nulls, 0u);
  EXPECT_EQ(r.misaligned, 0u);
  EXPECT_EQ(r.pattern_errors, 0u) << "allocations overlap (or end() of a kept header lost data before it)";
  EXPECT_EQ(overlaps_of(r, 8, size), 0u);
  EXPECT_EQ(allocator.getAvailableSlots(16), slots_before) << "end() did not give every byte back to Scatter";
  EXPECT_NO_THROW(allocator.check_errors());
}

TEST(FDGMalloc, EveryChunkComesBackToTheUnderlyingAllocator)
{
  fdg_counting allocator(heap_bytes);
  const sizes size{500, 16, 40000};  // every 16th request (on average) above the superblock
  const warp_run r = start_alloc_keep_resume_end(allocator, workers, 6, size);
  EXPECT_EQ(r.nulls, 0u);
  EXPECT_EQ(r.pattern_errors, 0u);
  EXPECT_EQ(overlaps_of(r, 6, size), 0u);
  EXPECT_EQ(allocator.handle().creation().underlying().live_host(), 0u)
    << "superblocks, lists, large chunks or headers were not given back by end()";
  EXPECT_EQ(allocator.handle().creation().live_headers_host(stream_ref{}), 0u);
}

TEST(FDGMalloc, RequestsLargerThanASuperblockGoToTheUnderlyingAllocator)
{
  fdg_scatter allocator(heap_bytes);
  const std::size_t slots_before = allocator.getAvailableSlots(16);
  const sizes size{100, 2, 3 * 32768 + 5};  // half of the requests: ~96 KiB
  const std::size_t n = DEVALLOC_BACKEND_CUDA ? 512 : 64;
  const warp_run r = start_alloc_keep_resume_end(allocator, n, 2, size);
  EXPECT_EQ(r.nulls, 0u);
  EXPECT_EQ(r.misaligned, 0u);
  EXPECT_EQ(r.pattern_errors, 0u);
  EXPECT_EQ(overlaps_of(r, 2, size), 0u);
  EXPECT_EQ(allocator.getAvailableSlots(16), slots_before);
}

TEST(FDGMalloc, ListsChainPastTheirCapacity)
{
  // 3 entries per list, 1 KiB superblocks: each header fills and replaces dozens of lists.
  fdg_counting_small counting(heap_bytes);
  const sizes size{200, 0, 0};
  const warp_run r = start_alloc_keep_resume_end(counting, 128, 40, size);
  EXPECT_EQ(r.nulls, 0u);
  EXPECT_EQ(r.pattern_errors, 0u);
  EXPECT_EQ(overlaps_of(r, 40, size), 0u);
  EXPECT_EQ(counting.handle().creation().underlying().live_host(), 0u);

  // The default lists (126 entries) without superblocks: every group's request is one entry.
  fdg_counting_direct direct(heap_bytes);
  const warp_run d = start_alloc_keep_resume_end(direct, 64, 200, sizes{64, 0, 0});
  EXPECT_EQ(d.nulls, 0u);
  EXPECT_EQ(d.pattern_errors, 0u);
  EXPECT_EQ(overlaps_of(d, 200, sizes{64, 0, 0}), 0u);
  EXPECT_EQ(direct.handle().creation().underlying().live_host(), 0u);
}

TEST(FDGMalloc, AHeadersMemoryIsContiguous)
{
  // Each header's lanes make 2 allocations of 16..256 B: at most 16 KiB, one superblock. All of a
  // header's allocations tile one gap-free range (in lane order on a GPU, where the lanes of a
  // warp call converged; on the CPU emulator they call in random subsets, which share the range).
  fdg_scatter allocator(heap_bytes);
  const sized size{};

  const warp_run r = start_alloc_keep_resume_end(allocator, workers, 2, sized{});
  ASSERT_EQ(r.nulls, 0u);
  std::map<std::uintptr_t, std::vector<std::pair<std::uintptr_t, std::size_t>>> by_header;
  for (std::size_t i = 0; i < workers; ++i) {
    for (std::size_t k = 0; k < 2; ++k) { by_header[r.headers[i]].emplace_back(r.pointers[i * 2 + k], size(i, k)); }
  }
  for (auto& [h, ranges] : by_header) {
    ASSERT_NE(h, 0u);
    std::sort(ranges.begin(), ranges.end());
    std::size_t gaps = 0;
    for (std::size_t n = 1; n < ranges.size(); ++n) {
      gaps += ranges[n - 1].first + ranges[n - 1].second != ranges[n].first;
    }
    EXPECT_EQ(gaps, 0u) << "header " << h << ": " << ranges.size() << " allocations do not tile one range";
  }
#if DEVALLOC_BACKEND_CUDA
  // Converged warps: one header per warp, and lane order within each round.
  EXPECT_EQ(by_header.size(), workers / 32);
  std::size_t out_of_order = 0;
  for (std::size_t i = 0; i < workers; ++i) {
    if (i % 32 != 0) { out_of_order += r.pointers[(i - 1) * 2] + size(i - 1, 0) != r.pointers[i * 2]; }
  }
  EXPECT_EQ(out_of_order, 0u) << "a converged warp's first round is not in lane order";
#endif
}

/// Rounds of: allocate (a data-dependent number per lane), write, verify, tidyUp(); then end().
template <class A>
std::vector<unsigned long long> tidy_rounds(A& allocator, std::size_t n, std::size_t rounds, bool divergent_tidy)
{
  auto handle = allocator.handle();
  buffer<unsigned long long> counters(3);  // [0] pattern errors, [1] nulls, [2] allocations
  unsigned long long* c = counters.data();
  launch(n, [=] DEVALLOC_DEVICE(std::size_t i) {
    auto warp = handle.creation().start();
    for (std::size_t r = 0; r < rounds; ++r) {
      void* mine[12];
      const std::size_t count_this_round = (i * 7 + r) % 12;
      for (std::size_t k = 0; k < count_this_round; ++k) {
        const std::size_t bytes = 1 + pattern_seed(i, r * 16 + k) % 700;
        mine[k] = warp.alloc(bytes);
        if (mine[k] == nullptr) {
          count(c[1]);
        } else {
          count(c[2]);
          write_pattern(mine[k], bytes, pattern_seed(i, r * 16 + k));
        }
      }
      for (std::size_t k = 0; k < count_this_round; ++k) {
        if (mine[k] != nullptr) {
          const std::size_t bytes = 1 + pattern_seed(i, r * 16 + k) % 700;
          count(c[0], pattern_errors(mine[k], bytes, pattern_seed(i, r * 16 + k)));
        }
      }
      if (divergent_tidy && i % 2 == 0) {  // the barrier is reached from two call sites
        warp.tidyUp();
      } else {
        warp.tidyUp();
      }
    }
    warp.end();
  });
  return {counters.get(0), counters.get(1), counters.get(2)};
}

TEST(FDGMalloc, TidyUpFreesEverythingAndAllocationGoesOn)
{
  fdg_scatter allocator(heap_bytes);
  const std::size_t slots_before = allocator.getAvailableSlots(16);
  // 30 rounds x up to 11 x 700 B per worker: many times what one round needs, so tidyUp must free.
  const auto c = tidy_rounds(allocator, workers, 30, false);
  EXPECT_EQ(c[0], 0u) << "memory of this round was freed or handed out twice";
  EXPECT_EQ(c[1], 0u);
  EXPECT_GT(c[2], workers * 30 * 4);
  EXPECT_EQ(allocator.getAvailableSlots(16), slots_before);
  EXPECT_NO_THROW(allocator.check_errors());

  fdg_counting counting(heap_bytes);
  const auto d = tidy_rounds(counting, workers, 10, true);
  EXPECT_EQ(d[0], 0u);
  EXPECT_EQ(d[1], 0u);
  EXPECT_EQ(counting.handle().creation().underlying().live_host(), 0u);
  EXPECT_NO_THROW(counting.check_errors());
}

TEST(FDGMalloc, DivergentCallersShareAHeader)
{
  fdg_scatter allocator(heap_bytes);
  const std::size_t slots_before = allocator.getAvailableSlots(16);
  const sizes size{400, 40, 33000};
  const warp_run r = start_alloc_keep_resume_end(allocator, workers, 9, size, /*divergent*/ true);
  EXPECT_EQ(r.nulls, 0u);
  EXPECT_EQ(r.pattern_errors, 0u);
  EXPECT_EQ(overlaps_of(r, 9, size), 0u);
  EXPECT_EQ(allocator.getAvailableSlots(16), slots_before);
}

/// Groups of one warp open superblocks at the same time whenever its lanes diverge (lanes served
/// from the old superblock call again while the others wait for Scatter); one becomes current. A
/// fill with 64 B requests until out of memory must use nearly all of the superblocks it took from
/// Scatter: on an H100 the paper's rule (the loser serves only its group from its own superblock)
/// used 58 % of them, 55 % of the heap.
TEST(FDGMalloc, AFillUsesTheSuperblocksItTookFromTheUnderlyingAllocator)
{
  using fdg = fdg_scatter::creation_policy;
  using scatter = fdg::underlying_type;
  constexpr std::size_t chunk = 64;
  fdg_scatter allocator(heap_bytes);
  heap_filler<fdg_scatter> filler(allocator, chunk, workers);
  const fill_result r = filler.fill();
  EXPECT_EQ(r.workers_that_saw_null, workers);
  EXPECT_EQ(r.pattern_errors, 0u);
  EXPECT_EQ(r.overlaps, 0u);
  std::size_t superblock_pages = 0;
  for (const auto& page : allocator.handle().creation().underlying().pages_host()) {
    superblock_pages += page.chunk == scatter::large_chunk;
  }
  static_assert(fdg::config::superblock_bytes % scatter::pagesize == 0, "superblocks are whole pages here");
  const std::size_t superblocks = superblock_pages / (fdg::config::superblock_bytes / scatter::pagesize);
  const std::size_t capacity = superblocks * (fdg::superblock_capacity / chunk);
  ASSERT_GT(superblocks, 0u);
  EXPECT_GE(r.chunks * 100, capacity * 98)
    << r.chunks << " chunks of 64 B in " << superblocks << " superblocks (room for " << capacity << ")";
  EXPECT_GE(r.chunks * chunk * 100, heap_bytes * 80) << "less than 80 % of the heap was usable";
}

/// Through the common host class: reset() ends every header of the per-warp table.
template <class A>
void host_class_round(A& allocator, std::size_t n)
{
  const auto r = live_allocations(allocator, n, 5, mixed_size{3000}, data_dependent_loop{});
  EXPECT_EQ(r.returned_null, 0u);
  EXPECT_EQ(r.pattern_errors, 0u);
  EXPECT_EQ(r.overlaps, 0u);
}

TEST(FDGMalloc, ResetThroughTheHostClassReturnsEveryChunk)
{
  fdg_counting allocator(heap_bytes);
  host_class_round(allocator, workers);
  EXPECT_GT(allocator.handle().creation().underlying().live_host(), 0u) << "dealloc() is documented as a no-op";
  allocator.reset();  // DeviceMalloc cannot reset: FDGMalloc walks its table and frees every chunk
  EXPECT_EQ(allocator.handle().creation().underlying().live_host(), 0u);
  host_class_round(allocator, workers);
  allocator.reset();
  EXPECT_EQ(allocator.handle().creation().underlying().live_host(), 0u);
}

// ---------------------------------------------------------------------------------------------
// Misuse: the paper's Listing 2.

/// The misuse scenarios need warps of 32 lanes (lanes that share a header; warp 1 of block 0).
#define DEVALLOC_FDG_NEEDS_WARPS() DEVALLOC_TEST_NEEDS_WARPS_OF(2u, "lanes of one warp share a header")

/// Lanes with i % 5 == 0 start a header; every lane allocates; only lane 5 of each warp ends.
template <class A>
unsigned long long listing2(A& allocator, std::size_t n)
{
  auto handle = allocator.handle();
  buffer<unsigned long long> nulls(1);
  unsigned long long* c = nulls.data();
  launch(n, [=] DEVALLOC_DEVICE(std::size_t i) {
    auto warp = handle.creation().null_warp();
    if (i % 5 == 0) { warp = handle.creation().start(); }
    void* p = warp.alloc(64);
    if (p == nullptr) { count(c[0]); }
    if (i % 32 == 5) { warp.end(); }
  });
  return nulls.get(0);
}

/// Calls by lanes without a header in listing2(): every alloc() of a lane that did not start, and
/// end() by lane 5 of a warp where that lane did not start (i % 5 != 0).
std::size_t calls_without_header(std::size_t n, bool with_end)
{
  std::size_t k = 0;
  for (std::size_t i = 0; i < n; ++i) { k += (i % 5 != 0) * (1 + (with_end && i % 32 == 5)); }
  return k;
}

TEST(FDGMalloc, Listing2MisuseIsReportedOnTheHost)
{
  DEVALLOC_FDG_NEEDS_WARPS();
  fdg_release allocator(heap_bytes);
  const std::size_t n = 64;
  EXPECT_EQ(listing2(allocator, n), calls_without_header(n, false)) << "lanes without a header must get nullptr";
  const std::string message = check_errors_message(allocator);
  EXPECT_NE(message.find(std::to_string(calls_without_header(n, true)) + " call(s) of alloc/tidyUp/end/keep by a lane "
                                                                         "without a warp header"),
            std::string::npos)
    << message;
  EXPECT_NE(message.find("neither ended nor kept"), std::string::npos) << message;
  EXPECT_NE(message.find("block 0 warp 1"), std::string::npos) << "the leaked header of warp 1 is named: " << message;
  EXPECT_EQ(check_errors_message(allocator), "") << "each misuse is reported once";
  // The caller names the kernel: the message says after which one the misuse was found.
  listing2(allocator, n);
  try {
    allocator.check_errors("listing2_kernel");
    ADD_FAILURE() << "the misuse of the second launch was not reported";
  } catch (const devalloc::error& e) {
    const std::string named = e.what();
    EXPECT_NE(named.find("after kernel `listing2_kernel`: "), std::string::npos) << named;
    EXPECT_NE(named.find("without a warp header"), std::string::npos) << named;
  }
  allocator.reset();  // frees the leaked headers too
  EXPECT_EQ(allocator.handle().creation().live_headers_host(stream_ref{}), 0u);
}

TEST(FDGMalloc, MisuseIsPrintedInDebugBuildsNamingBlockAndWarp)
{
  DEVALLOC_FDG_NEEDS_WARPS();
  fdg_debug allocator(heap_bytes);
#if DEVALLOC_BACKEND_CPU
  ::testing::internal::CaptureStderr();
#endif
  listing2(allocator, 32);
#if DEVALLOC_BACKEND_CPU
  const std::string printed = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(printed.find("devalloc FDGMalloc misuse: alloc() by a lane without a warp header (block 0, warp 0, lane "),
            std::string::npos)
    << printed;
#endif
  EXPECT_NE(check_errors_message(allocator).find("without a warp header"), std::string::npos);
}

/// A configuration that gives up waiting in tidyUp() soon.
struct QuickTidyConfig : ReleaseConfig {
  static constexpr std::uint32_t tidy_wait_limit = 100;
};

/// A header whose lanes do not all call tidyUp(): the waiting lanes give up and it is reported.
template <class A>
void tidy_without_everyone(A& allocator)
{
  auto handle = allocator.handle();
  launch(32, [=] DEVALLOC_DEVICE(std::size_t i) {
    auto warp = handle.creation().start();
    (void)warp.alloc(32);
    if (i == 7) { return; }  // lane 7 neither tidies up nor ends
    warp.tidyUp();
    warp.end();
  });
}

TEST(FDGMalloc, DeviceSideMisuseIsCountedNotHung)
{
  DEVALLOC_FDG_NEEDS_WARPS();
  fdg_allocator<creation::FDGMalloc<QuickTidyConfig>> allocator(heap_bytes);
  // Lanes that started together with lane 7 wait for it in tidyUp(), and it never calls: they give
  // up (each counted). (On the CPU emulator lane 7 may start a header alone, which is correct use;
  // over ten launches it does not every time.)
  for (int launch_index = 0; launch_index < 10; ++launch_index) { tidy_without_everyone(allocator); }
  const std::string message = check_errors_message(allocator);
  EXPECT_NE(message.find("tidyUp() call(s) gave up waiting"), std::string::npos) << message;
}

}  // namespace devalloc::testing
