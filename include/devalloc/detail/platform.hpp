// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/detail/platform.hpp
//
// Backend selection and function annotations. This is the only place that decides which
// backend a translation unit targets:
//   * CUDA backend — the translation unit is compiled by nvcc (`__CUDACC__` is defined):
//     allocator functions run on the GPU, workers are CUDA threads, the warp has 32 lanes.
//   * CPU backend  — any other C++17 compiler (or nvcc with DEVALLOC_FORCE_CPU_BACKEND defined):
//     workers are std::threads.
// Every policy is written once against the macros below and the helpers in detail/.
//
// ABI: every declaration of the library lives in an inline namespace named after the backend
// (devalloc::backend_cuda or devalloc::backend_cpu), as CUB and libcu++ do. A program whose .cpp
// files (g++, CPU backend) and .cu files (nvcc, CUDA backend) both include devalloc therefore gets
// two sets of symbols that never replace each other at link time; `devalloc::X` still names the
// translation unit's own backend, and `devalloc::backend_cpu::X` names the CPU one explicitly.
// Macro-configured defaults (DEVALLOC_SCATTER_*, DEVALLOC_SHRINK_*) are carried in the types
// themselves (template arguments), so two files built with different values get distinct types.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__) && !defined(DEVALLOC_FORCE_CPU_BACKEND)
#define DEVALLOC_BACKEND_CUDA 1
#define DEVALLOC_BACKEND_CPU 0
// Runs where allocations are made: on the GPU for the CUDA backend, on worker threads for the CPU one.
#define DEVALLOC_DEVICE __device__
// Callable from host code and from workers alike.
#define DEVALLOC_HOST_DEVICE __host__ __device__
#define DEVALLOC_FORCEINLINE __forceinline__
// A function kept out of line: a rare path that, inlined, would raise the register count of every
// kernel that allocates (registers bound how many warps are resident).
#define DEVALLOC_NOINLINE __noinline__
// Unrolls the loop that follows (nvcc's #pragma unroll; the CPU build leaves it to the compiler).
#define DEVALLOC_UNROLL _Pragma("unroll")
// Keeps the loop that follows rolled (nvcc's #pragma unroll 1): a rare or data-dependent loop
// whose unrolled copies would only add to the code every allocating kernel carries.
#define DEVALLOC_NO_UNROLL _Pragma("unroll 1")
#define DEVALLOC_ABI_NAMESPACE backend_cuda
#else
#define DEVALLOC_BACKEND_CUDA 0
#define DEVALLOC_BACKEND_CPU 1
#define DEVALLOC_ABI_NAMESPACE backend_cpu
#define DEVALLOC_DEVICE
#define DEVALLOC_HOST_DEVICE
#define DEVALLOC_FORCEINLINE inline __attribute__((always_inline))
#define DEVALLOC_NOINLINE __attribute__((noinline))
#define DEVALLOC_UNROLL
#define DEVALLOC_NO_UNROLL
#endif

/// Opens / closes namespace devalloc and the backend's inline ABI namespace inside it.
#define DEVALLOC_NAMESPACE_BEGIN \
  namespace devalloc {           \
  inline namespace DEVALLOC_ABI_NAMESPACE {
#define DEVALLOC_NAMESPACE_END \
  }                            \
  }

DEVALLOC_NAMESPACE_BEGIN

/// The backend this translation unit is compiled for.
enum class backend_kind { cuda, cpu };

inline constexpr backend_kind this_backend = DEVALLOC_BACKEND_CUDA ? backend_kind::cuda : backend_kind::cpu;

/// "cuda" or "cpu": the label benchmark records and test names carry.
constexpr const char* backend_name() noexcept { return DEVALLOC_BACKEND_CUDA ? "cuda" : "cpu"; }

namespace detail {

/// Returns `p` unchanged, as a value the optimizer cannot see through (an empty asm statement that
/// claims to change it; no instruction). For a loop's base pointer `base + offset` whose loop adds
/// `16 * u`: without it nvcc re-associates the sum into `base + (offset + 16 * u)` and keeps base
/// and offset (four registers) live through the loop instead of their sum (two). Issue 13: with it
/// in creation/circular.hpp's two walks the Circular family's alloc-and-free kernel fits 24
/// registers with no local memory (docs/cmalloc.md, "Registers").
template <class T>
DEVALLOC_HOST_DEVICE DEVALLOC_FORCEINLINE T* opaque_pointer(T* p) noexcept
{
#if defined(__CUDA_ARCH__)
  asm("" : "+l"(p));
#elif defined(__GNUC__)
  asm("" : "+r"(p));
#endif
  return p;
}

}  // namespace detail

DEVALLOC_NAMESPACE_END
