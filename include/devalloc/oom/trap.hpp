// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/oom/trap.hpp
//
// OOMPolicy `Trap` (mallocMC thesis §3.7): a request the creation policy could not serve prints
// "devalloc: out of memory ..." with the request size and stops the program. CUDA: __trap() aborts
// the kernel; the host sees cudaErrorLaunchFailure (thrown as devalloc::cuda_error by
// devalloc::launch) and the CUDA context is unusable afterwards. CPU: std::abort().
// Use it where running out of heap is a bug that must not go unnoticed.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

#include "../detail/platform.hpp"

#if DEVALLOC_BACKEND_CPU
#include <cstdlib>
#endif

DEVALLOC_NAMESPACE_BEGIN
namespace oom {

struct Trap {
  struct config {};

  static constexpr bool returns_null = false;

  DEVALLOC_DEVICE static void* handle_oom(void* /*failed*/, std::size_t bytes) noexcept
  {
#if DEVALLOC_BACKEND_CUDA
    printf("devalloc: out of memory: a request of %llu bytes could not be served (OOM policy Trap)\n",
           static_cast<unsigned long long>(bytes));
    __trap();
#else
    std::fprintf(stderr, "devalloc: out of memory: a request of %llu bytes could not be served (OOM policy Trap)\n",
                 static_cast<unsigned long long>(bytes));
    std::abort();
#endif
    return nullptr;
  }

  static std::string classname() { return "Trap"; }
};

}  // namespace oom
DEVALLOC_NAMESPACE_END
