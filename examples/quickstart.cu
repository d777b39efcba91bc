// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// examples/quickstart.cu — the README's usage example: per-thread lists whose length is known
// only inside the kernel, allocated from a devalloc heap.
#include <cstdio>

#include <devalloc/devalloc.hpp>

using Heap = devalloc::presets::bump;  // pick any allocator: presets, or your own policy mix

__global__ void build_lists(Heap::handle_type heap, int** lists, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) { return; }
  const int length = 1 + (i * 7) % 64;  // known only here
  int* list = static_cast<int*>(heap.alloc(length * sizeof(int)));
  if (list == nullptr) { return; }  // out of memory (OOM policy ReturnNull)
  for (int k = 0; k < length; ++k) { list[k] = i + k; }
  lists[i] = list;
}

int main()
{
  cudaStream_t stream{};
  DEVALLOC_CUDA_TRY(cudaStreamCreate(&stream));
  {
    Heap heap(std::size_t{256} << 20, stream);  // 256 MiB pool on the GPU, built on `stream`
    const int n = 1 << 20;
    devalloc::buffer<int*> lists(n);
    build_lists<<<(n + 255) / 256, 256, 0, stream>>>(heap.handle(), lists.data(), n);
    DEVALLOC_CUDA_TRY(cudaGetLastError());
    // stats() runs on the heap's stream and waits for that stream only (not the whole device).
    std::printf("%s\nfailed allocations: %llu\n", Heap::info().c_str(), heap.stats().failed_allocations);
  }  // the heap is released in stream order on `stream`
  DEVALLOC_CUDA_TRY(cudaStreamDestroy(stream));
}
