// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// tests/scatter/scatter_scenarios.hpp
//
// Worker-side scenarios of the Scatter tests, as free function templates over the allocator type:
// nvcc cannot define __device__ lambdas inside a gtest TEST body (a private member function), so
// every devalloc::launch lives here. Each scenario returns what it observed; scatter_tests.cpp
// asserts on it. All memory the host reads back is a devalloc::buffer (backend memory).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <devalloc/buffer.hpp>
#include <devalloc/detail/atomic.hpp>
#include <devalloc/detail/warp.hpp>
#include <devalloc/devalloc.hpp>

#include "../support/scenarios.hpp"

namespace devalloc::scatter_testing {

// Patterns, overlap checks, size and caller functors, live_allocations, churn, single_alloc and
// single_dealloc are the shared ones of tests/support/scenarios.hpp.
using namespace devalloc::testing;

/// Sizes that keep the CPU run short; the GPU run uses more workers and (for the checksum test)
/// a heap of DEVALLOC_SCATTER_TEST_HEAP_MIB MiB (default 1024 on CUDA, 16 on the CPU).
struct scale {
#if DEVALLOC_BACKEND_CUDA
  static constexpr std::size_t heap = 64u << 20;
  static constexpr std::size_t workers = 16384;
  static constexpr std::size_t fill_workers = 8192;
  static constexpr std::size_t checksum_heap_mib = 1024;
  static constexpr unsigned cpu_threads = 0;
#else
  static constexpr std::size_t heap = 4u << 20;
  static constexpr std::size_t workers = 512;
  static constexpr std::size_t fill_workers = 64;
  static constexpr std::size_t checksum_heap_mib = 16;
  static constexpr unsigned cpu_threads = 16;  // more threads than cores: preemption inside the allocator
#endif
};

inline launch_options opts()
{
  launch_options o;
  o.cpu_threads = scale::cpu_threads;
  return o;
}

inline std::size_t checksum_heap_bytes()
{
  std::size_t mib = scale::checksum_heap_mib;
  if (const char* env = std::getenv("DEVALLOC_SCATTER_TEST_HEAP_MIB")) {
    const long long v = std::atoll(env);
    if (v > 0) { mib = static_cast<std::size_t>(v); }
  }
  return mib << 20;
}

DEVALLOC_HOST_DEVICE inline std::uint32_t mix(std::uint64_t a, std::uint64_t b)
{
  std::uint64_t x = (a << 32) ^ b ^ 0x9E3779B97F4A7C15ull;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 32;
  return static_cast<std::uint32_t>(x);
}

/// Checksum word j of allocation (owner, k) (thesis §5.4: derived from the worker and a counter).
DEVALLOC_HOST_DEVICE inline std::uint32_t checksum(std::uint64_t owner, std::uint64_t k, std::uint64_t j)
{
  return mix(owner * 1000003ull + k, j);
}

DEVALLOC_DEVICE inline void write_words(void* p, std::size_t bytes, std::uint64_t owner, std::uint64_t k)
{
  auto* w = static_cast<std::uint32_t*>(p);
  for (std::size_t j = 0; j < bytes / 4; ++j) { w[j] = checksum(owner, k, j); }
}

DEVALLOC_DEVICE inline unsigned long long bad_words(const void* p, std::size_t bytes, std::uint64_t owner,
                                                    std::uint64_t k)
{
  const auto* w = static_cast<const std::uint32_t*>(p);
  unsigned long long bad = 0;
  for (std::size_t j = 0; j < bytes / 4; ++j) { bad += w[j] != checksum(owner, k, j); }
  return bad;
}

/// A few sizes from each class: tiny, hierarchical, flat, whole page, multi-page.
struct class_size {
  std::size_t pagesize;
  DEVALLOC_HOST_DEVICE std::size_t operator()(std::size_t i, std::size_t k) const
  {
    const std::uint32_t r = mix(i, k + 99);
    switch (r % 8) {
      case 0:
        return 16;
      case 1:
        return 48;
      case 2:
        return 64 + (r >> 8) % 200 / 4 * 4;
      case 3:
        return 256;
      case 4:
        return 1000;
      case 5:
        return pagesize;
      case 6:
        return pagesize + 4;
      default:
        return 4 + (r >> 8) % 3000 / 4 * 4;
    }
  }
};

/// A table of pointers that live in backend memory, filled by fill() and freed by free_all().
template <class Allocator>
class filler {
 public:
  filler(Allocator& allocator, std::size_t capacity)
      : handle_(allocator.handle()), capacity_(capacity), table_(capacity), count_(1)
  {}

  /// `workers` workers each allocate size(i, k) until their first nullptr (or `limit` per
  /// worker), writing checksums. Returns the number of chunks added by this call.
  template <class Size>
  std::size_t fill(std::size_t workers, Size size, std::size_t limit = ~std::size_t{0})
  {
    auto handle = handle_;
    void** t = table_.data();
    unsigned long long* n = count_.data();
    const std::size_t capacity = capacity_;
    const std::size_t before = count();
    launch(
      workers,
      [=] DEVALLOC_DEVICE(std::size_t i) {
        for (std::size_t k = 0; k < limit; ++k) {
          const std::size_t bytes = size(i, k);
          void* p = handle.alloc(bytes);
          if (p == nullptr) { return; }
          const unsigned long long slot =
            detail::device_atomic<unsigned long long>(*n).fetch_add(1, detail::memory_order_relaxed);
          if (slot >= capacity) {  // cannot happen unless chunks overlap: keep it countable
            handle.dealloc(p);
            return;
          }
          t[slot] = p;
          write_words(p, bytes, slot, 0);
        }
      },
      opts());
    return count() - before;
  }

  /// Number of chunks held.
  std::size_t count() const { return static_cast<std::size_t>(std::min<unsigned long long>(count_.get(0), capacity_)); }

  /// Pointers held (host copy).
  std::vector<void*> pointers() const
  {
    std::vector<void*> all = table_.to_host();
    all.resize(count());
    return all;
  }

  /// Words that no longer hold the checksum written by fill(), for chunks of `bytes_of(slot)` bytes.
  template <class BytesOf>
  unsigned long long verify(BytesOf bytes_of) const
  {
    buffer<unsigned long long> bad(1);
    unsigned long long* b = bad.data();
    void** t = table_.data();
    launch(
      count(),
      [=] DEVALLOC_DEVICE(std::size_t slot) { testing::count(*b, bad_words(t[slot], bytes_of(slot), slot, 0)); },
      opts());
    return bad.get(0);
  }

  /// Frees every chunk held (from other workers than allocated them).
  void free_all()
  {
    auto handle = handle_;
    void** t = table_.data();
    launch(
      count(), [=] DEVALLOC_DEVICE(std::size_t slot) { handle.dealloc(t[slot]); }, opts());
    count_.zero();
  }

  void forget() { count_.zero(); }

 private:
  typename Allocator::handle_type handle_;
  std::size_t capacity_;
  buffer<void*> table_;
  buffer<unsigned long long> count_;
};

/// Sizes the filler's chunks by slot: chunks written by fill(w, fixed_size{b}) have b bytes.
struct slot_bytes_fixed {
  std::size_t bytes;
  DEVALLOC_HOST_DEVICE std::size_t operator()(std::size_t) const { return bytes; }
};

/// One worker allocates `bytes` until nullptr; returns how many it got (they stay allocated and
/// are listed in `out` when given).
template <class Allocator>
std::size_t count_by_filling(Allocator& allocator, std::size_t bytes, std::size_t capacity,
                             std::vector<std::uintptr_t>* out = nullptr)
{
  auto handle = allocator.handle();
  buffer<std::uintptr_t> table(capacity);
  buffer<unsigned long long> n(1);
  std::uintptr_t* t = table.data();
  unsigned long long* count = n.data();
  launch(1, [=] DEVALLOC_DEVICE(std::size_t) {
    for (std::size_t k = 0; k < capacity; ++k) {
      void* p = handle.alloc(bytes);
      if (p == nullptr) { return; }
      t[k] = reinterpret_cast<std::uintptr_t>(p);
      *count = k + 1;
    }
  });
  const auto got = static_cast<std::size_t>(n.get(0));
  if (out != nullptr) {
    *out = table.to_host();
    out->resize(got);
  }
  return got;
}

/// One worker frees each pointer of `ps`.
template <class Allocator>
void free_each(Allocator& allocator, const std::vector<std::uintptr_t>& ps)
{
  if (ps.empty()) { return; }
  auto handle = allocator.handle();
  buffer<std::uintptr_t> table(ps.size());
  table.assign(ps);
  std::uintptr_t* t = table.data();
  launch(
    ps.size(), [=] DEVALLOC_DEVICE(std::size_t i) { handle.dealloc(reinterpret_cast<void*>(t[i])); }, opts());
}

/// getAvailableSlots(bytes) on the device, computed by `workers` workers at once (on the GPU the
/// lanes of a warp cooperate); returns every worker's answer.
template <class Allocator>
std::vector<std::size_t> device_slots(Allocator& allocator, std::size_t bytes, std::size_t workers = 1)
{
  auto handle = allocator.handle();
  buffer<std::size_t> out(workers);
  std::size_t* o = out.data();
  launch(workers, [=] DEVALLOC_DEVICE(std::size_t i) { o[i] = handle.getAvailableSlots(bytes); });
  return out.to_host();
}

/// getAvailableSlots on the device where worker i asks for sizes[i % sizes.size()] (lanes of one
/// warp asking different sizes at once).
template <class Allocator>
std::vector<std::size_t> device_slots_mixed(Allocator& allocator, const std::vector<std::size_t>& sizes,
                                            std::size_t workers)
{
  auto handle = allocator.handle();
  buffer<std::size_t> in(sizes.size());
  in.assign(sizes);
  buffer<std::size_t> out(workers);
  const std::size_t* s = in.data();
  std::size_t* o = out.data();
  const std::size_t n = sizes.size();
  launch(workers, [=] DEVALLOC_DEVICE(std::size_t i) { o[i] = handle.getAvailableSlots(s[i % n]); });
  return out.to_host();
}

/// Every worker allocates `bytes` and, if it gets nullptr, retries up to `retries` times (user
/// code that waits for memory, as in the stress test that deadlocked on stale chunk sizes); the
/// workers still without memory when the launch ends try again in up to `relaunches` further
/// launches. Returns how many workers never got memory; frees everything afterwards.
///
/// Why later launches: near a full heap a request may get nullptr while a page is being opened or
/// a transient +1 sits on its last free chunk (docs/scatter.md, "Known limitations"). On the GPU
/// such a window lasts a few instructions; on the CPU backend the worker holding it may be a thread
/// the OS has descheduled for a time slice, during which 100 retries pass. A launch ends only when
/// every worker is done, so no window survives it: a worker that fails in a later launch as well
/// meets memory that is not there or that nobody can take (a stale chunk size), which is what the
/// callers test.
template <class Allocator>
std::size_t alloc_with_retries(Allocator& allocator, std::size_t workers, std::size_t bytes, std::size_t retries,
                               std::size_t relaunches = 3)
{
  auto handle = allocator.handle();
  buffer<void*> table(workers);
  buffer<unsigned long long> failed(1);
  void** t = table.data();
  unsigned long long* f = failed.data();
  for (std::size_t round = 0; round <= relaunches; ++round) {
    failed.zero();
    launch(
      workers,
      [=] DEVALLOC_DEVICE(std::size_t i) {
        void* p = round == 0 ? nullptr : t[i];
        for (std::size_t r = 0; r <= retries && p == nullptr; ++r) { p = handle.alloc(bytes); }
        if (p == nullptr) { testing::count(*f); }
        t[i] = p;
      },
      opts());
    if (failed.get(0) == 0) { break; }
  }
  launch(
    workers, [=] DEVALLOC_DEVICE(std::size_t i) { handle.dealloc(t[i]); }, opts());
  return static_cast<std::size_t>(failed.get(0));
}

/// Calls the policies directly: creates one chunk of `total` bytes and, if `members` != 0, makes
/// it a combined chunk of `members` slices with XMallocSIMD's own write_header (as a part's leader
/// does in distribute(); thesis §4.3.3). Returns the chunk.
template <class Allocator>
std::uintptr_t create_shared_chunk(Allocator& allocator, std::size_t total, std::uint32_t members)
{
  using simd = typename Allocator::distribution_policy;
  const auto creation = allocator.handle().creation();
  buffer<std::uintptr_t> out(1);
  std::uintptr_t* o = out.data();
  launch(1, [=] DEVALLOC_DEVICE(std::size_t) {
    void* p = creation.create(total);
    if (p != nullptr && members != 0) { simd::write_header(p, members, static_cast<std::uint32_t>(total)); }
    o[0] = reinterpret_cast<std::uintptr_t>(p);
  });
  return out.get(0);
}

/// Writes a header with `members` members and `bytes` bytes into the chunk at `chunk` (XMallocSIMD's
/// write_header, by one worker).
template <class Allocator>
void write_shared_header(Allocator&, std::uintptr_t chunk, std::uint32_t members, std::uint32_t bytes)
{
  using simd = typename Allocator::distribution_policy;
  launch(1, [=] DEVALLOC_DEVICE(std::size_t) { simd::write_header(reinterpret_cast<void*>(chunk), members, bytes); });
}

/// The creation policy's chunk_start(p) for every p of `ps` (0 for nullptr or no live chunk).
template <class Allocator>
std::vector<std::uintptr_t> chunk_starts(Allocator& allocator, const std::vector<std::uintptr_t>& ps)
{
  if (ps.empty()) { return {}; }
  const auto creation = allocator.handle().creation();
  buffer<std::uintptr_t> table(ps.size());
  table.assign(ps);
  std::uintptr_t* t = table.data();
  launch(ps.size(), [=] DEVALLOC_DEVICE(std::size_t i) {
    t[i] = t[i] == 0 ? 0 : reinterpret_cast<std::uintptr_t>(creation.chunk_start(reinterpret_cast<void*>(t[i])));
  });
  return table.to_host();
}

/// XMallocSIMD's members_of(chunk): live members of a combined chunk, 0 if its header is not tagged.
template <class Allocator>
std::uint32_t shared_members(Allocator&, std::uintptr_t chunk)
{
  using simd = typename Allocator::distribution_policy;
  buffer<std::uint32_t> out(1);
  std::uint32_t* o = out.data();
  launch(1, [=] DEVALLOC_DEVICE(std::size_t) { o[0] = simd::members_of(reinterpret_cast<void*>(chunk)); });
  return out.get(0);
}

struct checksum_result {
  std::size_t chunks = 0;
  unsigned long long bytes = 0;
  unsigned long long bad_words = 0;
  std::size_t overlaps = 0;
  std::size_t workers_out_of_memory = 0;
};

/// Thesis §5.4 checksum test: `workers` workers allocate size(i, k) chunks until their first
/// nullptr (at most per_worker each) and write checksums of (worker, counter) into them; a second
/// launch recomputes and compares every word; the host checks that no two chunks overlap. Frees
/// everything at the end.
template <class Allocator, class Size>
checksum_result checksum_fill(Allocator& allocator, std::size_t workers, std::size_t per_worker, Size size)
{
  auto handle = allocator.handle();
  buffer<void*> table(workers * per_worker);
  buffer<unsigned long long> counters(3);  // [0] bad words, [1] bytes, [2] workers out of memory
  void** t = table.data();
  unsigned long long* c = counters.data();
  launch(
    workers,
    [=] DEVALLOC_DEVICE(std::size_t i) {
      for (std::size_t k = 0; k < per_worker; ++k) {
        const std::size_t bytes = size(i, k);
        void* p = handle.alloc(bytes);
        if (p == nullptr) {
          testing::count(c[2]);
          return;
        }
        t[i * per_worker + k] = p;
        testing::count(c[1], bytes);
        write_words(p, bytes, i, k);
      }
    },
    opts());
  launch(
    workers,
    [=] DEVALLOC_DEVICE(std::size_t i) {
      for (std::size_t k = 0; k < per_worker; ++k) {
        const void* p = t[i * per_worker + k];
        if (p == nullptr) { return; }
        testing::count(c[0], bad_words(p, size(i, k), i, k));
      }
    },
    opts());
  checksum_result r;
  const std::vector<void*> host = table.to_host();
  std::vector<std::pair<std::uintptr_t, std::size_t>> ranges;
  for (std::size_t i = 0; i < workers; ++i) {
    for (std::size_t k = 0; k < per_worker && host[i * per_worker + k] != nullptr; ++k) {
      ranges.emplace_back(reinterpret_cast<std::uintptr_t>(host[i * per_worker + k]), size(i, k));
    }
  }
  r.chunks = ranges.size();
  r.overlaps = count_overlaps(std::move(ranges));
  r.bad_words = counters.get(0);
  r.bytes = counters.get(1);
  r.workers_out_of_memory = static_cast<std::size_t>(counters.get(2));
  launch(
    workers,
    [=] DEVALLOC_DEVICE(std::size_t i) {
      for (std::size_t k = 0; k < per_worker; ++k) { handle.dealloc(t[i * per_worker + k]); }
    },
    opts());
  return r;
}

/// `workers` workers (whole warps) each allocate `bytes` once; returns the pointers (still held).
template <class Allocator>
std::vector<std::uintptr_t> alloc_each_once(Allocator& allocator, std::size_t workers, std::size_t bytes)
{
  auto handle = allocator.handle();
  buffer<std::uintptr_t> out(workers);
  std::uintptr_t* o = out.data();
  launch(
    workers, [=] DEVALLOC_DEVICE(std::size_t i) { o[i] = reinterpret_cast<std::uintptr_t>(handle.alloc(bytes)); },
    opts());
  return out.to_host();
}

/// Lane 0 of each of `warps` warps allocates `bytes` once (the other lanes do not call); returns
/// the pointers (still held), one per warp.
template <class Allocator>
std::vector<std::uintptr_t> alloc_one_lane_per_warp(Allocator& allocator, std::size_t warps, std::size_t bytes)
{
  constexpr std::size_t warp = 32;
  auto handle = allocator.handle();
  buffer<std::uintptr_t> out(warps);
  std::uintptr_t* o = out.data();
  launch(
    warps * warp,
    [=] DEVALLOC_DEVICE(std::size_t i) {
      if (i % warp == 0) { o[i / warp] = reinterpret_cast<std::uintptr_t>(handle.alloc(bytes)); }
    },
    opts());
  return out.to_host();
}

}  // namespace devalloc::scatter_testing
