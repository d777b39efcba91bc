// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// tests/compile_fail/misconfigurations.cpp — each DEVALLOC_CASE must fail to compile with a
// static_assert that says what to change (checked by CTest against the message).
#include <devalloc/devalloc.hpp>

using namespace devalloc;

#if DEVALLOC_CASE == 1  // DeviceMalloc needs CUDA's heap, not a pool
using A = Allocator<creation::DeviceMalloc, distribution::Noop, oom::ReturnNull, reserve_pool::CudaMalloc,
                    alignment::NoAlignment>;
#elif DEVALLOC_CASE == 2  // a pool-based creation policy without a pool
using A = Allocator<creation::AtomicBump, distribution::Noop, oom::ReturnNull, reserve_pool::CudaSetLimits,
                    alignment::Shrink<16>>;
#elif DEVALLOC_CASE == 3  // policies in the wrong slots
using A =
  Allocator<distribution::Noop, creation::AtomicBump, oom::ReturnNull, reserve_pool::CudaMalloc, alignment::Shrink<16>>;
#elif DEVALLOC_CASE == 4  // alignment that is not a power of two
using A =
  Allocator<creation::AtomicBump, distribution::Noop, oom::ReturnNull, reserve_pool::CudaMalloc, alignment::Shrink<24>>;
#elif DEVALLOC_CASE == 5  // reset() on an allocator that cannot free everything at once
using A = presets::device_malloc;
void f(A& a) { a.reset(); }
#elif DEVALLOC_CASE == 6  // getAvailableSlots() where the creation policy does not provide it
using A = presets::device_malloc;
std::size_t f(const A& a) { return a.getAvailableSlots(64); }
#elif DEVALLOC_CASE == 7  // XMallocSIMD with a creation policy that cannot find the chunk of a slice
using A = Allocator<creation::AtomicBump, distribution::XMallocSIMD<>, oom::ReturnNull, reserve_pool::CudaMalloc,
                    alignment::Shrink<16>>;
#elif DEVALLOC_CASE == 8  // Scatter and XMallocSIMD with different page sizes
struct Page1K : creation::ScatterConfig {
  static constexpr std::uint32_t pagesize = 1024;
};
using A = Allocator<creation::Scatter<Page1K>, distribution::XMallocSIMD<>, oom::ReturnNull, reserve_pool::CudaMalloc,
                    alignment::Shrink<16>>;
#endif

A* instantiate();
std::size_t size_of_a = sizeof(A);
