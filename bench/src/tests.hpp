// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// bench/src/tests.hpp — the test table of devalloc-bench.
#pragma once

#include <string>
#include <vector>

#include "common.hpp"

namespace devalloc_bench {

struct TestInfo {
  const char* name;
  const char* source;  // the document and section it reproduces
  const char* description;
  void (*run)(Context&);
  // Terminal table: rows keyed by these record fields (constant ones dropped), one column per
  // allocator showing the non-null `metrics` joined by " / ".
  std::vector<std::string> row_keys;
  std::vector<std::string> metrics;
  std::string metric_label;
};

void test_scatter_ops(Context&);
void test_scatter_access(Context&);
void test_fragmentation(Context&);
void test_temporal(Context&);
void test_thesis_synthetic(Context&);
void test_ad(Context&);
void test_acd(Context&);
void test_prob(Context&);
void test_registers(Context&);
void test_workloads(Context&);
void test_survey(Context&);
void test_throughput(Context&);
void test_mixed(Context&);
void test_fill(Context&);
void test_large(Context&);
void test_launch(Context&);
void test_fdg_sizes(Context&);
void test_fdg_threads(Context&);
void test_fdg_scaling(Context&);
void test_mpi(Context&);          // coalescing report §4.2 (t_coalesce.cpp)
void test_kdtree(Context&);       // Vinkler & Havran [DS], Table 3 (t_kdtree.cpp)
void test_distributed(Context&);  // issue 16: examples/distributed under mpiexec (t_distributed.cpp)
/// kdtree's ratio_to_bump on every kdtree record (add_baseline_ratios: after child processes too).
void kdtree_bump_ratios(Context& ctx);

const std::vector<TestInfo>& all_tests();
const TestInfo* find_test(const std::string& name);

/// Measures CUDA's allocator on small thread counts (CUDA backend; fills ctx.cost).
void calibrate_cost_model(Context& ctx);

}  // namespace devalloc_bench
