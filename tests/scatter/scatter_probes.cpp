// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// tests/scatter/scatter_probes.cpp — Scatter's search, observed through the probe hooks
// (detail/probe.hpp). Its own binary, CPU backend only: DEVALLOC_PROBE must be defined before
// devalloc is included, and every translation unit of a program must see the same definition.
//
// What it checks: on a heap whose pages all hold chunks a request cannot use (another class, not
// full, so neither the region threshold nor a full page hides them) except one free page, the
// request finds that page through the free-page map, without walking the heap; and a request
// whose class slot names a page with room is served there with one try.
#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

namespace probe_testing {
inline std::array<std::atomic<unsigned long long>, 64> events{};
inline void count(unsigned e) { events[e].fetch_add(1, std::memory_order_relaxed); }
inline void clear()
{
  for (auto& e : events) { e.store(0); }
}
}  // namespace probe_testing

#define DEVALLOC_PROBE(e) ::probe_testing::count(::devalloc::detail::probe::e)

#include <gtest/gtest.h>

#include <devalloc/devalloc.hpp>

#include "scatter_scenarios.hpp"

namespace devalloc::scatter_testing {
namespace {

namespace probe = detail::probe;
static_assert(probe::count <= probe_testing::events.size());

using allocator_t = presets::scatter;

unsigned long long seen(probe::event e) { return probe_testing::events[e].load(); }

/// What one 16-byte request did on a heap where every page holds one 2048-byte chunk of two (not
/// full, and a class a 16-byte request does not accept) except one free page.
struct small_request {
  std::uint32_t page = ~0u;      ///< page the request landed on (~0u: nullptr)
  std::uint32_t free_page = 0;   ///< the only free page
  unsigned long long tries = 0;  ///< probe::page_try
  unsigned long long pass1 = 0;  ///< probe::pass1
  unsigned long long walks = 0;  ///< probe::walk
  unsigned long long again = 0;  ///< tries of a second request of the same size
};

small_request half_filled_heap_then_small_request()
{
  using A = allocator_t;
  A allocator(std::size_t{1} << 20);
  const auto c = allocator.handle().creation();
  const std::uint32_t pages = c.page_count();
  std::vector<std::uintptr_t> chunks;
  for (;;) {
    const std::uintptr_t p = single_alloc(allocator, 2048);
    if (p == 0) { break; }
    chunks.push_back(p);
  }
  EXPECT_EQ(chunks.size(), 2u * pages) << "every page takes two 2048-byte chunks";
  small_request r;
  r.free_page = pages / 2 + 5;  // somewhere away from the hashed pages' start
  for (const std::uintptr_t p : chunks) {
    const std::uint32_t page = c.page_of(reinterpret_cast<void*>(p));
    const bool second_half = (p - reinterpret_cast<std::uintptr_t>(c.data_begin())) % A::creation_policy::pagesize != 0;
    if (page == r.free_page || second_half) { single_dealloc(allocator, p); }
  }
  EXPECT_EQ(c.page_host(r.free_page).chunk, 0u) << "the emptied page is reset (resetfreedpages)";
  probe_testing::clear();
  const std::uintptr_t small = single_alloc(allocator, 16);
  r.tries = seen(probe::page_try);
  r.pass1 = seen(probe::pass1);
  r.walks = seen(probe::walk);
  EXPECT_NE(small, 0u);
  probe_testing::clear();
  const std::uintptr_t second = single_alloc(allocator, 16);
  r.again = seen(probe::page_try);
  EXPECT_NE(second, 0u);
  if (small != 0 && second != 0) {
    EXPECT_EQ(c.page_of(reinterpret_cast<void*>(second)), c.page_of(reinterpret_cast<void*>(small)))
      << "the second request must use the page its class slot names";
  }
  EXPECT_EQ(c.check_invariants_host(), "");
  if (small != 0) { r.page = c.page_of(reinterpret_cast<void*>(small)); }
  return r;
}

TEST(ScatterSearch, TheFreePageMapFindsTheOnlyFreePageWithoutAWalk)
{
  const small_request r = half_filled_heap_then_small_request();
  EXPECT_EQ(r.page, r.free_page) << "the request must land on the only free page";
  EXPECT_EQ(r.walks, 0u) << "the free-page map must find the page (no walk over the heap)";
  EXPECT_EQ(r.pass1, 0u);
  EXPECT_LE(r.tries, 2u) << "directory rounds: the empty slot, then the page from the map";
  EXPECT_EQ(r.again, 1u) << "the class slot's page serves the next request at the first try";
}

}  // namespace
}  // namespace devalloc::scatter_testing
