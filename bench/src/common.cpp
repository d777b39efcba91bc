// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// bench/src/common.cpp — non-template parts of the shared machinery (see common.hpp).
#include "common.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <unistd.h>

#include "tests.hpp"

#ifndef DEVALLOC_BENCH_SOURCE_DIR
#define DEVALLOC_BENCH_SOURCE_DIR ""
#endif
#ifndef DEVALLOC_BENCH_GIT_COMMIT
#define DEVALLOC_BENCH_GIT_COMMIT "unknown"
#endif

namespace devalloc_bench {

// =============================================================================================
// Records

namespace {
std::string format_real(double d)
{
  char buf[64];
  if (d == std::floor(d) && std::fabs(d) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.1f", d);
  } else {
    std::snprintf(buf, sizeof buf, "%.6g", d);
  }
  return buf;
}
}  // namespace

std::string text(const Json& v)
{
  if (v.is_null()) { return ""; }
  if (v.is_string()) { return v.get<std::string>(); }
  if (v.is_boolean()) { return v.get<bool>() ? "true" : "false"; }
  if (v.is_number_unsigned()) { return std::to_string(v.get<unsigned long long>()); }
  if (v.is_number_integer()) { return std::to_string(v.get<long long>()); }
  if (v.is_number_float()) { return format_real(v.get<double>()); }
  return dump_json(v);
}

std::string dump_json(const Json& v) { return v.dump(-1, ' ', false, Json::error_handler_t::replace); }

Record& Record::set(const std::string& key, Json v)
{
  if (v.is_number_float() && !std::isfinite(v.get<double>())) { v = nullptr; }
  fields_[key] = std::move(v);
  return *this;
}

const Json* Record::get(const std::string& key) const
{
  const auto it = fields_.find(key);
  return it != fields_.end() ? &*it : nullptr;
}

double Record::num(const std::string& key, double fallback) const
{
  const Json* v = get(key);
  return v != nullptr && v->is_number() ? v->get<double>() : fallback;
}

std::string Record::str(const std::string& key) const
{
  const Json* v = get(key);
  return v != nullptr ? text(*v) : std::string();
}

Record Record::from_json(const std::string& line)
{
  Json j;
  try {
    j = Json::parse(line);
  } catch (const Json::exception& e) {
    throw std::runtime_error(std::string("bad record JSON: ") + e.what());
  }
  if (!j.is_object()) { throw std::runtime_error("bad record JSON: not an object"); }
  Record r;
  r.fields_ = std::move(j);
  return r;
}

// =============================================================================================
// Statistics

Summary summarize(std::vector<double> v)
{
  Summary s;
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
  s.n = v.size();
  if (v.empty()) { return s; }
  std::sort(v.begin(), v.end());
  auto quantile = [&](double q) {
    const double pos = q * static_cast<double>(v.size() - 1);
    const std::size_t lo = static_cast<std::size_t>(std::floor(pos));
    const std::size_t hi = std::min(v.size() - 1, lo + 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
  };
  s.min = v.front();
  s.max = v.back();
  s.median = quantile(0.5);
  s.p10 = quantile(0.1);
  s.p90 = quantile(0.9);
  double sum = 0;
  for (const double x : v) { sum += x; }
  s.mean = sum / static_cast<double>(v.size());
  double sq = 0;
  for (const double x : v) { sq += (x - s.mean) * (x - s.mean); }
  s.stdev = v.size() > 1 ? std::sqrt(sq / static_cast<double>(v.size() - 1)) : 0.0;
  s.cv = s.mean != 0 ? s.stdev / s.mean : NAN;
  return s;
}

void put_summary(Record& r, const std::string& prefix, const Summary& s, bool with_cv)
{
  r.set(prefix + "_median", s.median);
  r.set(prefix + "_min", s.min);
  r.set(prefix + "_max", s.max);
  if (with_cv) { r.set(prefix + "_cv", s.cv); }
}

// =============================================================================================
// Sizes

std::string bytes_label(std::size_t b)
{
  if (b >= (1ull << 30) && b % (1ull << 30) == 0) { return std::to_string(b >> 30) + "G"; }
  if (b >= (1ull << 20) && b % (1ull << 20) == 0) { return std::to_string(b >> 20) + "M"; }
  if (b >= (1ull << 10) && b % (1ull << 10) == 0) { return std::to_string(b >> 10) + "K"; }
  return std::to_string(b);
}

// =============================================================================================
// Shell commands

std::string run_command(const std::string& cmd, int* status)
{
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) {
    if (status != nullptr) { *status = -1; }
    return out;
  }
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) { out.append(buf, n); }
  const int raw = ::pclose(p);
  if (status != nullptr) { *status = raw == -1 ? -1 : (WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw)); }
  return out;
}

std::string shell_quote(const std::string& s)
{
  std::string out = "'";
  for (const char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// =============================================================================================
// Context

namespace {
std::string trim(std::string s)
{
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) { s.pop_back(); }
  std::size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) { ++i; }
  return s.substr(i);
}

std::string detect_commit()
{
  // Copies of the tree without .git (the GPU machine) name their commit in DEVALLOC_COMMIT.
  if (const char* env = std::getenv("DEVALLOC_COMMIT"); env != nullptr && *env != '\0') { return env; }
  const std::string dir = DEVALLOC_BENCH_SOURCE_DIR;
  if (!dir.empty()) {
    const std::string head = trim(run_command("git -C " + shell_quote(dir) + " rev-parse --short=12 HEAD 2>/dev/null"));
    if (!head.empty()) {
      const std::string dirty =
        trim(run_command("git -C " + shell_quote(dir) + " status --porcelain --untracked-files=no 2>/dev/null"));
      return head + (dirty.empty() ? "" : "+dirty");
    }
  }
  return std::string(DEVALLOC_BENCH_GIT_COMMIT) + " (at build time)";
}

std::string cpu_model()
{
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) { return trim(line.substr(colon + 1)); }
    }
  }
  return "unknown CPU";
}

bool stderr_is_tty() { return ::isatty(2) != 0; }
}  // namespace

Context::Context(Options options) : opt(std::move(options)), fault(parse_injected_fault(opt.inject_fault))
{
  commit = opt.commit_override.empty() ? detect_commit() : opt.commit_override;
  const bool full = opt.full;
#if DEVALLOC_BACKEND_CUDA
  devalloc::detail::backend::require_device();
  int dev = 0;
  DEVALLOC_CUDA_TRY(cudaGetDevice(&dev));
  cudaDeviceProp prop{};
  DEVALLOC_CUDA_TRY(cudaGetDeviceProperties(&prop, dev));
  device.name = prop.name;
  device.compute_capability = std::to_string(prop.major) + "." + std::to_string(prop.minor);
  device.memory_bytes = prop.totalGlobalMem;
  int driver = 0, runtime = 0, clock_khz = 0;
  DEVALLOC_CUDA_TRY(cudaDriverGetVersion(&driver));
  DEVALLOC_CUDA_TRY(cudaRuntimeGetVersion(&runtime));
  DEVALLOC_CUDA_TRY(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev));
  auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); };
  device.driver = "CUDA driver API " + version(driver);
  device.runtime = version(runtime);
  {
    const std::string smi = trim(run_command("nvidia-smi --query-gpu=driver_version --format=csv,noheader -i " +
                                             std::to_string(dev) + " 2>/dev/null"));
    if (!smi.empty() && smi.find_first_not_of("0123456789.") == std::string::npos) {
      device.driver = smi + " (" + device.driver + ")";
    }
  }
  scale.sm_count = static_cast<std::size_t>(prop.multiProcessorCount);
  scale.threads_per_sm = static_cast<std::size_t>(prop.maxThreadsPerMultiProcessor);
  scale.full_threads = scale.sm_count * scale.threads_per_sm;
  scale.max_threads = std::size_t{1} << 20;
  scale.clock_khz = clock_khz;
  std::size_t free_bytes = 0, total_bytes = 0;
  DEVALLOC_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
  main_heap = opt.cuda_heap != 0 ? opt.cuda_heap : std::min<std::size_t>(std::size_t{2} << 30, free_bytes / 4);
  scale.max_heap = std::min<std::size_t>(free_bytes / 2, std::size_t{24} << 30);
  scale.reps = full ? 5 : 3;
  scale.warmups = 1;
  cudaEvent_t a = nullptr, b = nullptr;
  DEVALLOC_CUDA_TRY(cudaEventCreate(&a));
  DEVALLOC_CUDA_TRY(cudaEventCreate(&b));
  event_start = a;
  event_stop = b;
#else
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  device.name = "host CPU: " + cpu_model() + " (" + std::to_string(hw) + " hardware threads)";
  device.driver = "n/a (CPU backend)";
  device.runtime = "n/a (CPU backend)";
  scale.sm_count = hw;
  scale.threads_per_sm = 0;
  scale.full_threads = full ? 1024 : 256;
  scale.max_threads = full ? 8192 : 4096;
  scale.max_heap = full ? (std::size_t{2} << 30) : (std::size_t{1} << 30);
  scale.reps = full ? 5 : 3;
  scale.warmups = 1;
  main_heap = opt.cuda_heap != 0 ? opt.cuda_heap : std::size_t{256} << 20;
#endif
  if (!opt.cost_model.empty()) { cost = CostModel::parse(opt.cost_model); }
  deadline_state_ = Array<DeadlineState>(1);
  progress_tty_ = stderr_is_tty();
}

Context::~Context()
{
#if DEVALLOC_BACKEND_CUDA
  if (event_start != nullptr) { (void)cudaEventDestroy(static_cast<cudaEvent_t>(event_start)); }
  if (event_stop != nullptr) { (void)cudaEventDestroy(static_cast<cudaEvent_t>(event_stop)); }
#endif
}

bool Context::allocator_selected(const std::string& name) const
{
  return opt.allocators.empty() ||
         std::find(opt.allocators.begin(), opt.allocators.end(), name) != opt.allocators.end();
}

double Context::cell_budget_s() const { return opt.cell_budget_s > 0 ? opt.cell_budget_s : (opt.full ? 30.0 : 1.5); }
double Context::cell_total_budget_s() const { return cell_budget_s() * (opt.full ? 10.0 : 4.0); }
double Context::pair_budget_s() const { return opt.pair_budget_s > 0 ? opt.pair_budget_s : (opt.full ? 900.0 : 6.0); }
double Context::run_budget_s() const { return opt.run_budget_s > 0 ? opt.run_budget_s : (opt.full ? 21600.0 : 150.0); }

double Context::elapsed_s() const
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

Deadline Context::deadline(double budget_s)
{
  const double b = budget_s > 0 ? budget_s : cell_budget_s();
  return Deadline{deadline_state_.data(), static_cast<u64>(b * 1e9), ~0ull};
}

namespace {
long long host_ns()
{
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
    .count();
}

struct ClockProbe {
  u64* out;
  DEVALLOC_DEVICE void operator()(std::size_t) const { *out = timer_ns(); }
};
}  // namespace

void Context::sync_clocks()
{
#if DEVALLOC_BACKEND_CUDA
  Array<u64> t(1);
  launch_plain(*this, 1, ClockProbe{t.data()}, 32);  // load the module first
  long long best = -1;
  for (int k = 0; k < 3; ++k) {
    const long long h0 = host_ns();
    launch_plain(*this, 1, ClockProbe{t.data()}, 32);
    const long long h1 = host_ns();
    const long long device = static_cast<long long>(t.get(0));
    if (best < 0 || h1 - h0 < best) {
      best = h1 - h0;
      clock_offset_ns_ = device - (h0 + (h1 - h0) / 2);
    }
  }
#else
  clock_offset_ns_ = 0;  // timer_ns() is steady_clock
#endif
}

u64 Context::deadline_arm()
{
  deadline_state_.zero();
  return static_cast<u64>(host_ns() + clock_offset_ns_);
}

DeadlineState Context::deadline_read() { return deadline_state_.get(0); }

void Context::progress(const std::string& line, bool final)
{
  if (opt.quiet) { return; }
  static auto last = std::chrono::steady_clock::now() - std::chrono::seconds(60);
  const auto now = std::chrono::steady_clock::now();
  char head[32];
  std::snprintf(head, sizeof head, "[%6.1fs] ", elapsed_s());
  const std::string text = head + line;
  if (progress_tty_) {
    std::string shown = text.substr(0, 150);
    const std::size_t width = shown.size();
    if (width < progress_width_) { shown += std::string(progress_width_ - width, ' '); }
    progress_width_ = width;
    std::cerr << "\r" << shown << (final ? "\n" : "") << std::flush;
    if (final) { progress_width_ = 0; }
  } else if (final || now - last > std::chrono::seconds(5)) {
    std::cerr << text << "\n" << std::flush;
    last = now;
  }
}

#if DEVALLOC_BACKEND_CUDA
void cuda_record_start(Context& ctx) { DEVALLOC_CUDA_TRY(cudaEventRecord(static_cast<cudaEvent_t>(ctx.event_start))); }
void cuda_record_stop_and_sync(Context& ctx)
{
  DEVALLOC_CUDA_TRY(cudaEventRecord(static_cast<cudaEvent_t>(ctx.event_stop)));
  DEVALLOC_CUDA_TRY(cudaEventSynchronize(static_cast<cudaEvent_t>(ctx.event_stop)));
  DEVALLOC_CUDA_TRY(cudaDeviceSynchronize());
}
double cuda_event_ms(Context& ctx)
{
  float ms = 0;
  DEVALLOC_CUDA_TRY(
    cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(ctx.event_start), static_cast<cudaEvent_t>(ctx.event_stop)));
  return ms;
}
#else
void cuda_record_start(Context&) {}
void cuda_record_stop_and_sync(Context&) {}
double cuda_event_ms(Context&) { return 0; }
#endif

// =============================================================================================
// Cost model

double CostModel::predict_size_series(double size, double threads) const
{
  std::vector<CostPoint> s;
  for (const auto& p : points_) {
    if (p.size == size) { s.push_back(p); }
  }
  std::sort(s.begin(), s.end(), [](const CostPoint& a, const CostPoint& b) { return a.threads < b.threads; });
  if (s.empty()) { return 0; }
  if (threads <= s.front().threads) { return s.front().seconds; }
  for (std::size_t k = 1; k < s.size(); ++k) {
    if (threads <= s[k].threads) {
      const double x0 = std::log(s[k - 1].threads), x1 = std::log(s[k].threads);
      const double y0 = std::log(std::max(1e-7, s[k - 1].seconds)), y1 = std::log(std::max(1e-7, s[k].seconds));
      const double t = (std::log(threads) - x0) / (x1 - x0);
      return std::exp(y0 + t * (y1 - y0));
    }
  }
  // Beyond the measured range: at least linear, at most quadratic in the thread count.
  double k = 2.0;
  if (s.size() >= 2) {
    const auto& a = s[s.size() - 2];
    const auto& b = s.back();
    k = std::log(std::max(1e-7, b.seconds) / std::max(1e-7, a.seconds)) / std::log(b.threads / a.threads);
    k = std::min(2.0, std::max(1.0, k));
  }
  return s.back().seconds * std::pow(threads / s.back().threads, k);
}

double CostModel::predict(double threads, double size) const
{
  if (points_.empty()) { return 0; }
  std::vector<double> sizes;
  for (const auto& p : points_) {
    if (std::find(sizes.begin(), sizes.end(), p.size) == sizes.end()) { sizes.push_back(p.size); }
  }
  std::sort(sizes.begin(), sizes.end());
  if (size <= sizes.front()) { return predict_size_series(sizes.front(), threads); }
  if (size >= sizes.back()) { return predict_size_series(sizes.back(), threads) * std::sqrt(size / sizes.back()); }
  for (std::size_t k = 1; k < sizes.size(); ++k) {
    if (size <= sizes[k]) {
      const double a = std::max(1e-7, predict_size_series(sizes[k - 1], threads));
      const double b = std::max(1e-7, predict_size_series(sizes[k], threads));
      const double t = (std::log(size) - std::log(sizes[k - 1])) / (std::log(sizes[k]) - std::log(sizes[k - 1]));
      return std::exp(std::log(a) + t * (std::log(b) - std::log(a)));
    }
  }
  return 0;
}

std::string CostModel::serialize() const
{
  std::string out;
  for (const auto& p : points_) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s%.0f:%.0f:%.6g", out.empty() ? "" : ";", p.threads, p.size, p.seconds);
    out += buf;
  }
  return out;
}

CostModel CostModel::parse(const std::string& text)
{
  CostModel m;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ';')) {
    CostPoint p;
    if (std::sscanf(item.c_str(), "%lf:%lf:%lf", &p.threads, &p.size, &p.seconds) == 3) { m.add(p); }
  }
  return m;
}

// =============================================================================================
// Cells

std::string allocator_configuration(const std::string& name)
{
  std::string info;
  for_each_entry([&](auto e) {
    using E = decltype(e);
    if (name == E::name) { info = E::allocator::info(); }
  });
  return info;
}

Record base_record(Context& ctx, const std::string& allocator)
{
  Record r;
  r.set("test", ctx.current_test);
  r.set("allocator", allocator);
  r.set("backend", devalloc::backend_name());
  r.set("device", ctx.device.name);
  r.set("mode", ctx.mode());
  r.set("threads", nullptr);
  r.set("size", nullptr);
  r.set("alloc_per_s", nullptr);
  r.set("free_per_s", nullptr);
  r.set("failures", 0);
  r.set("verify_errors", 0);
#if DEVALLOC_BACKEND_CPU
  r.set("timing", "functional");  // finish_cell: "measured" where the cell's spans are long enough
#endif
  return r;
}

std::string cell_label(const Record& params)
{
  std::string cell;
  for (const auto& kv : params.fields().items()) {
    cell += (cell.empty() ? "" : " ") + kv.key() + "=" + text(kv.value());
  }
  return cell;
}

void finish_cell(Context& ctx, CellOut& out, double seconds)
{
  out.rec.set("cell_s", seconds);
#if DEVALLOC_BACKEND_CPU
  // What the cell's timings are worth on the CPU (cpu_measured_span_ms); its extra records
  // (samples of a series) come from the same spans. A cell that did not finish "ok" reports no
  // timing to rank.
  const Summary spans = summarize(ctx.cell_spans_ms);
  const bool measured = out.rec.str("status") == "ok" && spans.n > 0 && spans.median >= cpu_measured_span_ms;
  const char* timing = measured ? "measured" : "functional";
  out.rec.set("timing", timing).set("timed_span_ms_median", spans.median);
  for (auto& r : out.extra) { r.set("timing", timing).set("timed_span_ms_median", spans.median); }
#endif
  ctx.cell_spans_ms.clear();
  ctx.records.push_back(out.rec);
  for (auto& r : out.extra) { ctx.records.push_back(r); }
  if (ctx.opt.child) { (void)write_child_records(ctx); }
  ++ctx.cells_done;
  std::string line = ctx.current_test + "  " + out.rec.str("allocator");
  for (const char* k : {"variant", "mode", "threads", "size", "payload", "blocks", "iterations", "heap"}) {
    const Json* v = out.rec.get(k);
    if (v != nullptr && !v->is_null() && !(std::string(k) == "mode" && (*v == "quick" || *v == "full"))) {
      line += std::string("  ") + k + "=" + text(*v);
    }
  }
  line += "  " + out.rec.str("status");
  ctx.progress(line);
}

bool write_child_records(Context& ctx)
{
  std::ofstream out(ctx.opt.child_out, std::ios::app);
  for (; ctx.child_written < ctx.records.size(); ++ctx.child_written) {
    out << dump_json(ctx.records[ctx.child_written].fields()) << "\n";
  }
  return static_cast<bool>(out);
}

std::string baseline_name()
{
  std::string name;
  for_each_entry([&](auto e) {
    if (name.empty()) { name = decltype(e)::name; }
  });
  return name;
}

bool budget_exhausted(Context& ctx, const std::string& allocator, std::string& why)
{
  const double pair = ctx.pair_spent(ctx.current_test, allocator);
  if (pair > ctx.pair_budget_s()) {
    why = "this test spent its " + format_real(ctx.pair_budget_s()) + " s budget on this allocator (--pair-budget)";
    return true;
  }
  if (ctx.elapsed_s() > ctx.run_budget_s()) {
    // The baseline (the registry's first entry, the denominator of every ratio) keeps two cell
    // budgets in each test past the run budget, so that each test still has the baseline's
    // smallest cells for its ratios (a quick run of every test on the H100 had spent the baseline's
    // share before `throughput` and `mixed`, which then had no ratio to CUDA's malloc).
    if (allocator == baseline_name() && pair < 2 * ctx.cell_budget_s()) { return false; }
    double spent = 0;
    std::size_t selected = 0;
    for_each_entry([&](auto e) {
      if (ctx.allocator_selected(decltype(e)::name)) { ++selected; }
    });
    for (const TestInfo& t : all_tests()) { spent += ctx.pair_spent(t.name, allocator); }
    if (spent > ctx.run_budget_s() / static_cast<double>(std::max<std::size_t>(1, selected))) {
      why = "the run passed its " + format_real(ctx.run_budget_s()) +
            " s budget and this allocator used more than its share (--time-budget)";
      return true;
    }
  }
  return false;
}

void note_series(Context& ctx, const std::string& key, double work, double seconds)
{
  ctx.series_last[key] = {work, seconds};
}

double predict_series(Context& ctx, const std::string& key, double work)
{
  const auto it = ctx.series_last.find(key);
  if (it == ctx.series_last.end() || it->second.first <= 0 || work <= it->second.first) { return 0; }
  // Superlinear (exponent 1.5) growth in the series' work measure, from the last cell measured.
  return it->second.second * std::pow(work / it->second.first, 1.5);
}

void handle_cell_error(Context& ctx, CellOut& out, const std::exception& e)
{
  out.rec.set("status", "error").set("error", e.what());
#if DEVALLOC_BACKEND_CUDA
  if (dynamic_cast<const devalloc::cuda_error*>(&e) != nullptr) {
    const cudaError_t s = cudaDeviceSynchronize();
    (void)cudaGetLastError();
    if (s != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
      ctx.device_broken = true;
      std::cerr << "\ndevalloc-bench: CUDA error left the device unusable; remaining cells are skipped: " << e.what()
                << "\n";
    }
  }
#else
  (void)ctx;
#endif
}

// =============================================================================================
// Child processes (CUDA's malloc heap is sized once per process)

namespace {
std::string self_exe()
{
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) { return {}; }
  buf[n] = '\0';
  return buf;
}
}  // namespace

namespace {

/// What one child process left: its exit status, its records and the lines it wrote that were
/// not records.
struct ChildRun {
  int rc = 0;
  double seconds = 0;
  std::vector<Record> records;
  std::string unreadable;
};

/// Runs `test`'s cells of `allocators` over a CUDA heap of `heap` bytes in a child process.
ChildRun run_child(Context& ctx, const std::string& exe, const std::string& test, std::size_t heap,
                   const std::vector<std::string>& allocators, int attempt)
{
  ChildRun run;
  char tmpl[] = "/tmp/devalloc-bench-child-XXXXXX";
  const int fd = ::mkstemp(tmpl);
  if (fd < 0) {
    run.rc = -1;
    run.unreadable = "cannot create a temporary file for a child process";
    return run;
  }
  ::close(fd);
  const std::string out_file = tmpl;
  std::string list;
  double pair_left = ctx.pair_budget_s();
  for (const auto& n : allocators) {
    list += (list.empty() ? "" : ",") + n;
    pair_left = std::min(pair_left, ctx.pair_budget_s() - ctx.pair_spent(test, n));
  }
  std::string cmd = shell_quote(exe) + " --child --quiet --no-table --tests " + test + " --allocators " + list +
                    " --cuda-heap " + std::to_string(heap) + " --parent-heap " + std::to_string(ctx.main_heap) +
                    " --child-out " + shell_quote(out_file) + " --seed " + std::to_string(ctx.opt.seed) + " --commit " +
                    shell_quote(ctx.commit) + " --cell-budget " + format_real(ctx.cell_budget_s()) + " --pair-budget " +
                    format_real(std::max(1.0, pair_left)) + " --time-budget " +
                    format_real(std::max(1.0, ctx.run_budget_s() - ctx.elapsed_s())) + (ctx.opt.full ? " --full" : "") +
                    (ctx.opt.emulate_process_heap ? " --emulate-process-heap" : "");
  if (!ctx.cost.empty()) { cmd += " --cost-model " + shell_quote(ctx.cost.serialize()); }
  if (ctx.opt.cpu_threads != 0) { cmd += " --cpu-threads " + std::to_string(ctx.opt.cpu_threads); }
  if (ctx.opt.mixed_heap != 0) { cmd += " --mixed-heap " + std::to_string(ctx.opt.mixed_heap); }
  if (!ctx.opt.meshes_dir.empty()) { cmd += " --meshes-dir " + shell_quote(ctx.opt.meshes_dir); }
  const std::string& inject = ctx.opt.inject_fault;
  if (!inject.empty() && (attempt == 1 || ctx.fault.always)) { cmd += " --inject-fault " + shell_quote(inject); }
  ctx.progress(test + "  " + list + "  heap=" + bytes_label(heap) + "  (child process" +
               (attempt > 1 ? ", retry" : "") + ": CUDA's malloc heap is per process)");
  const auto t0 = std::chrono::steady_clock::now();
  const int raw = std::system((cmd + " 1>&2").c_str());
  run.rc = raw == -1 ? -1 : WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (const auto& n : allocators) { ctx.pair_spent(test, n) += run.seconds; }
  std::ifstream in(out_file);
  std::string line;
  while (std::getline(in, line)) {
    if (trim(line).empty()) { continue; }
    try {
      Record r = Record::from_json(line);
      r.set("child_process", true);
      run.records.push_back(std::move(r));
    } catch (const std::exception& e) {
      run.unreadable = std::string("unreadable child record: ") + e.what();
    }
  }
  in.close();
  std::remove(out_file.c_str());
  return run;
}

bool left_unusable(const Record& r) { return r.str("status") == "skipped" && r.str("note") == device_unusable_note; }
}  // namespace

injected_fault parse_injected_fault(const std::string& text)
{
  injected_fault f;
  const std::size_t colon = text.find(':');
  f.allocator = text.substr(0, colon);
  const std::string suffix = colon == std::string::npos ? "" : text.substr(colon + 1);
  f.always = suffix == "always";
  f.abort = suffix == "abort";
  f.parent = suffix == "parent";
  f.valid = !f.allocator.empty() && (suffix.empty() || f.always || f.abort || f.parent);
  return f;
}

void Context::run_children(const std::string& test)
{
  std::vector<std::pair<std::size_t, std::vector<Record>>> heaps;  // heap bytes, its delegated cells
  for (const auto& [key, cells] : child_requests) {
    if (key.first == test) { heaps.emplace_back(key.second, cells); }
  }
  for (const auto& h : heaps) { child_requests.erase({test, h.first}); }
  if (heaps.empty()) { return; }
  std::vector<std::string> names;
  for_each_entry([&](auto e) {
    using E = decltype(e);
    if (has_process_wide_heap<E>() && allocator_selected(E::name)) { names.push_back(E::name); }
  });
  const std::string exe = self_exe();
  for (const auto& request : heaps) {
    const std::size_t heap = request.first;
    const std::vector<Record>& cells = request.second;
    // Each allocator past its budget stays out of the child and its delegated cells are recorded
    // as skipped, with their parameters; the others run (so the baseline keeps its smallest cells
    // past the run budget, as budget_exhausted promises: when one allocator over budget kept the
    // whole child from starting, the H100 quick run of 2b319e3 had no CUDA malloc cell in `mixed`).
    std::vector<std::string> running;
    for (const auto& n : names) {
      bool delegated = false;
      for (const Record& r : cells) { delegated = delegated || r.str("allocator") == n; }
      if (!delegated) { continue; }
      std::string why;
      if (!budget_exhausted(*this, n, why)) {
        running.push_back(n);
        continue;
      }
      for (Record r : cells) {
        if (r.str("allocator") != n) { continue; }
        r.set("status", "skipped_budget").set("note", why);
        records.push_back(r);
      }
    }
    if (running.empty()) { continue; }
    auto error_record = [&](const std::vector<std::string>& allocators, const std::string& what) {
      for (const auto& n : allocators) {
        Record r = base_record(*this, n);
        r.set("heap_bytes", heap).set("status", "error").set("error", what);
        records.push_back(r);
      }
    };
    if (exe.empty()) {
      error_record(running, "cannot find the benchmark's own executable (/proc/self/exe) to run a child process");
      continue;
    }
    const ChildRun first = run_child(*this, exe, test, heap, running, 1);
    // A sticky CUDA error (docs/coalescing.md, "Known defects": CUDA's malloc under coalescing)
    // leaves the child's device unusable: it records its remaining cells as skipped, or it dies.
    // The allocators it left unfinished (with an error or such a skip, never reached, or running
    // when it died) run once more in a new child; their first records are replaced by the
    // retry's, each marked `retried_after`, and child_faults keeps the fault for the report.
    std::set<std::string> redo;
    bool broken = first.rc != 0;
    for (const Record& r : first.records) { broken = broken || left_unusable(r); }
    std::string fault_error;
    if (broken) {
      std::set<std::string> seen;
      for (const Record& r : first.records) {
        seen.insert(r.str("allocator"));
        if (r.str("status") == "error" || left_unusable(r)) { redo.insert(r.str("allocator")); }
        if (r.str("status") == "error" && fault_error.empty()) {
          fault_error = r.str("allocator") + ", " + r.str("cell") + ": " + r.str("error");
        }
      }
      if (first.rc != 0) {
        for (const auto& n : running) {
          if (seen.count(n) == 0) { redo.insert(n); }
        }
        if (!first.records.empty()) { redo.insert(first.records.back().str("allocator")); }
        if (fault_error.empty()) { fault_error = "the child process exited with status " + std::to_string(first.rc); }
      }
    }
    for (const Record& r : first.records) {
      if (redo.count(r.str("allocator")) == 0) { records.push_back(r); }
    }
    // A child that died may have left its last line half written: only a child that exited
    // normally answers for an unreadable line (the retry reruns a dead child's allocators).
    if (!first.unreadable.empty() && first.rc == 0) { error_record(running, first.unreadable); }
    if (redo.empty()) { continue; }
    if (fault_error.empty()) { fault_error = "the device became unusable"; }
    const std::vector<std::string> again(redo.begin(), redo.end());
    // The retry replaces the first attempt's records of these allocators: it gets the budget the
    // first attempt had (else its cells would be skipped for the time the fault cost).
    for (const auto& n : again) { pair_spent(test, n) -= first.seconds; }
    std::cerr << "\ndevalloc-bench: " << test << ": a child process's device became unusable (" << fault_error
              << "); running " << again.size() << " allocator(s) again in a new process\n";
    const ChildRun second = run_child(*this, exe, test, heap, again, 2);
    bool completed = second.rc == 0 && second.unreadable.empty();
    for (Record r : second.records) {
      completed = completed && !left_unusable(r) && r.str("status") != "error";
      r.set("retried_after", fault_error);
      records.push_back(std::move(r));
    }
    if (second.rc != 0) {
      error_record(again, "child process for heap " + bytes_label(heap) + " exited with status " +
                            std::to_string(second.rc) + " (retry after: " + fault_error + ")");
    }
    if (!second.unreadable.empty()) { error_record(again, second.unreadable); }
    Json allocators = Json::array();
    for (const auto& n : again) { allocators.push_back(n); }
    child_faults.push_back({{"test", test},
                            {"heap_bytes", heap},
                            {"allocators", allocators},
                            {"error", fault_error},
                            {"retry", completed ? "completed" : "failed again"}});
  }
}

// =============================================================================================
// Helpers

std::vector<std::size_t> cap_threads(const Context& ctx, std::vector<std::size_t> list)
{
  std::vector<std::size_t> out;
  for (const auto n : list) {
    if (n >= 1 && n <= ctx.scale.max_threads) { out.push_back(n); }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::size_t> pow2_range(std::size_t lo, std::size_t hi)
{
  std::vector<std::size_t> out;
  for (std::size_t n = lo; n <= hi && n != 0; n *= 2) { out.push_back(n); }
  return out;
}

std::size_t one_alloc_heap(const Context& ctx, std::size_t threads, std::size_t max_size)
{
  const double need =
    1.5 * static_cast<double>(threads) * static_cast<double>(max_size) + static_cast<double>(64u << 20);
  return clamp_heap(ctx, round_up_pow2(static_cast<std::size_t>(need)));
}

std::size_t round_up_pow2(std::size_t x)
{
  std::size_t p = 1;
  while (p < x) { p <<= 1; }
  return p;
}

std::size_t clamp_heap(const Context& ctx, std::size_t bytes)
{
  return std::max<std::size_t>(std::size_t{1} << 20, std::min(bytes, ctx.scale.max_heap));
}

std::size_t count_overlaps(std::vector<LiveAllocation> live)
{
  std::sort(live.begin(), live.end(),
            [](const LiveAllocation& a, const LiveAllocation& b) { return a.address < b.address; });
  std::size_t overlaps = 0;
  std::uintptr_t end = 0;
  for (std::size_t k = 0; k < live.size(); ++k) {
    if (k > 0 && live[k].address < end) { ++overlaps; }
    end = std::max<std::uintptr_t>(end, live[k].address + std::max<std::size_t>(1, live[k].requested));
  }
  return overlaps;
}

double internal_fragmentation(std::vector<LiveAllocation> live, std::size_t alignment, double* region_bytes)
{
  if (region_bytes != nullptr) { *region_bytes = 0; }
  if (live.empty()) { return NAN; }
  std::sort(live.begin(), live.end(),
            [](const LiveAllocation& a, const LiveAllocation& b) { return a.address < b.address; });
  double sum = 0, total = 0;
  for (std::size_t k = 0; k < live.size(); ++k) {
    const double req = static_cast<double>(live[k].requested);
    const double padded =
      static_cast<double>(round_up(std::max<std::size_t>(1, live[k].requested), std::max<std::size_t>(1, alignment)));
    double size = padded;
    if (k + 1 < live.size()) {
      const double d = static_cast<double>(live[k + 1].address - live[k].address);
      if (d >= padded && d < 2 * padded) { size = d; }
    }
    sum += (size - req) / size;
    total += size;
  }
  if (region_bytes != nullptr) { *region_bytes = total; }
  return sum / static_cast<double>(live.size());
}

}  // namespace devalloc_bench
