// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// tests/scatter/scatter_override.cpp — built with -DDEVALLOC_SCATTER_<NAME>=... for every
// parameter (see CMakeLists.txt): the defaults of ScatterConfig and XMallocSIMDConfig follow the
// compile definitions (mallocMC thesis §4.3.7), and the resulting allocator works.
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include <devalloc/devalloc.hpp>

#include "scatter_scenarios.hpp"

namespace devalloc::scatter_testing {
namespace {

using C = creation::ScatterConfig;
static_assert(C::pagesize == 1024);
static_assert(C::accessblocksize == 65536);
static_assert(C::regionsize == 8);
static_assert(C::wastefactor == 3);
static_assert(!C::resetfreedpages);
static_assert(C::hash_k_size == 101);
static_assert(C::hash_k_mp == 103);
static_assert(C::class_slots == 7, "DEVALLOC_SCATTER_CLASS_SLOTS=7");
static_assert(C::warp_slots == 9, "DEVALLOC_SCATTER_WARP_SLOTS=9");
static_assert(C::open_wait_reads == 5, "DEVALLOC_SCATTER_OPEN_WAIT_READS=5");
static_assert(C::span_pages == 3, "DEVALLOC_SCATTER_SPAN_PAGES=3");
static_assert(creation::Scatter<>::class_slots == 7 && creation::Scatter<>::open_wait_reads == 5);
static_assert(distribution::XMallocSIMDConfig::pagesize == 1024, "XMallocSIMD follows DEVALLOC_SCATTER_PAGESIZE");

TEST(ScatterOverride, CompileDefinitionsChangeTheDefaults)
{
  const std::string name = creation::Scatter<>::classname();
  EXPECT_EQ(name,
            "Scatter<pagesize=1024, accessblocksize=65536, regionsize=8, wastefactor=3, resetfreedpages=0, k_S=101, "
            "k_mp=103, class_slots=7, warp_slots=9, open_wait_reads=5, span_pages=3>");
  presets::scatter_simd allocator(1u << 20);
  const auto c = allocator.handle().creation();
  EXPECT_EQ(c.pages_per_block(), 64u);
  EXPECT_EQ(c.region_pages(), 8u);
  const auto r = live_allocations(allocator, 256, 4, mixed_size{600}, all_workers{}, opts());
  EXPECT_EQ(r.returned_null + r.overlaps + r.pattern_errors + r.misaligned, 0u);
  EXPECT_EQ(c.check_invariants_host(), "");
}

}  // namespace
}  // namespace devalloc::scatter_testing
