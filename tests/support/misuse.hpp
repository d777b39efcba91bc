// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// tests/support/misuse.hpp
//
// Scenarios of dealloc() misuse (interior pointers, double frees, foreign pointers) shared by the
// conformance and the Scatter suites. Like scenarios.hpp, every launch lives in a free function
// template (nvcc cannot define __device__ lambdas inside a gtest TEST body).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <devalloc/buffer.hpp>
#include <devalloc/devalloc.hpp>
#include <devalloc/error.hpp>

#include "scenarios.hpp"

namespace devalloc::testing {

/// One worker allocates `bytes` and writes the pattern of `seed` into them; returns the pointer.
template <class Allocator>
std::uintptr_t alloc_patterned(Allocator& allocator, std::size_t bytes, std::uint32_t seed)
{
  auto handle = allocator.handle();
  buffer<std::uintptr_t> out(1);
  std::uintptr_t* o = out.data();
  launch(1, [=] DEVALLOC_DEVICE(std::size_t) {
    void* p = handle.alloc(bytes);
    if (p != nullptr) { write_pattern(p, bytes, seed); }
    o[0] = reinterpret_cast<std::uintptr_t>(p);
  });
  return out.get(0);
}

/// Words (or bytes) of [p, p + bytes) that no longer hold the pattern of `seed` (read by one worker).
template <class Allocator>
unsigned long long pattern_errors_at(Allocator&, std::uintptr_t p, std::size_t bytes, std::uint32_t seed)
{
  buffer<unsigned long long> out(1);
  unsigned long long* o = out.data();
  launch(1, [=] DEVALLOC_DEVICE(std::size_t) { o[0] = pattern_errors(reinterpret_cast<const void*>(p), bytes, seed); });
  return out.get(0);
}

/// One worker stores `value` into the 32-bit word at p / reads it back.
inline void store_word(std::uintptr_t p, std::uint32_t value)
{
  launch(1, [=] DEVALLOC_DEVICE(std::size_t) { *reinterpret_cast<std::uint32_t*>(p) = value; });
}
inline std::uint32_t load_word(std::uintptr_t p)
{
  buffer<std::uint32_t> out(1);
  std::uint32_t* o = out.data();
  launch(1, [=] DEVALLOC_DEVICE(std::size_t) { o[0] = *reinterpret_cast<const std::uint32_t*>(p); });
  return out.get(0);
}

/// `workers` workers each allocate `bytes` once, at the same time; returns every pointer (nullptr
/// included). The caller frees them (dealloc_each).
template <class Allocator>
std::vector<std::uintptr_t> alloc_once_each(Allocator& allocator, std::size_t workers, std::size_t bytes)
{
  auto handle = allocator.handle();
  buffer<std::uintptr_t> out(workers);
  std::uintptr_t* o = out.data();
  launch(workers, [=] DEVALLOC_DEVICE(std::size_t i) { o[i] = reinterpret_cast<std::uintptr_t>(handle.alloc(bytes)); });
  return out.to_host();
}

/// One worker per pointer frees it, all at once (nullptr entries are no-ops).
template <class Allocator>
void dealloc_each(Allocator& allocator, const std::vector<std::uintptr_t>& ps, launch_options options = {})
{
  if (ps.empty()) { return; }
  auto handle = allocator.handle();
  buffer<std::uintptr_t> table(ps.size());
  table.assign(ps);
  const std::uintptr_t* t = table.data();
  launch(
    ps.size(), [=] DEVALLOC_DEVICE(std::size_t i) { handle.dealloc(reinterpret_cast<void*>(t[i])); }, options);
}

/// The message of the devalloc::error check_errors() throws, or "" if it does not throw.
template <class Allocator>
std::string check_errors_message(Allocator& allocator)
{
  try {
    allocator.check_errors();
  } catch (const devalloc::error& e) {
    return e.what();
  }
  return "";
}

}  // namespace devalloc::testing
