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
                                       ScatterFactory, ScatterNoResetFactory, ScatterSimdFactory,
                                       /* FDGMalloc (issue 14): */ FdgFactory, FdgDirectFactory, FdgCudaFactory>;

struct factory_names {
  template <class Factory>
  static std::string GetName(int)
  {
    return Factory::name;
  }
};

}  // namespace devalloc::testing
