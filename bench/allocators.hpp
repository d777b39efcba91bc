// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// bench/allocators.hpp
//
// The one registry of allocator configurations devalloc-bench measures. Every test is a function
// template over an entry of this list and runs once per entry (filtered by --allocators).
//
// Adding an allocator is one line in DEVALLOC_BENCH_ALLOCATORS:
//
//   X(identifier, "name-on-the-command-line", type_alias, "one-line description")
//
// `type_alias` is a devalloc::Allocator<...> type without top-level commas (use a preset or a
// `using` alias declared above the list). The first entry is the baseline that ratios are taken
// against (CUDA's built-in device malloc on the GPU, std::malloc behind the same policy on the CPU).
//
// Not listed: presets::bump_in_user_memory (the bump algorithm again, in caller memory) and
// presets::bump_or_trap (traps on out-of-memory, which would end the CUDA context in the fill
// tests). They measure nothing the entries below do not.
#pragma once

#include <string>
#include <type_traits>

#include <devalloc/allocator.hpp>
#include <devalloc/presets.hpp>

// clang-format off
#define DEVALLOC_BENCH_ALLOCATORS(X)                                                                        \
  X(cuda_malloc, "cuda-malloc", devalloc::presets::device_malloc, "CUDA's built-in device malloc/free (baseline)") \
  X(bump,        "bump",        devalloc::presets::bump,          "AtomicMalloc: one atomic add, no reuse before reset()") \
  X(scatter,     "scatter",     devalloc::presets::scatter,       "ScatterAlloc (Steinberger et al. 2012), default configuration") \
  X(scatter_simd, "scatter-simd", devalloc::presets::scatter_simd, "ScatterAlloc + XMallocSIMD warp coalescing") \
  X(scatter_runs, "scatter-runs", devalloc::presets::scatter_runs, "Scatter with runs of 256-byte units above 512 B (two-granularity heap, on trial)") \
  X(runs,        "runs",        devalloc::presets::runs,          "runs of 256-byte units of one bitmap, any size (docs/notes/two-granularity-heap.md)") \
  /* coalescing allocators (Blach et al.; docs/coalescing.md), superblocks from CUDA's malloc */ \
  X(coalesce_block,   "coalesce-block",   devalloc::presets::coalesce_block,   "coalescing with headers: warp (HW); block (HB) in the -block variants") \
  X(coalesce_hashed,  "coalesce-hashed",  devalloc::presets::coalesce_hashed,  "coalescing without headers, hash map: warp (NW); block (NB) in the -block variants") \
  X(coalesce_dynamic, "coalesce-dynamic", devalloc::presets::coalesce_dynamic, "dynamic warp coalescing, 8-byte segment headers, 16-byte aligned") \
  X(coalesce_dynamic4, "coalesce-dynamic4", devalloc::presets::coalesce_dynamic_packed, "dynamic warp coalescing, 4-byte segment headers, 4-byte aligned") \
  DEVALLOC_BENCH_ISSUE13_ALLOCATORS(X) \
  /* FDGMalloc (Widmer et al. 2013; issue 14) */ \
  X(fdg,         "fdg",         devalloc::presets::fdg,           "FDGMalloc over Scatter: warp superblocks, freed all at once") \
  X(fdg_direct,  "fdg-direct",  devalloc::presets::fdg_direct,    "FDGMalloc over Scatter without superblocks (one request per warp group)") \
  X(fdg_cuda,    "fdg-cuda",    devalloc::presets::fdg_cuda,      "FDGMalloc over CUDA's malloc (the paper's)") \
  X(fdg_cuda_direct, "fdg-cuda-direct", devalloc::presets::fdg_cuda_direct, "FDGMalloc over CUDA's malloc without superblocks (the paper's second variant)")

// Issue 13: the CMalloc family and AWMalloc (Vinkler & Havran §5; creation/circular.hpp, creation/unsafe_wrap.hpp).
#define DEVALLOC_BENCH_ISSUE13_ALLOCATORS(X) \
  X(circular,             "circular",             devalloc::presets::circular,             "CMalloc (Vinkler & Havran §5.2): circular chunk list, split/merge") \
  X(circular_fused,       "circular-fused",       devalloc::presets::circular_fused,       "CFMalloc (§5.3): CMalloc with the flag fused into a 64-bit next word") \
  X(circular_multi,       "circular-multi",       devalloc::presets::circular_multi,       "CMMalloc (§5.4): CMalloc with one sub-heap per multiprocessor") \
  X(circular_fused_multi, "circular-fused-multi", devalloc::presets::circular_fused_multi, "CFMMalloc (§5.4): CFMalloc with one sub-heap per multiprocessor") \
  X(unsafe_wrap,          "unsafe-wrap",          devalloc::presets::unsafe_wrap,          "AWMalloc (§5.1): wraps around, may overwrite live data (only V&H's tests)") \
  /* ScatterAlloc §4's list-based baselines (creation/list_first_fit.hpp, list_per_sm.hpp; docs/lists.md) */ \
  X(list_first_fit,       "list-first-fit",       devalloc::presets::list_first_fit,       "ScatterAlloc §4 size list: lock-free size bins, first fit, split/merge") \
  X(list_per_sm,          "list-per-sm",          devalloc::presets::list_per_sm,          "ScatterAlloc §4 mp lists: size bins and a heap share per multiprocessor")
// clang-format on

namespace devalloc_bench {
namespace entries {

#define DEVALLOC_BENCH_DEFINE_ENTRY(id, label, type, text) \
  struct id {                                              \
    using allocator = type;                                \
    static constexpr const char* name = label;             \
    static constexpr const char* identifier = #id;         \
    static constexpr const char* description = text;       \
  };
DEVALLOC_BENCH_ALLOCATORS(DEVALLOC_BENCH_DEFINE_ENTRY)
#undef DEVALLOC_BENCH_DEFINE_ENTRY

}  // namespace entries

/// Calls f(Entry{}) for every registered allocator, in registry order.
template <class F>
void for_each_entry(F&& f)
{
#define DEVALLOC_BENCH_CALL_ENTRY(id, label, type, text) f(entries::id{});
  DEVALLOC_BENCH_ALLOCATORS(DEVALLOC_BENCH_CALL_ENTRY)
#undef DEVALLOC_BENCH_CALL_ENTRY
}

/// The allocator's memory comes from CUDA's (or the CPU's) malloc heap, which CudaSetLimits sizes
/// (CUDA's malloc itself, or FDGMalloc over it).
template <class E>
inline constexpr bool uses_malloc_heap =
  std::is_same_v<typename E::allocator::reserve_pool_policy, devalloc::reserve_pool::CudaSetLimits>;

/// The allocator is CUDA's (or the CPU's) own malloc behind devalloc's interface.
template <class E>
inline constexpr bool is_builtin_malloc =
  uses_malloc_heap<E> && (std::is_same_v<typename E::allocator::creation_policy, devalloc::creation::DeviceMalloc>);

/// Set once from --emulate-process-heap, before anything runs: the CPU backend's malloc heap is
/// then treated as process-wide too, to test the child-process path without a GPU.
inline bool emulate_process_heap = false;

/// The heap is process-wide and can be sized only once, before the first kernel that uses it
/// (CUDA's malloc heap). Cells that need another heap size run in a child process.
template <class E>
bool has_process_wide_heap()
{
  return uses_malloc_heap<E> && (DEVALLOC_BACKEND_CUDA || emulate_process_heap);
}

/// The allocator may hand out memory that is still live (creation::UnsafeWrap): it takes part only
/// in tests whose allocations all die before the heap is gone through once (unsafe_wrap_applies).
template <class E>
inline constexpr bool may_overlap_live = E::allocator::traits.may_overlap_live;

/// Tests in which every allocation is short-lived, so that a wrapping allocator (UnsafeWrap) is
/// measured as Vinkler & Havran measure AWMalloc: [AD], [ACD], [P] and the register count. The
/// others fill the heap until out of memory or keep allocations across launches.
inline bool unsafe_wrap_applies(const std::string& test)
{
  return test == "ad" || test == "acd" || test == "prob" || test == "registers";
}

}  // namespace devalloc_bench
