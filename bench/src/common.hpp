// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// bench/src/common.hpp
//
// Shared machinery of devalloc-bench: records, options, scale, device arrays, in-kernel clocks,
// the device-side deadline, timed launches, verification patterns, the per-cell guard (time
// budgets, cost model, child processes for CUDA's process-wide malloc heap) and statistics.
// Everything here compiles for both backends: nvcc (CUDA) and a plain C++17 compiler (CPU).
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <devalloc/allocator.hpp>
#include <devalloc/detail/atomic.hpp>
#include <devalloc/detail/backend.hpp>
#include <devalloc/detail/platform.hpp>
#include <devalloc/error.hpp>
#include <devalloc/launch.hpp>
#include <devalloc/presets.hpp>

#include <nlohmann/json.hpp>

#include "../allocators.hpp"
#include "clock.hpp"

namespace devalloc_bench {

using u32 = std::uint32_t;

// =============================================================================================
// Records: one flat key -> value map per measurement, held as a JSON object (nlohmann_json, keys in
// insertion order). Keys carry their units (…_ms, …_cycles, …_per_s, …_bytes, …_pct); results.json
// is written from these.

using Json = nlohmann::ordered_json;

/// A value as tables and cell labels show it: strings bare, null empty, integral reals as "4.0".
std::string text(const Json& v);

/// `v` as JSON text on one line; bytes that are not UTF-8 (a CPU model, an error message) are
/// replaced, never thrown on.
std::string dump_json(const Json& v);

class Record {
 public:
  /// Sets (or replaces, in place) one field. A real that is not finite is stored as null.
  Record& set(const std::string& key, Json v);
  [[nodiscard]] const Json* get(const std::string& key) const;
  [[nodiscard]] bool has(const std::string& key) const { return get(key) != nullptr; }
  [[nodiscard]] double num(const std::string& key, double fallback = NAN) const;
  [[nodiscard]] std::string str(const std::string& key) const;
  /// The record as a JSON object (iterate with .items()).
  [[nodiscard]] const Json& fields() const { return fields_; }
  /// A record from one JSON object (a child process's line). Throws std::runtime_error otherwise.
  static Record from_json(const std::string& line);

 private:
  Json fields_ = Json::object();
};

// =============================================================================================
// Statistics.

struct Summary {
  std::size_t n = 0;
  double mean = NAN, median = NAN, min = NAN, max = NAN, stdev = NAN, cv = NAN, p10 = NAN, p90 = NAN;
};
Summary summarize(std::vector<double> values);

/// Adds `prefix`_median, _min, _max (and _cv) to a record.
void put_summary(Record& r, const std::string& prefix, const Summary& s, bool with_cv = false);

// =============================================================================================
// Options and scale.

struct Options {
  bool full = false;
  std::vector<std::string> tests;       // empty: all
  std::vector<std::string> allocators;  // empty: all
  std::string out_dir;
  bool list = false;
  bool quiet = false;
  bool no_table = false;
  double cell_budget_s = -1;  // per kernel/cell; -1: mode default
  double pair_budget_s = -1;  // per (test, allocator); -1: mode default
  double run_budget_s = -1;   // whole run; -1: mode default
  unsigned long long seed = 20240611ull;
  unsigned cpu_threads = 0;
  std::size_t cuda_heap = 0;   // CUDA malloc heap of this process; 0: default
  std::size_t mixed_heap = 0;  // heap of the `mixed` test's cells (GPU scale); 0: 1 GiB
  std::string meshes_dir;      // kdtree's .off meshes; empty: looked for under .deps/root
  // Internal: child processes for CUDA's process-wide malloc heap.
  bool child = false;
  std::string child_out;
  std::size_t parent_heap = 0;
  std::string cost_model;
  std::string commit_override;
  bool emulate_process_heap = false;  // CPU backend: run_children as for CUDA's malloc heap
  // Test of the child-process retry: a child running this allocator's cells marks the device
  // unusable after its first cell, as a sticky CUDA error does ("NAME": first attempt only,
  // "NAME:always": the retry too; "NAME:abort": the child dies there instead, first attempt only;
  // "NAME:parent": this process marks it, for bench/devalloc-bench's rerun of unfinished tests).
  std::string inject_fault;
};

std::string bytes_label(std::size_t bytes);  // 16, 64K, 16M, 2G

struct Scale {
  std::size_t sm_count = 1;
  std::size_t threads_per_sm = 2048;
  std::size_t full_threads = 256;  // resident threads of the whole device ("a full GPU")
  std::size_t max_threads = 4096;  // no launch uses more workers than this
  std::size_t max_heap = 256ull << 20;
  int reps = 3;     // timed repetitions (median reported)
  int warmups = 1;  // untimed repetitions before them
  double clock_khz = 0;
  [[nodiscard]] std::size_t full_blocks(std::size_t block = 256) const
  {
    return std::max<std::size_t>(1, full_threads / block);
  }
};

// =============================================================================================
// Backend arrays (device memory on CUDA, host memory on the CPU backend).

template <class T>
class Array {
 public:
  Array() = default;
  explicit Array(std::size_t n) : n_(n)
  {
    data_ = static_cast<T*>(devalloc::detail::backend::allocate(std::max<std::size_t>(1, n) * sizeof(T)));
    zero();
  }
  ~Array() { devalloc::detail::backend::deallocate(data_); }
  Array(const Array&) = delete;
  Array& operator=(const Array&) = delete;
  Array(Array&& o) noexcept : data_(std::exchange(o.data_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  Array& operator=(Array&& o) noexcept
  {
    if (this != &o) {
      devalloc::detail::backend::deallocate(data_);
      data_ = std::exchange(o.data_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }
  [[nodiscard]] T* data() const { return data_; }
  [[nodiscard]] std::size_t size() const { return n_; }
  void zero() { devalloc::detail::backend::fill(data_, 0, std::max<std::size_t>(1, n_) * sizeof(T)); }
  [[nodiscard]] std::vector<T> to_host() const
  {
    std::vector<T> v(n_);
    if (n_ != 0) { devalloc::detail::backend::copy_to_host(v.data(), data_, n_ * sizeof(T)); }
    return v;
  }
  [[nodiscard]] T get(std::size_t i) const
  {
    T v{};
    devalloc::detail::backend::copy_to_host(&v, data_ + i, sizeof(T));
    return v;
  }
  void upload(const std::vector<T>& v)
  {
    if (!v.empty()) { devalloc::detail::backend::copy_to_device(data_, v.data(), std::min(v.size(), n_) * sizeof(T)); }
  }

 private:
  T* data_ = nullptr;
  std::size_t n_ = 0;
};

// =============================================================================================
// Device-side helpers: random numbers, verification patterns, counters (clocks: clock.hpp).

/// Keeps the compiler from carrying memory contents in registers across this point.
DEVALLOC_DEVICE inline void compiler_barrier() { asm volatile("" ::: "memory"); }

DEVALLOC_HOST_DEVICE inline u64 mix64(u64 x)
{
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

DEVALLOC_HOST_DEVICE inline u64 hash3(u64 a, u64 b, u64 c) { return mix64(a ^ mix64(b ^ mix64(c))); }

/// Uniform in [0, 1).
DEVALLOC_HOST_DEVICE inline double unit_real(u64 h)
{
  return static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);
}

/// Uniform integer in [lo, hi].
DEVALLOC_HOST_DEVICE inline std::size_t uniform_size(u64 h, std::size_t lo, std::size_t hi)
{
  return hi <= lo ? lo : lo + static_cast<std::size_t>(h % static_cast<u64>(hi - lo + 1));
}

/// Log-uniform integer in [lo, hi]: P(s) proportional to ln((s + 1) / s), so every factor of two
/// between lo and hi is drawn about equally often (many small requests, a long tail of large ones).
DEVALLOC_HOST_DEVICE inline std::size_t log_uniform_size(u64 h, std::size_t lo, std::size_t hi)
{
  if (hi <= lo) { return lo; }
  const double a = ::log(static_cast<double>(lo)), b = ::log(static_cast<double>(hi) + 1.0);
  const double x = ::exp(a + unit_real(h) * (b - a));
  const std::size_t s = static_cast<std::size_t>(x);
  return s < lo ? lo : (s > hi ? hi : s);
}

/// Verification tag of one allocation: never 0.
DEVALLOC_HOST_DEVICE inline u32 make_tag(u64 a, u64 b) { return static_cast<u32>(hash3(a, b, 0x7A67ull)) | 1u; }

DEVALLOC_HOST_DEVICE inline unsigned char tag_byte(u32 tag, std::size_t j)
{
  return static_cast<unsigned char>((tag >> ((j & 3u) * 8u)) ^ static_cast<u32>(j * 151u));
}

/// The 4 tag bytes j .. j+3 as one little-endian word (the byte at j lowest, as a load sees them).
DEVALLOC_HOST_DEVICE inline u32 tag_word(u32 tag, std::size_t j)
{
  return static_cast<u32>(tag_byte(tag, j)) | static_cast<u32>(tag_byte(tag, j + 1)) << 8u |
         static_cast<u32>(tag_byte(tag, j + 2)) << 16u | static_cast<u32>(tag_byte(tag, j + 3)) << 24u;
}

namespace detail {
/// The stamped ranges of an allocation of `bytes`: [0, head) and [tail, bytes).
struct StampRange {
  std::size_t head, tail;
};
DEVALLOC_HOST_DEVICE inline StampRange stamp_range(std::size_t bytes)
{
  const std::size_t head = bytes < 4 ? bytes : 4;
  return {head, bytes > 4 ? (bytes - 4 > head ? bytes - 4 : head) : head};
}
DEVALLOC_HOST_DEVICE inline bool word_aligned(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 3u) == 0; }
}  // namespace detail

/// Writes the tag into the first and the last (up to) 4 bytes of [p, p + bytes). A 4-byte piece
/// at a 4-byte aligned address is one word store (one memory instruction instead of four).
DEVALLOC_DEVICE inline void stamp(void* p, std::size_t bytes, u32 tag)
{
  auto* b = static_cast<unsigned char*>(p);
  const detail::StampRange r = detail::stamp_range(bytes);
  auto piece = [&](std::size_t from, std::size_t to) {
    if (to - from == 4 && detail::word_aligned(b + from)) {
      *reinterpret_cast<u32*>(b + from) = tag_word(tag, from);
    } else {
      for (std::size_t j = from; j < to; ++j) { b[j] = tag_byte(tag, j); }
    }
  };
  piece(0, r.head);
  piece(r.tail, bytes);
}

namespace detail {
/// A load the compiler may not drop or take from a register (the value may have been written by
/// another thread or kernel). CUDA: ld.global.cg, a weak load from L2 — unlike a volatile
/// (strong, system-scope) load, several to one word are in flight together. CPU: volatile.
template <class T>
DEVALLOC_DEVICE inline T load_from_memory(const T* p)
{
#if DEVALLOC_BACKEND_CUDA && defined(__CUDA_ARCH__)
  return __ldcg(p);
#else
  return *static_cast<const volatile T*>(p);
#endif
}
}  // namespace detail

/// True if the bytes stamp() wrote are still there (read from memory, not from registers).
/// Every piece is read whatever the others hold (no short-circuit), so the loads are issued
/// together: one memory latency per check; aligned 4-byte pieces are one word load.
DEVALLOC_DEVICE inline bool stamp_ok(const void* p, std::size_t bytes, u32 tag)
{
  const auto* b = static_cast<const unsigned char*>(p);
  const detail::StampRange r = detail::stamp_range(bytes);
  auto differ = [&](std::size_t from, std::size_t to) -> u32 {
    if (to - from == 4 && detail::word_aligned(b + from)) {
      return detail::load_from_memory(reinterpret_cast<const u32*>(b + from)) ^ tag_word(tag, from);
    }
    u32 d = 0;
    for (std::size_t j = from; j < to; ++j) {
      d |= static_cast<u32>(detail::load_from_memory(b + j) ^ tag_byte(tag, j));
    }
    return d;
  };
  return (differ(0, r.head) | differ(r.tail, bytes)) == 0;
}

DEVALLOC_DEVICE inline void count_add(u64& counter, u64 n = 1)
{
  devalloc::detail::device_atomic<u64>(counter).fetch_add(n, devalloc::detail::memory_order_relaxed);
}

/// Misaligned pointer for an allocator that guarantees `alignment`.
template <std::size_t Alignment>
DEVALLOC_DEVICE inline bool misaligned(const void* p)
{
  return (reinterpret_cast<std::uintptr_t>(p) & (Alignment - 1)) != 0;
}

// =============================================================================================
// Device-side deadline: workers compare %globaltimer (CPU: steady_clock) with an absolute deadline
// before they start an allocation; past it they skip the work and the cell is reported as timed
// out. launch_timed() sets the deadline of a functor's member `dl` at launch time from the host
// clock mapped onto the device clock (Context::sync_clocks), so polling costs one timer read and
// no memory access.

struct DeadlineState {
  u64 skipped;
  u32 expired;
  u32 pad;
};

struct Deadline {
  DeadlineState* state = nullptr;
  u64 budget_ns = ~0ull;    // chosen by the test (Context::deadline)
  u64 deadline_ns = ~0ull;  // device clock; set by launch_timed

  /// True once the device clock has passed the deadline (marks the cell timed out).
  DEVALLOC_DEVICE bool passed() const
  {
    if (timer_ns() <= deadline_ns) { return false; }
    devalloc::detail::device_atomic<u32>(state->expired).store(1u, devalloc::detail::memory_order_relaxed);
    return true;
  }
  /// Counts units of work skipped because of the deadline.
  DEVALLOC_DEVICE void skip(u64 n = 1) const { count_add(state->skipped, n); }
  /// passed(), and if so counts the `n` units of work the caller now skips: `if (dl.stop()) return;`.
  DEVALLOC_DEVICE bool stop(u64 n = 1) const
  {
    if (!passed()) { return false; }
    skip(n);
    return true;
  }
};

/// Functors with a Deadline member named `dl` get their deadline set at launch.
template <class F, class = void>
struct has_deadline : std::false_type {};
template <class F>
struct has_deadline<F, std::void_t<decltype(std::declval<F&>().dl = Deadline{})>> : std::true_type {};

// =============================================================================================
// Per-allocation result arrays reused by several tests.

/// Allocator-side counters and per-thread state a cell reads back.
struct Counters {
  u64 failures;       // alloc() returned nullptr for a non-zero request
  u64 verify_errors;  // stamp lost, misaligned pointer, wrong workload result
  u64 allocs;         // successful allocations (where a test counts them on the device)
  u64 frees;
  u64 slot_full;  // a worker had no room to remember another allocation
  u64 spare[3];
};

// =============================================================================================
// The cost model: what one kernel of `threads` workers, each doing one alloc + free of `size`
// bytes, costs with CUDA's built-in allocator. Measured at start-up on small thread counts and
// extrapolated (at least linearly) so that no cell the model expects to take longer than the cell
// budget is launched: a kernel cannot be stopped from the host, and CUDA's allocator needs more
// than 85 s for one kernel of 2^20 threads x 1 KiB on an H100.

struct CostPoint {
  double threads = 0, size = 0, seconds = 0;
};

class CostModel {
 public:
  void add(CostPoint p) { points_.push_back(p); }
  [[nodiscard]] bool empty() const { return points_.empty(); }
  /// Seconds for one kernel in which `threads` workers (all resident) each allocate and free once.
  [[nodiscard]] double predict(double threads, double size) const;
  [[nodiscard]] std::string serialize() const;
  static CostModel parse(const std::string& text);
  [[nodiscard]] const std::vector<CostPoint>& points() const { return points_; }

 private:
  [[nodiscard]] double predict_size_series(double size, double threads) const;
  std::vector<CostPoint> points_;
};

// =============================================================================================
// Context: one run.

struct DeviceInfo {
  std::string name = "host CPU";
  std::string driver = "n/a";
  std::string runtime = "n/a";
  std::string compute_capability = "n/a";
  std::size_t memory_bytes = 0;
};

struct TestInfo;

/// --inject-fault NAME[:always|:abort|:parent], parsed once (Context::fault): the allocator whose first
/// cell in a child faults, and whether the retry faults too (always) or the child dies instead
/// (abort); with `parent`, the fault is the benchmark's own process's instead (bench/devalloc-bench
/// then runs the unfinished tests again in a new process, without the option).
struct injected_fault {
  std::string allocator;
  bool always = false;
  bool abort = false;
  bool parent = false;
  bool valid = true;  ///< false for an empty NAME or another suffix (the option refuses those)
};
injected_fault parse_injected_fault(const std::string& text);

class Context {
 public:
  Context(Options options);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  Options opt;
  Scale scale;
  DeviceInfo device;
  std::string commit;
  std::vector<Record> records;
  CostModel cost;
  std::size_t main_heap = 0;  // size of the process-wide malloc heap (CUDA backend)
  bool device_broken = false;
  injected_fault fault;  ///< opt.inject_fault, parsed (an empty allocator: none)
  std::string current_test;

  [[nodiscard]] bool quick() const { return !opt.full; }
  [[nodiscard]] const char* mode() const { return opt.full ? "full" : "quick"; }
  [[nodiscard]] bool allocator_selected(const std::string& name) const;
  [[nodiscard]] double cell_budget_s() const;        // one kernel (device deadline)
  [[nodiscard]] double cell_total_budget_s() const;  // all launches of one cell
  [[nodiscard]] double pair_budget_s() const;
  [[nodiscard]] double run_budget_s() const;
  [[nodiscard]] double elapsed_s() const;

  // Deadline for launches (budget_s <= 0: the cell budget); armed by launch_timed.
  [[nodiscard]] Deadline deadline(double budget_s = -1);
  /// Clears the deadline state; returns the device clock's "now" (estimated from the host clock).
  u64 deadline_arm();
  DeadlineState deadline_read();
  /// Measures the offset between the host's steady_clock and the device's %globaltimer.
  void sync_clocks();

  // Per (test, allocator) spent time and series extrapolation.
  double& pair_spent(const std::string& test, const std::string& allocator)
  {
    return pair_spent_[test + "\n" + allocator];
  }
  std::map<std::string, std::pair<double, double>> series_last;  // key -> (work, seconds)

  // Child processes for CUDA's process-wide malloc heap: (test, heap bytes) to run after the test,
  // with the record (parameters, no result) of every cell delegated to it, so a child that does
  // not run still leaves one record per cell. Every cell of an allocator over that heap runs in a
  // child (one per test and heap size), so that each test starts from a fresh CUDA heap and a
  // sticky CUDA error there costs a child, not the run (run_children retries the allocators it
  // left unfinished once, in a new child; child_faults lists each such fault for the report).
  std::map<std::pair<std::string, std::size_t>, std::vector<Record>> child_requests;
  Json child_faults = Json::array();
  void run_children(const std::string& test);

  // Progress.
  void progress(const std::string& line, bool final = false);
  std::size_t cells_done = 0;
  std::size_t child_written = 0;  // child process: records already appended to --child-out

  /// Milliseconds of every timed span (one launch_timed, or one launch_timed_sequence) since the
  /// current cell began: what decides whether a CPU cell's timing is measured (cpu_measured_span_ms).
  std::vector<double> cell_spans_ms;

#if DEVALLOC_BACKEND_CUDA
  void* event_start = nullptr;  // cudaEvent_t
  void* event_stop = nullptr;
#endif

 private:
  Array<DeadlineState> deadline_state_;
  long long clock_offset_ns_ = 0;  // device timer - host steady_clock
  std::map<std::string, double> pair_spent_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  bool progress_tty_ = false;
  std::size_t progress_width_ = 0;
};

// =============================================================================================
// Timed launches.

#if DEVALLOC_BACKEND_CUDA
template <class F>
__global__ void bench_kernel(std::size_t workers, F f)
{
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < workers) { f(i); }
}
#endif

#if DEVALLOC_BACKEND_CUDA
/// `block` threads per block, or fewer where the kernel's registers allow fewer (multiple of 32).
template <class F>
unsigned fit_block(unsigned block)
{
  static int limit = 0;
  if (limit == 0) {
    cudaFuncAttributes attr{};
    DEVALLOC_CUDA_TRY(cudaFuncGetAttributes(&attr, bench_kernel<F>));
    limit = attr.maxThreadsPerBlock > 0 ? attr.maxThreadsPerBlock : 1024;
  }
  const unsigned fitted = std::min<unsigned>(block, static_cast<unsigned>(limit));
  return fitted >= 32 ? fitted / 32 * 32 : fitted;
}
#endif

/// CPU backend: a cell's timings are "measured" (record field `timing`) only when the median of its
/// timed spans (Context::cell_spans_ms) lasts at least this long: 10 ms is 10^4 times the
/// steady_clock's practical resolution (about 1 µs) and long against a thread's scheduling quantum.
/// Below it they are "functional": the code ran and verified, the numbers sit at the timer's floor
/// and rank nothing. GPU records carry no `timing` field (CUDA events, clock64: always measured).
inline constexpr double cpu_measured_span_ms = 10.0;

struct Timing {
  double ms = 0;         // CUDA events / steady_clock around the launch
  bool expired = false;  // the device-side deadline passed
  u64 skipped = 0;       // work units workers skipped past the deadline
};

double cuda_event_ms(Context& ctx);  // CUDA: elapsed between the context's events
void cuda_record_start(Context& ctx);
void cuda_record_stop_and_sync(Context& ctx);

/// One timed span of launches: start() before the first (CUDA: the context's start event; CPU:
/// steady_clock), stop() after the last, which waits for them and returns the Timing with the
/// deadline's outcome, and records the span in ctx.cell_spans_ms.
class SpanTimer {
 public:
  void start(Context& ctx)
  {
#if DEVALLOC_BACKEND_CUDA
    cuda_record_start(ctx);
#else
    (void)ctx;
    t0_ = std::chrono::steady_clock::now();
#endif
  }
  Timing stop(Context& ctx) const
  {
    Timing t;
#if DEVALLOC_BACKEND_CUDA
    cuda_record_stop_and_sync(ctx);
    t.ms = cuda_event_ms(ctx);
#else
    t.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0_).count();
#endif
    const DeadlineState st = ctx.deadline_read();
    t.expired = st.expired != 0;
    t.skipped = st.skipped;
    ctx.cell_spans_ms.push_back(t.ms);
    return t;
  }

 private:
  std::chrono::steady_clock::time_point t0_{};
};

/// Runs `launches` kernels back to back, the l-th running at(l)(i) for i in [0, workers), timed
/// as one sequence: one event pair around all of them, "the entire GPU time of a test using CUDA
/// events" (Vinkler & Havran §7). Launch overheads overlap with the previous kernel as they do in
/// an application, unlike launch_timed's lone launch. One deadline, armed before the first launch,
/// covers the sequence.
template <class At>
Timing launch_timed_sequence(Context& ctx, std::size_t workers, int launches, const At& at, unsigned block = 256)
{
  if (workers == 0 || launches <= 0) { return Timing{}; }
  const u64 now = ctx.deadline_arm();
  using F = std::decay_t<decltype(at(0))>;
  auto armed = [&](int l) {
    F f = at(l);
    if constexpr (has_deadline<F>::value) {
      f.dl.deadline_ns = f.dl.budget_ns > ~0ull - now ? ~0ull : now + f.dl.budget_ns;
    }
    return f;
  };
  SpanTimer span;
#if DEVALLOC_BACKEND_CUDA
  block = fit_block<F>(block);
  const std::size_t blocks = (workers + block - 1) / block;
  span.start(ctx);
  for (int l = 0; l < launches; ++l) {
    bench_kernel<<<static_cast<unsigned>(blocks), block>>>(workers, armed(l));
    DEVALLOC_CUDA_TRY(cudaGetLastError());
  }
#else
  (void)block;
  span.start(ctx);
  for (int l = 0; l < launches; ++l) {
    devalloc::launch(workers, armed(l), devalloc::launch_options{256, ctx.opt.cpu_threads});
  }
#endif
  return span.stop(ctx);
}

/// Runs f(i) for i in [0, workers), timed. Sets the functor's deadline (member `dl`) first.
template <class F>
Timing launch_timed(Context& ctx, std::size_t workers, const F& functor, unsigned block = 256)
{
  return launch_timed_sequence(
    ctx, workers, 1, [&](int) { return functor; }, block);
}

/// Untimed launch (setup, verification, cleanup): no deadline.
template <class F>
void launch_plain(Context& ctx, std::size_t workers, const F& f, unsigned block = 256)
{
  if (workers == 0) { return; }
#if DEVALLOC_BACKEND_CUDA
  (void)ctx;
  block = fit_block<F>(block);
  const std::size_t blocks = (workers + block - 1) / block;
  bench_kernel<<<static_cast<unsigned>(blocks), block>>>(workers, f);
  DEVALLOC_CUDA_TRY(cudaGetLastError());
  DEVALLOC_CUDA_TRY(cudaDeviceSynchronize());
#else
  (void)block;
  devalloc::launch(workers, f, devalloc::launch_options{256, ctx.opt.cpu_threads});
#endif
}

// =============================================================================================
// Heap leases: a fresh allocator per cell, or the process-wide one (CUDA malloc).

template <class E>
std::unique_ptr<typename E::allocator>& process_heap()
{
  static std::unique_ptr<typename E::allocator> heap;
  return heap;
}

template <class E>
class Lease {
 public:
  using allocator_type = typename E::allocator;
  using handle_type = typename allocator_type::handle_type;

  Lease(Context& ctx, std::size_t bytes)
  {
    if (has_process_wide_heap<E>()) {
      if (!process_heap<E>()) { process_heap<E>() = std::make_unique<allocator_type>(ctx.main_heap); }
      a_ = process_heap<E>().get();
      a_->reset_stats();
    } else {
      own_ = std::make_unique<allocator_type>(bytes);
      a_ = own_.get();
    }
    handle_ = a_->handle();
  }
  [[nodiscard]] handle_type handle() const { return handle_; }
  [[nodiscard]] allocator_type& get() { return *a_; }
  [[nodiscard]] std::size_t heap_bytes() const { return a_->heap_bytes(); }
  /// Between repetitions: back to an empty heap (reset() where the policy allows it; the tests
  /// free every allocation, which is all CUDA's malloc heap allows).
  void fresh()
  {
    // (A process-wide heap is reset too where the policy can: FDGMalloc over CUDA's malloc gives
    // every chunk back.)
    if constexpr (allocator_type::traits.resettable) { a_->reset(); }
  }
  [[nodiscard]] devalloc::allocator_stats stats() const { return a_->stats(); }

 private:
  std::unique_ptr<allocator_type> own_;
  allocator_type* a_ = nullptr;
  handle_type handle_{};
};

// =============================================================================================
// Cells: one configuration of one test for one allocator, bounded in time.

struct CellSpec {
  Record params;               // test-specific parameters (threads, size, mode, ...)
  std::size_t heap_bytes = 0;  // heap the cell asks for
  bool strict_heap = false;    // the heap size is a parameter of the measurement
  // Cost estimate (CUDA's allocator only): `threads` workers per kernel, each doing
  // `ops_per_thread` allocations of about `size` bytes, in `kernels` launches.
  double threads = 0;
  double size = 16;
  double ops_per_thread = 1;
  double kernels = 1;
  // Series extrapolation for every allocator: cells of one series run in growing `work`.
  std::string series;
  double work = 0;
  // A cell of fixed, tiny cost (a function attribute query and one warp's launch: the `registers`
  // test): it runs even for an allocator past its share of the run budget, which would otherwise
  // drop the very figure a test exists for (the quick runs of 0405081 and 110851a lost every
  // Circular and list cell of `registers` that way).
  bool exempt_from_budget = false;
};

/// What a cell's body reports.
class CellOut {
 public:
  explicit CellOut(Record base) : rec(std::move(base)) {}
  /// Seconds since the cell began.
  [[nodiscard]] double elapsed() const
  {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  /// True (and the cell marked timed out) once the cell has used its total budget.
  bool over_budget(const Context& ctx)
  {
    if (elapsed() <= ctx.cell_total_budget_s()) { return false; }
    timed_out("cell");
    return true;
  }
  Record rec;                 // the cell's main record (already holds params)
  std::vector<Record> extra;  // further records (e.g. one per sample of a time series)
  /// Seconds of timed launches passed through check(): what the series extrapolation scales.
  double kernel_s = 0;
  void timed_out(const std::string& kind) { rec.set("status", "timed_out").set("timeout_kind", kind); }
  /// Marks the cell timed out if a launch hit the device deadline; returns that.
  bool check(const Timing& t)
  {
    kernel_s += t.ms * 1e-3;
    if (t.expired) {
      timed_out("deadline");
      rec.set("skipped_ops", static_cast<double>(t.skipped) + rec.num("skipped_ops", 0));
    }
    return t.expired;
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

std::string allocator_configuration(const std::string& name);  // for meta
Record base_record(Context& ctx, const std::string& allocator);
/// "k=v k=v" of a cell's parameters: identifies the cell across allocators.
std::string cell_label(const Record& params);

template <class E>
Record entry_record(Context& ctx)
{
  return base_record(ctx, E::name);
}

/// The note of a cell skipped because an earlier sticky CUDA error left the device unusable
/// (tools/unfinished-tests and Context::run_children look for it).
inline constexpr const char* device_unusable_note = "an earlier CUDA error left the device unusable";
void finish_cell(Context& ctx, CellOut& out, double seconds);
/// Child process: appends the records not written yet to --child-out as JSON lines (after each
/// cell, so that a child that dies keeps what it finished, and at its end). False if it failed.
bool write_child_records(Context& ctx);
bool budget_exhausted(Context& ctx, const std::string& allocator, std::string& why);
/// The baseline of every ratio: the registry's first entry (CUDA's malloc on the CUDA backend).
std::string baseline_name();
void note_series(Context& ctx, const std::string& key, double work, double seconds);
double predict_series(Context& ctx, const std::string& key, double work);
void handle_cell_error(Context& ctx, CellOut& out, const std::exception& e);

/// Heap of the child process that runs a non-strict cell asking for `bytes` when the parent's
/// CUDA heap is `parent_heap` bytes: the parent's size if that is enough (the heap such a cell had
/// in the parent before every cell moved to a child), else the next power of two.
inline std::size_t child_heap_for(std::size_t bytes, std::size_t parent_heap)
{
  if (bytes <= parent_heap) { return parent_heap; }
  std::size_t p = std::size_t{1} << 20;
  while (p < bytes) { p <<= 1; }
  return p;
}

/// Runs one cell for allocator E. `body(Lease<E>&, CellOut&)` measures and fills out.rec.
template <class E, class Body>
void run_cell(Context& ctx, CellSpec spec, Body&& body)
{
  if (!ctx.allocator_selected(E::name)) { return; }
  const std::string& test = ctx.current_test;
  ctx.cell_spans_ms.clear();

  // Where the cell runs: CUDA's malloc heap is sized once per process and shared by every
  // allocator over it, so such cells run in a child process per test and heap size, started after
  // the test (Context::run_children); a child runs the cells of its heap size.
  bool delegate = false;
  std::size_t child_heap = 0;
  if (has_process_wide_heap<E>()) {
    if (ctx.opt.child) {
      const std::size_t wanted =
        spec.strict_heap ? spec.heap_bytes : child_heap_for(spec.heap_bytes, ctx.opt.parent_heap);
      if (wanted != ctx.main_heap) { return; }
    } else {
      delegate = true;
      child_heap = spec.strict_heap ? spec.heap_bytes : child_heap_for(spec.heap_bytes, ctx.main_heap);
    }
  } else {
    if (ctx.opt.child) { return; }
  }

  Record base = entry_record<E>(ctx);
  for (const auto& kv : spec.params.fields().items()) { base.set(kv.key(), kv.value()); }
  base.set("cell", cell_label(spec.params));
  base.set("heap_bytes", has_process_wide_heap<E>() && !delegate ? ctx.main_heap : spec.heap_bytes);
  CellOut out(std::move(base));
  out.rec.set("status", "ok");
  const std::string series_key = test + "\n" + E::name + "\n" + spec.series;

  // Ahead-of-time bound from the cost model (CUDA's allocator): no kernel expected to take longer
  // than the cell budget is launched (it could not be stopped), nor a cell expected to take longer
  // than its total budget. Deterministic, so a parent records it and its child stays silent.
  double predicted_kernel = 0, predicted_total = 0;
  if constexpr (DEVALLOC_BACKEND_CUDA && is_builtin_malloc<E>) {
    if (!ctx.cost.empty() && spec.threads > 0) {
      const double resident = static_cast<double>(ctx.scale.full_threads);
      const double concurrent = std::min(spec.threads, resident);
      const double waves = std::ceil(spec.threads / resident);
      predicted_kernel = ctx.cost.predict(concurrent, spec.size) * std::max(1.0, spec.ops_per_thread) * waves;
      predicted_total = predicted_kernel * std::max(1.0, spec.kernels);
    }
  }
  if (predicted_kernel > ctx.cell_budget_s() || predicted_total > ctx.cell_total_budget_s()) {
    if (ctx.opt.child) { return; }
    out.timed_out("predicted");
    out.rec.set("predicted_s", std::max(predicted_kernel, predicted_total)).set("cell_budget_s", ctx.cell_budget_s());
    finish_cell(ctx, out, 0);
    return;
  }
  if (delegate) {
    ctx.child_requests[{test, child_heap}].push_back(out.rec);
    return;
  }

  std::string why;
  if (ctx.device_broken) {
    out.rec.set("status", "skipped").set("note", device_unusable_note);
    finish_cell(ctx, out, 0);
    return;
  }
  if (!spec.exempt_from_budget && budget_exhausted(ctx, E::name, why)) {
    out.rec.set("status", "skipped_budget").set("note", why);
    finish_cell(ctx, out, 0);
    return;
  }
  // Extrapolation along the series (every allocator) and what is left of the test's budget.
  if (!spec.series.empty() && spec.work > 0) {
    predicted_total = std::max(predicted_total, predict_series(ctx, series_key, spec.work));
  }
  const double pair_left = ctx.pair_budget_s() - ctx.pair_spent(test, E::name);
  if (predicted_total > ctx.cell_total_budget_s() || predicted_total > std::max(ctx.cell_budget_s(), pair_left)) {
    out.timed_out("predicted");
    out.rec.set("predicted_s", predicted_total).set("cell_budget_s", ctx.cell_budget_s());
    finish_cell(ctx, out, 0);
    return;
  }

  const auto t0 = std::chrono::steady_clock::now();
  try {
    Lease<E> lease(ctx, spec.heap_bytes);
    body(lease, out);
    const devalloc::allocator_stats st = lease.stats();
    out.rec.set("allocator_failed_allocations", st.failed_allocations);
  } catch (const std::exception& e) {
    handle_cell_error(ctx, out, e);
  }
  // An injected fault strikes NAME's first cell in the child processes, or with NAME:parent in
  // this one only.
  const injected_fault& fault = ctx.fault;
  if (!ctx.device_broken && fault.allocator == E::name && ctx.opt.child != fault.parent) {
    if (fault.abort) { std::abort(); }  // a child that dies
    out.rec.set("status", "error").set("error", "injected fault (--inject-fault): the device is treated as unusable");
    ctx.device_broken = true;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!spec.series.empty() && spec.work > 0) {
    // A cell that hit its deadline says nothing about the next one but "longer still".
    const double measured = out.kernel_s > 0 ? out.kernel_s : seconds;
    const double s =
      out.rec.str("status") == "timed_out" ? std::max(measured, 2 * ctx.cell_total_budget_s()) : measured;
    note_series(ctx, series_key, spec.work, s);
  }
  ctx.pair_spent(test, E::name) += seconds;
  finish_cell(ctx, out, seconds);
}

/// Loops over the registry, calling f(Entry{}) for selected allocators.
template <class F>
void for_each_allocator(Context& ctx, F&& f)
{
  for_each_entry([&](auto entry) {
    using E = decltype(entry);
    if constexpr (may_overlap_live<E>) {  // UnsafeWrap: only in tests of short-lived allocations
      if (!ctx.current_test.empty() && !unsafe_wrap_applies(ctx.current_test)) { return; }
    }
    if (ctx.allocator_selected(E::name)) { f(entry); }
  });
}

// =============================================================================================
// Small helpers for tests.

/// Thread counts of `list` that this backend/mode allows (sorted, unique, capped).
std::vector<std::size_t> cap_threads(const Context& ctx, std::vector<std::size_t> list);
std::vector<std::size_t> pow2_range(std::size_t lo, std::size_t hi);  // lo, 2lo, ..., <= hi
std::size_t round_up_pow2(std::size_t x);
std::size_t clamp_heap(const Context& ctx, std::size_t bytes);
/// Heap for one allocation of at most `max_size` bytes per thread: 1.5 x the demand plus 64 MiB,
/// rounded up to a power of two, clamped to the backend's limit.
std::size_t one_alloc_heap(const Context& ctx, std::size_t threads, std::size_t max_size);

/// Runs `cmd` through /bin/sh and returns its standard output; `status` (if given) gets its exit
/// status (128 + signal if a signal ended it, -1 if it could not be started).
std::string run_command(const std::string& cmd, int* status = nullptr);
/// `s` in single quotes for /bin/sh.
std::string shell_quote(const std::string& s);

/// Bytes an allocator that gives every warp whole superblocks (FDGMalloc with superblocks) needs
/// for `threads` threads holding `per_thread` bytes each: twice the bytes of the superblocks each
/// warp fills (32 KiB at least however little it asks; each a multi-page request to the
/// underlying allocator). 0 for every other allocator.
template <class E>
double superblock_bytes_needed(double threads, double per_thread)
{
  using P = typename E::allocator::creation_policy;
  if constexpr (devalloc::creation::is_fdg_malloc<P>::value) {
    if constexpr (P::config::use_superblocks) {
      const double superblocks =
        std::max(1.0, std::ceil(32.0 * per_thread / static_cast<double>(P::superblock_capacity)));
      return 2.0 * std::ceil(threads / 32.0) * superblocks * static_cast<double>(P::config::superblock_bytes);
    }
  }
  return 0;
}

/// one_alloc_heap for allocator E: also room for E's superblocks (superblock_bytes_needed).
template <class E>
std::size_t one_alloc_heap_for(const Context& ctx, std::size_t threads, std::size_t max_size)
{
  const double superblocks = superblock_bytes_needed<E>(static_cast<double>(threads), static_cast<double>(max_size));
  const std::size_t plain = one_alloc_heap(ctx, threads, max_size);
  if (superblocks <= 0) { return plain; }
  return std::max(plain,
                  clamp_heap(ctx, round_up_pow2(static_cast<std::size_t>(superblocks) + (std::size_t{64} << 20))));
}

/// Records a cell of E that is not run (status "skipped", "n/a") with the reason; `extra` fields
/// are added to the record (not to the cell's label). Nothing in a child process.
template <class E>
void record_not_run(Context& ctx, const Record& params, const std::string& status, const std::string& note,
                    const Record& extra = Record{})
{
  if (!ctx.allocator_selected(E::name) || ctx.opt.child) { return; }
  Record r = entry_record<E>(ctx);
  for (const auto& kv : params.fields().items()) { r.set(kv.key(), kv.value()); }
  r.set("cell", cell_label(params));
  for (const auto& kv : extra.fields().items()) { r.set(kv.key(), kv.value()); }
  r.set("status", status).set("note", note);
  CellOut out(r);
  finish_cell(ctx, out, 0);
}
inline std::size_t round_up(std::size_t x, std::size_t a) { return (x + a - 1) / a * a; }

/// Allocation sizes and pointers copied from the device, for layout analysis.
struct LiveAllocation {
  std::uintptr_t address;
  std::size_t requested;
};

/// Overlapping live allocations (each overlap counts once).
std::size_t count_overlaps(std::vector<LiveAllocation> live);

/// ScatterAlloc §3.3 eq. (1): internal fragmentation, with each region's size estimated from the
/// address layout (see docs/bench.md): the distance to the next live allocation where that is
/// between the padded request and twice it, else the padded request.
double internal_fragmentation(std::vector<LiveAllocation> live, std::size_t alignment, double* region_bytes);

}  // namespace devalloc_bench
