// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// bench/src/report.hpp — output: header, JSON, terminal tables, ratios against the baseline.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "common.hpp"
#include "tests.hpp"

namespace devalloc_bench {

void print_header(Context& ctx, std::ostream& os);
/// Adds, to every record of another allocator, its ratios against the baseline (the first
/// registry entry, CUDA's allocator) measured in the same run for the same cell; none from a
/// timing that is a functional check (CPU backend, record field `timing`).
void add_baseline_ratios(Context& ctx);
/// Creates the output directory (--out, or a default under out/) and checks it is writable.
/// Throws std::runtime_error otherwise. Returns the directory.
std::string prepare_output_dir(const Options& opt);
/// Writes results.json into dir; returns dir.
std::string write_outputs(Context& ctx, const std::vector<const TestInfo*>& tests, const std::string& dir);
void print_tables(Context& ctx, const std::vector<const TestInfo*>& tests, std::ostream& os);

}  // namespace devalloc_bench
