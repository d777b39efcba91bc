// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// tests/scatter/scatter_probes.cpp — Scatter's search, observed through the probe hooks
// (detail/probe.hpp). Its own binary, CPU backend only: DEVALLOC_PROBE must be defined before
// devalloc is included, and every translation unit of a program must see the same definition.
//
// What it checks: on a heap whose pages all hold chunks a request cannot use (another class, not
// full, so neither the region threshold nor a full page hides them) except one free page, the
// request finds that page through the free-page map, without walking the heap; a request
// whose class slot names a page with room is served there with one try; and a warp on a full
// heap is served from the one page with room that a slot keeps (its own slot or, through the
// directory scan, another's), without a walk; a request of more than half a page looks only at the
// free-page map, full heap or not.
#include <algorithm>
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

/// One request of one worker and the probe's counts of the events it caused.
struct probed {
  std::uintptr_t p = 1;  ///< the pointer (0: nullptr)
  std::array<unsigned long long, probe::count> events{};
  unsigned long long operator[](probe::event e) const { return events[e]; }
};

/// A single worker's request of `bytes`, its events counted from zero.
template <class A>
probed probed_alloc(A& allocator, std::size_t bytes)
{
  probe_testing::clear();
  probed r;
  r.p = single_alloc(allocator, bytes);
  for (unsigned e = 0; e < probe::count; ++e) { r.events[e] = seen(static_cast<probe::event>(e)); }
  return r;
}

/// What one 16-byte request did on a heap where every page holds one 2048-byte chunk of two (not
/// full, and a class a 16-byte request does not accept) except one free page.
struct small_request {
  std::uint32_t page = ~0u;     ///< page the request landed on (~0u: nullptr)
  std::uint32_t free_page = 0;  ///< the only free page
  probed first;                 ///< the request
  probed second;                ///< a second request of the same size
};

/// One worker allocates `bytes` until the heap returns nullptr; the chunks stay held.
template <class A>
std::vector<std::uintptr_t> fill_by_one_worker(A& allocator, std::size_t bytes)
{
  std::vector<std::uintptr_t> chunks;
  for (std::uintptr_t p = single_alloc(allocator, bytes); p != 0; p = single_alloc(allocator, bytes)) {
    chunks.push_back(p);
  }
  return chunks;
}

small_request half_filled_heap_then_small_request()
{
  using A = allocator_t;
  A allocator(std::size_t{1} << 20);
  const auto c = allocator.handle().creation();
  const std::uint32_t pages = c.page_count();
  const std::vector<std::uintptr_t> chunks = fill_by_one_worker(allocator, 2048);
  EXPECT_EQ(chunks.size(), 2u * pages) << "every page takes two 2048-byte chunks";
  small_request r;
  r.free_page = pages / 2 + 5;  // somewhere away from the hashed pages' start
  for (const std::uintptr_t p : chunks) {
    const std::uint32_t page = c.page_of(reinterpret_cast<void*>(p));
    const bool second_half = (p - reinterpret_cast<std::uintptr_t>(c.data_begin())) % A::creation_policy::pagesize != 0;
    if (page == r.free_page || second_half) { single_dealloc(allocator, p); }
  }
  EXPECT_EQ(c.page_host(r.free_page).chunk, 0u) << "the emptied page is reset (resetfreedpages)";
  r.first = probed_alloc(allocator, 16);
  EXPECT_NE(r.first.p, 0u);
  r.second = probed_alloc(allocator, 16);
  EXPECT_NE(r.second.p, 0u);
  if (r.first.p != 0 && r.second.p != 0) {
    EXPECT_EQ(c.page_of(reinterpret_cast<void*>(r.second.p)), c.page_of(reinterpret_cast<void*>(r.first.p)))
      << "the second request must use the page its class slot names";
  }
  EXPECT_EQ(c.check_invariants_host(), "");
  if (r.first.p != 0) { r.page = c.page_of(reinterpret_cast<void*>(r.first.p)); }
  return r;
}

TEST(ScatterSearch, TheFreePageMapFindsTheOnlyFreePageWithoutAWalk)
{
  const small_request r = half_filled_heap_then_small_request();
  EXPECT_EQ(r.page, r.free_page) << "the request must land on the only free page";
  EXPECT_EQ(r.first[probe::walk], 0u) << "the free-page map must find the page (no walk over the heap)";
  EXPECT_EQ(r.first[probe::pass1], 0u);
  EXPECT_LE(r.first[probe::page_try], 2u) << "directory rounds: the empty slot, then the page from the map";
  EXPECT_EQ(r.second[probe::page_try], 1u) << "the class slot's page serves the next request at the first try";
}

/// What a warp of 32 lanes asking for 16 bytes each did on a full heap where one page (filled
/// by lone lanes, so no whole-warp slot names it) has 40 chunks free.
struct warp_on_full_heap {
  std::size_t served = 0;        ///< lanes given a chunk
  std::size_t on_room_page = 0;  ///< of those, chunks on the page with room
  std::size_t distinct = 0;      ///< distinct pointers among them
  unsigned long long scans = 0;  ///< probe::directory_scan (lanes that scanned)
  unsigned long long walks = 0;  ///< probe::walk
  std::uintptr_t after = 1;      ///< one more 16-byte request after the warp (0: nullptr)
};

warp_on_full_heap full_heap_then_warp_request()
{
  using A = allocator_t;
  constexpr std::size_t bytes = 16;
  A allocator(std::size_t{4} << 20);  // 7 class slots, 127 whole-warp slots
  const auto c = allocator.handle().creation();
  const std::size_t total = allocator.getAvailableSlots(bytes);
  const std::size_t spots = total / c.page_count();
  // Lone lanes fill a few pages first (small groups install pages in the class rows, never in a
  // whole-warp slot), then whole warps fill the rest, then a single worker takes what concurrent
  // requests left (a request may fail while a chunk is being given back).
  std::vector<std::uintptr_t> lone = alloc_one_lane_per_warp(allocator, 2 * spots, bytes);
  std::vector<std::uintptr_t> all = alloc_each_once(allocator, total, bytes);
  all.insert(all.end(), lone.begin(), lone.end());
  all.erase(std::remove(all.begin(), all.end(), std::uintptr_t{0}), all.end());
  for (std::uintptr_t p = single_alloc(allocator, bytes); p != 0; p = single_alloc(allocator, bytes)) {
    all.push_back(p);
  }
  EXPECT_EQ(all.size(), total) << "the heap holds exactly getAvailableSlots(16) chunks";
  // 40 chunks of the first lone lane's page freed: the one page with room, named by the freeing
  // worker's class slot (and the directory scan reaches it from every slot).
  EXPECT_NE(lone[0], 0u);
  const std::uint32_t room_page = c.page_of(reinterpret_cast<void*>(lone[0]));
  std::size_t freed = 0;
  for (const std::uintptr_t p : all) {
    if (freed < 40 && c.page_of(reinterpret_cast<void*>(p)) == room_page) {
      single_dealloc(allocator, p);
      ++freed;
    }
  }
  EXPECT_EQ(freed, 40u);
  probe_testing::clear();
  const std::vector<std::uintptr_t> warp = alloc_each_once(allocator, 32, bytes);
  warp_on_full_heap r;
  r.scans = seen(probe::directory_scan);
  r.walks = seen(probe::walk);
  std::vector<std::uintptr_t> got;
  for (const std::uintptr_t p : warp) {
    if (p == 0) { continue; }
    ++r.served;
    r.on_room_page += c.page_of(reinterpret_cast<void*>(p)) == room_page ? 1u : 0u;
    got.push_back(p);
  }
  std::sort(got.begin(), got.end());
  r.distinct = static_cast<std::size_t>(std::unique(got.begin(), got.end()) - got.begin());
  r.after = single_alloc(allocator, bytes);
  EXPECT_EQ(c.check_invariants_host(), "");
  return r;
}

// The lanes of the warp reach the page through their own class slot when the emulator's schedule
// makes them small groups of the freeing worker's slot, otherwise (whole-warp slots, other class
// slots) only through the directory scan, which must then serve every lane.
TEST(ScatterSearch, AWarpOnAFullHeapIsServedFromTheDirectoryWithoutAWalk)
{
  const warp_on_full_heap r = full_heap_then_warp_request();
  EXPECT_EQ(r.served, 32u) << "40 chunks are free: every lane must be served (" << r.scans << " lanes scanned)";
  EXPECT_EQ(r.on_room_page, 32u) << "the only room is on the page with the freed chunks";
  EXPECT_EQ(r.distinct, 32u) << "no chunk handed out twice";
  EXPECT_EQ(r.walks, 0u) << "the directory names the page: no walk over the heap (" << r.scans << " lanes scanned)";
  EXPECT_NE(r.after, 0u) << "8 chunks are still free";
}

/// What requests of more than half a page did on a heap of one-chunk pages: full, then with
/// one page freed far from where the directory rounds look.
struct large_on_full_heap {
  probed full;                                   ///< a 3000-byte request on the full heap
  std::uint32_t free_page = 0;                   ///< the page freed then
  probed found;                                  ///< a 3000-byte request after that
  std::uint32_t page = ~0u;                      ///< its page
  std::uint32_t chunk = 0, count = 0, bits = 0;  ///< the page's state and bitfield after it
  std::uint32_t chunk_freed = ~0u;               ///< the page's chunk size after its chunk was freed again
};

large_on_full_heap one_chunk_pages_then_large_request()
{
  using A = allocator_t;
  A allocator(std::size_t{1} << 20);
  const auto c = allocator.handle().creation();
  const std::uint32_t pages = c.page_count();
  const std::vector<std::uintptr_t> chunks = fill_by_one_worker(allocator, 4096);
  EXPECT_EQ(chunks.size(), pages) << "every page takes one 4096-byte chunk";
  large_on_full_heap r;
  r.full = probed_alloc(allocator, 3000);
  r.free_page = pages / 2 + 3;
  for (const std::uintptr_t p : chunks) {
    if (c.page_of(reinterpret_cast<void*>(p)) == r.free_page) { single_dealloc(allocator, p); }
  }
  r.found = probed_alloc(allocator, 3000);
  const std::uintptr_t got = r.found.p;
  if (got != 0) {
    r.page = c.page_of(reinterpret_cast<void*>(got));
    const auto view = c.page_host(r.page);
    r.chunk = view.chunk;
    r.count = view.count;
    r.bits = view.bits;
  }
  EXPECT_EQ(c.check_invariants_host(), "");
  if (got != 0) {
    single_dealloc(allocator, got);
    r.chunk_freed = c.page_host(r.page).chunk;
    EXPECT_EQ(c.check_invariants_host(), "");
  }
  return r;
}

// A request of more than half a page fits only a page of one chunk, and with resetfreedpages such
// a page with room is free in the map: the map is looked through instead of the walk, which read
// every page's state for each request that failed (fill 16-4096 B at 80 %: 2 M allocs/s, H100).
TEST(ScatterSearch, ARequestOfMoreThanHalfAPageLooksOnlyAtTheFreePageMap)
{
  const large_on_full_heap r = one_chunk_pages_then_large_request();
  EXPECT_EQ(r.full.p, 0u) << "every page holds a live 4096-byte chunk: no room for 3000 bytes";
  EXPECT_EQ(r.full[probe::whole_page], 1u) << "the failing request must look through the free-page map once";
  EXPECT_EQ(r.full[probe::walk], 0u) << "no walk over the heap's page states";
  EXPECT_EQ(r.full[probe::page_try], 0u) << "no page state read";
  EXPECT_EQ(r.full[probe::room_stripe], 0u) << "a class of one chunk a page reads no stripe";
  EXPECT_EQ(r.page, r.free_page) << "the one free page, wherever it is, must serve the next request";
  EXPECT_EQ(r.found[probe::walk], 0u);
  // The page holds its one chunk: one reservation, its one bit set; its free resets it.
  EXPECT_EQ(r.chunk, 4096u) << "the 3000-byte request's class holds one chunk a page";
  EXPECT_EQ(r.count, 1u);
  EXPECT_EQ(r.bits, 1u) << "the chunk's bit is set at the open";
  EXPECT_EQ(r.chunk_freed, 0u) << "freeing the one chunk resets the page";
}

/// What requests that only pages of few chunks accept did on a heap of full two-chunk pages:
/// first with no room anywhere, then with one chunk freed.
struct few_chunks_on_full_heap {
  probed full;                   ///< an 1100-byte request on the full heap
  std::uint32_t freed_page = 0;  ///< the page one chunk was freed on then
  probed found;                  ///< an 1100-byte request after that free
  std::uint32_t page = ~0u;      ///< its page
  probed again;                  ///< one more 1100-byte request
};

/// `freed_at(pages)`: the page whose second chunk is freed.
few_chunks_on_full_heap two_chunk_pages_then_smaller_requests(std::uint32_t (*freed_at)(std::uint32_t pages))
{
  using A = allocator_t;
  A allocator(std::size_t{1} << 20);
  const auto c = allocator.handle().creation();
  const std::uint32_t pages = c.page_count();
  // 1500 bytes: chunks of 2048, two a page.
  const std::vector<std::uintptr_t> chunks = fill_by_one_worker(allocator, 1500);
  EXPECT_EQ(chunks.size(), 2u * pages) << "every page takes two 1500-byte requests";
  EXPECT_EQ(c.check_invariants_host(), "");
  few_chunks_on_full_heap r;
  // 1100 bytes: class 1360 (three a page); it accepts chunks of 1104-2208 bytes, so the full pages
  // of 2048 too, and each size it accepts holds two or three chunks a page.
  r.full = probed_alloc(allocator, 1100);
  r.freed_page = freed_at(pages);
  for (const std::uintptr_t p : chunks) {
    const bool second_half = (p - reinterpret_cast<std::uintptr_t>(c.data_begin())) % A::creation_policy::pagesize != 0;
    if (c.page_of(reinterpret_cast<void*>(p)) == r.freed_page && second_half) { single_dealloc(allocator, p); }
  }
  EXPECT_EQ(c.check_invariants_host(), "");
  r.found = probed_alloc(allocator, 1100);
  const std::uintptr_t got = r.found.p;
  if (got != 0) { r.page = c.page_of(reinterpret_cast<void*>(got)); }
  r.again = probed_alloc(allocator, 1100);
  EXPECT_EQ(c.check_invariants_host(), "");
  if (got != 0) {
    single_dealloc(allocator, got);
    EXPECT_EQ(c.check_invariants_host(), "");
  }
  return r;
}

void expect_found_in_its_stripe(const few_chunks_on_full_heap& r)
{
  EXPECT_EQ(r.full.p, 0u) << "every page holds two live 2048-byte chunks: no room for 1100 bytes";
  EXPECT_EQ(r.full[probe::walk], 0u) << "no walk over the heap's page states";
  EXPECT_EQ(r.full[probe::room_stripe], 0u) << "every room counter is 0: no stripe is read";
  EXPECT_EQ(r.full[probe::whole_page], 1u) << "the failing request must look through the free-page map once";
  EXPECT_EQ(r.page, r.freed_page) << "the freed 2048-byte chunk, wherever it is, must serve an 1100-byte request";
  EXPECT_LE(r.found[probe::room_stripe], 1u) << "only the freed page's stripe has room: its pages alone are read";
  EXPECT_EQ(r.found[probe::walk], 0u) << "no walk over the heap's page states";
  EXPECT_EQ(r.found[probe::whole_page], 0u) << "the room was found before the free-page map";
  EXPECT_EQ(r.again.p, 0u) << "that chunk was the only room";
  EXPECT_EQ(r.again[probe::walk], 0u);
}

// The room counters (fill.hpp, room_add) tell a request that only pages of few chunks accept that
// none of them has room: it looks through the free-page map and fails without the walk, which
// read every page's state for each failing request (sizes uniform in 16-4096 B at 80 % fill:
// 23 ms a failing request, H100). A chunk freed anywhere makes the counters of its page's stripe
// say so, and the request reads the pages of that stripe alone (alloc_counted), not the heap:
// wherever the page is, the first and the last page of the heap too (the ends of a stripe's walk).
TEST(ScatterSearch, ARequestWithNoRoomInPagesOfFewChunksFailsWithoutAWalk)
{
  struct place {
    const char* name;
    std::uint32_t (*page)(std::uint32_t pages);
  };
  const place places[] = {{"a page in the middle", [](std::uint32_t pages) { return pages / 2 + 7; }},
                          {"the first page", [](std::uint32_t) { return 0u; }},
                          {"the last page", [](std::uint32_t pages) { return pages - 1u; }}};
  for (const place& at : places) {
    SCOPED_TRACE(at.name);
    expect_found_in_its_stripe(two_chunk_pages_then_smaller_requests(at.page));
  }
}

}  // namespace
}  // namespace devalloc::scatter_testing
