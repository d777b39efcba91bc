// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// tests/runs/runs_tests.cpp
//
// creation::Runs beyond the conformance suite: in a full heap, room that frees make anywhere is
// found by a request that starts its search elsewhere (a run is found wherever it lies, also
// across map words and the groups the search may skip), and only a run long enough serves.
#include <cstddef>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include <devalloc/devalloc.hpp>

namespace devalloc::testing {
namespace {

using runs_heap = presets::runs;
constexpr std::size_t unit = creation::RunsConfig::unit_bytes;

/// A heap of `heap_bytes` filled with one-unit allocations until every worker saw nullptr
/// (so the searches of the last requests failed over the whole map); returns the pointers, nullptr
/// for the requests that failed.
std::vector<void*> fill_with_units(runs_heap& heap, std::size_t workers)
{
  buffer<void*> out(workers);
  void** o = out.data();
  const auto h = heap.handle();
  launch(workers, [=] DEVALLOC_DEVICE(std::size_t i) { o[i] = h.alloc(unit); });
  return out.to_host();
}

/// Frees, in one launch, the allocations of `pointers` that lie in [lo, hi).
void free_between(runs_heap& heap, const std::vector<void*>& pointers, const char* lo, const char* hi)
{
  std::vector<void*> chosen;
  for (void* p : pointers) {
    if (p != nullptr && static_cast<const char*>(p) >= lo && static_cast<const char*>(p) < hi) { chosen.push_back(p); }
  }
  ASSERT_EQ(chosen.size(), static_cast<std::size_t>(hi - lo) / unit) << "the window was not filled with units";
  buffer<void*> list(chosen.size());
  detail::backend::copy_to_device(list.data(), chosen.data(), chosen.size() * sizeof(void*));
  void** l = list.data();
  const auto h = heap.handle();
  launch(chosen.size(), [=] DEVALLOC_DEVICE(std::size_t i) { h.dealloc(l[i]); });
}

/// One request of `bytes` from one worker.
void* alloc_one(runs_heap& heap, std::size_t bytes)
{
  buffer<void*> out(1);
  void** o = out.data();
  const auto h = heap.handle();
  launch(1, [=] DEVALLOC_DEVICE(std::size_t) { o[0] = h.alloc(bytes); });
  return out.to_host()[0];
}

TEST(Runs, AWindowFreedInAFullHeapServesARequestThatStartsElsewhere)
{
  // 32 MiB: 130 000 units of 256 B, 32 groups of the search. Filled with units by more workers
  // than fit, then a 64 KiB window in the middle freed: a 64 KiB request gets exactly that window
  // (nothing else is free), one of 64 KiB + 1 unit gets nothing.
  runs_heap heap(std::size_t{32} << 20);
  const std::vector<void*> units = fill_with_units(heap, 200000);
  const char* lowest = nullptr;
  std::size_t failed = 0;
  for (void* p : units) {
    failed += p == nullptr;
    if (p != nullptr && (lowest == nullptr || static_cast<const char*>(p) < lowest)) {
      lowest = static_cast<const char*>(p);
    }
  }
  ASSERT_GT(failed, 0u) << "the heap was not filled";
  const char* window = lowest + (std::size_t{16} << 20);
  free_between(heap, units, window, window + 65536);
  EXPECT_EQ(alloc_one(heap, 65536 + unit), nullptr) << "a request longer than the only free run got memory";
  EXPECT_EQ(alloc_one(heap, 65536), window) << "the only free run was not found";
  heap.check_errors();
}

TEST(Runs, ARunAcrossMapWordsAndSearchGroupsIsFound)
{
  // A window of 40 units that straddles a map word (64 units) and a search group (4096 units:
  // 1 MiB at 256 B), freed in a full heap after requests of 40 units failed there: a request of 40
  // units gets it, starting at its first unit.
  runs_heap heap(std::size_t{8} << 20);
  const std::vector<void*> units = fill_with_units(heap, 50000);
  const char* lowest = nullptr;
  for (void* p : units) {
    if (p != nullptr && (lowest == nullptr || static_cast<const char*>(p) < lowest)) {
      lowest = static_cast<const char*>(p);
    }
  }
  ASSERT_NE(lowest, nullptr);
  EXPECT_EQ(alloc_one(heap, 40 * unit), nullptr) << "the heap is full";
  const char* window = lowest + (std::size_t{4096} * 3 - 20) * unit;  // units 12 268 .. 12 307
  free_between(heap, units, window, window + 40 * unit);
  EXPECT_EQ(alloc_one(heap, 40 * unit), window);
  heap.check_errors();
}

}  // namespace
}  // namespace devalloc::testing
