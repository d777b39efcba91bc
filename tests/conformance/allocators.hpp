// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// tests/conformance/allocators.hpp
//
// The named allocator factories the conformance suite is instantiated over (in the manner of RMM's
// mr_ref_test). Every allocator configuration the project ships gets one entry here; the suite
// reads each allocator's traits (Allocator::traits) to choose its checks.
//
// A factory is a type with
//   using allocator = devalloc::Allocator<...>;
//   static constexpr const char* name;          // test-name suffix
//   static allocator make(std::size_t heap);    // builds one heap of `heap` bytes
#pragma once

#include <cstddef>
#include <memory>

#include <gtest/gtest.h>

#include <devalloc/detail/backend.hpp>
#include <devalloc/devalloc.hpp>

namespace devalloc::testing {

template <class Allocator>
struct default_factory {
  using allocator = Allocator;
  static allocator make(std::size_t heap) { return allocator(heap); }
};

struct DeviceMallocFactory : default_factory<presets::device_malloc> {
  static constexpr const char* name = "DeviceMalloc";
};

struct BumpFactory : default_factory<presets::bump> {
  static constexpr const char* name = "AtomicBump_Shrink16";
};

struct BumpNoAlignmentFactory : default_factory<Allocator<creation::AtomicBump, distribution::Noop, oom::ReturnNull,
                                                          reserve_pool::CudaMalloc, alignment::NoAlignment>> {
  static constexpr const char* name = "AtomicBump_NoAlignment";
};

/// AtomicBump in caller-owned memory: the factory owns that memory for the allocator's lifetime.
struct BumpUserPoolFactory {
  using allocator = presets::bump_in_user_memory;
  static constexpr const char* name = "AtomicBump_UserPool";
  static allocator make(std::size_t heap)
  {
    // One buffer per process, reused by every test (tests run one after another); never freed.
    static void* memory = nullptr;
    static std::size_t bytes = 0;
    if (heap > bytes) {
      detail::backend::deallocate(memory);
      memory = detail::backend::allocate(heap);
      bytes = heap;
    }
    return allocator(heap, reserve_pool::UserPool{memory, bytes});
  }
};

struct ScatterFactory : default_factory<presets::scatter> {
  static constexpr const char* name = "Scatter_Noop";
};

/// Scatter without resetfreedpages: freed pages keep their chunk size (traits.exact_refill false).
struct ScatterNoResetFactory {
  struct config : creation::ScatterConfig {
    static constexpr bool resetfreedpages = false;
  };
  using allocator = Allocator<creation::Scatter<config>, distribution::Noop, oom::ReturnNull, reserve_pool::CudaMalloc,
                              alignment::Shrink<16>>;
  static constexpr const char* name = "Scatter_NoReset_Noop";
  static allocator make(std::size_t heap) { return allocator(heap); }
};

struct ScatterSimdFactory : default_factory<presets::scatter_simd> {
  static constexpr const char* name = "Scatter_XMallocSIMD";
};

struct ScatterRunsFactory : default_factory<presets::scatter_runs> {
  static constexpr const char* name = "Scatter_Runs_Noop";
};

/// scatter_runs with XMallocSIMD: combined chunks above 512 B are runs of units.
struct ScatterRunsSimdFactory
    : default_factory<Allocator<creation::Scatter<presets::ScatterRunsConfig>, distribution::XMallocSIMD<>,
                                oom::ReturnNull, reserve_pool::CudaMalloc, alignment::Shrink<16>>> {
  static constexpr const char* name = "Scatter_Runs_XMallocSIMD";
};

struct RunsFactory : default_factory<presets::runs> {
  static constexpr const char* name = "Runs_256";
};

/// Runs of 64-byte units: the suite's 64-byte fills take one unit each (traits.fills_half_the_heap).
struct Runs64Factory {
  struct config : creation::RunsConfig {
    static constexpr std::uint32_t unit_bytes = 64;
  };
  using allocator = Allocator<creation::Runs<config>, distribution::Noop, oom::ReturnNull, reserve_pool::CudaMalloc,
                              alignment::Shrink<16>>;
  static constexpr const char* name = "Runs_64";
  static allocator make(std::size_t heap) { return allocator(heap); }
};

// --- coalescing allocators (distribution::CoalesceBlock, distribution::CoalesceDynamic,
// creation::CoalesceHashed; docs/coalescing.md): over CUDA's malloc as in the report, and over Scatter.
struct CoalesceBlockFactory : default_factory<presets::coalesce_block> {
  static constexpr const char* name = "DeviceMalloc_CoalesceBlock";
};
struct CoalesceHashedFactory : default_factory<presets::coalesce_hashed> {
  static constexpr const char* name = "CoalesceHashed_DeviceMalloc";
};
struct CoalesceDynamicFactory : default_factory<presets::coalesce_dynamic> {
  static constexpr const char* name = "DeviceMalloc_CoalesceDynamic16";
};
struct CoalesceDynamicPackedFactory : default_factory<presets::coalesce_dynamic_packed> {
  static constexpr const char* name = "DeviceMalloc_CoalesceDynamic4";
};
struct ScatterCoalesceBlockFactory : default_factory<presets::scatter_coalesce_block> {
  static constexpr const char* name = "Scatter_CoalesceBlock";
};
struct ScatterCoalesceHashedFactory
    : default_factory<Allocator<creation::CoalesceHashed<creation::Scatter<>>, distribution::Noop, oom::ReturnNull,
                                reserve_pool::CudaMalloc, alignment::Shrink<16>>> {
  static constexpr const char* name = "CoalesceHashed_Scatter";
};
struct ScatterCoalesceDynamicFactory
    : default_factory<Allocator<creation::Scatter<>, distribution::CoalesceDynamic<16>, oom::ReturnNull,
                                reserve_pool::CudaMalloc, alignment::Shrink<16>>> {
  static constexpr const char* name = "Scatter_CoalesceDynamic16";
};
using coalesce_factories =
  ::testing::Types<CoalesceBlockFactory, CoalesceHashedFactory, CoalesceDynamicFactory, CoalesceDynamicPackedFactory,
                   ScatterCoalesceBlockFactory, ScatterCoalesceHashedFactory, ScatterCoalesceDynamicFactory>;
// ---- Issue 13: the CMalloc family and AWMalloc (creation/circular.hpp, creation/unsafe_wrap.hpp) ----
struct CircularFactory : default_factory<presets::circular> {
  static constexpr const char* name = "Circular";
};
struct CircularFusedFactory : default_factory<presets::circular_fused> {
  static constexpr const char* name = "CircularFused";
};
struct CircularMultiFactory : default_factory<presets::circular_multi> {
  static constexpr const char* name = "CircularMulti";
};
struct CircularFusedMultiFactory : default_factory<presets::circular_fused_multi> {
  static constexpr const char* name = "CircularFusedMulti";
};
/// Circular without the Shrink<16> padding: the policy's own 16-byte alignment (natural_alignment).
struct CircularNoAlignmentFactory
    : default_factory<Allocator<creation::CircularFused, distribution::Noop, oom::ReturnNull, reserve_pool::CudaMalloc,
                                alignment::NoAlignment>> {
  static constexpr const char* name = "CircularFused_NoAlignment";
};
struct UnsafeWrapFactory : default_factory<presets::unsafe_wrap> {
  static constexpr const char* name = "UnsafeWrap";
};
// ScatterAlloc §4's list-based baselines (creation/list_first_fit.hpp, creation/list_per_sm.hpp).
struct ListFirstFitFactory : default_factory<presets::list_first_fit> {
  static constexpr const char* name = "ListFirstFit";
};
struct ListPerSMFactory : default_factory<presets::list_per_sm> {
  static constexpr const char* name = "ListPerSM";
};
/// ListFirstFit without the Shrink<16> padding: the policy's own 16-byte alignment (natural_alignment).
struct ListFirstFitNoAlignmentFactory
    : default_factory<Allocator<creation::ListFirstFit, distribution::Noop, oom::ReturnNull, reserve_pool::CudaMalloc,
                                alignment::NoAlignment>> {
  static constexpr const char* name = "ListFirstFit_NoAlignment";
};
#define DEVALLOC_ISSUE13_FACTORIES                                                                                    \
  CircularFactory, CircularFusedFactory, CircularMultiFactory, CircularFusedMultiFactory, CircularNoAlignmentFactory, \
    UnsafeWrapFactory, ListFirstFitFactory, ListPerSMFactory, ListFirstFitNoAlignmentFactory

// --- FDGMalloc (issue 14) ---
struct FdgFactory : default_factory<presets::fdg> {
  static constexpr const char* name = "FDGMalloc_Scatter";
};
struct FdgDirectFactory : default_factory<presets::fdg_direct> {
  static constexpr const char* name = "FDGMalloc_Direct_Scatter";
};
struct FdgCudaFactory : default_factory<presets::fdg_cuda> {
  static constexpr const char* name = "FDGMalloc_DeviceMalloc";
};

// New allocator configurations: add a factory above and list it here.
using all_factories = ::testing::Types<DeviceMallocFactory, BumpFactory, BumpNoAlignmentFactory, BumpUserPoolFactory,
                                       ScatterFactory, ScatterNoResetFactory, ScatterSimdFactory, ScatterRunsFactory,
                                       ScatterRunsSimdFactory, RunsFactory, Runs64Factory,
                                       // coalescing allocators over CUDA's malloc (the report's configuration;
                                       // over Scatter, superblocks of every size from 48 B to 32 slots fragment
                                       // Scatter's pages below the suite's half-heap fill: tests/coalesce only)
                                       CoalesceBlockFactory, CoalesceHashedFactory, CoalesceDynamicFactory,
                                       CoalesceDynamicPackedFactory, DEVALLOC_ISSUE13_FACTORIES,
                                       /* FDGMalloc (issue 14): */ FdgFactory, FdgDirectFactory, FdgCudaFactory>;

struct factory_names {
  template <class Factory>
  static std::string GetName(int)
  {
    return Factory::name;
  }
};

}  // namespace devalloc::testing
