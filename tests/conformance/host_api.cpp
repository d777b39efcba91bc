// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// tests/conformance/host_api.cpp
//
// Host-side contract of the framework, independent of the allocator: misuse ends in a
// devalloc::error with a clear message; policy arithmetic; the launch helper; the Trap OOM policy.
#include <cstdint>
#include <memory>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <devalloc/devalloc.hpp>

#include "../support/scenarios.hpp"

namespace devalloc::testing {
namespace {

template <class F>
std::string error_message(F&& f)
{
  try {
    f();
  } catch (const devalloc::error& e) {
    return e.what();
  }
  return "(no devalloc::error thrown)";
}

TEST(HostApi, HeapSizeZeroIsRejected)
{
  EXPECT_NE(error_message([] { presets::bump a(0); }).find("greater than 0"), std::string::npos);
}

TEST(HostApi, HeapLargerThanFreeMemoryIsRejected)
{
  const std::string message = error_message([] { presets::bump a(std::size_t{1} << 60); });
  EXPECT_NE(message.find("larger than"), std::string::npos) << message;
}

TEST(HostApi, HeapTooSmallForTheCreationPolicyIsRejected)
{
  const std::string message = error_message([] { presets::bump a(64); });
  EXPECT_NE(message.find("AtomicBump"), std::string::npos) << message;
}

TEST(HostApi, UserPoolMustBeGivenEnoughMemory)
{
  EXPECT_NE(error_message([] { presets::bump_in_user_memory a(1 << 20); }).find("no memory was given"),
            std::string::npos);
  buffer<char> memory(4096);
  const std::string message = error_message([&] {
    presets::bump_in_user_memory a(1 << 20, reserve_pool::UserPool{memory.data(), memory.size()});
  });
  EXPECT_NE(message.find("4096"), std::string::npos) << message;
}

TEST(HostApi, UserPoolAllocatesInsideTheCallersMemory)
{
  buffer<char> memory(1 << 20);
  presets::bump_in_user_memory a(memory.size(), reserve_pool::UserPool{memory.data(), memory.size()});
  const std::uintptr_t p = single_alloc(a, 1000);
  const auto base = reinterpret_cast<std::uintptr_t>(memory.data());
  EXPECT_GE(p, base);
  EXPECT_LE(p + 1000, base + memory.size());
}

TEST(HostApi, ShrinkPadsAndAlignsThePool)
{
  using S = alignment::Shrink<16>;
  EXPECT_EQ(S::apply_padding(1), 16u);
  EXPECT_EQ(S::apply_padding(16), 16u);
  EXPECT_EQ(S::apply_padding(17), 32u);
  EXPECT_GE(S::apply_padding(std::numeric_limits<std::size_t>::max()), std::numeric_limits<std::size_t>::max() - 15)
    << "padding must saturate, not wrap to a small size";
  alignas(64) static char storage[256];
  const pool_span aligned = S::align_pool({storage + 3, 200});
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(aligned.data) % 16, 0u);
  EXPECT_EQ(static_cast<char*>(aligned.data) + aligned.bytes, storage + 203);
  EXPECT_EQ(S::align_pool({storage + 3, 5}).bytes, 0u);
  EXPECT_EQ(alignment::NoAlignment::apply_padding(13), 13u);
}

TEST(HostApi, InfoListsPoliciesWithParameters)
{
  const std::string info = presets::bump::info();
  EXPECT_EQ(info, "Creation=AtomicBump<header_bytes=256>, Distribution=Noop, OOM=ReturnNull, ReservePool=" +
                    reserve_pool::CudaMalloc::classname() + ", Alignment=Shrink<16>");
}

TEST(HostApi, AvailableSlotsOfAnEmptyBumpHeapAreExact)
{
  presets::bump a(1 << 20);
  EXPECT_EQ(a.getAvailableSlots(16), ((1u << 20) - creation::AtomicBump::config::header_bytes) / 16);
  EXPECT_EQ(a.getAvailableSlots(17), ((1u << 20) - creation::AtomicBump::config::header_bytes) / 32);
}

// Launches live in free functions: nvcc rejects __device__ lambdas inside TEST bodies.
std::vector<unsigned long long> hits_per_worker(std::size_t workers, launch_options options = {})
{
  buffer<unsigned long long> hits(workers);
  unsigned long long* h = hits.data();
  launch(
    workers, [=] DEVALLOC_DEVICE(std::size_t i) { count(h[i]); }, options);
  return hits.to_host();
}

TEST(HostApi, LaunchRunsEveryWorkerExactlyOnce)
{
  for (std::size_t workers : {1, 31, 1000, 4097}) {
    for (unsigned long long v : hits_per_worker(workers)) { ASSERT_EQ(v, 1u) << workers; }
  }
  EXPECT_TRUE(hits_per_worker(0).empty());
}

#if DEVALLOC_BACKEND_CPU
TEST(HostApi, LaunchRethrowsAWorkersException)
{
  EXPECT_THROW(launch(8,
                      [](std::size_t i) {
                        if (i == 5) { throw std::runtime_error("worker 5"); }
                      }),
               std::runtime_error);
}
#else
TEST(HostApi, LaunchRejectsBadBlockSizes)
{
  launch_options options;
  options.block_size = 2048;
  EXPECT_THROW(hits_per_worker(8, options), devalloc::error);
}
#endif

/// Runs in a death-test child: allocates more than the heap through the Trap OOM policy.
void exhaust_trap_allocator()
{
  presets::bump_or_trap a(1 << 16);
  try {
    (void)single_alloc(a, 1 << 20);
  } catch (const devalloc::error& e) {  // CUDA: the trapped kernel surfaces as a launch failure
    std::fprintf(stderr, "devalloc: out of memory (kernel stopped by Trap): %s\n", e.what());
  }
  std::abort();
}

// --- streams and devices ------------------------------------------------------------------------

TEST(HostApi, HostOperationsTakeAStreamAndDefaultToTheOneGivenAtConstruction)
{
  presets::scatter heap(std::size_t{4} << 20, stream_ref{});
  EXPECT_TRUE(heap.stream() == stream_ref{});
  EXPECT_EQ(heap.device(), detail::backend::current_device());
  const std::size_t slots = heap.getAvailableSlots(64);
  EXPECT_GT(slots, 0u);
  EXPECT_EQ(heap.getAvailableSlots(64, heap.stream()), slots);
  EXPECT_EQ(heap.stats(heap.stream()).failed_allocations, 0u);
  heap.reset(heap.stream());
  EXPECT_EQ(heap.getAvailableSlots(64), slots);
}

#if DEVALLOC_BACKEND_CUDA
__global__ void spin_kernel(long long cycles)
{
  const long long start = clock64();
  while (clock64() - start < cycles) {}
}

// One 64-byte allocation per worker, written, read back and freed; counts the intact ones.
struct alloc_write_free {
  presets::scatter::handle_type heap;
  unsigned long long* good;
  __device__ void operator()(std::size_t i) const
  {
    auto* p = static_cast<std::size_t*>(heap.alloc(64));
    if (p == nullptr) { return; }
    p[0] = i;
    p[7] = ~i;
    if (p[0] == i && p[7] == ~i) { atomicAdd(good, 1ull); }
    heap.dealloc(p);
  }
};

struct raw_stream {
  cudaStream_t value{};
  raw_stream() { DEVALLOC_CUDA_TRY(cudaStreamCreateWithFlags(&value, cudaStreamNonBlocking)); }
  ~raw_stream() { (void)cudaStreamDestroy(value); }
};
#endif

// Construction, stats(), getAvailableSlots(), reset() and destruction wait for their own stream
// only: a kernel still running on another stream is not waited for.
TEST(HostApi, HostOperationsSynchronizeTheirStreamOnly)
{
#if DEVALLOC_BACKEND_CUDA
  raw_stream heap_stream, busy_stream;
  unsigned long long good_after = 0;
  {
    presets::scatter heap(std::size_t{4} << 20, stream_ref{heap_stream.value});
    launch_options on_heap_stream{};
    on_heap_stream.stream = stream_ref{heap_stream.value};
    buffer<unsigned long long> good(1);
    // Load the kernels first: CUDA's lazy loading of a kernel's module may wait for the device
    // (seen on an H100: the first launch of a kernel waited for the spinning one).
    launch(1024, alloc_write_free{heap.handle(), good.data()}, on_heap_stream);
    spin_kernel<<<1, 1, 0, heap_stream.value>>>(1);
    DEVALLOC_CUDA_TRY(cudaStreamSynchronize(heap_stream.value));
    // A few seconds of one thread spinning on the other stream.
    spin_kernel<<<1, 1, 0, busy_stream.value>>>(6'000'000'000LL);
    DEVALLOC_CUDA_TRY(cudaGetLastError());
    EXPECT_EQ(heap.stats().failed_allocations, 0u);
    EXPECT_GT(heap.getAvailableSlots(64), 0u);
    heap.reset();
    launch(1024, alloc_write_free{heap.handle(), good.data()}, on_heap_stream);
    EXPECT_EQ(cudaStreamQuery(busy_stream.value), cudaErrorNotReady) << "a host operation waited for another stream";
    good_after = good.get(0);
  }
  EXPECT_EQ(cudaStreamQuery(busy_stream.value), cudaErrorNotReady) << "destruction waited for another stream";
  DEVALLOC_CUDA_TRY(cudaStreamSynchronize(busy_stream.value));
  EXPECT_EQ(good_after, 2048u) << "the launches on the heap's stream did not all allocate";
#else
  GTEST_SKIP() << "CPU backend: host operations complete before they return (there is no other stream)";
#endif
}

// The heap remembers its device: host operations work while another device is current, and leave
// the current device as it was.
TEST(HostApi, HeapWorksWhileAnotherDeviceIsCurrent)
{
#if DEVALLOC_BACKEND_CUDA
  int devices = 0;
  DEVALLOC_CUDA_TRY(cudaGetDeviceCount(&devices));
  if (devices < 2) { GTEST_SKIP() << "needs 2 GPUs, found " << devices; }
  DEVALLOC_CUDA_TRY(cudaSetDevice(1));
  {
    presets::scatter heap(std::size_t{4} << 20);
    DEVALLOC_CUDA_TRY(cudaSetDevice(0));
    EXPECT_EQ(heap.device(), 1);
    const std::size_t slots = heap.getAvailableSlots(64);
    EXPECT_GT(slots, 0u);
    heap.reset();
    EXPECT_EQ(heap.stats().failed_allocations, 0u);
    EXPECT_EQ(detail::backend::current_device(), 0) << "a host operation left its device current";
  }
  EXPECT_EQ(detail::backend::current_device(), 0);
#else
  GTEST_SKIP() << "CPU backend: one device";
#endif
}

#if DEVALLOC_BACKEND_CUDA
// One allocation of 16..1024 B per worker, written with its index; the pointer is kept.
__global__ void alloc_and_keep(presets::scatter::handle_type heap, std::size_t workers, std::uintptr_t* out)
{
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= workers) { return; }
  const std::size_t words = 2 + i % 127;
  auto* p = static_cast<std::size_t*>(heap.alloc(words * sizeof(std::size_t)));
  if (p != nullptr) {
    for (std::size_t w = 0; w < words; ++w) { p[w] = i * 131 + w; }
  }
  out[i] = reinterpret_cast<std::uintptr_t>(p);
}

// Reads back what alloc_and_keep wrote (another kernel, later), counts the intact ones, frees.
__global__ void verify_and_free(presets::scatter::handle_type heap, std::size_t workers, const std::uintptr_t* in,
                                unsigned long long* good)
{
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= workers || in[i] == 0) { return; }
  auto* p = reinterpret_cast<std::size_t*>(in[i]);
  const std::size_t words = 2 + i % 127;
  bool ok = true;
  for (std::size_t w = 0; w < words; ++w) { ok = ok && p[w] == i * 131 + w; }
  if (ok) { atomicAdd(good, 1ull); }
  heap.dealloc(p);
}
#endif

// Issue 16: one process, a heap on every device, each with its own stream; the kernels of all
// devices are queued before any is waited for, so they allocate at the same time. Each device's
// memory comes from its own heap (the pointers belong to that device), arrives intact, and every
// heap is whole again after its frees.
TEST(HostApi, HeapsOnEveryDeviceAllocateAtOnce)
{
#if DEVALLOC_BACKEND_CUDA
  int devices = 0;
  DEVALLOC_CUDA_TRY(cudaGetDeviceCount(&devices));
  if (devices < 2) { GTEST_SKIP() << "needs 2 or more GPUs (one heap per device), found " << devices; }
  constexpr std::size_t workers = std::size_t{1} << 18;
  constexpr unsigned block = 256;
  constexpr unsigned grid = static_cast<unsigned>((workers + block - 1) / block);
  struct per_device {
    raw_stream stream;
    std::unique_ptr<presets::scatter> heap;
    std::unique_ptr<buffer<std::uintptr_t>> pointers;
    std::unique_ptr<buffer<unsigned long long>> good;
    std::size_t slots_before = 0;
  };
  std::vector<std::unique_ptr<per_device>> d(static_cast<std::size_t>(devices));
  for (int k = 0; k < devices; ++k) {
    DEVALLOC_CUDA_TRY(cudaSetDevice(k));
    auto& x = d[static_cast<std::size_t>(k)];
    x = std::make_unique<per_device>();
    x->heap = std::make_unique<presets::scatter>(std::size_t{512} << 20, stream_ref{x->stream.value});
    x->pointers = std::make_unique<buffer<std::uintptr_t>>(workers);
    x->good = std::make_unique<buffer<unsigned long long>>(1);
    x->slots_before = x->heap->getAvailableSlots(64);
    EXPECT_EQ(x->heap->device(), k);
  }
  for (int round = 0; round < 3; ++round) {
    for (int k = 0; k < devices; ++k) {
      DEVALLOC_CUDA_TRY(cudaSetDevice(k));
      auto& x = *d[static_cast<std::size_t>(k)];
      x.good->zero();
      alloc_and_keep<<<grid, block, 0, x.stream.value>>>(x.heap->handle(), workers, x.pointers->data());
      DEVALLOC_CUDA_TRY(cudaGetLastError());
    }
    for (int k = 0; k < devices; ++k) {
      DEVALLOC_CUDA_TRY(cudaSetDevice(k));
      auto& x = *d[static_cast<std::size_t>(k)];
      verify_and_free<<<grid, block, 0, x.stream.value>>>(x.heap->handle(), workers, x.pointers->data(),
                                                          x.good->data());
      DEVALLOC_CUDA_TRY(cudaGetLastError());
    }
    for (int k = 0; k < devices; ++k) {
      DEVALLOC_CUDA_TRY(cudaSetDevice(k));
      auto& x = *d[static_cast<std::size_t>(k)];
      DEVALLOC_CUDA_TRY(cudaStreamSynchronize(x.stream.value));
      EXPECT_EQ(x.good->get(0), workers) << "device " << k << ", round " << round;
      // The pointers (freed by now, their values still readable) were this device's memory.
      const std::vector<std::uintptr_t> p = x.pointers->to_host();
      for (std::size_t i = 0; i < workers; i += workers / 8) {
        cudaPointerAttributes attr{};
        DEVALLOC_CUDA_TRY(cudaPointerGetAttributes(&attr, reinterpret_cast<void*>(p[i])));
        EXPECT_EQ(attr.device, k) << "worker " << i << " of device " << k << " got another device's memory";
      }
      EXPECT_EQ(x.heap->stats().failed_allocations, 0u) << "device " << k;
      EXPECT_EQ(x.heap->getAvailableSlots(64), x.slots_before) << "device " << k << ": memory lost";
    }
  }
  DEVALLOC_CUDA_TRY(cudaSetDevice(0));
#else
  GTEST_SKIP() << "CPU backend: one device";
#endif
}

TEST(HostApiDeathTest, TrapStopsTheProgramWithAMessage)
{
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(exhaust_trap_allocator(), "out of memory");
}

}  // namespace
}  // namespace devalloc::testing
