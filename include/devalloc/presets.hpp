// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/presets.hpp
//
// Ready-made allocator types for common configurations. Each is a plain alias of
// devalloc::Allocator; copy one and change a policy to make your own.
#pragma once

#include "alignment/no_alignment.hpp"
#include "alignment/shrink.hpp"
#include "allocator.hpp"
#include "creation/atomic_bump.hpp"
#include "creation/circular.hpp"
#include "creation/coalesce_hashed.hpp"
#include "creation/device_malloc.hpp"
#include "creation/fdg_malloc.hpp"
#include "creation/list_first_fit.hpp"
#include "creation/list_per_sm.hpp"
#include "creation/runs.hpp"
#include "creation/scatter.hpp"
#include "creation/unsafe_wrap.hpp"
#include "distribution/coalesce_block.hpp"
#include "distribution/coalesce_dynamic.hpp"
#include "distribution/noop.hpp"
#include "distribution/xmalloc_simd.hpp"
#include "oom/return_null.hpp"
#include "oom/trap.hpp"
#include "reserve_pool/cuda_malloc.hpp"
#include "reserve_pool/cuda_set_limits.hpp"
#include "reserve_pool/user_pool.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace presets {

/// The platform's allocator (CUDA device malloc / std::malloc) behind the devalloc interface:
/// the baseline every benchmark compares against.
using device_malloc = Allocator<creation::DeviceMalloc, distribution::Noop, oom::ReturnNull,
                                reserve_pool::CudaSetLimits, alignment::NoAlignment>;

/// AtomicMalloc: one atomic add per request, 16-byte aligned, no reuse before reset().
/// For build-once structures (tree nodes, per-step scratch) that are freed all at once.
using bump =
  Allocator<creation::AtomicBump, distribution::Noop, oom::ReturnNull, reserve_pool::CudaMalloc, alignment::Shrink<16>>;

/// AtomicBump in memory the caller owns (construct with reserve_pool::UserPool{pointer, bytes}).
using bump_in_user_memory =
  Allocator<creation::AtomicBump, distribution::Noop, oom::ReturnNull, reserve_pool::UserPool, alignment::Shrink<16>>;

/// AtomicBump that stops the kernel with a message instead of returning nullptr.
using bump_or_trap =
  Allocator<creation::AtomicBump, distribution::Noop, oom::Trap, reserve_pool::CudaMalloc, alignment::Shrink<16>>;

/// ScatterAlloc (creation::Scatter, default configuration): hashed pages with bitfields, reuse of
/// freed chunks, fully freed pages reset. The general-purpose choice for many small requests.
using scatter =
  Allocator<creation::Scatter<>, distribution::Noop, oom::ReturnNull, reserve_pool::CudaMalloc, alignment::Shrink<16>>;

/// ScatterAlloc with XMallocSIMD: the small requests of the lanes that call together are served
/// by one allocation (fewer atomics; a shared chunk is freed when all its lanes have freed theirs).
/// The same Scatter configuration as `scatter`.
using scatter_simd = Allocator<creation::Scatter<>, distribution::XMallocSIMD<>, oom::ReturnNull,
                               reserve_pool::CudaMalloc, alignment::Shrink<16>>;

/// Scatter's configuration with runs of units: a free map of 256-byte units in which pages are
/// aligned groups of 16, requests of up to 512 B in pages as `scatter`, larger ones runs of units
/// (Config::run_unit; the two-granularity heap of docs/notes/two-granularity-heap.md, step 2: on
/// trial beside `scatter`).
struct ScatterRunsConfig : creation::ScatterConfig {
  static constexpr std::uint32_t run_unit = 256;
  static constexpr std::uint32_t runs_above = 512;
};
using scatter_runs = Allocator<creation::Scatter<ScatterRunsConfig>, distribution::Noop, oom::ReturnNull,
                               reserve_pool::CudaMalloc, alignment::Shrink<16>>;

/// Runs of 256-byte units of one bitmap (creation::Runs): any free run serves any size, so a heap
/// of mixed sizes of a few hundred bytes up fills almost completely; every request takes at least
/// one unit. docs/notes/two-granularity-heap.md.
using runs =
  Allocator<creation::Runs<>, distribution::Noop, oom::ReturnNull, reserve_pool::CudaMalloc, alignment::Shrink<16>>;

// --- coalescing allocators (Blach et al., "Coalescing memory allocations for GPU MPI"; docs/coalescing.md).
// Over CUDA's malloc, as in the report; replace creation::DeviceMalloc (and CudaSetLimits by
// CudaMalloc) to coalesce over another creation policy. Near a full heap CUDA's malloc has been
// seen to return a block that is still live; these policies refuse such a superblock (the request
// fails): size CUDA's heap well above the live demand (docs/coalescing.md, Known defects).

/// Header + warp (HW) through alloc(), header + block (HB) through alloc_block_coalesced().
using coalesce_block = Allocator<creation::DeviceMalloc, distribution::CoalesceBlock, oom::ReturnNull,
                                 reserve_pool::CudaSetLimits, alignment::NoAlignment>;

/// No header (hash map) + warp (NW) through alloc(), + block (NB) through alloc_block_coalesced().
using coalesce_hashed = Allocator<creation::CoalesceHashed<creation::DeviceMalloc>, distribution::Noop, oom::ReturnNull,
                                  reserve_pool::CudaSetLimits, alignment::NoAlignment>;

/// Dynamic warp-level coalescing with 8-byte segment headers, every pointer 16-byte aligned.
using coalesce_dynamic = Allocator<creation::DeviceMalloc, distribution::CoalesceDynamic<16>, oom::ReturnNull,
                                   reserve_pool::CudaSetLimits, alignment::NoAlignment>;

/// Dynamic warp-level coalescing that gives up alignment for density: pointers only 4-byte
/// aligned, 4-byte segment headers where they fit (Allocator::alignment == 4).
using coalesce_dynamic_packed = Allocator<creation::DeviceMalloc, distribution::CoalesceDynamic<4>, oom::ReturnNull,
                                          reserve_pool::CudaSetLimits, alignment::NoAlignment>;

/// Header coalescing over Scatter (superblocks from ScatterAlloc instead of CUDA's malloc).
using scatter_coalesce_block = Allocator<creation::Scatter<>, distribution::CoalesceBlock, oom::ReturnNull,
                                         reserve_pool::CudaMalloc, alignment::Shrink<16>>;
// ---- Issue 13: the CMalloc family and AWMalloc (creation/circular.hpp, creation/unsafe_wrap.hpp) ----

/// CMalloc (Vinkler & Havran §5.2): a circular list of chunks with 8-byte headers, pre-split as a
/// binary heap, split on allocation and merged on free; few registers. Any heap whose segments
/// hold fewer than 2^32 units of 16 bytes (every pool below terabytes).
using circular =
  Allocator<creation::Circular, distribution::Noop, oom::ReturnNull, reserve_pool::CudaMalloc, alignment::Shrink<16>>;
/// CFMalloc (§5.3): CMalloc with the flag fused into a 64-bit next word (one CAS validates both).
using circular_fused = Allocator<creation::CircularFused, distribution::Noop, oom::ReturnNull, reserve_pool::CudaMalloc,
                                 alignment::Shrink<16>>;
/// CMMalloc (§5.4): CMalloc with one sub-heap and offset per multiprocessor (fewer conflicts).
using circular_multi = Allocator<creation::CircularMulti, distribution::Noop, oom::ReturnNull, reserve_pool::CudaMalloc,
                                 alignment::Shrink<16>>;
/// CFMMalloc (§5.4): CFMalloc with one sub-heap and offset per multiprocessor.
using circular_fused_multi = Allocator<creation::CircularFusedMulti, distribution::Noop, oom::ReturnNull,
                                       reserve_pool::CudaMalloc, alignment::Shrink<16>>;
/// ScatterAlloc §4's size-list baseline: one segment list, lock-free free lists in 128 size bins,
/// first fit, split on allocation, merge with the successor on free (creation/list_first_fit.hpp).
using list_first_fit = Allocator<creation::ListFirstFit, distribution::Noop, oom::ReturnNull, reserve_pool::CudaMalloc,
                                 alignment::Shrink<16>>;
/// ScatterAlloc §4's mp-lists baseline: ListFirstFit's lists with one arena (share of the heap and
/// bins) per multiprocessor, falling back to the others' (creation/list_per_sm.hpp).
using list_per_sm =
  Allocator<creation::ListPerSM, distribution::Noop, oom::ReturnNull, reserve_pool::CudaMalloc, alignment::Shrink<16>>;
/// AWMalloc (§5.1): AtomicMalloc that wraps around instead of running out. UNSAFE: hands out
/// memory that may still be live (creation/unsafe_wrap.hpp says when that is acceptable).
using unsafe_wrap =
  Allocator<creation::UnsafeWrap, distribution::Noop, oom::ReturnNull, reserve_pool::CudaMalloc, alignment::Shrink<16>>;
// --- FDGMalloc (Widmer et al. 2013; issue 14) ------------------------------------------------

/// FDGMalloc over Scatter: warp-level superblocks (32 KiB), memory freed all at once (dealloc() is
/// a no-op; Allocator::reset(), or the warp API's tidyUp()/end(), gives it back). For kernels that
/// allocate many small pieces and free them together (creation/fdg_malloc.hpp, docs/fdgmalloc.md).
using fdg = Allocator<creation::FDGMalloc<>, distribution::Noop, oom::ReturnNull, reserve_pool::CudaMalloc,
                      alignment::Shrink<16>>;

/// FDGMalloc without superblocks: each warp group's requests are one request to Scatter (§5.1's
/// second variant).
using fdg_direct = Allocator<creation::FDGMalloc<creation::FDGDirectConfig>, distribution::Noop, oom::ReturnNull,
                             reserve_pool::CudaMalloc, alignment::Shrink<16>>;

/// The paper's FDGMalloc: over CUDA's device malloc (std::malloc on the CPU), whose heap
/// reserve_pool::CudaSetLimits sizes.
using fdg_cuda = Allocator<creation::FDGMalloc<creation::FDGConfig, creation::DeviceMalloc>, distribution::Noop,
                           oom::ReturnNull, reserve_pool::CudaSetLimits, alignment::Shrink<16>>;

/// The paper's FDGMalloc without superblocks, over CUDA's device malloc.
using fdg_cuda_direct =
  Allocator<creation::FDGMalloc<creation::FDGDirectConfig, creation::DeviceMalloc>, distribution::Noop, oom::ReturnNull,
            reserve_pool::CudaSetLimits, alignment::Shrink<16>>;

}  // namespace presets
DEVALLOC_NAMESPACE_END
