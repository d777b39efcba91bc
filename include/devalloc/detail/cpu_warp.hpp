// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/detail/cpu_warp.hpp
//
// The CPU backend's warp emulator: devalloc::launch runs a warp as 32 lanes (fibers) that share
// one `cpu_warp`, so every warp-level path of the library (detail/warp.hpp's votes, shuffles,
// matches and syncs over any subset of lanes) runs in CI, not only on a GPU.
//
//   * A warp's lanes are fibers (see fiber_switch) of one OS thread, the warp's "slot"; devalloc::launch
//     runs several slots at once (true concurrency between warps). A slot holds `resident` warps
//     at once (launch_options::cpu_resident_warps, default 1: all lanes of warp k finish before
//     the slot starts another warp); with several, each scheduler step runs a lane of a resident
//     warp picked at random, and every detail::device_atomic operation is a point where the lane
//     may be sent back (at random) so that another runs: many warps inside one stretch of code
//     at once, as a multiprocessor's resident warps interleave at every instruction.
//   * A warp's multiprocessor (detail::sm_id()) is its 256-thread block's index modulo 64:
//     consecutive warps share one, as on a GPU, and warp_id() % 4 varies on each.
//   * The slot's scheduler picks the next lane to run at random (seeded, so a run can be
//     repeated) at every warp primitive and every detail::pause_briefly(): lanes run in random
//     orders and random subsets; nothing assumes lock-step lanes.
//   * Collectives (ballot, shuffle, match_any, sync_lanes, reduce_add/min/or) are rendezvous keyed by
//     their mask: each lane of `mask` deposits its value and blocks until every lane of `mask` has
//     arrived, then reads the values. Disjoint groups of one warp may run different collectives
//     at the same time; a lane that comes back with the same mask while the previous rendezvous
//     still has lanes to read it gets a new one.
//   * active_mask() = the lanes that "arrive together" at one call site (file:line): the lanes
//     arriving there join a forming group, which the scheduler closes at random (per warp, one of
//     several probabilities, from "almost always alone" to "whole warp"), and always when no other
//     lane of the warp could still arrive (every other lane blocked, forming, finished, or spinning
//     in pause_briefly). Every lane of the closed group gets the group as its mask.
//   * Misuse is reported, not hung: a warp whose lanes all wait and none can run (deadlock), a
//     collective whose mask lacks the caller, lanes of one mask calling different collectives, a
//     shuffle from a lane outside the mask, and lanes that only spin for a long time (60 s without
//     any other progress) stop the warp; devalloc::launch then throws devalloc::error with the
//     warp, each lane's state, mask and call site, and the seed that repeats the schedule.
//
// Lanes of one warp interleave only at warp primitives and pause_briefly() (cooperative fibers);
// lanes of different warps run truly concurrently. A lane that waits for another lane of its warp
// must do so through those (a spin loop without pause_briefly() would never let it run). The lanes
// of a warp share the thread's thread_local variables, and each has a 256 KiB stack (a guard page
// below it turns an overflow into a fault). Outside a warp (a plain thread, or
// launch_options::cpu_lanes == 1) detail/warp.hpp behaves as one-lane warps (lane 0, mask 1).
//
// Not annotated for AddressSanitizer or ThreadSanitizer fibers: sanitizer builds should use
// DEVALLOC_CPU_LANES=1.
#pragma once

#include <cstdint>

#include "atomic.hpp"
#include "platform.hpp"

#if DEVALLOC_BACKEND_CPU
#include "../error.hpp"

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>
#endif

DEVALLOC_NAMESPACE_BEGIN
namespace detail {

/// Where a warp primitive was called (CPU backend: file and line, from default arguments; the
/// emulator groups active_mask() callers by it and names it in reports. CUDA: empty).
struct call_site {
  const char* file = nullptr;
  unsigned line = 0;
#if DEVALLOC_BACKEND_CPU
  static constexpr call_site current(const char* f = __builtin_FILE(), unsigned l = __builtin_LINE()) noexcept
  {
    return call_site{f, l};
  }
#else
  DEVALLOC_HOST_DEVICE static constexpr call_site current() noexcept { return call_site{}; }
#endif
};

#if DEVALLOC_BACKEND_CPU
namespace cpu {

inline constexpr unsigned max_lanes = 32;
/// Stack of one lane fiber (plus a guard page below it).
inline constexpr std::size_t lane_stack_bytes = 256u << 10;
/// A warp whose ready lanes only spin (pause_briefly) for this long, while other lanes of it
/// wait in a collective, is reported as stuck.
inline constexpr double spin_limit_seconds = 60.0;
/// Lanes one launch holds at once with several resident warps per thread (run_warps lowers the
/// resident warps to stay below it: each lane's stack is two memory mappings).
inline constexpr std::size_t max_resident_lanes = 16384;
/// Warps of one emulated block (256 threads): a launch deals blocks round the multiprocessors
/// (detail::sm_id()), as a GPU does.
inline constexpr std::uint32_t block_warps = 8;

enum class lane_state : std::uint8_t { ready, forming, blocked, done };
enum class op : std::uint8_t { none, ballot, shuffle, match_any, sync, reduce_add, reduce_min, reduce_or };

inline const char* op_name(op o) noexcept
{
  switch (o) {
    case op::ballot:
      return "ballot";
    case op::shuffle:
      return "shuffle";
    case op::match_any:
      return "match_any";
    case op::sync:
      return "sync_lanes";
    case op::reduce_add:
      return "group_reduce_add";
    case op::reduce_min:
      return "group_min";
    case op::reduce_or:
      return "group_or";
    default:
      return "?";
  }
}

inline bool same_site(call_site a, call_site b) noexcept
{
  return a.line == b.line && (a.file == b.file || (a.file && b.file && std::strcmp(a.file, b.file) == 0));
}

inline std::uint64_t splitmix64(std::uint64_t& state) noexcept
{
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Fiber context switch: a few instructions on x86-64 (callee-saved registers and the stack
// pointer, as the System V ABI requires), ucontext elsewhere (which also saves the signal mask,
// a system call per switch).
#if defined(__x86_64__) && !defined(DEVALLOC_CPU_WARP_UCONTEXT)
struct fiber_context {
  void* sp = nullptr;
};

/// Saves the caller's registers on its stack, stores its stack pointer in *from, resumes *to.
__attribute__((naked, noinline)) inline void fiber_switch(fiber_context* /*from*/, fiber_context* /*to*/) noexcept
{
  __asm__(
    "pushq %rbp\n\t"
    "pushq %rbx\n\t"
    "pushq %r12\n\t"
    "pushq %r13\n\t"
    "pushq %r14\n\t"
    "pushq %r15\n\t"
    "movq %rsp, (%rdi)\n\t"
    "movq (%rsi), %rsp\n\t"
    "popq %r15\n\t"
    "popq %r14\n\t"
    "popq %r13\n\t"
    "popq %r12\n\t"
    "popq %rbx\n\t"
    "popq %rbp\n\t"
    "ret\n\t");
}

/// Prepares `c` to start `entry` (which must never return) on [base, base + size).
inline bool fiber_make(fiber_context& c, char* base, std::size_t size, void (*entry)()) noexcept
{
  auto** sp = reinterpret_cast<void**>((reinterpret_cast<std::uintptr_t>(base + size)) & ~std::uintptr_t{15});
  *--sp = nullptr;                                  // entry's return address: none
  *--sp = reinterpret_cast<void*>(entry);           // where fiber_switch's ret goes
  for (int r = 0; r < 6; ++r) { *--sp = nullptr; }  // rbp, rbx, r12-r15
  c.sp = sp;
  return true;
}
#else
struct fiber_context {
  ucontext_t uc{};
};

inline void fiber_switch(fiber_context* from, fiber_context* to) noexcept { ::swapcontext(&from->uc, &to->uc); }

inline bool fiber_make(fiber_context& c, char* base, std::size_t size, void (*entry)()) noexcept
{
  if (::getcontext(&c.uc) != 0) { return false; }
  c.uc.uc_stack.ss_sp = base;
  c.uc.uc_stack.ss_size = size;
  c.uc.uc_link = nullptr;  // entry never returns
  ::makecontext(&c.uc, entry, 0);
  return true;
}
#endif

/// One rendezvous: the lanes of `mask` calling collective `kind`.
struct rendezvous {
  bool complete = false;  ///< every lane of mask arrived; lanes now read and depart
  op kind = op::none;
  std::uint32_t mask = 0;
  std::uint32_t arrived = 0;
  std::uint32_t departed = 0;
  std::uint64_t values[max_lanes] = {};
  unsigned src[max_lanes] = {};
};

/// Lanes gathering at one active_mask() call site.
struct forming_group {
  call_site site{};
  std::uint32_t lanes = 0;
};

struct lane {
  fiber_context context{};
  char* stack = nullptr;  ///< mapping: guard page, then lane_stack_bytes
  lane_state state = lane_state::done;
  bool spinning = false;   ///< last yielded in pause_briefly()
  std::uint32_t mask = 0;  ///< active_mask() result, or the mask of the collective it is in
  int entry = -1;          ///< rendezvous it is in
  op kind = op::none;      ///< collective it is in (reports)
  call_site site{};        ///< where it waits (reports)
};

/// The shared state of the lanes of one warp. Owned by one slot thread; only that thread (its
/// scheduler and the lane fibers it runs) touches it, so it needs no lock.
class cpu_warp {
 public:
  cpu_warp()
  {
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    page_ = page;
  }
  cpu_warp(const cpu_warp&) = delete;
  cpu_warp& operator=(const cpu_warp&) = delete;
  ~cpu_warp()
  {
    for (auto& l : lanes_) {
      if (l.stack != nullptr) { ::munmap(l.stack, lane_stack_bytes + page_); }
    }
  }

  // ---- set by the slot for each warp ----
  std::uint32_t index = 0;  ///< global warp index (detail::warp_id())
  std::uint32_t sm = 0;     ///< its "multiprocessor" (detail::sm_id())
  std::size_t first_worker = 0;
  unsigned count = 0;  ///< lanes that exist (the last warp of a launch may have fewer)
  void (*invoke)(void*, std::size_t) = nullptr;
  void* callable = nullptr;

  unsigned current = 0;      ///< lane running now
  std::exception_ptr error;  ///< first exception a lane threw
  std::string failure;       ///< set when the warp was stopped (misuse, deadlock)

  lane& at(unsigned l) noexcept { return lanes_[l]; }

  /// Runs every lane of the warp to completion (or until failure is set). `seed` picks the
  /// schedule; `seed_note` is appended to reports.
  void run(std::uint64_t seed, const std::string& seed_note)
  {
    start(seed, seed_note);
    for (step_result r = step(); r != step_result::finished; r = step()) {
      if (r == step_result::spinning) { std::this_thread::yield(); }  // let the warps it waits for run
    }
  }

  /// What one step() did.
  enum class step_result : std::uint8_t {
    ran,       ///< a lane ran until its next warp primitive or pause_briefly()
    spinning,  ///< only lanes spinning in pause_briefly() could run: one ran (run() then yields the thread)
    finished,  ///< every lane finished, or the warp was stopped (failure or error set)
  };

  /// Prepares the warp's lanes for step() (run() in pieces, so that a slot can interleave the
  /// steps of several resident warps).
  void start(std::uint64_t seed, const std::string& seed_note)
  {
    rng_ = seed ^ (0xD1B54A32D192ED03ull * (index + 1ull));
    seed_note_ = seed_note;
    // Per warp, how often a forming group closes early: 0 = only when no lane can still arrive
    // (whole warps converge), else with probability 1/close_one_in at every scheduler step.
    static constexpr unsigned choices[] = {0, 1, 2, 4, 16};
    close_one_in_ = choices[splitmix64(rng_) % (sizeof(choices) / sizeof(choices[0]))];
    error = nullptr;
    failure.clear();
    entries_used_ = entries_open_ = 0;
    forming_used_ = 0;
    ready_ = spinning_ = blocked_ = 0;
    for (unsigned l = 0; l < max_lanes; ++l) {
      lane& x = lanes_[l];
      x.state = lane_state::done;
      x.spinning = false;
      x.entry = -1;
      x.kind = op::none;
      x.site = call_site{};
      if (l >= count) { continue; }
      if (x.stack == nullptr) { allocate_stack(x); }
      if (!fiber_make(x.context, x.stack + page_, lane_stack_bytes, &cpu_warp::lane_entry)) {
        throw_failure("cannot make a lane context");
      }
      set_state(l, lane_state::ready);
    }
    spin_steps_ = 0;
    spin_since_ = {};
  }

  // ---- called by the running lane (detail/warp.hpp) ----

  std::uint32_t active_mask(call_site site) noexcept
  {
    lane& me = lanes_[current];
    me.site = site;
    me.kind = op::none;
    forming_group* group = nullptr;
    for (std::uint32_t rest = forming_used_; rest != 0; rest &= rest - 1u) {
      if (same_site(forming_[lowest(rest)].site, site)) {
        group = &forming_[lowest(rest)];
        break;
      }
    }
    if (group == nullptr) {
      const unsigned g = lowest(~forming_used_);  // at most 32 groups: one per waiting lane
      forming_used_ |= 1u << g;
      group = &forming_[g];
      group->site = site;
      group->lanes = 0;
    }
    group->lanes |= 1u << current;
    set_state(current, lane_state::forming);
    yield();
    return me.mask;
  }

  std::uint64_t collective(op kind, std::uint32_t mask, std::uint64_t value, unsigned src, call_site site) noexcept
  {
    const unsigned self = current;
    const std::uint32_t bit = 1u << self;
    lane& me = lanes_[self];
    me.site = site;
    me.kind = kind;
    me.mask = mask;
    if ((mask & bit) == 0) {
      fail(describe_lane(self) + " calls " + op_name(kind) + " with mask " + hex(mask) + ", which lacks the caller");
    }
    int found = -1;
    for (std::uint32_t rest = entries_open_; rest != 0; rest &= rest - 1u) {
      if (entries_[lowest(rest)].mask == mask) {
        found = static_cast<int>(lowest(rest));
        break;
      }
    }
    if (found < 0) {
      found = static_cast<int>(lowest(~entries_used_));  // at most 32: each has a lane still in it
      entries_used_ |= 1u << found;
      entries_open_ |= 1u << found;
      rendezvous& fresh = entries_[found];
      fresh.complete = false;
      fresh.mask = mask;
      fresh.kind = kind;
      fresh.arrived = fresh.departed = 0;
    }
    rendezvous& e = entries_[found];
    if (e.kind != kind) {
      const unsigned other = lowest(e.arrived);
      fail("lanes of mask " + hex(mask) + " call different collectives: " + describe_lane(self) + " calls " +
           op_name(kind) + ", " + describe_lane(other) + " calls " + op_name(e.kind) + " at " +
           site_string(lanes_[other].site));
    }
    e.values[self] = value;
    e.src[self] = src;
    e.arrived |= bit;
    me.entry = found;
    if (e.arrived == mask) {
      e.complete = true;
      entries_open_ &= ~(1u << found);
      for (std::uint32_t rest = mask; rest != 0; rest &= rest - 1u) { set_state(lowest(rest), lane_state::ready); }
    } else {
      set_state(self, lane_state::blocked);
    }
    yield();
    std::uint64_t result = 0;
    switch (kind) {
      case op::ballot:
        for (std::uint32_t rest = mask; rest != 0; rest &= rest - 1u) {
          if (e.values[lowest(rest)] != 0) { result |= 1ull << lowest(rest); }
        }
        break;
      case op::shuffle: {
        const unsigned from = e.src[self] % max_lanes;
        if ((mask & (1u << from)) == 0) {
          fail(describe_lane(self) + " shuffles from lane " + std::to_string(from) + ", outside mask " + hex(mask));
        }
        result = e.values[from];
        break;
      }
      case op::match_any:
        for (std::uint32_t rest = mask; rest != 0; rest &= rest - 1u) {
          if (e.values[lowest(rest)] == e.values[self]) { result |= 1ull << lowest(rest); }
        }
        break;
      case op::reduce_add: {
        std::uint32_t sum = 0;
        for (std::uint32_t rest = mask; rest != 0; rest &= rest - 1u) {
          sum += static_cast<std::uint32_t>(e.values[lowest(rest)]);
        }
        result = sum;
        break;
      }
      case op::reduce_min: {
        std::uint32_t least = ~0u;
        for (std::uint32_t rest = mask; rest != 0; rest &= rest - 1u) {
          least = std::min(least, static_cast<std::uint32_t>(e.values[lowest(rest)]));
        }
        result = least;
        break;
      }
      case op::reduce_or: {
        std::uint32_t bits = 0;
        for (std::uint32_t rest = mask; rest != 0; rest &= rest - 1u) {
          bits |= static_cast<std::uint32_t>(e.values[lowest(rest)]);
        }
        result = bits;
        break;
      }
      default:
        break;
    }
    e.departed |= bit;
    if (e.departed == mask) { entries_used_ &= ~(1u << found); }
    me.entry = -1;
    me.kind = op::none;
    return result;
  }

  /// Before an atomic (detail::device_atomic's hook, set while a thread holds several resident
  /// warps): at random, back to the scheduler, which runs another lane of some resident warp; the
  /// lane stays ready.
  void preempt() noexcept
  {
    if (!in_lane_ || next_random() % 2u != 0u) { return; }
    yield();
  }

  /// pause_briefly() inside a warp: let another lane (or, if only spinning lanes are left, another
  /// thread) run.
  void pause() noexcept
  {
    lanes_[current].spinning = true;
    spinning_ |= 1u << current;
    yield();
  }

 private:
  lane lanes_[max_lanes];
  rendezvous entries_[max_lanes];
  forming_group forming_[max_lanes];
  std::uint32_t entries_used_ = 0;                        ///< rendezvous with a lane still in them
  std::uint32_t entries_open_ = 0;                        ///< ... and still waiting for lanes
  std::uint32_t forming_used_ = 0;                        ///< forming groups
  std::uint32_t ready_ = 0, spinning_ = 0, blocked_ = 0;  ///< lanes by state (spinning: ready ones)
  fiber_context scheduler_{};
  bool in_lane_ = false;                                ///< a lane fiber runs (step() is inside fiber_switch)
  std::uint32_t spin_steps_ = 0;                        ///< steps that ran only spinning lanes
  std::chrono::steady_clock::time_point spin_since_{};  ///< since when (checked every 1024 steps)
  std::uint64_t rng_ = 0;
  unsigned close_one_in_ = 0;
  std::size_t page_ = 4096;
  std::string seed_note_;

  static unsigned lowest(std::uint32_t x) noexcept { return static_cast<unsigned>(__builtin_ctz(x)); }

  void set_state(unsigned l, lane_state s) noexcept
  {
    const std::uint32_t bit = 1u << l;
    lanes_[l].state = s;
    ready_ &= ~bit;
    blocked_ &= ~bit;
    spinning_ &= ~bit;
    lanes_[l].spinning = false;
    if (s == lane_state::ready) { ready_ |= bit; }
    if (s == lane_state::blocked) { blocked_ |= bit; }
  }

  static std::string hex(std::uint32_t x)
  {
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "0x%08x", x);
    return buffer;
  }

  static std::string site_string(call_site s)
  {
    if (s.file == nullptr) { return "(unknown site)"; }
    return std::string(s.file) + ":" + std::to_string(s.line);
  }

  std::string describe_lane(unsigned l) const
  {
    return "lane " + std::to_string(l) + " (worker " + std::to_string(first_worker + l) + ")";
  }

  std::string state_report() const
  {
    std::string r;
    std::uint32_t done = 0;
    for (unsigned l = 0; l < count; ++l) {
      const lane& x = lanes_[l];
      switch (x.state) {
        case lane_state::done:
          done |= 1u << l;
          break;
        case lane_state::blocked:
          r += "\n  " + describe_lane(l) + ": waits in " + op_name(x.kind) + "(mask " + hex(x.mask) + ") at " +
               site_string(x.site);
          break;
        case lane_state::forming:
          r += "\n  " + describe_lane(l) + ": in active_mask() at " + site_string(x.site);
          break;
        case lane_state::ready:
          r += "\n  " + describe_lane(l) + (x.spinning ? ": spinning in pause_briefly()" : ": runnable");
          break;
      }
    }
    if (done != 0) { r += "\n  finished lanes: " + hex(done); }
    return r;
  }

  std::string header() const
  {
    return "devalloc CPU warp emulator: warp " + std::to_string(index) + " (workers " + std::to_string(first_worker) +
           ".." + std::to_string(first_worker + count - 1) + ", " + seed_note_ + "): ";
  }

  [[noreturn]] static void throw_failure(const char* what);

  void allocate_stack(lane& x)
  {
    void* p = ::mmap(nullptr, lane_stack_bytes + page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) { throw_failure("cannot map a lane stack"); }
    ::mprotect(p, page_, PROT_NONE);  // guard page: a stack overflow faults instead of corrupting
    x.stack = static_cast<char*>(p);
  }

  /// Stops the warp from inside a lane: records the report and never returns to the lane.
  void fail(const std::string& what) noexcept
  {
    if (failure.empty()) { failure = header() + what + state_report(); }
    fiber_switch(&lanes_[current].context, &scheduler_);
    std::abort();  // unreachable: a failed warp's lanes are never resumed
  }

  void yield() noexcept { fiber_switch(&lanes_[current].context, &scheduler_); }

  [[noreturn]] static void lane_entry();

  std::uint64_t next_random() noexcept { return splitmix64(rng_); }

  unsigned pick(std::uint32_t set) noexcept
  {
    unsigned k = static_cast<unsigned>(next_random() % static_cast<unsigned>(__builtin_popcount(set)));
    while (k-- != 0) { set &= set - 1u; }
    return lowest(set);
  }

 public:
  /// One scheduler step: closes forming groups as the schedule says, then runs one lane until it
  /// yields. A lone warp's thread (run()) yields the thread on `spinning`; a slot with several
  /// resident warps runs another warp instead.
  step_result step();
};

/// The warp the calling thread runs a lane of (nullptr: not inside a multi-lane launch).
inline thread_local cpu_warp* current_warp = nullptr;

inline void cpu_warp::throw_failure(const char* what)
{
  throw ::devalloc::error(std::string("devalloc CPU warp emulator: ") + what);
}

inline void cpu_warp::lane_entry()
{
  cpu_warp& w = *current_warp;
  const unsigned self = w.current;
  try {
    w.invoke(w.callable, w.first_worker + self);
  } catch (...) {
    if (!w.error) { w.error = std::current_exception(); }
  }
  w.set_state(self, lane_state::done);
  fiber_switch(&w.lanes_[self].context, &w.scheduler_);  // never resumed
  std::abort();
}

inline cpu_warp::step_result cpu_warp::step()
{
  using clock = std::chrono::steady_clock;
  if (!failure.empty()) { return step_result::finished; }
  for (;;) {
    const std::uint32_t ready = ready_, spinning = spinning_, blocked = blocked_, forming = forming_used_;
    if (ready == 0 && forming == 0) {
      // All lanes finished, or the warp cannot go on (a lane that threw leaves the others waiting).
      if (blocked != 0 && failure.empty() && !error) {
        failure = header() + "deadlock: every unfinished lane waits in a collective for a lane that will not arrive" +
                  state_report();
      }
      return step_result::finished;
    }
    // Close a forming group: always when no other lane can still arrive, else at random.
    if (forming != 0 && ((ready & ~spinning) == 0 || (close_one_in_ != 0 && next_random() % close_one_in_ == 0))) {
      const unsigned g = pick(forming);
      forming_used_ &= ~(1u << g);
      const std::uint32_t lanes = forming_[g].lanes;
      for (std::uint32_t rest = lanes; rest != 0; rest &= rest - 1u) {
        lanes_[lowest(rest)].mask = lanes;
        set_state(lowest(rest), lane_state::ready);
      }
      continue;
    }
    const bool only_spinning = ready == spinning;
    if (only_spinning) {
      // Only lanes waiting for memory that another warp (or a waiting lane) changes: give up after
      // a long time without progress.
      if (blocked != 0 && (++spin_steps_ & 1023u) == 0) {
        const auto now = clock::now();
        if (spin_since_ == clock::time_point{}) {
          spin_since_ = now;
        } else if (std::chrono::duration<double>(now - spin_since_).count() > spin_limit_seconds) {
          failure = header() + "no progress: the runnable lanes only spin in pause_briefly() while others wait" +
                    state_report();
          return step_result::finished;
        }
      }
    } else {
      spin_steps_ = 0;
      spin_since_ = clock::time_point{};
    }
    current = pick(ready);
    in_lane_ = true;
    fiber_switch(&scheduler_, &lanes_[current].context);
    in_lane_ = false;
    if (!failure.empty()) { return step_result::finished; }
    return only_spinning ? step_result::spinning : step_result::ran;
  }
}

// ---------------------------------------------------------------------------------------------
// Launch support (devalloc::launch): slots, seeds, options from the environment.

/// Reads a non-negative integer from the environment; `fallback` if unset or malformed.
inline unsigned long long env_number(const char* name, unsigned long long fallback)
{
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') { return fallback; }
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 0);
  return (end != nullptr && *end == '\0') ? v : fallback;
}

/// The process' base seed: DEVALLOC_CPU_SEED, else random (drawn once per process).
inline std::uint64_t base_seed()
{
  static const std::uint64_t seed = [] {
    std::uint64_t s = env_number("DEVALLOC_CPU_SEED", 0);
    if (s == 0) {
      std::random_device device;
      s = (static_cast<std::uint64_t>(device()) << 32) ^ device() ^
          static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
      if (s == 0) { s = 1; }
    }
    return s;
  }();
  return seed;
}

/// Launches of this process that took their seed from base_seed() (the n-th gets base + n).
inline std::atomic<std::uint64_t>& launch_counter()
{
  static std::atomic<std::uint64_t> counter{0};
  return counter;
}

/// Runs workers [0, workers) as warps of `lanes` lanes on `slots` threads, each thread holding up
/// to `resident` warps at once (their steps interleaved at random, as a multiprocessor's resident
/// warps interleave: 1 runs each warp to its end before the next); f is invoked as
/// invoke(callable, i). Rethrows the first exception a worker threw; throws devalloc::error with
/// the report when a warp was stopped by the emulator (see the file comment).
inline void run_warps(std::size_t workers, unsigned lanes, std::size_t slots, std::size_t resident,
                      std::uint64_t explicit_seed, void (*invoke)(void*, std::size_t), void* callable,
                      std::uint32_t sm_count)
{
  std::uint64_t seed = explicit_seed;
  std::string note;
  if (seed == 0) {
    const std::uint64_t n = launch_counter().fetch_add(1, std::memory_order_relaxed);
    seed = base_seed() + n;
    note = "DEVALLOC_CPU_SEED=" + std::to_string(base_seed()) + ", launch " + std::to_string(n) + " of the process";
  } else {
    note = "launch_options::seed=" + std::to_string(seed);
  }
  const std::size_t warps = (workers + lanes - 1) / lanes;
  slots = std::min(slots, warps);
  resident = std::max<std::size_t>(1, std::min(resident, (warps + slots - 1) / slots));
  // Each lane maps a stack and its guard page (two of the 65 530 mappings Linux allows a process by
  // default): at most max_resident_lanes lanes of a launch at once.
  resident = std::min(resident, std::max<std::size_t>(1, max_resident_lanes / (slots * lanes)));
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex report_mutex;
  std::exception_ptr first_error;
  std::string failure;
  std::vector<std::thread> pool;
  pool.reserve(slots);
  const auto join_all = [&pool] {
    for (auto& thread : pool) { thread.join(); }
  };
  const auto slot_main = [&](std::size_t slot) {
    try {
      std::vector<std::unique_ptr<cpu_warp>> own(resident);
      std::vector<cpu_warp*> active;
      // Gives warp w the next warp of the launch; false when none is left (or the launch stops).
      const auto take = [&](cpu_warp& w) {
        const std::size_t k = stop.load() ? warps : next.fetch_add(1);
        if (k >= warps) { return false; }
        w.index = static_cast<std::uint32_t>(k);
        w.sm = static_cast<std::uint32_t>(k / block_warps % sm_count);
        w.first_worker = k * lanes;
        w.count = static_cast<unsigned>(std::min<std::size_t>(lanes, workers - k * lanes));
        w.start(seed, note);
        return true;
      };
      for (auto& w : own) {
        w = std::make_unique<cpu_warp>();
        w->invoke = invoke;
        w->callable = callable;
        if (take(*w)) { active.push_back(w.get()); }
      }
      // Several resident warps: every atomic is a point where another one may run (atomic.hpp).
      if (resident > 1) {
        cpu_preempt_hook = []() noexcept {
          if (current_warp != nullptr) { current_warp->preempt(); }
        };
      }
      std::uint64_t rng = seed ^ (0x9E3779B97F4A7C15ull * (slot + 1u));
      std::size_t spins = 0;  // consecutive steps that only ran spinning lanes
      while (!active.empty()) {
        const std::size_t a = active.size() == 1 ? 0 : static_cast<std::size_t>(splitmix64(rng) % active.size());
        cpu_warp& warp = *active[a];
        current_warp = &warp;
        const cpu_warp::step_result r = warp.step();
        if (r == cpu_warp::step_result::spinning) {
          if (++spins >= active.size()) {  // every resident warp waits for memory: let other threads run
            std::this_thread::yield();
            spins = 0;
          }
          continue;
        }
        spins = 0;
        if (r == cpu_warp::step_result::ran) { continue; }
        if (warp.error || !warp.failure.empty()) {
          const std::lock_guard<std::mutex> lock(report_mutex);
          if (warp.error && !first_error) { first_error = warp.error; }
          if (!warp.error && !warp.failure.empty()) {
            if (failure.empty()) {
              failure = warp.failure;
              std::fprintf(stderr, "%s\n", failure.c_str());
            }
            stop.store(true);
          }
        }
        if (!warp.failure.empty() || stop.load()) { break; }  // a stopped launch's lanes stay parked
        if (!take(warp)) {
          active[a] = active.back();
          active.pop_back();
        }
      }
      current_warp = nullptr;
      cpu_preempt_hook = nullptr;
    } catch (...) {
      current_warp = nullptr;
      cpu_preempt_hook = nullptr;
      const std::lock_guard<std::mutex> lock(report_mutex);
      if (!first_error) { first_error = std::current_exception(); }
      stop.store(true);
    }
  };
  try {
    for (std::size_t s = 0; s < slots; ++s) { pool.emplace_back(slot_main, s); }
  } catch (...) {  // a thread could not be started: join the ones that were, then report
    stop.store(true);
    join_all();
    throw;
  }
  join_all();
  if (first_error) { std::rethrow_exception(first_error); }
  if (!failure.empty()) { throw error(failure); }
}

}  // namespace cpu
#endif  // DEVALLOC_BACKEND_CPU

}  // namespace detail
DEVALLOC_NAMESPACE_END
