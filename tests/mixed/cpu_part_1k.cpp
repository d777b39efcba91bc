// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// tests/mixed/cpu_part_1k.cpp — compiled by the host compiler with -DDEVALLOC_SCATTER_PAGESIZE=1024
// (CMakeLists.txt): the same inline functions as cpu_part.cpp under another configuration.
#include "part_body.hpp"

part_report cpu_part_small_pages(std::size_t workers) { return run_part(workers); }
