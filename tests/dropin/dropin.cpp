// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// tests/dropin/dropin.cpp — the opt-in global allocator and the device malloc/free override
// (devalloc/global.hpp). A program of its own, since the override applies to the whole program.
#include <cstdint>
#include <cstdlib>

#include <gtest/gtest.h>

#include <devalloc/global.hpp>

#include "../support/cpu_seed.hpp"

DEVALLOC_SET_ALLOCATOR_TYPE(devalloc::presets::bump)
DEVALLOC_OVERWRITE_MALLOC();

namespace {

constexpr std::size_t heap_bytes = 1 << 22;
constexpr std::size_t workers = 1000;

/// Each worker takes 64 bytes through devalloc::global::malloc and writes/reads them.
unsigned long long global_malloc_round_trip()
{
  devalloc::buffer<unsigned long long> errors(1);
  unsigned long long* e = errors.data();
  devalloc::launch(workers, [=] DEVALLOC_DEVICE(std::size_t i) {
    auto* p = static_cast<std::size_t*>(devalloc::global::malloc(64));
    if (p == nullptr) {
      devalloc::detail::device_atomic<unsigned long long>(*e).fetch_add(1, devalloc::detail::memory_order_relaxed);
      return;
    }
    for (int k = 0; k < 8; ++k) { p[k] = i * 8 + k; }
    for (int k = 0; k < 8; ++k) {
      if (p[k] != i * 8 + k) {
        devalloc::detail::device_atomic<unsigned long long>(*e).fetch_add(1, devalloc::detail::memory_order_relaxed);
      }
    }
    devalloc::global::free(p);
  });
  return errors.get(0);
}

#if DEVALLOC_BACKEND_CUDA
/// Plain device malloc()/new as user code writes them; reports how many pointers came from the
/// global allocator's heap (its available slots drop by one per 16-byte chunk).
void plain_malloc_and_new(std::uintptr_t* out)
{
  devalloc::launch(1, [=] DEVALLOC_DEVICE(std::size_t) {
    void* p = malloc(16);
    int* q = new int[4];
    out[0] = reinterpret_cast<std::uintptr_t>(p);
    out[1] = reinterpret_cast<std::uintptr_t>(q);
  });
}
#endif

TEST(DropIn, GlobalAllocatorServesDeviceCode)
{
  EXPECT_THROW(devalloc::global::allocator(), devalloc::error) << "use before initHeap must be reported";
  devalloc::global::initHeap(heap_bytes);
  ASSERT_TRUE(devalloc::global::providesAvailableSlots());
  const std::size_t before = devalloc::global::getAvailableSlots(64);
  EXPECT_EQ(global_malloc_round_trip(), 0u);
  EXPECT_EQ(devalloc::global::getAvailableSlots(64), before - workers) << "each malloc(64) takes one 64-byte slot";
  EXPECT_EQ(devalloc::global::allocator().stats().failed_allocations, 0u);
  devalloc::global::finalizeHeap();
  EXPECT_THROW(devalloc::global::allocator(), devalloc::error);
}

#if DEVALLOC_BACKEND_CUDA
TEST(DropIn, DeviceMallocIsReplaced)
{
  devalloc::global::initHeap(heap_bytes);
  const std::size_t before = devalloc::global::getAvailableSlots(16);
  devalloc::buffer<std::uintptr_t> out(2);
  plain_malloc_and_new(out.data());
  const std::size_t after = devalloc::global::getAvailableSlots(16);
  EXPECT_NE(out.get(0), 0u);
  EXPECT_LE(after + 1, before) << "malloc() in device code did not use the global allocator";
  // Whether new[] also goes through malloc is CUDA's choice; record what this toolkit does.
  std::printf("[ INFO     ] new int[4] %s the global allocator (slots %zu -> %zu)\n",
              before - after >= 2 ? "went through" : "did NOT go through", before, after);
  devalloc::global::finalizeHeap();
}
#endif

}  // namespace
