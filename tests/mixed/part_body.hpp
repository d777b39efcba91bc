// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// tests/mixed/part_body.hpp — the body every part of the mixed program shares: a Scatter heap,
// one allocation per worker, a pattern written and verified. Included by each part so that the
// same inline functions are instantiated in translation units of different backends/configurations.
#pragma once

#include <devalloc/devalloc.hpp>

#include "mixed_parts.hpp"

// Internal linkage: the test's own helpers must not be merged across the parts either.
namespace {

using heap_type = devalloc::presets::scatter;

struct fill_and_check {
  heap_type::handle_type heap;
  unsigned long long* good;
  DEVALLOC_DEVICE void operator()(std::size_t i) const
  {
    const std::size_t bytes = 16 + (i % 8) * 16;
    auto* p = static_cast<unsigned char*>(heap.alloc(bytes));
    if (p == nullptr) { return; }
    for (std::size_t k = 0; k < bytes; ++k) { p[k] = static_cast<unsigned char>(i + k); }
    bool ok = true;
    for (std::size_t k = 0; k < bytes; ++k) { ok = ok && p[k] == static_cast<unsigned char>(i + k); }
    heap.dealloc(p);
    if (ok) {
      devalloc::detail::device_atomic<unsigned long long>(*good).fetch_add(1, devalloc::detail::memory_order_relaxed);
    }
  }
};

inline part_report run_part(std::size_t workers)
{
  part_report report{devalloc::backend_name(), heap_type::info(), 0, ""};
  try {
    heap_type heap(std::size_t{16} << 20);
    devalloc::buffer<unsigned long long> good(1);
    devalloc::launch(workers, fill_and_check{heap.handle(), good.data()});
    report.verified = static_cast<std::size_t>(good.get(0));
  } catch (const devalloc::error& e) {
    report.error = e.what();
  }
  return report;
}

}  // namespace
