// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// tests/mixed/cpu_part.cpp — compiled by the host compiler: the CPU backend, default configuration.
#include "part_body.hpp"

part_report cpu_part(std::size_t workers) { return run_part(workers); }
