// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// tests/support/scenarios.hpp
//
// Worker-side scenarios shared by every test suite (conformance, scatter, drop-in), as free
// function templates over the allocator type. (nvcc cannot define __device__ lambdas inside a gtest
// TEST body, which is a private member function, so every launch lives here.) Each scenario
// returns what it observed; the tests assert on it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include <devalloc/detail/atomic.hpp>
#include <devalloc/detail/warp.hpp>
#include <devalloc/devalloc.hpp>

#include "cpu_seed.hpp"
#include "patterns.hpp"

namespace devalloc::testing {

/// Sizes that keep the suite quick on either backend while still filling whole heaps.
struct scale {
#if DEVALLOC_BACKEND_CUDA
  static constexpr std::size_t heap_bytes = 64u << 20;
  static constexpr std::size_t workers = 8192;
  static constexpr std::size_t fill_workers = 4096;
#else
  static constexpr std::size_t heap_bytes = 8u << 20;
  static constexpr std::size_t workers = 256;
  static constexpr std::size_t fill_workers = 64;
#endif
};

DEVALLOC_DEVICE inline void count(unsigned long long& counter, unsigned long long n = 1)
{
  detail::device_atomic<unsigned long long>(counter).fetch_add(n, detail::memory_order_relaxed);
}

// Request sizes: size(i, k) is the size of allocation k of worker i.

struct fixed_size {
  std::size_t bytes;
  DEVALLOC_HOST_DEVICE std::size_t operator()(std::size_t, std::size_t) const { return bytes; }
};
// mixed_size (1..max_bytes, varying by worker and allocation): patterns.hpp.

/// Host check: sorts (pointer, size) ranges and returns the number of neighbours that overlap.
inline std::size_t count_overlaps(std::vector<std::pair<std::uintptr_t, std::size_t>> ranges)
{
  std::sort(ranges.begin(), ranges.end());
  std::size_t overlaps = 0;
  for (std::size_t k = 1; k < ranges.size(); ++k) {
    overlaps += ranges[k - 1].first + ranges[k - 1].second > ranges[k].first;
  }
  return overlaps;
}

/// Lanes of a warp as launched: 32 on CUDA; on the CPU backend DEVALLOC_CPU_LANES (1..32; 1 is the
/// documented one-lane mode, in which no two workers share a warp).
inline unsigned warp_lanes()
{
#if DEVALLOC_BACKEND_CPU
  return static_cast<unsigned>(detail::cpu::env_number("DEVALLOC_CPU_LANES", 32));
#else
  return 32u;
#endif
}

/// Skips a test whose premise is warps of at least `lanes` lanes (32: workers 32 k .. 32 k + 31 in
/// one warp; 2: lanes that can meet in a warp at all) when the CPU backend runs narrower ones,
/// saying `why` the test needs them.
#define DEVALLOC_TEST_NEEDS_WARPS_OF(lanes, why)                                                            \
  if (::devalloc::testing::warp_lanes() < (lanes)) {                                                        \
    GTEST_SKIP() << "needs warps of " << (lanes) << " lanes or more (" << (why)                             \
                 << "); DEVALLOC_CPU_LANES=" << ::devalloc::testing::warp_lanes() << " runs narrower ones"; \
  }

// Which workers call alloc() (the `caller` argument of live_allocations).

struct all_workers {
  DEVALLOC_HOST_DEVICE bool operator()(std::size_t, std::size_t) const { return true; }
};
struct every_other_lane {
  DEVALLOC_HOST_DEVICE bool operator()(std::size_t i, std::size_t) const { return i % 2 == 0; }
};
struct one_lane_per_warp {
  DEVALLOC_HOST_DEVICE bool operator()(std::size_t i, std::size_t) const { return i % 32 == 5; }
};
/// Worker i makes (i * 7) % 11 allocations: lanes leave the allocation loop at different times.
struct data_dependent_loop {
  DEVALLOC_HOST_DEVICE bool operator()(std::size_t i, std::size_t k) const { return k < (i * 7) % 11; }
};

// ---------------------------------------------------------------------------------------------

struct live_allocations_result {
  std::size_t requested = 0;      // alloc() calls made
  std::size_t returned_null = 0;  // of those, nullptr
  unsigned long long pattern_errors = 0;
  unsigned long long misaligned = 0;
  std::size_t overlaps = 0;  // between live allocations, from the host-side range check
};

/// `workers` workers each make up to `per_worker` allocations of size(i, k) bytes and write them;
/// a second launch verifies every byte; the host checks that no two ranges overlap; `inspect()`
/// may look at the heap while everything is live; a third launch frees everything. `caller(i, k)`
/// decides whether worker i makes its k-th allocation, so that only a subset of each warp calls,
/// or lanes leave a data-dependent loop at different times. Pointers must be multiples of
/// `alignment` (default: what the allocator promises).
/// (`inspect` is a std::function: nvcc refuses host lambda types in the template arguments of a
/// function that defines extended __device__ lambdas.)
template <class Allocator, class Size, class Caller>
live_allocations_result live_allocations(Allocator& allocator, std::size_t workers, std::size_t per_worker, Size size,
                                         Caller caller, launch_options options = {},
                                         std::size_t alignment = Allocator::alignment,
                                         const std::function<void()>& inspect = {})
{
  auto handle = allocator.handle();
  buffer<void*> pointers(workers * per_worker);
  buffer<unsigned long long> counters(2);  // [0] pattern errors, [1] misaligned pointers
  void** table = pointers.data();
  unsigned long long* c = counters.data();

  launch(
    workers,
    [=] DEVALLOC_DEVICE(std::size_t i) {
      for (std::size_t k = 0; k < per_worker; ++k) {
        if (!caller(i, k)) { continue; }
        const std::size_t bytes = size(i, k);
        void* p = handle.alloc(bytes);
        table[i * per_worker + k] = p;
        if (p == nullptr) { continue; }
        if (reinterpret_cast<std::uintptr_t>(p) % alignment != 0) { count(c[1]); }
        write_pattern(p, bytes, pattern_seed(i, k));
      }
    },
    options);
  launch(
    workers,
    [=] DEVALLOC_DEVICE(std::size_t i) {
      for (std::size_t k = 0; k < per_worker; ++k) {
        const void* p = table[i * per_worker + k];
        if (p != nullptr) { count(c[0], pattern_errors(p, size(i, k), pattern_seed(i, k))); }
      }
    },
    options);

  live_allocations_result result;
  const std::vector<void*> host = pointers.to_host();
  std::vector<std::pair<std::uintptr_t, std::size_t>> ranges;
  for (std::size_t i = 0; i < workers; ++i) {
    for (std::size_t k = 0; k < per_worker; ++k) {
      if (!caller(i, k)) { continue; }
      ++result.requested;
      void* p = host[i * per_worker + k];
      if (p == nullptr) {
        ++result.returned_null;
      } else {
        ranges.emplace_back(reinterpret_cast<std::uintptr_t>(p), size(i, k));
      }
    }
  }
  result.overlaps = count_overlaps(std::move(ranges));
  result.pattern_errors = counters.get(0);
  result.misaligned = counters.get(1);
  if (inspect) { inspect(); }

  launch(
    workers,
    [=] DEVALLOC_DEVICE(std::size_t i) {
      for (std::size_t k = 0; k < per_worker; ++k) { handle.dealloc(table[i * per_worker + k]); }
    },
    options);
  return result;
}

/// Alloc, write, verify and free inside one launch, `rounds` times per worker with 4 live chunks
/// each: chunks are freed while other workers allocate, so reuse races show up as pattern errors.
/// Returns the pattern errors; `*nulls_out` receives the number of nullptr results.
template <class Allocator, class Size>
unsigned long long churn(Allocator& allocator, std::size_t workers, std::size_t rounds, Size size,
                         unsigned long long* nulls_out, launch_options options = {})
{
  auto handle = allocator.handle();
  buffer<unsigned long long> counters(2);
  unsigned long long* c = counters.data();
  launch(
    workers,
    [=] DEVALLOC_DEVICE(std::size_t i) {
      for (std::size_t r = 0; r < rounds; ++r) {
        void* keep[4];
        for (std::size_t k = 0; k < 4; ++k) {
          keep[k] = handle.alloc(size(i, r * 4 + k));
          if (keep[k] == nullptr) {
            count(c[1]);
          } else {
            write_pattern(keep[k], size(i, r * 4 + k), pattern_seed(i, r * 4 + k));
          }
        }
        for (std::size_t k = 0; k < 4; ++k) {
          if (keep[k] == nullptr) { continue; }
          count(c[0], pattern_errors(keep[k], size(i, r * 4 + k), pattern_seed(i, r * 4 + k)));
          handle.dealloc(keep[k]);
        }
      }
    },
    options);
  *nulls_out = counters.get(1);
  return counters.get(0);
}

/// What random_churn observed.
struct random_churn_result {
  unsigned long long pattern_errors = 0;  // words of live allocations that another one overwrote
  unsigned long long returned_null = 0;   // requests that got nullptr (the large ones may, by design)
  unsigned long long allocations = 0;     // requests that got memory
  unsigned long long beyond_heap = 0;     // requests of more than allocator.heap_bytes() that got memory
};

/// Random churn over `allocator`'s heap: each worker keeps up to six live allocations and, for
/// `steps` steps, frees one (after checking its pattern) or allocates into an empty place, sizes
/// 1..small_bytes and, one request in 16, 1..large_bytes (pages, runs of pages, more than the
/// heap); one step in four a worker sits out, so any subset of a warp calls. Everything is freed
/// at the end (with `frees`: dealloc; without, the caller resets). Hash-driven by `seed`, so a
/// failing case replays.
template <class Allocator>
random_churn_result random_churn(Allocator& allocator, std::size_t workers, std::size_t steps, std::size_t small_bytes,
                                 std::size_t large_bytes, std::uint32_t seed, bool frees, launch_options options = {})
{
  auto handle = allocator.handle();
  const std::size_t heap_bytes = allocator.heap_bytes();
  buffer<unsigned long long> counters(4);
  counters.zero();
  unsigned long long* c = counters.data();
  launch(
    workers,
    [=] DEVALLOC_DEVICE(std::size_t i) {
      void* live[6] = {};
      std::size_t bytes[6] = {};
      std::uint32_t tag[6] = {};
      for (std::size_t s = 0; s < steps; ++s) {
        const std::uint32_t r = pattern_seed(i ^ (static_cast<std::size_t>(seed) << 20), s);
        if ((r & 3u) == 0) { continue; }
        const unsigned k = (r >> 2) % 6u;
        if (live[k] != nullptr) {
          count(c[0], pattern_errors(live[k], bytes[k], tag[k]));
          if (frees) { handle.dealloc(live[k]); }
          live[k] = nullptr;
          continue;
        }
        const std::uint32_t r2 = pattern_seed(i, s + (static_cast<std::size_t>(seed) << 16));
        const std::size_t n = (r >> 5) % 16u == 0 ? 1 + r2 % large_bytes : 1 + r2 % small_bytes;
        void* p = handle.alloc(n);
        if (p == nullptr) {
          count(c[1]);
          continue;
        }
        count(c[2]);
        if (n > heap_bytes) { count(c[3]); }
        live[k] = p;
        bytes[k] = n;
        tag[k] = pattern_seed(i, s);
        write_pattern(p, n, tag[k]);
      }
      for (unsigned k = 0; k < 6; ++k) {
        if (live[k] == nullptr) { continue; }
        count(c[0], pattern_errors(live[k], bytes[k], tag[k]));
        if (frees) { handle.dealloc(live[k]); }
      }
    },
    options);
  return {counters.get(0), counters.get(1), counters.get(2), counters.get(3)};
}

struct fill_result {
  std::size_t chunks = 0;                 // successful allocations until every worker saw nullptr
  std::size_t workers_that_saw_null = 0;  // workers whose loop ended on nullptr (not on a full table)
  unsigned long long pattern_errors = 0;
  std::size_t overlaps = 0;
};

/// Fills the heap with chunks of `bytes` until out of memory: every worker allocates until its
/// first nullptr and files each chunk in one shared table (no chunk can be smaller than `bytes`,
/// so heap / bytes entries always suffice). Keeps everything allocated; free_fill() releases it.
template <class Allocator>
class heap_filler {
 public:
  heap_filler(Allocator& allocator, std::size_t bytes, std::size_t workers)
      : handle_(allocator.handle()),
        bytes_(bytes),
        workers_(workers),
        capacity_(allocator.heap_bytes() / bytes + 1),
        table_(capacity_),
        counters_(3)
  {}

  fill_result fill()
  {
    counters_.zero();
    auto handle = handle_;
    void** table = table_.data();
    unsigned long long* c = counters_.data();  // [0] chunks, [1] workers that saw nullptr, [2] errors
    const std::size_t bytes = bytes_, capacity = capacity_;
    launch(workers_, [=] DEVALLOC_DEVICE(std::size_t) {
      for (;;) {
        void* p = handle.alloc(bytes);
        if (p == nullptr) {
          count(c[1]);
          return;
        }
        const unsigned long long index =
          detail::device_atomic<unsigned long long>(c[0]).fetch_add(1, detail::memory_order_relaxed);
        if (index >= capacity) {  // more chunks than fit in the heap: overlapping allocations
          count(c[2]);
          return;
        }
        table[index] = p;
        write_pattern(p, bytes, pattern_seed(index, 0));
      }
    });
    chunks_ = std::min<std::size_t>(counters_.get(0), capacity_);
    launch(chunks_, [=] DEVALLOC_DEVICE(std::size_t index) {
      count(c[2], pattern_errors(table[index], bytes, pattern_seed(index, 0)));
    });

    fill_result result;
    result.chunks = counters_.get(0);
    result.workers_that_saw_null = counters_.get(1);
    result.pattern_errors = counters_.get(2);
    std::vector<std::pair<std::uintptr_t, std::size_t>> ranges;
    const std::vector<void*> host = table_.to_host();
    for (std::size_t k = 0; k < chunks_; ++k) {
      ranges.emplace_back(reinterpret_cast<std::uintptr_t>(host[k]), bytes_);
    }
    result.overlaps = count_overlaps(std::move(ranges));
    return result;
  }

  /// Frees every chunk of the last fill() with dealloc() (from other workers than allocated them).
  void free_fill()
  {
    auto handle = handle_;
    void** table = table_.data();
    launch(chunks_, [=] DEVALLOC_DEVICE(std::size_t index) { handle.dealloc(table[index]); });
    chunks_ = 0;
  }

  /// Forgets the last fill() without freeing (after Allocator::reset()).
  void forget() { chunks_ = 0; }

 private:
  typename Allocator::handle_type handle_;
  std::size_t bytes_, workers_, capacity_;
  std::size_t chunks_ = 0;
  buffer<void*> table_;
  buffer<unsigned long long> counters_;
};

/// One worker calls alloc(bytes) and returns the pointer (nullptr or not) as an integer.
template <class Allocator>
std::uintptr_t single_alloc(Allocator& allocator, std::size_t bytes)
{
  auto handle = allocator.handle();
  buffer<std::uintptr_t> out(1);
  std::uintptr_t* o = out.data();
  launch(1, [=] DEVALLOC_DEVICE(std::size_t) { o[0] = reinterpret_cast<std::uintptr_t>(handle.alloc(bytes)); });
  return out.get(0);
}

/// One worker calls dealloc(p).
template <class Allocator>
void single_dealloc(Allocator& allocator, std::uintptr_t p)
{
  auto handle = allocator.handle();
  launch(1, [=] DEVALLOC_DEVICE(std::size_t) { handle.dealloc(reinterpret_cast<void*>(p)); });
}

/// getAvailableSlots(bytes) computed by one worker on the device.
template <class Allocator>
std::size_t device_available_slots(Allocator& allocator, std::size_t bytes)
{
  auto handle = allocator.handle();
  buffer<std::size_t> out(1);
  std::size_t* o = out.data();
  launch(1, [=] DEVALLOC_DEVICE(std::size_t) { o[0] = handle.getAvailableSlots(bytes); });
  return out.get(0);
}

}  // namespace devalloc::testing
