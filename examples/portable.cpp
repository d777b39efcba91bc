// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// examples/portable.cpp — one worker function for both backends through devalloc::launch:
// compiled by g++ it runs on CPU threads, compiled by nvcc (as a .cu) on the GPU.
#include <cstdio>

#include <devalloc/devalloc.hpp>

int run()
{
  using Heap = devalloc::presets::bump;
  Heap heap(std::size_t{16} << 20);
  auto handle = heap.handle();
  constexpr std::size_t workers = 10000;
  devalloc::buffer<unsigned long long> sums(workers);
  unsigned long long* out = sums.data();

  devalloc::launch(workers, [=] DEVALLOC_DEVICE(std::size_t i) {
    const std::size_t length = 1 + i % 100;
    auto* values = static_cast<unsigned long long*>(handle.alloc(length * sizeof(unsigned long long)));
    if (values == nullptr) { return; }
    for (std::size_t k = 0; k < length; ++k) { values[k] = k; }
    unsigned long long sum = 0;
    for (std::size_t k = 0; k < length; ++k) { sum += values[k]; }
    out[i] = sum;
    handle.dealloc(values);
  });

  std::size_t wrong = 0;
  const auto host = sums.to_host();
  for (std::size_t i = 0; i < workers; ++i) {
    const unsigned long long length = 1 + i % 100;
    wrong += host[i] != length * (length - 1) / 2;
  }
  std::printf("backend %s on %s: %zu workers, %zu wrong sums, %llu failed allocations\n", devalloc::backend_name(),
              devalloc::detail::backend::device_name().c_str(), workers, wrong, heap.stats().failed_allocations);
  return wrong == 0 ? 0 : 1;
}

int main()
{
  try {
    return run();
  } catch (const devalloc::error& e) {  // e.g. no GPU for the CUDA build, or a heap that does not fit
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
}
