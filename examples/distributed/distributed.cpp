// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// examples/distributed/distributed.cpp — one heap per device in a distributed program (issue 16).
//
// One MPI rank per device. Every step, every worker ("thread") of every rank builds outgoing
// messages whose number, destinations and sizes come from a hash of (rank, step, thread) — particles
// leaving its domain — in memory allocated from the rank's devalloc heap; the rank packs them per
// destination (freeing each message), exchanges the counts (MPI_Alltoall) and the payloads (CPU
// backend: MPI_Alltoallv; CUDA backend: grouped ncclSend/ncclRecv), and the receiving kernel
// allocates a buffer per incoming message, copies it, verifies it, processes it and frees it. A
// last kernel checks that every message this rank should have received arrived exactly once, and an
// MPI_Allreduce compares the counts and checksums of all ranks. See README.md next to this file.
//
// Compiled by g++ (CPU backend: the ranks are processes, the workers run on the warp emulator) or,
// as a .cu, by nvcc (CUDA backend, NCCL for the payloads).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda/atomic>
#include <devalloc/devalloc.hpp>

#if DEVALLOC_BACKEND_CUDA
#include <cuda_runtime_api.h>
#include <nccl.h>
#endif

namespace dist {

using u64 = unsigned long long;  // the type of MPI_UNSIGNED_LONG_LONG and of the counters

// --- what every worker sends: a pure function of (seed, rank, step, thread), known to every rank ---

DEVALLOC_HOST_DEVICE constexpr std::uint64_t mix(std::uint64_t h) noexcept  // splitmix64's finalizer
{
  h ^= h >> 30;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 27;
  h *= 0x94D049BB133111EBull;
  h ^= h >> 31;
  return h;
}

struct shape {
  std::uint32_t dst;    // destination rank
  std::uint32_t words;  // payload length in 8-byte words
};

/// The messages of one step. A message is a 16-byte header (src | dst << 32, index | words << 32)
/// and `words` payload words; its index is thread * messages + m, unique per sender and step.
struct plan {
  std::uint64_t seed;
  std::uint32_t ranks;
  std::uint32_t step;
  std::uint32_t messages;  // at most this many per thread (0..messages, uniformly)
  std::uint32_t words;     // payload of 1..words words

  DEVALLOC_HOST_DEVICE std::uint64_t thread_hash(std::uint32_t rank, std::uint64_t thread) const
  {
    return mix(seed ^ mix(rank * 0x9E3779B97F4A7C15ull + step * 0xC2B2AE3D27D4EB4Full + thread));
  }
  DEVALLOC_HOST_DEVICE std::uint32_t count(std::uint32_t rank, std::uint64_t thread) const
  {
    return static_cast<std::uint32_t>(thread_hash(rank, thread) % (messages + 1u));
  }
  /// Particles leave mostly to the neighbours of a ring of domains: half to rank + 1, 30 % to
  /// rank - 1, the rest anywhere (itself included).
  DEVALLOC_HOST_DEVICE shape message(std::uint32_t rank, std::uint64_t thread, std::uint32_t m) const
  {
    const std::uint64_t h = mix(thread_hash(rank, thread) + (m + 1u) * 0x9E3779B97F4A7C15ull);
    const std::uint32_t pick = static_cast<std::uint32_t>(h % 10u);
    std::uint32_t dst = 0;
    if (pick < 5) {
      dst = (rank + 1u) % ranks;
    } else if (pick < 8) {
      dst = (rank + ranks - 1u) % ranks;
    } else {
      dst = static_cast<std::uint32_t>((h >> 8) % ranks);
    }
    return {dst, 1u + static_cast<std::uint32_t>((h >> 32) % words)};
  }
  /// Payload word j of message `index` from src to dst.
  DEVALLOC_HOST_DEVICE std::uint64_t value(std::uint32_t src, std::uint32_t dst, std::uint64_t index,
                                           std::uint32_t j) const
  {
    const std::uint64_t key = mix(seed + src * 0xD6E8FEB86659FD93ull + dst * 0xA0761D6478BD642Full +
                                  step * 0xE7037ED1A0B428DBull + index * 0x8EBC6AF09C88C6E3ull);
    return mix(key + j);
  }
};

DEVALLOC_HOST_DEVICE constexpr std::size_t message_bytes(std::uint32_t words) { return 16u + 8u * std::size_t{words}; }

/// A message's checksum: its words (header included) mixed and summed; sums of it over messages
/// are compared between senders and receivers.
DEVALLOC_HOST_DEVICE std::uint64_t checksum(const std::uint64_t* message, std::uint32_t words)
{
  std::uint64_t sum = 0;
  for (std::uint32_t j = 0; j < words + 2u; ++j) { sum += mix(message[j] + j); }
  return sum;
}

template <class T>
DEVALLOC_HOST_DEVICE T atomic_add(T* p, T v)
{
  return cuda::atomic_ref<T, cuda::thread_scope_device>(*p).fetch_add(v, cuda::std::memory_order_relaxed);
}

// The per-step counters of a rank (one buffer, summed over ranks with MPI_Allreduce).
enum counter : int {
  sent_messages,
  sent_bytes,     // headers and payloads (not the offset tables)
  sent_checksum,  // sum of the checksums of the messages sent
  send_alloc_failed,
  recv_messages,  // messages received, verified and processed
  recv_checksum,
  recv_alloc_failed,
  bad_messages,  // a header or payload that is not what its sender built
  missing,       // a message this rank should have received and did not
  duplicates,    // received more than once
  unexpected,    // received but not meant for this rank
  expected,      // messages this rank should receive (from the plan)
  processed,     // sum of what processing computed (printed, not compared)
  counter_count
};

struct options {
  int steps = 10;
#if DEVALLOC_BACKEND_CUDA
  std::size_t threads = std::size_t{1} << 20;
  std::size_t heap_mib = 2048;
#else
  std::size_t threads = 4096;
  std::size_t heap_mib = 64;
#endif
  unsigned messages = 4;
  unsigned words = 32;
  std::uint64_t seed = 1;
  unsigned cpu_threads = 0;
  std::string allocator = "scatter";
  int inject = 0;  // a fault on the last rank's first received message of step 1, to test the checks
};

enum fault : int { no_fault, fault_corrupt, fault_drop, fault_duplicate };

void usage(std::FILE* out)
{
  const options d;
  std::fprintf(out,
               "usage: mpirun -np <ranks> devalloc_example_distributed [options]\n"
               "  --allocator scatter|device_malloc  the heap of every rank (default %s; device_malloc is CUDA's\n"
               "                                     malloc on the GPU, std::malloc-backed on the CPU)\n"
               "  --steps N         steps (default %d)\n"
               "  --threads N       workers per rank (default %zu)\n"
               "  --messages N      at most N messages per worker and step (default %u)\n"
               "  --words N         payload of 1..N 8-byte words per message (default %u)\n"
               "  --heap-mib N      heap per rank in MiB (default %zu)\n"
               "  --seed N          seed of the message plan (default %" PRIu64
               ")\n"
               "  --cpu-threads N   CPU backend: host threads per launch (default: devalloc's)\n"
               "  --inject corrupt|drop|duplicate   a fault in step 1 on the last rank (the run must fail)\n",
               d.allocator.c_str(), d.steps, d.threads, d.messages, d.words, d.heap_mib, d.seed);
}

bool parse(int argc, char** argv, options& o, std::string& error)
{
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      error = "help";
      return false;
    }
    if (i + 1 >= argc) {
      error = "missing value after " + arg;
      return false;
    }
    const std::string value = argv[++i];
    char* end = nullptr;
    const unsigned long long number = std::strtoull(value.c_str(), &end, 10);
    const bool numeric = !value.empty() && end != nullptr && *end == '\0';
    if (arg == "--allocator") {
      if (value != "scatter" && value != "device_malloc") {
        error = "--allocator must be scatter or device_malloc, not " + value;
        return false;
      }
      o.allocator = value;
      continue;
    }
    if (arg == "--inject") {
      o.inject = value == "corrupt"     ? fault_corrupt
                 : value == "drop"      ? fault_drop
                 : value == "duplicate" ? fault_duplicate
                                        : -1;
      if (o.inject < 0) {
        error = "--inject must be corrupt, drop or duplicate, not " + value;
        return false;
      }
      continue;
    }
    if (!numeric) {
      error = arg + " needs a number, not '" + value + "'";
      return false;
    }
    if (arg == "--steps") {
      o.steps = static_cast<int>(std::min<unsigned long long>(number, INT_MAX));
    } else if (arg == "--threads") {
      o.threads = number;
    } else if (arg == "--messages") {
      o.messages = static_cast<unsigned>(std::min<unsigned long long>(number, 1024));
    } else if (arg == "--words") {
      o.words = static_cast<unsigned>(std::min<unsigned long long>(number, 1u << 20));
    } else if (arg == "--heap-mib") {
      o.heap_mib = number;
    } else if (arg == "--seed") {
      o.seed = number;
    } else if (arg == "--cpu-threads") {
      o.cpu_threads = static_cast<unsigned>(number);
    } else {
      error = "unknown option " + arg;
      return false;
    }
  }
  if (o.inject != no_fault && o.steps < 2) {
    error = "--inject needs --steps 2 or more (the fault is in step 1)";
    return false;
  }
  if (o.steps < 1 || o.threads == 0 || o.messages == 0 || o.words == 0 || o.heap_mib == 0) {
    error = "--steps, --threads, --messages, --words and --heap-mib must be at least 1";
    return false;
  }
  if (o.threads * o.messages > 0xffffffffull) {
    error = "--threads x --messages must stay below 2^32 (message indices are 32-bit)";
    return false;
  }
  return true;
}

#if DEVALLOC_BACKEND_CUDA
#define DIST_NCCL_TRY(call)                                                                              \
  do {                                                                                                   \
    const ncclResult_t dist_nccl_status = (call);                                                        \
    if (dist_nccl_status != ncclSuccess) {                                                               \
      throw std::runtime_error(std::string(#call) + " failed: " + ncclGetErrorString(dist_nccl_status)); \
    }                                                                                                    \
  } while (0)
#endif

double seconds_since(std::chrono::steady_clock::time_point start)
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Grows `b` to at least `count` elements (contents not kept).
template <class T>
void reserve(devalloc::buffer<T>& b, std::size_t count)
{
  if (b.size() < count) { b = devalloc::buffer<T>(std::max(count, b.size() + b.size() / 2)); }
}

// One rank's run with heap type Heap. Returns the process' exit status (0: every check passed).
template <class Heap>
int run(const options& o, MPI_Comm world)
{
  int rank_i = 0, ranks_i = 1;
  MPI_Comm_rank(world, &rank_i);
  MPI_Comm_size(world, &ranks_i);
  const auto rank = static_cast<std::uint32_t>(rank_i);
  const auto ranks = static_cast<std::uint32_t>(ranks_i);
  MPI_Comm node{};
  MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank_i, MPI_INFO_NULL, &node);
  int local_rank = 0;
  MPI_Comm_rank(node, &local_rank);
  MPI_Comm_free(&node);

  // The rank's device: made current before the heap, which remembers it (Allocator::device()).
  devalloc::launch_options launch{};
  launch.cpu_threads = o.cpu_threads;
#if DEVALLOC_BACKEND_CUDA
  int device_count = 0;
  DEVALLOC_CUDA_TRY(cudaGetDeviceCount(&device_count));
  if (device_count == 0) { throw std::runtime_error("no CUDA device"); }
  DEVALLOC_CUDA_TRY(cudaSetDevice(local_rank % device_count));
  cudaStream_t stream{};
  DEVALLOC_CUDA_TRY(cudaStreamCreate(&stream));
  launch.stream = devalloc::stream_ref(stream);
  // NCCL: rank 0's unique id to everyone over MPI; NVLink multicast stays off (NCCL_NVLS_ENABLE=0,
  // set in main before anything else).
  ncclUniqueId id{};
  if (rank == 0) { DIST_NCCL_TRY(ncclGetUniqueId(&id)); }
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, world);
  ncclComm_t comm{};
  DIST_NCCL_TRY(ncclCommInitRank(&comm, ranks_i, id, rank_i));
  Heap heap(o.heap_mib << 20, devalloc::stream_ref(stream));
#else
  (void)local_rank;
  Heap heap(o.heap_mib << 20);
#endif
  auto handle = heap.handle();

  {  // who runs where
    int device = heap.device();
    std::vector<int> devices(ranks);
    MPI_Gather(&device, 1, MPI_INT, devices.data(), 1, MPI_INT, 0, world);
    if (rank == 0) {
      std::printf("distributed: %u rank(s), backend %s (%s), heap per rank %zu MiB: %s\n", ranks,
                  devalloc::backend_name(), devalloc::detail::backend::device_name().c_str(), o.heap_mib,
                  Heap::info().c_str());
      std::printf(
        "  %zu workers per rank, 0..%u messages of 1..%u words each per worker and step, %d steps;"
        " devices:",
        o.threads, o.messages, o.words, o.steps);
      for (std::uint32_t r = 0; r < ranks; ++r) { std::printf(" rank %u -> %d", r, devices[r]); }
      std::printf("\n");
      std::fflush(stdout);
    }
  }

  const std::size_t threads = o.threads;
  const std::uint32_t per_thread = o.messages;
  const std::size_t slots = threads * per_thread;  // message indices per sender and step
  devalloc::buffer<std::uint64_t*> outgoing(slots);
  devalloc::buffer<u64> per_dst(4 * std::size_t{ranks});       // count, bytes, next index, next byte
  devalloc::buffer<u64> incoming(3 * std::size_t{ranks} + 1);  // message prefix, byte offset, bytes
  devalloc::buffer<u64> send_offsets(ranks);
  devalloc::buffer<u64> counters(counter_count);
  devalloc::buffer<std::uint32_t> seen(std::size_t{ranks} * slots);
  devalloc::buffer<std::uint64_t> send_buffer(1), recv_buffer(1);

  std::vector<u64> totals(counter_count, 0);
  int failed_steps = 0;
  double sum_step = 0, sum_alloc = 0, sum_alloc_time = 0, sum_exchange = 0;
  u64 sum_bytes = 0, sum_remote_bytes = 0;
  int measured_steps = 0;

  for (int step = 0; step < o.steps; ++step) {
    const plan p{o.seed, ranks, static_cast<std::uint32_t>(step), per_thread, o.words};
    counters.zero();
    per_dst.zero();
    u64* const c = counters.data();
    u64* const dst_info = per_dst.data();
    std::uint64_t** const out = outgoing.data();
    MPI_Barrier(world);
    const auto step_start = std::chrono::steady_clock::now();

    // 1. Build (allocating kernel): every worker's messages in heap memory.
    auto t0 = std::chrono::steady_clock::now();
    devalloc::launch(
      threads,
      [=] DEVALLOC_DEVICE(std::size_t t) {
        const std::uint32_t n = p.count(rank, t);
        for (std::uint32_t m = 0; m < per_thread; ++m) {
          const std::size_t index = t * per_thread + m;
          out[index] = nullptr;
          if (m >= n) { continue; }
          const shape s = p.message(rank, t, m);
          const std::size_t bytes = message_bytes(s.words);
          auto* msg = static_cast<std::uint64_t*>(handle.alloc(bytes));
          if (msg == nullptr) {
            atomic_add<u64>(&c[send_alloc_failed], 1);
            continue;
          }
          msg[0] = rank | (std::uint64_t{s.dst} << 32);
          msg[1] = index | (std::uint64_t{s.words} << 32);
          for (std::uint32_t j = 0; j < s.words; ++j) { msg[2 + j] = p.value(rank, s.dst, index, j); }
          out[index] = msg;
          atomic_add<u64>(&dst_info[4 * s.dst], 1);
          atomic_add<u64>(&dst_info[4 * s.dst + 1], bytes + 8);  // + its entry in the offset table
          atomic_add<u64>(&c[sent_messages], 1);
          atomic_add<u64>(&c[sent_bytes], bytes);
          atomic_add<u64>(&c[sent_checksum], checksum(msg, s.words));
        }
      },
      launch);
    const double t_build = seconds_since(t0);

    // Host: the regions per destination, each an offset table (one word per message) then messages.
    t0 = std::chrono::steady_clock::now();
    std::vector<u64> info = per_dst.to_host();
    std::vector<u64> send_counts(2 * std::size_t{ranks}), send_off(ranks);
    u64 send_total = 0;
    for (std::uint32_t d = 0; d < ranks; ++d) {
      send_counts[2 * d] = info[4 * d];
      send_counts[2 * d + 1] = info[4 * d + 1];
      send_off[d] = send_total;
      send_total += info[4 * d + 1];
      info[4 * d + 2] = 0;
      info[4 * d + 3] = 8 * info[4 * d];
    }
    per_dst.assign(info);
    send_offsets.assign(send_off);
    reserve(send_buffer, std::max<u64>(1, send_total / 8));
    const double t_host = seconds_since(t0);

    // 2. Pack (allocating kernel: frees every message once it is copied).
    t0 = std::chrono::steady_clock::now();
    std::uint64_t* const send = send_buffer.data();
    const u64* const offsets = send_offsets.data();
    devalloc::launch(
      threads,
      [=] DEVALLOC_DEVICE(std::size_t t) {
        for (std::uint32_t m = 0; m < per_thread; ++m) {
          std::uint64_t* msg = out[t * per_thread + m];
          if (msg == nullptr) { continue; }
          const auto d = static_cast<std::uint32_t>(msg[0] >> 32);
          const auto words = static_cast<std::uint32_t>(msg[1] >> 32);
          const u64 bytes = message_bytes(words);
          const u64 i = atomic_add<u64>(&dst_info[4 * d + 2], 1);
          const u64 at = atomic_add<u64>(&dst_info[4 * d + 3], bytes);
          std::uint64_t* region = send + offsets[d] / 8;
          region[i] = at;
          for (std::uint32_t j = 0; j < words + 2u; ++j) { region[at / 8 + j] = msg[j]; }
          handle.dealloc(msg);
        }
      },
      launch);
    const double t_pack = seconds_since(t0);

    // 3. Exchange: counts and bytes per pair (MPI_Alltoall), then the payloads.
    t0 = std::chrono::steady_clock::now();
    std::vector<u64> recv_counts(2 * std::size_t{ranks});
    MPI_Alltoall(send_counts.data(), 2, MPI_UNSIGNED_LONG_LONG, recv_counts.data(), 2, MPI_UNSIGNED_LONG_LONG, world);
    std::vector<u64> in(3 * std::size_t{ranks} + 1, 0);  // prefix of messages [0..ranks], offset, bytes
    u64 recv_total = 0;
    for (std::uint32_t s = 0; s < ranks; ++s) {
      in[s + 1] = in[s] + recv_counts[2 * s];
      in[ranks + 1 + s] = recv_total;
      in[2 * ranks + 1 + s] = recv_counts[2 * s + 1];
      recv_total += recv_counts[2 * s + 1];
    }
    const u64 incoming_messages = in[ranks];
    incoming.assign(in);
    reserve(recv_buffer, std::max<u64>(1, recv_total / 8));
    std::uint64_t* const recv = recv_buffer.data();
#if DEVALLOC_BACKEND_CUDA
    DIST_NCCL_TRY(ncclGroupStart());
    for (std::uint32_t r = 0; r < ranks; ++r) {
      if (r == rank) { continue; }
      if (send_counts[2 * r + 1] != 0) {
        DIST_NCCL_TRY(ncclSend(send + send_off[r] / 8, send_counts[2 * r + 1], ncclUint8, r, comm, stream));
      }
      if (recv_counts[2 * r + 1] != 0) {
        DIST_NCCL_TRY(ncclRecv(recv + in[ranks + 1 + r] / 8, recv_counts[2 * r + 1], ncclUint8, r, comm, stream));
      }
    }
    DIST_NCCL_TRY(ncclGroupEnd());
    if (send_counts[2 * rank + 1] != 0) {  // to itself: a device copy
      DEVALLOC_CUDA_TRY(cudaMemcpyAsync(recv + in[ranks + 1 + rank] / 8, send + send_off[rank] / 8,
                                        send_counts[2 * rank + 1], cudaMemcpyDeviceToDevice, stream));
    }
    DEVALLOC_CUDA_TRY(cudaStreamSynchronize(stream));
#else
    {  // in 8-byte words: counts up to 2^31 words (16 GiB) per pair
      std::vector<int> sc(ranks), sd(ranks), rc(ranks), rd(ranks);
      for (std::uint32_t r = 0; r < ranks; ++r) {
        const u64 words[4] = {send_counts[2 * r + 1] / 8, send_off[r] / 8, recv_counts[2 * r + 1] / 8,
                              in[ranks + 1 + r] / 8};
        for (const u64 w : words) {
          if (w > INT_MAX) { throw std::runtime_error("more than 2^31 words for one pair of ranks"); }
        }
        sc[r] = static_cast<int>(words[0]);
        sd[r] = static_cast<int>(words[1]);
        rc[r] = static_cast<int>(words[2]);
        rd[r] = static_cast<int>(words[3]);
      }
      MPI_Alltoallv(send, sc.data(), sd.data(), MPI_UINT64_T, recv, rc.data(), rd.data(), MPI_UINT64_T, world);
    }
#endif
    const double t_exchange = seconds_since(t0);

    // 4. Receive (allocating kernel): a buffer per incoming message, copied, verified, processed, freed.
    t0 = std::chrono::steady_clock::now();
    const u64* const inc = incoming.data();
    std::uint32_t* const seen_by = seen.data();
    const int fault = step == 1 && rank == ranks - 1 ? o.inject : no_fault;
    devalloc::launch(
      incoming_messages,
      [=] DEVALLOC_DEVICE(std::size_t w) {
        std::uint32_t lo = 0, hi = ranks;  // the sender s: prefix[s] <= w < prefix[s + 1]
        while (lo < hi) {
          const std::uint32_t mid = (lo + hi) / 2;
          if (inc[mid + 1] <= w) {
            lo = mid + 1;
          } else {
            hi = mid;
          }
        }
        const std::uint32_t s = lo;
        const u64 i = w - inc[s];
        const u64 region_bytes = inc[2 * ranks + 1 + s];
        const std::uint64_t* region = recv + inc[ranks + 1 + s] / 8;
        const u64 at = region[i];
        const u64 table = 8 * (inc[s + 1] - inc[s]);
        if (at < table || at % 8 != 0 || at + 16 > region_bytes) {
          atomic_add<u64>(&c[bad_messages], 1);
          return;
        }
        const std::uint64_t* wire = region + at / 8;
        const auto src = static_cast<std::uint32_t>(wire[0]);
        const auto dst = static_cast<std::uint32_t>(wire[0] >> 32);
        const auto index = static_cast<std::uint32_t>(wire[1]);
        const auto words = static_cast<std::uint32_t>(wire[1] >> 32);
        const u64 bytes = message_bytes(words);
        if (src != s || dst != rank || index >= slots || words == 0 || words > p.words || at + bytes > region_bytes) {
          atomic_add<u64>(&c[bad_messages], 1);
          return;
        }
        auto* msg = static_cast<std::uint64_t*>(handle.alloc(bytes));
        if (msg == nullptr) {
          atomic_add<u64>(&c[recv_alloc_failed], 1);
          return;
        }
        for (std::uint32_t j = 0; j < words + 2u; ++j) { msg[j] = wire[j]; }
        if (w == 0 && fault == fault_corrupt) { msg[2 + words / 2] ^= 1u; }
        if (w == 0 && fault == fault_drop) {
          handle.dealloc(msg);
          return;
        }
        // Verify against the sender's plan and content, from the copy.
        const std::uint64_t t = index / per_thread;
        const std::uint32_t m = index % per_thread;
        const shape planned = p.message(src, t, m);
        bool good = m < p.count(src, t) && planned.dst == rank && planned.words == words;
        u64 energy = 0;
        for (std::uint32_t j = 0; j < words; ++j) {
          good = good && msg[2 + j] == p.value(src, rank, index, j);
          energy += msg[2 + j] >> 40;  // "process" the particles
        }
        if (good) {
          atomic_add<u64>(&c[recv_messages], 1);
          atomic_add<u64>(&c[recv_checksum], checksum(msg, words));
          atomic_add<u64>(&c[processed], energy);
          atomic_add<std::uint32_t>(&seen_by[src * slots + index], w == 0 && fault == fault_duplicate ? 2u : 1u);
        } else {
          atomic_add<u64>(&c[bad_messages], 1);
        }
        handle.dealloc(msg);
      },
      launch);
    const double t_receive = seconds_since(t0);

    // 5. Exactly once: every (sender, index) this rank should have received, seen once; cleared.
    t0 = std::chrono::steady_clock::now();
    devalloc::launch(
      std::size_t{ranks} * threads,
      [=] DEVALLOC_DEVICE(std::size_t w) {
        const auto s = static_cast<std::uint32_t>(w / threads);
        const std::size_t t = w % threads;
        const std::uint32_t n = p.count(s, t);
        for (std::uint32_t m = 0; m < per_thread; ++m) {
          std::uint32_t& got = seen_by[s * slots + t * per_thread + m];
          const bool wanted = m < n && p.message(s, t, m).dst == rank;
          if (wanted) { atomic_add<u64>(&c[expected], 1); }
          if (wanted && got == 0) { atomic_add<u64>(&c[missing], 1); }
          if (got > 1) { atomic_add<u64>(&c[duplicates], 1); }
          if (!wanted && got != 0) { atomic_add<u64>(&c[unexpected], 1); }
          got = 0;
        }
      },
      launch);
    const std::vector<u64> mine = counters.to_host();
    std::vector<u64> all(counter_count);
    MPI_Allreduce(mine.data(), all.data(), counter_count, MPI_UNSIGNED_LONG_LONG, MPI_SUM, world);
    const double t_check = seconds_since(t0);
    const double t_step = seconds_since(step_start);

    // Report: the slowest rank's step; per rank the allocating kernels' share, averaged.
    const double alloc_time = t_build + t_pack + t_receive;
    const double mine_times[5] = {alloc_time / t_step, t_build, t_pack, t_receive, t_exchange};
    double sums[5] = {}, max_step = 0;
    MPI_Allreduce(mine_times, sums, 5, MPI_DOUBLE, MPI_SUM, world);
    MPI_Allreduce(&t_step, &max_step, 1, MPI_DOUBLE, MPI_MAX, world);
    (void)t_host;
    (void)t_check;
    u64 remote = 0;
    for (std::uint32_t d = 0; d < ranks; ++d) {
      if (d != rank) { remote += send_counts[2 * d + 1]; }
    }
    u64 all_remote = 0, all_wire = 0;
    const u64 wire = send_total;
    MPI_Allreduce(&remote, &all_remote, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, world);
    MPI_Allreduce(&wire, &all_wire, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, world);

    const u64 errors = all[send_alloc_failed] + all[recv_alloc_failed] + all[bad_messages] + all[missing] +
                       all[duplicates] + all[unexpected] + (all[sent_messages] != all[recv_messages]) +
                       (all[sent_messages] != all[expected]) + (all[sent_checksum] != all[recv_checksum]);
    failed_steps += errors != 0;
    for (int k = 0; k < counter_count; ++k) { totals[k] += all[k]; }
    const double n = ranks;
    if (step > 0 || o.steps == 1) {  // step 0 warms up (first touch of the heap and buffers)
      sum_step += max_step;
      sum_alloc += sums[0] / n;
      sum_alloc_time += (sums[1] + sums[2] + sums[3]) / n;
      sum_exchange += sums[4] / n;
      ++measured_steps;
    }
    sum_bytes += all_wire;
    sum_remote_bytes += all_remote;
    if (rank == 0) {
      std::printf(
        "step %3d: %9.3f ms  %8llu msgs  %8.3f MB exchanged (%.3f MB between ranks)  allocating kernels "
        "%8.3f ms = %5.1f%% [build %.3f pack %.3f receive %.3f]  exchange %.3f ms  rest %.3f ms%s\n",
        step, 1e3 * max_step, all[recv_messages], all_wire / 1e6, all_remote / 1e6,
        1e3 * (sums[1] + sums[2] + sums[3]) / n, 100.0 * sums[0] / n, 1e3 * sums[1] / n, 1e3 * sums[2] / n,
        1e3 * sums[3] / n, 1e3 * sums[4] / n, 1e3 * (max_step - (sums[1] + sums[2] + sums[3] + sums[4]) / n),
        errors ? "  ERRORS" : "");
      if (errors != 0) {
        std::printf(
          "  errors: sent %llu, expected %llu, received %llu; checksums %s; send alloc failed %llu, receive alloc "
          "failed %llu, bad %llu, missing %llu, duplicates %llu, unexpected %llu\n",
          all[sent_messages], all[expected], all[recv_messages],
          all[sent_checksum] == all[recv_checksum] ? "equal" : "DIFFER", all[send_alloc_failed], all[recv_alloc_failed],
          all[bad_messages], all[missing], all[duplicates], all[unexpected]);
      }
      std::fflush(stdout);
    }
  }

  // The heap's own account: failed requests must be the ones counted above; no misuse.
  const devalloc::allocator_stats st = heap.stats();
  u64 heap_counts[3] = {st.failed_allocations, st.invalid_frees, st.double_frees}, heap_all[3] = {};
  MPI_Allreduce(heap_counts, heap_all, 3, MPI_UNSIGNED_LONG_LONG, MPI_SUM, world);
  const bool heap_ok =
    heap_all[0] == totals[send_alloc_failed] + totals[recv_alloc_failed] && heap_all[1] == 0 && heap_all[2] == 0;
  const bool ok = failed_steps == 0 && heap_ok;
  if (rank == 0) {
    if (!heap_ok) {
      std::printf("  heap stats: failed allocations %llu, invalid frees %llu, double frees %llu\n", heap_all[0],
                  heap_all[1], heap_all[2]);
    }
    const double m = measured_steps;
    std::printf(
      "distributed: %s  ranks %u  allocator %s  backend %s  steps %d  messages %llu  bytes %.3f MB "
      "(%.3f MB between ranks)  mean step %.3f ms  allocating kernels %.3f ms = %.1f%%  exchange %.3f ms  "
      "(means over steps %d..%d)  failed steps %d\n",
      ok ? "OK" : "FAILED", ranks, o.allocator.c_str(), devalloc::backend_name(), o.steps, totals[recv_messages],
      sum_bytes / 1e6, sum_remote_bytes / 1e6, 1e3 * sum_step / m, 1e3 * sum_alloc_time / m, 100.0 * sum_alloc / m,
      1e3 * sum_exchange / m, o.steps == 1 ? 0 : 1, o.steps - 1, failed_steps);
    std::fflush(stdout);
  }
#if DEVALLOC_BACKEND_CUDA
  DEVALLOC_CUDA_TRY(cudaStreamSynchronize(stream));
  DIST_NCCL_TRY(ncclCommDestroy(comm));
#endif
  return ok ? 0 : 1;
}

}  // namespace dist

int main(int argc, char** argv)
{
#if DEVALLOC_BACKEND_CUDA
  setenv("NCCL_NVLS_ENABLE", "0", 1);  // NVLink multicast off, as the device machines require
#endif
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  dist::options o;
  std::string error;
  if (!dist::parse(argc, argv, o, error)) {
    const bool help = error == "help";
    if (rank == 0) {
      if (!help) { std::fprintf(stderr, "distributed: %s\n", error.c_str()); }
      dist::usage(help ? stdout : stderr);
    }
    MPI_Finalize();
    return help ? 0 : 2;
  }
  int status = 0;
  try {
    status = o.allocator == "device_malloc" ? dist::run<devalloc::presets::device_malloc>(o, MPI_COMM_WORLD)
                                            : dist::run<devalloc::presets::scatter>(o, MPI_COMM_WORLD);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "distributed: rank %d: %s\n", rank, e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  MPI_Finalize();
  return status;
}
