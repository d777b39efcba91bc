// devalloc/detail/platform.hpp
//
// Backend selection and function annotations. This is the only place that decides which
// backend a translation unit targets:
//   * CUDA backend — the translation unit is compiled by nvcc (`__CUDACC__` is defined):
//     allocator functions run on the GPU, workers are CUDA threads, the warp has 32 lanes.
//   * CPU backend  — any other C++17 compiler: workers are std::threads, a "warp" has one lane.
// Every policy is written once against the macros below and the helpers in detail/.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define DEVALLOC_BACKEND_CUDA 1
#define DEVALLOC_BACKEND_CPU 0
// Runs where allocations are made: on the GPU for the CUDA backend, on worker threads for the CPU one.
#define DEVALLOC_DEVICE __device__
// Callable from host code and from workers alike.
#define DEVALLOC_HOST_DEVICE __host__ __device__
#define DEVALLOC_FORCEINLINE __forceinline__
// Unrolls the loop that follows (nvcc's #pragma unroll; the CPU build leaves it to the compiler).
#define DEVALLOC_UNROLL _Pragma("unroll")
#else
#define DEVALLOC_BACKEND_CUDA 0
#define DEVALLOC_BACKEND_CPU 1
#define DEVALLOC_DEVICE
#define DEVALLOC_HOST_DEVICE
#define DEVALLOC_FORCEINLINE inline __attribute__((always_inline))
#define DEVALLOC_UNROLL
#endif

namespace devalloc {

/// The backend this translation unit is compiled for.
enum class backend_kind { cuda, cpu };

inline constexpr backend_kind this_backend = DEVALLOC_BACKEND_CUDA ? backend_kind::cuda : backend_kind::cpu;

/// "cuda" or "cpu": the label benchmark records and test names carry.
constexpr const char* backend_name() noexcept { return DEVALLOC_BACKEND_CUDA ? "cuda" : "cpu"; }

}  // namespace devalloc
