// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// bench/src/clock.hpp — the clocks of devalloc-bench and its diagnostics: an in-kernel cycle
// counter and a device-wide nanosecond timer, on either backend. It includes nothing of the
// benchmark (no JSON, no allocator list), so that a diagnostic built with the library's include
// directories alone (bench/diag/fill_anatomy.cu) can use it.
#pragma once

#include <chrono>
#include <cstdint>

#include <devalloc/detail/platform.hpp>

#if DEVALLOC_BACKEND_CPU && (defined(__x86_64__) || defined(__i386__))
#include <x86intrin.h>
#define DEVALLOC_BENCH_HAS_RDTSC 1
#else
#define DEVALLOC_BENCH_HAS_RDTSC 0
#endif

namespace devalloc_bench {

using u64 = unsigned long long;

/// In-kernel cycle counter: clock64() on the GPU; the time-stamp counter (x86) or nanoseconds
/// on the CPU backend (see cycle_source()).
DEVALLOC_DEVICE inline u64 cycles_now()
{
#if DEVALLOC_BACKEND_CUDA
  return static_cast<u64>(clock64());
#elif DEVALLOC_BENCH_HAS_RDTSC
  return static_cast<u64>(__rdtsc());
#else
  return static_cast<u64>(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
}

/// Cycles since `t0` (a cycles_now() value) for an operation that just ended; at least 1, so a
/// measured operation never reads as 0 ("not measured").
DEVALLOC_DEVICE inline u64 cycles_since(u64 t0)
{
  const u64 t1 = cycles_now();
  return t1 > t0 ? t1 - t0 : 1;
}

inline const char* cycle_source()
{
#if DEVALLOC_BACKEND_CUDA
  return "clock64";
#elif DEVALLOC_BENCH_HAS_RDTSC
  return "rdtsc";
#else
  return "steady_clock_ns";
#endif
}

/// Nanoseconds of a device-wide clock (%globaltimer on the GPU, steady_clock on the CPU).
DEVALLOC_DEVICE inline u64 timer_ns()
{
#if DEVALLOC_BACKEND_CUDA
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
#else
  return static_cast<u64>(
    std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
#endif
}

}  // namespace devalloc_bench
