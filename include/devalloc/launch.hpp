// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/launch.hpp
//
// devalloc::launch(workers, f): runs `f(i)` for every worker index i in [0, workers) on the
// current backend and returns when all have finished. Tests, examples and the benchmark use it so
// that one worker function runs unchanged on the GPU and on the CPU.
//
//   CUDA: one kernel launch of ceil(workers / block_size) blocks of `block_size` threads on
//         options.stream (default: CUDA's default stream), then a wait for that stream only; `f` must
//         be a __device__ callable (a functor, or a lambda marked DEVALLOC_DEVICE, which needs
//         nvcc's --extended-lambda). Threads past `workers` return at once, so the last warp may
//         call `f` with only a subset of its lanes. Launch and execution errors are thrown as
//         devalloc::cuda_error.
//   CPU:  workers form warps of `cpu_lanes` consecutive indices (default 32; see below), run by
//         the warp emulator of detail/cpu_warp.hpp: `cpu_threads` std::threads (default: 2 x
//         hardware threads, at least 4, at most the number of warps) each hold `cpu_resident_warps`
//         warps at once (default 1: one warp at a time, every lane of warp k finished before its
//         thread takes another), their lanes as fibers scheduled in a random (seeded) order and
//         converging in random subsets at the warp primitives; with several resident warps a
//         thread interleaves their lanes at those points too, as a multiprocessor's resident warps
//         interleave (many warps inside the allocator at once, as on a GPU: what only happens
//         there with few threads, e.g. many warps finding one page full together, can then be
//         seen on the CPU). Lanes past `workers` in the last warp do not call `f`.
//         detail::warp_id() is the warp's index, detail::sm_id() its block's (8 warps, 256
//         threads) index modulo 64: blocks dealt round the multiprocessors, as on a GPU.
//         cpu_lanes == 1 is the fast one-lane mode: `cpu_threads` threads (at most `workers`),
//         thread t runs the indices t, t + threads, ... as one-lane warps, each thread with its
//         own stable "multiprocessor id".
//         The first exception a worker throws is rethrown here (the other lanes of its warp go
//         on until they finish or wait for it). A warp stopped by the emulator (deadlock, misuse
//         of a warp primitive) makes launch throw devalloc::error naming the warp, each lane's
//         state, mask and call site, and the seed; it is also printed to stderr at once.
//         Defaults from the environment: DEVALLOC_CPU_LANES (1..32) when cpu_lanes is 0,
//         DEVALLOC_CPU_RESIDENT_WARPS (1..256) when cpu_resident_warps is 0, and
//         DEVALLOC_CPU_SEED (the process' base seed; launch n of a process uses base + n) when
//         seed is 0, else a random base seed.
#pragma once

#include <cstddef>
#include <cstdint>

#include "detail/platform.hpp"
#include "error.hpp"
#include "stream.hpp"

#if DEVALLOC_BACKEND_CPU
#include <algorithm>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "detail/cpu_warp.hpp"
#include "detail/warp.hpp"
#endif

DEVALLOC_NAMESPACE_BEGIN

struct launch_options {
  /// CUDA: threads per block. CPU: ignored.
  unsigned block_size = 256;
  /// CPU: number of std::threads (0 = default); each runs one warp at a time. CUDA: ignored.
  unsigned cpu_threads = 0;
  /// CPU: lanes per warp, 1..32 (0 = DEVALLOC_CPU_LANES, else 32); 1 = one-lane mode (no warp
  /// emulator: fastest, but no warp-level path runs). CUDA: ignored (warps have 32 lanes).
  unsigned cpu_lanes = 0;
  /// CPU: warps each std::thread holds and interleaves at once, 1..256 (0 = DEVALLOC_CPU_RESIDENT_WARPS,
  /// else 1); ignored in the one-lane mode. Each resident warp maps 32 lane stacks of 256 KiB
  /// (touched as used); a launch lowers it so that at most 16 384 lanes are resident (threads x
  /// resident warps x lanes). CUDA: ignored (the hardware decides).
  unsigned cpu_resident_warps = 0;
  /// CPU: seed of the lane schedules (0 = from DEVALLOC_CPU_SEED, else random). CUDA: ignored.
  std::uint64_t seed = 0;
  /// CUDA: the stream the kernel runs on; launch waits for this stream only. CPU: ignored.
  stream_ref stream{};
};

#if DEVALLOC_BACKEND_CUDA
namespace detail {
template <class F>
__global__ void launch_kernel(std::size_t workers, F f)
{
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < workers) { f(i); }
}
}  // namespace detail
#endif

/// Runs f(i) for i in [0, workers) and waits for completion. Thread safety: one launch at a time
/// per host thread; launches from several host threads share the device as CUDA streams do.
template <class F>
void launch(std::size_t workers, F f, launch_options options = {})
{
  if (workers == 0) { return; }
#if DEVALLOC_BACKEND_CUDA
  if (options.block_size == 0 || options.block_size > 1024) {
    detail::throw_error("launch: block_size must be in 1..1024, got " + std::to_string(options.block_size));
  }
  const std::size_t blocks = (workers + options.block_size - 1) / options.block_size;
  if (blocks > 0x7fffffffull) { detail::throw_error("launch: too many workers for one grid"); }
  detail::launch_kernel<<<static_cast<unsigned>(blocks), options.block_size, 0, options.stream.get()>>>(workers, f);
  DEVALLOC_CUDA_TRY(cudaGetLastError());
  DEVALLOC_CUDA_TRY(cudaStreamSynchronize(options.stream.get()));
#else
  std::size_t threads = options.cpu_threads;
  if (threads == 0) { threads = std::max<std::size_t>(4, 2 * std::thread::hardware_concurrency()); }
  unsigned lanes = options.cpu_lanes;
  if (lanes == 0) { lanes = static_cast<unsigned>(detail::cpu::env_number("DEVALLOC_CPU_LANES", 32)); }
  if (lanes == 0 || lanes > detail::warp_size) {
    detail::throw_error("launch: cpu_lanes (or DEVALLOC_CPU_LANES) must be in 1..32, got " + std::to_string(lanes));
  }
  unsigned resident = options.cpu_resident_warps;
  if (resident == 0) { resident = static_cast<unsigned>(detail::cpu::env_number("DEVALLOC_CPU_RESIDENT_WARPS", 1)); }
  if (resident == 0 || resident > 256) {  // checked in the one-lane mode too, which ignores it
    detail::throw_error("launch: cpu_resident_warps (or DEVALLOC_CPU_RESIDENT_WARPS) must be in 1..256, got " +
                        std::to_string(resident));
  }
  if (lanes > 1) {
    detail::cpu::run_warps(
      workers, lanes, threads, resident, options.seed,
      [](void* callable, std::size_t i) { (*static_cast<F*>(callable))(i); }, &f, detail::cpu_sm_count);
    return;
  }
  threads = std::min(threads, workers);
  std::exception_ptr first_error;
  std::mutex error_mutex;
  std::vector<std::thread> pool;
  pool.reserve(threads);
  const auto join_all = [&pool] {
    for (auto& thread : pool) { thread.join(); }
  };
  try {
    for (std::size_t t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        detail::cpu_sm_id = 1u + static_cast<std::uint32_t>(t % detail::cpu_sm_count);
        try {
          for (std::size_t i = t; i < workers; i += threads) { f(i); }
        } catch (...) {
          const std::lock_guard<std::mutex> lock(error_mutex);
          if (!first_error) { first_error = std::current_exception(); }
        }
      });
    }
  } catch (...) {  // a thread could not be started: join the ones that were, then report
    join_all();
    throw;
  }
  join_all();
  if (first_error) { std::rethrow_exception(first_error); }
#endif
}

DEVALLOC_NAMESPACE_END
