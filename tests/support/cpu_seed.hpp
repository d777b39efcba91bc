// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// tests/support/cpu_seed.hpp
//
// CPU backend: when a test fails after devalloc::launch ran warps on the warp emulator with the
// process' base seed (detail/cpu_warp.hpp), prints the DEVALLOC_CPU_SEED that repeats those lane
// schedules (exactly with one warp thread; with several, as far as they do not depend on timing
// between warps). Included by the shared test support; registers itself once per program.
#pragma once

#include <cstdio>

#include <gtest/gtest.h>

#include <devalloc/detail/cpu_warp.hpp>

#if DEVALLOC_BACKEND_CPU
namespace devalloc::testing {

class cpu_seed_reporter : public ::testing::EmptyTestEventListener {
  void OnTestEnd(const ::testing::TestInfo& info) override
  {
    if (info.result() != nullptr && info.result()->Failed() &&
        detail::cpu::launch_counter().load(std::memory_order_relaxed) != 0) {
      std::printf(
        "devalloc: the lane schedules of this process came from DEVALLOC_CPU_SEED=%llu "
        "(set it, and run the same tests, to repeat them)\n",
        static_cast<unsigned long long>(detail::cpu::base_seed()));
    }
  }
};

inline const bool cpu_seed_reporter_registered =
  (::testing::UnitTest::GetInstance()->listeners().Append(new cpu_seed_reporter), true);

}  // namespace devalloc::testing
#endif
