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
#include "creation/device_malloc.hpp"
#include "creation/fdg_malloc.hpp"
#include "creation/scatter.hpp"
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

/// Scatter's configuration under XMallocSIMD: every request is a whole warp's combined chunk made
/// by one lane, so the rule that sends small groups to eq. (3)'s shared page is off (it would send
/// every combined chunk there), and the class sequence is packed (docs/notes/scatter-lab.md has
/// the measurements behind this choice).
struct ScatterSimdConfig : creation::ScatterConfig {
  static constexpr std::uint32_t hash_spread = 1;
  static constexpr std::uint32_t sequence_min_lanes = 1;
};

/// ScatterAlloc with XMallocSIMD: the small requests of the lanes that call together are served
/// by one allocation (fewer atomics; a shared chunk is freed when all its lanes have freed theirs).
using scatter_simd = Allocator<creation::Scatter<ScatterSimdConfig>, distribution::XMallocSIMD<>, oom::ReturnNull,
                               reserve_pool::CudaMalloc, alignment::Shrink<16>>;

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
