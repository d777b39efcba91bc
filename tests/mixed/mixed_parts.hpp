// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// tests/mixed/mixed_parts.hpp — the functions each translation unit of the mixed program defines.
// Each part builds its own heap with devalloc's presets, allocates from `workers` workers, writes
// and verifies every allocation, and reports what it saw. The parts are compiled by different
// compilers (g++ and nvcc) or with different -DDEVALLOC_SCATTER_PAGESIZE values, and linked into
// one program: before the ABI namespaces, the inline functions of one part replaced the other's
// at link time (a CUDA heap built with aligned_alloc, a page size from the wrong file).
#pragma once

#include <cstddef>
#include <string>

struct part_report {
  std::string backend;   ///< devalloc::backend_name() as the part saw it
  std::string info;      ///< Allocator::info() of the part's heap
  std::size_t verified;  ///< allocations written and read back intact
  std::string error;     ///< devalloc::error text, if the part threw
};

part_report cpu_part(std::size_t workers);              // cpu_part.cpp, g++, default configuration
part_report cpu_part_small_pages(std::size_t workers);  // cpu_part_1k.cpp, g++, -DDEVALLOC_SCATTER_PAGESIZE=1024
part_report cuda_part(std::size_t workers);             // cuda_part.cu, nvcc
