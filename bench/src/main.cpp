// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// bench/src/main.cpp — devalloc-bench: command line, test table, run loop.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "common.hpp"
#include "kernels.hpp"
#include "report.hpp"
#include "tests.hpp"

namespace devalloc_bench {

const std::vector<TestInfo>& all_tests()
{
  static const std::vector<TestInfo> tests = {
    // First: its first cell per allocator times the first launch of the allocating kernel.
    {"launch",
     "project issue 12: small launches, first launch",
     "10^3 and 10^4 threads x 16 B and 16-256 B: first launch of the allocating kernel in the process, allocator "
     "construction, median launch against an empty kernel's",
     test_launch,
     {"size_class", "threads"},
     {"first_alloc_ms", "alloc_over_floor_us", "free_over_floor_us"},
     "first launch ms / alloc, free µs over the launch floor"},
    {"scatter-ops",
     "ScatterAlloc (Steinberger 2012) §7-8, Fig. 3",
     "p_alloc = p_free = 0.75 launches; cycles per alloc/free (mean, CV) vs threads, 16/32/64/128 B",
     test_scatter_ops,
     {"size", "threads"},
     {"alloc_cycles_mean", "free_cycles_mean"},
     "cycles per alloc / free"},
    {"scatter-access",
     "ScatterAlloc §7 (data access), Fig. 4",
     "cycles per word to read the memory each thread holds",
     test_scatter_access,
     {"threads", "size_spread"},
     {"access_cycles_per_word_mean"},
     "cycles per word read"},
    {"fragmentation",
     "ScatterAlloc §3.3 eq. 1-2, Fig. 4",
     "internal / external fragmentation and overhead; sizes mean 512, spread 0-896; 16 MB heap",
     test_fragmentation,
     {"threads", "size_spread"},
     {"internal_frag", "external_frag", "overhead_pct"},
     "internal / external frag / overhead %"},
    {"temporal",
     "ScatterAlloc Fig. 2",
     "16384 threads, 128-160 B, p_alloc 0.05, p_free 0: alloc time, fragmentation vs fill",
     test_temporal,
     {"variant"},
     {"alloc_cycles_mean", "final_fill_level"},
     "cycles per alloc / final fill level"},
    {"thesis-synthetic",
     "mallocMC thesis (Eckert 2014) §5.1, Figs. 5.1-5.2",
     "random alloc/free kernels (p 0.75); clock64 cycles per alloc and free; thesis worker list scaled to the device",
     test_thesis_synthetic,
     {"size", "threads"},
     {"alloc_cycles_mean", "free_cycles_mean"},
     "cycles per alloc / free"},
    {"ad",
     "Vinkler & Havran §6-7 [AD], Table 2, Fig. 3a",
     "Alloc-Dealloc, payload 4 B - 128 KB, 2 GB heap",
     test_ad,
     {"mode", "payload"},
     {"time_ms_median"},
     "test time, ms (median)"},
    {"acd",
     "Vinkler & Havran §6-7 [ACD], Table 2, Figs. 3b-c, 4",
     "Alloc-Cycle-Dealloc: 10-100 iterations; heaps 128 KB - 2 GB",
     test_acd,
     {"variant", "mode", "iterations", "heap", "payload"},
     {"time_ms_median"},
     "test time, ms (median)"},
    {"prob",
     "Vinkler & Havran §6-7 [P], Table 2, Fig. 3d",
     "Probability test, 1 ... full blocks of 256 threads, 10 launches",
     test_prob,
     {"mode", "blocks"},
     {"time_ms_median"},
     "test time, ms (median)"},
    {"registers",
     "Vinkler & Havran Table 1",
     "registers of a kernel with one alloc and one free (compiler resource report)",
     test_registers,
     {"variant"},
     {"registers"},
     "registers per thread"},
    {"workloads",
     "Coalescing report (Blach et al.) §4.1, Figs. 1-4",
     "Linear / Quadratic workloads on n = 25 ... 400 floats per thread: malloc, work, free cycles; GFLOP/s",
     test_workloads,
     {"variant", "floats"},
     {"malloc_cycles_mean", "free_cycles_mean", "work_gflop_per_s"},
     "malloc / free cycles / GFLOP/s"},
    {"survey",
     "common modern comparison",
     "10K/100K mixed-size allocations; 2^1 ... 2^20 threads; fill until out of memory (utilization)",
     test_survey,
     {"variant", "size_class", "threads", "heap"},
     {"alloc_per_s", "free_per_s", "utilization"},
     "allocs/s / frees/s / utilization"},
    {"throughput",
     "ScatterAlloc issue (project issue 3)",
     "alloc/free throughput, 2^10 ... 2^20 threads x 16 ... 4096 B; probability test 2^16 threads x 20 launches",
     test_throughput,
     {"variant", "size", "threads"},
     {"alloc_per_s", "free_per_s", "us_per_launch"},
     "allocs/s / frees/s (µs/launch)"},
    {"mixed",
     "project issue 12: mixed sizes",
     "one allocation per thread, sizes drawn per thread: uniform 16-4096, 16-256, 512-8192 B, log-uniform 16-4096 B; "
     "2^17 and 2^20 threads; 1 GiB heap (--mixed-heap)",
     test_mixed,
     {"size_class", "threads"},
     {"alloc_per_s", "free_per_s", "failure_fraction"},
     "allocs/s / frees/s / failed fraction"},
    {"fill",
     "project issue 12: tight heaps",
     "one live allocation per thread (2^18 threads; quick 2^17) of 16 B ... 8 KiB and 16-256 / 16-4096 B, heap = "
     "demand / "
     "fill fraction (25, 50, 67, 80, 90 %)",
     test_fill,
     {"size_class", "fill_fraction"},
     {"alloc_per_s", "failure_fraction", "free_per_s"},
     "allocs/s / failed fraction / frees/s"},
    {"large",
     "project issue 12: large requests",
     "one allocation per thread of 8 KiB, 64 KiB, 1 MiB in an 8 GiB heap, 2^10 threads up to 90 % of the heap",
     test_large,
     {"size", "threads"},
     {"alloc_per_s", "free_per_s", "failure_fraction"},
     "allocs/s / frees/s / failed fraction"},
    {"kdtree",
     "Vinkler & Havran §6-7 [DS], Tables 3-4",
     "k-d tree build (spatial median, level by level); nodes' reference arrays from the allocator: build ms, "
     "ratio to bump, peak live bytes; libcgal-demo meshes, uniform and clustered triangles",
     test_kdtree,
     {"scene", "triangles"},
     {"build_ms_median", "ratio_to_bump", "peak_heap_bytes"},
     "build ms (median) / ratio to bump / peak live bytes"},
    {"fdg-sizes",
     "FDGMalloc (Widmer 2013) §5.1, Fig. 4",
     "64 threads x 16 allocations of 16 ... 8192 B",
     test_fdg_sizes,
     {"api", "size"},
     {"alloc_cycles_mean"},
     "cycles per alloc"},
    {"fdg-threads",
     "FDGMalloc §5.2, Fig. 5",
     "1 ... 65536 threads x N allocations of S bytes, N, S in 16 ... 512",
     test_fdg_threads,
     {"api", "allocs_per_thread", "size", "threads"},
     {"alloc_cycles_mean"},
     "cycles per alloc"},
    {"fdg-scaling",
     "FDGMalloc §5.3, Fig. 6",
     "1 ... 512 blocks of 1024 threads x 1/16/128 allocations of 16 B",
     test_fdg_scaling,
     {"api", "allocs_per_thread", "blocks"},
     {"alloc_per_s"},
     "allocs/s"},
    {"mpi",
     "Coalescing report (Blach et al.) §4.2, Fig. 5",
     "MPI Reduce / Broadcast / All-to-All with one rank per thread on buffers from the allocator: 8 x 32 ranks x 4 "
     "doubles and the largest the device holds; per-thread ms, median over threads, 5th/50th/95th percentile over runs",
     test_mpi,
     {"op", "scale", "ranks"},
     {"op_ms_p5", "op_ms_median", "op_ms_p95"},
     "op ms p5 / median / p95"},
    {"distributed",
     "project issue 16: one heap per device, MPI ranks",
     "examples/distributed under mpiexec, one rank per device (NCCL on the GPU, MPI_Alltoallv on the CPU), 1/2/4/8 "
     "ranks: messages of data-dependent size built, exchanged and received in allocator memory; medians over steps",
     test_distributed,
     {"ranks"},
     {"step_ms", "alloc_kernels_ms", "alloc_share_pct"},
     "step ms / allocating kernels ms / share %"},
  };
  return tests;
}

const TestInfo* find_test(const std::string& name)
{
  for (const auto& t : all_tests()) {
    if (name == t.name) { return &t; }
  }
  return nullptr;
}

// ---------------------------------------------------------------------------------------------

void calibrate_cost_model(Context& ctx)
{
#if DEVALLOC_BACKEND_CUDA
  for_each_allocator(ctx, [&](auto entry) {
    using E = decltype(entry);
    // CUDA's malloc itself (not the coalescing allocators over it, which would overwrite its model).
    if constexpr (std::is_same_v<typename E::allocator, devalloc::presets::device_malloc>) {
      using H = typename E::allocator::handle_type;
      Lease<E> lease(ctx, ctx.main_heap);
      Array<Counters> ctr(1);
      ctx.progress("calibrating the cost model of " + std::string(E::name) + " (small thread counts)");
      launch_timed(ctx, 256, AdKernel<H>{lease.handle(), ctx.deadline(1.0), 16, 1, ctr.data()});
      for (const std::size_t size : {std::size_t{16}, std::size_t{256}, std::size_t{4096}}) {
        for (std::size_t threads = 256; threads <= ctx.scale.full_threads; threads *= 4) {
          const Timing t =
            launch_timed(ctx, threads, AdKernel<H>{lease.handle(), ctx.deadline(1.0), size, 1, ctr.data()});
          double seconds = t.ms * 1e-3;
          if (t.expired) {
            // Workers skipped past the deadline: the full kernel would have taken longer still.
            seconds = std::max(seconds, 1.0) * 4;
          }
          ctx.cost.add({static_cast<double>(threads), static_cast<double>(size), seconds});
          // Stop before a step that could take more than about a second (quadratic growth x4).
          if (t.expired || seconds * 16 > 1.0) { break; }
        }
      }
    }
  });
#else
  (void)ctx;
#endif
}

}  // namespace devalloc_bench

// ---------------------------------------------------------------------------------------------

namespace {

using namespace devalloc_bench;

// ---------------------------------------------------------------------------------------------
// Command line (CLI11).

/// Help layout: the usage line first (bench/expect-usage-error.sh looks for "usage: devalloc-bench"
/// at the start of a line), then the description, the options and the footer; an option shows its
/// value as its option_text() says ("--out DIR"), without CLI11's validator descriptions.
class HelpFormatter : public CLI::Formatter {
 public:
  HelpFormatter()
  {
    label("Usage", "usage");
    label("OPTIONS", "options");
    column_width(26);
  }
  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override
  {
    if (mode == CLI::AppFormatMode::Sub) { return make_expanded(app); }
    return make_usage(app, name) + "\n" + make_description(app) + make_groups(app, mode) + make_footer(app);
  }
  std::string make_option_opts(const CLI::Option* opt) const override
  {
    return opt->get_option_text().empty() ? std::string() : " " + opt->get_option_text();
  }
};

/// A validator from a predicate; `message` is the error CLI11 reports with the option's name.
template <class Pred>
CLI::Validator require(const std::string& message, Pred pred)
{
  return CLI::Validator([message, pred](std::string& value) { return pred(value) ? std::string() : message; }, "");
}

std::vector<std::string> test_names()
{
  std::vector<std::string> names;
  for (const auto& t : all_tests()) { names.emplace_back(t.name); }
  return names;
}

std::vector<std::string> allocator_names()
{
  std::vector<std::string> names;
  for_each_entry([&](auto e) { names.emplace_back(decltype(e)::name); });
  return names;
}

/// Declares every option of devalloc-bench on `app`, writing into `o`.
void declare_options(CLI::App& app, Options& o)
{
  app.formatter(std::make_shared<HelpFormatter>());
  app.description(
    "Reproduces the evaluations of ScatterAlloc (Steinberger et al. 2012), the mallocMC thesis (Eckert 2014),\n"
    "Vinkler & Havran's register-efficient allocators, the coalescing report (Blach et al.) and FDGMalloc\n"
    "(Widmer et al. 2013) for every allocator in bench/allocators.hpp, with CUDA's built-in allocator as the\n"
    "baseline. Without a GPU the CPU backend runs (workers are std::threads; figures are labelled 'cpu', and\n"
    "their timings are functional checks, not rankings, unless a cell runs long enough to measure).");
  app.footer("Bad arguments print this text and exit with status 2. Documentation: docs/bench.md.");

  const auto positive_seconds = require("needs a positive number of seconds", [](const std::string& v) {
    double d = 0;
    return CLI::detail::lexical_cast(v, d) && d > 0 && std::isfinite(d);
  });
  const auto non_empty = require("needs a non-empty value", [](const std::string& v) { return !v.empty(); });
  const auto bytes = CLI::AsSizeValue(false);  // 512, 64K, 16M, 2G (K = 1024)

  CLI::Option* quick = app.add_flag("--quick", "reduced scale, every test (default; under 3 minutes on an H100)");
  CLI::Option* full = app.add_flag("--full", o.full, "the papers' full parameter ranges");
  quick->excludes(full);
  app.add_option("--tests", o.tests, "run only these tests (see --list)")
    ->option_text("a,b,...")
    ->delimiter(',')
    ->check(CLI::IsMember(test_names(), CLI::ignore_space));
  app.add_option("--allocators", o.allocators, "run only these allocators (see --list)")
    ->option_text("x,y")
    ->delimiter(',')
    ->check(CLI::IsMember(allocator_names(), CLI::ignore_space));
  app
    .add_option("--out", o.out_dir,
                "write results.json into DIR\n(default: out/devalloc-bench-<backend>-<mode>-<UTC time>)")
    ->option_text("DIR")
    ->check(non_empty);
  app.add_flag("--list", o.list, "list tests and allocators, then exit");
  app.add_option("--seed", o.seed, "random seed (default 20240611)")
    ->option_text("N")
    ->check(require("needs a non-negative integer", [](const std::string& v) {
      return !v.empty() && std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; });
    }));
  app.add_option("--cell-budget", o.cell_budget_s, "seconds one cell (kernel) may take (quick 1.5, full 30)")
    ->option_text("S")
    ->check(positive_seconds);
  app.add_option("--pair-budget", o.pair_budget_s, "seconds one test may spend on one allocator (quick 6, full 900)")
    ->option_text("S")
    ->check(positive_seconds);
  app
    .add_option("--time-budget,--run-budget", o.run_budget_s,
                "soft limit of the whole run (quick 150, full 21600): past it,\nallocators that used more than their "
                "share are skipped (the baseline\nkeeps two cell budgets per test for the ratios)")
    ->option_text("S")
    ->check(positive_seconds);
  app.add_option("--cuda-heap", o.cuda_heap, "CUDA malloc heap of this process (default 2G; e.g. 512M, 4G)")
    ->option_text("BYTES")
    ->transform(bytes)
    ->check(require("must be at least 64K", [](const std::string& v) {
      std::size_t n = 0;
      return CLI::detail::lexical_cast(v, n) && n >= (std::size_t{64} << 10);
    }));
  app
    .add_option("--mixed-heap", o.mixed_heap,
                "heap of the mixed test's cells (default 1G; the CPU backend scales it\ndown with the thread count)")
    ->option_text("BYTES")
    ->transform(bytes)
    ->check(require("must be at least 1M", [](const std::string& v) {
      std::size_t n = 0;
      return CLI::detail::lexical_cast(v, n) && n >= (std::size_t{1} << 20);
    }));
  app
    .add_option("--meshes-dir", o.meshes_dir,
                "kdtree: folder of the .off meshes (default: .deps/root/usr/share/doc/libcgal-dev/\ndata/meshes "
                "under the working directory, the source tree or above the binary)")
    ->option_text("DIR")
    ->check(non_empty);
  app.add_option("--cpu-threads", o.cpu_threads, "CPU backend: std::threads per launch (default 2 x hardware threads)")
    ->option_text("N")
    ->check(CLI::Range(1u, 1024u));
  app.add_flag("--quiet", o.quiet, "no progress output");
  app.add_flag("--no-table", o.no_table, "no terminal table");
  // Internal: the child processes that run cells needing another CUDA malloc heap (hidden).
  const std::string internal;
  app.add_flag("--child", o.child)->group(internal);
  app.add_option("--child-out", o.child_out)->group(internal)->check(non_empty);
  app.add_option("--parent-heap", o.parent_heap)->group(internal)->transform(bytes);
  app.add_option("--cost-model", o.cost_model)->group(internal);
  app.add_option("--commit", o.commit_override)->group(internal);
  // Tests of the child-process path on the CPU backend (bench/CMakeLists.txt; hidden).
  app.add_flag("--emulate-process-heap", o.emulate_process_heap)->group(internal);
  app.add_option("--inject-fault", o.inject_fault)
    ->group(internal)
    ->check(require("needs NAME, NAME:always, NAME:abort or NAME:parent",
                    [](const std::string& v) { return parse_injected_fault(v).valid; }));
}

void print_list()
{
  std::cout << "tests:\n";
  for (const auto& t : all_tests()) { std::printf("  %-17s %s\n  %-17s   %s\n", t.name, t.description, "", t.source); }
  std::cout << "\nallocators (bench/allocators.hpp):\n";
  for_each_entry([](auto e) {
    using E = decltype(e);
    std::printf("  %-13s %s\n  %-13s   %s\n", E::name, E::description, "", E::allocator::info().c_str());
  });
  std::cout << "\nbackend of this binary: " << devalloc::backend_name() << "\n";
}

template <class E>
void create_process_heap(Context& ctx)
{
  if (has_process_wide_heap<E>()) {
    if (ctx.allocator_selected(E::name) && !process_heap<E>()) {
      process_heap<E>() = std::make_unique<typename E::allocator>(ctx.main_heap);
    }
  }
}

template <class E>
void release_process_heap()
{
  if (has_process_wide_heap<E>()) { process_heap<E>().reset(); }
}

}  // namespace

int main(int argc, char** argv)
{
  Options options;
  {
    CLI::App app{"", "devalloc-bench"};
    declare_options(app, options);
    try {
      app.parse(argc, argv);
      if (options.child && options.child_out.empty()) { throw CLI::ValidationError("--child", "needs --child-out"); }
    } catch (const CLI::CallForHelp&) {
      std::cout << app.help();
      return 0;
    } catch (const CLI::ParseError& e) {
      std::cerr << "devalloc-bench: " << e.what() << "\n\n" << app.help();
      return 2;
    }
  }
  emulate_process_heap = options.emulate_process_heap;
  if (options.list) {
    print_list();
    return 0;
  }
  std::string out_dir;
  if (!options.child) {
    try {
      out_dir = prepare_output_dir(options);
    } catch (const std::exception& e) {
      std::cerr << "devalloc-bench: " << e.what() << "\n";
      return 2;
    }
  }
  try {
    Context ctx(options);
    // CUDA's malloc heap can only be sized before the first kernel that uses malloc: first thing.
    for_each_entry([&](auto e) { create_process_heap<decltype(e)>(ctx); });
    ctx.sync_clocks();
    std::vector<const TestInfo*> tests;
    for (const auto& t : all_tests()) {
      if (ctx.opt.tests.empty() ||
          std::find(ctx.opt.tests.begin(), ctx.opt.tests.end(), t.name) != ctx.opt.tests.end()) {
        tests.push_back(&t);
      }
    }
    if (!ctx.opt.child) { print_header(ctx, std::cout); }
    if (!ctx.opt.child && ctx.cost.empty()) { calibrate_cost_model(ctx); }
    for (const TestInfo* t : tests) {
      ctx.current_test = t->name;
      ctx.sync_clocks();  // host clock -> device clock, for the deadlines
      const double t0 = ctx.elapsed_s();
      const std::size_t before = ctx.records.size();
      ctx.progress(std::string(t->name) + " ...");
      try {
        t->run(ctx);
      } catch (const std::exception& e) {
        Record r = base_record(ctx, "-");
        r.set("status", "error").set("error", e.what());
        ctx.records.push_back(r);
        std::cerr << "\ndevalloc-bench: test " << t->name << " failed: " << e.what() << "\n";
      }
      if (!ctx.opt.child) {
        ctx.run_children(t->name);
        ctx.current_test.clear();  // outside a test, for_each_allocator lists every allocator
        // Keep what is measured so far on disk (a long run that is stopped keeps its results).
        add_baseline_ratios(ctx);
        write_outputs(ctx, tests, out_dir);
      }
      char line[160];
      std::snprintf(line, sizeof line, "%-17s %4zu records  %6.1f s", t->name, ctx.records.size() - before,
                    ctx.elapsed_s() - t0);
      ctx.progress(line, true);
    }
    for_each_entry([&](auto e) { release_process_heap<decltype(e)>(); });
    if (ctx.opt.child) { return write_child_records(ctx) ? 0 : 4; }
    add_baseline_ratios(ctx);
    const std::string dir = write_outputs(ctx, tests, out_dir);
    if (!ctx.opt.no_table) { print_tables(ctx, tests, std::cout); }
    for (const Json& f : ctx.child_faults) {
      std::cout << "\nCUDA fault in a child process: " << text(f["test"]) << ", heap " << text(f["heap_bytes"]) << ": "
                << text(f["error"]) << "; its allocators ran again in a new process: " << text(f["retry"])
                << " (records marked retried_after; meta child_faults)";
    }
    std::cout << "\nresults: " << dir << "/results.json  (" << ctx.records.size() << " records, "
              << static_cast<int>(ctx.elapsed_s() + 0.5) << " s)\n";
    return 0;
  } catch (const devalloc::error& e) {
    std::cerr << "devalloc-bench: " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "devalloc-bench: unexpected error: " << e.what() << "\n";
    return 3;
  }
}
