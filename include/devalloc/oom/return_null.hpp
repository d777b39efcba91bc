// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/oom/return_null.hpp
//
// OOMPolicy `ReturnNull` (mallocMC thesis §3.7, §4.3.6): a request the creation policy could not
// serve returns nullptr to the caller, like malloc. The allocator still counts the failure
// (Allocator::stats().failed_allocations).
#pragma once

#include <cstddef>
#include <string>

#include "../detail/platform.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace oom {

struct ReturnNull {
  struct config {};

  /// The caller sees nullptr after a failed allocation.
  static constexpr bool returns_null = true;

  DEVALLOC_DEVICE static void* handle_oom(void* /*failed*/, std::size_t /*bytes*/) noexcept { return nullptr; }

  static std::string classname() { return "ReturnNull"; }
};

}  // namespace oom
DEVALLOC_NAMESPACE_END
