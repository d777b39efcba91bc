// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// bench/src/t_distributed.cpp — issue 16: one heap per device in a distributed program.
//
//   distributed  examples/distributed under mpiexec, one MPI rank per device (CUDA: NCCL moves the
//                payloads; CPU: ranks are processes, MPI_Alltoallv), with 1, 2, 4, 8 ranks (as many
//                as there are devices on the GPU), for Scatter and CUDA's malloc; per cell the
//                median over steps 1.. of the step time (slowest rank), of the allocating kernels
//                (build + pack + receive, averaged over ranks) and their share of the step, the
//                exchange, messages and bytes per step. A run whose end-to-end check fails
//                (a message lost, duplicated or corrupted, an allocation failed) counts as a
//                verification error.
//
// The example is its own program (MPI, NCCL) and devalloc-bench is not an MPI program, so this
// test starts it through mpiexec and reads its output; the program, its checks and its step
// report are documented in docs/distributed.md. Where mpiexec or the example binary is missing the
// cells are recorded as skipped with the reason.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "common.hpp"
#include "tests.hpp"

namespace devalloc_bench {
namespace {

namespace fs = std::filesystem;

/// The example binary: $DEVALLOC_DISTRIBUTED_BIN, else beside this executable or in the build
/// tree's examples/distributed. Empty if none exists.
std::string find_example(std::string& tried)
{
#if DEVALLOC_BACKEND_CUDA
  const std::string name = "devalloc_example_distributed_cuda";
#else
  const std::string name = "devalloc_example_distributed_cpu";
#endif
  if (const char* env = std::getenv("DEVALLOC_DISTRIBUTED_BIN"); env != nullptr && *env != '\0') {
    tried = env;
    return fs::exists(env) ? std::string(env) : std::string();
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  const fs::path dir = ec ? fs::current_path() : self.parent_path();
  for (const fs::path& p : {dir / name, dir.parent_path() / "examples" / "distributed" / name,
                            fs::current_path() / "examples" / "distributed" / name}) {
    tried += (tried.empty() ? "" : ", ") + p.string();
    if (fs::exists(p, ec)) { return p.string(); }
  }
  return {};
}

std::string last_lines(std::string text, std::size_t lines)
{
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) { text.pop_back(); }
  std::size_t pos = text.size();
  for (std::size_t k = 0; k <= lines && pos != std::string::npos && pos > 0; ++k) { pos = text.rfind('\n', pos - 1); }
  return pos == std::string::npos ? text : text.substr(pos + 1);
}

struct StepLine {
  double step_ms = 0, alloc_ms = 0, share_pct = 0, exchange_ms = 0, mb = 0, remote_mb = 0, messages = 0;
  bool errors = false;
};

/// The example's per-step lines (docs/distributed.md): step 0 warms up and is left out.
std::vector<StepLine> parse_steps(const std::string& output)
{
  static const std::regex line(
    R"(step +(\d+): +([0-9.]+) ms +(\d+) msgs +([0-9.]+) MB exchanged \(([0-9.]+) MB between ranks\) +allocating kernels +([0-9.]+) ms = +([0-9.]+)% .*exchange ([0-9.]+) ms.*)");
  std::vector<StepLine> steps;
  std::size_t begin = 0;
  while (begin < output.size()) {
    std::size_t end = output.find('\n', begin);
    if (end == std::string::npos) { end = output.size(); }
    const std::string text = output.substr(begin, end - begin);
    begin = end + 1;
    std::smatch m;
    if (!std::regex_match(text, m, line) || std::stoi(m[1]) == 0) { continue; }
    StepLine s;
    s.step_ms = std::stod(m[2]);
    s.messages = std::stod(m[3]);
    s.mb = std::stod(m[4]);
    s.remote_mb = std::stod(m[5]);
    s.alloc_ms = std::stod(m[6]);
    s.share_pct = std::stod(m[7]);
    s.exchange_ms = std::stod(m[8]);
    s.errors = text.find("ERRORS") != std::string::npos;
    steps.push_back(s);
  }
  return steps;
}

template <class F>
double median_of(const std::vector<StepLine>& steps, F&& field)
{
  std::vector<double> v;
  for (const StepLine& s : steps) { v.push_back(field(s)); }
  return summarize(v).median;
}

int device_count()
{
#if DEVALLOC_BACKEND_CUDA
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) { return 0; }
  return n;
#else
  return 4;  // ranks are processes
#endif
}

}  // namespace

void test_distributed(Context& ctx)
{
  std::string tried;
  const std::string example = find_example(tried);
  const char* env_mpiexec = std::getenv("DEVALLOC_MPIEXEC");
  const std::string mpiexec = env_mpiexec != nullptr && *env_mpiexec != '\0' ? env_mpiexec : "mpiexec";
  int status = 0;
  const std::string version = run_command(shell_quote(mpiexec) + " --version 2>&1", &status);
  std::string missing;
  if (example.empty()) {
    missing = "the example binary was not found (tried " + tried + "; set DEVALLOC_DISTRIBUTED_BIN)";
  }
  if (status != 0) {
    missing += (missing.empty() ? "" : "; ") + std::string("mpiexec did not run (") + mpiexec +
               " --version: " + last_lines(version, 1) +
               "; install Open MPI: scripts/deps.sh, or set DEVALLOC_MPIEXEC)";
  }
  std::string flags;
  if (version.find("Open MPI") != std::string::npos || version.find("OpenRTE") != std::string::npos) {
    flags = " --oversubscribe";
    if (geteuid() == 0) { flags += " --allow-run-as-root"; }
    setenv("OMPI_MCA_plm_rsh_agent", "false", 0);  // local ranks only; no ssh needed
  }
  setenv("NCCL_NVLS_ENABLE", "0", 1);  // the device machines require NVLink multicast off

#if DEVALLOC_BACKEND_CUDA
  // CUDA's malloc takes about 7 s a step at 2^20 workers per rank (H100): quick stays at 2^18.
  const std::size_t workers = ctx.quick() ? (std::size_t{1} << 18) : (std::size_t{1} << 20);
  const int steps = ctx.quick() ? 6 : 20;
  const std::string extra;
#else
  const std::size_t workers = ctx.quick() ? 1024 : 8192;
  const int steps = ctx.quick() ? 5 : 10;
  const std::string extra = " --cpu-threads 2";
#endif
  const int devices = device_count();
  struct Allocator {
    const char* bench_name;
    const char* example_name;
  };
  for (const int ranks : {1, 2, 4, 8}) {
    for (const Allocator a : {Allocator{"cuda-malloc", "device_malloc"}, Allocator{"scatter", "scatter"}}) {
      if (!ctx.allocator_selected(a.bench_name)) { continue; }
      Record params;
      params.set("ranks", ranks).set("workers", static_cast<double>(workers)).set("steps", steps);
      CellOut out(base_record(ctx, a.bench_name));
      for (const auto& kv : params.fields().items()) { out.rec.set(kv.key(), kv.value()); }
      out.rec.set("cell", cell_label(params)).set("threads", static_cast<double>(workers));
      out.rec.set("example_allocator", a.example_name).set("status", "ok");
      ctx.cell_spans_ms.clear();
      if (ranks > devices) {
#if DEVALLOC_BACKEND_CUDA
        const std::string why = std::to_string(ranks) + " ranks need " + std::to_string(ranks) +
                                " devices (one rank per GPU); this machine has " + std::to_string(devices);
#else
        const std::string why = "CPU backend: at most " + std::to_string(devices) + " ranks (processes)";
#endif
        out.rec.set("status", "skipped").set("note", why);
        finish_cell(ctx, out, 0);
        continue;
      }
      if (!missing.empty()) {
        out.rec.set("status", "skipped").set("note", missing);
        finish_cell(ctx, out, 0);
        continue;
      }
      // mpiexec, MPI and NCCL start-up take seconds: the cell's budget is at least a minute.
      const int limit_s = static_cast<int>(std::max(60.0, ctx.cell_total_budget_s()));
      const std::string command = "timeout -k 5 " + std::to_string(limit_s) + " " + shell_quote(mpiexec) + " -n " +
                                  std::to_string(ranks) + flags + " " + shell_quote(example) + " --steps " +
                                  std::to_string(steps) + " --threads " + std::to_string(workers) + " --allocator " +
                                  a.example_name + " --seed " + std::to_string(ctx.opt.seed) + extra;
      out.rec.set("command", command);
      const auto t0 = std::chrono::steady_clock::now();
      const std::string output = run_command(command + " 2>&1", &status);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const std::vector<StepLine> measured = parse_steps(output);
      const bool ok_line = output.find("distributed: OK") != std::string::npos;
      if (status == 124 || status == 137) {
        out.timed_out("cell");
        out.rec.set("note", "mpiexec ran past " + std::to_string(limit_s) + " s");
      } else if (!ok_line || status != 0) {
        // The example's own end-to-end check failed, or it did not run to its summary.
        const bool ran = output.find("distributed: FAILED") != std::string::npos;
        out.rec.set("status", ran ? "ok" : "error").set("verify_errors", 1).set("exit_status", status);
        out.rec.set("note", last_lines(output, 6));
      }
      if (!measured.empty()) {
        for (const StepLine& s : measured) { ctx.cell_spans_ms.push_back(s.step_ms); }
        out.rec.set("step_ms", median_of(measured, [](const StepLine& s) { return s.step_ms; }))
          .set("alloc_kernels_ms", median_of(measured, [](const StepLine& s) { return s.alloc_ms; }))
          .set("alloc_share_pct", median_of(measured, [](const StepLine& s) { return s.share_pct; }))
          .set("exchange_ms", median_of(measured, [](const StepLine& s) { return s.exchange_ms; }))
          .set("messages_per_step", median_of(measured, [](const StepLine& s) { return s.messages; }))
          .set("mb_per_step", median_of(measured, [](const StepLine& s) { return s.mb; }))
          .set("remote_mb_per_step", median_of(measured, [](const StepLine& s) { return s.remote_mb; }))
          .set("steps_with_errors", static_cast<double>(std::count_if(measured.begin(), measured.end(),
                                                                      [](const StepLine& s) { return s.errors; })));
      } else if (out.rec.str("status") == "ok") {
        out.rec.set("status", "error").set("note", "no step lines in the output: " + last_lines(output, 6));
      }
      finish_cell(ctx, out, seconds);
    }
  }
}

}  // namespace devalloc_bench
