// Circular family A/B: the same kernels compiled against two include trees (old / new).
#include <devalloc/devalloc.hpp>
#include <algorithm>
#include <cstdio>
#include <vector>
using namespace devalloc;
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA error %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1); } } while (0)
template <class H>
__global__ void allocfree(typename H::handle_type heap, int n, unsigned sizes, unsigned* bad)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned bytes = sizes == 0 ? 16u : 16u + (static_cast<unsigned>(i) * 2654435761u >> 7) % sizes;
  unsigned* p = static_cast<unsigned*>(heap.alloc(bytes));
  if (p == nullptr) { atomicAdd(bad, 1u); return; }
  p[0] = i; p[bytes / 4 - 1] = i;
  if (p[0] != (unsigned)i) atomicAdd(bad + 1, 1u);
  heap.dealloc(p);
}
template <class H>
__global__ void __maxnreg__(24) capped(typename H::handle_type heap, std::size_t bytes, unsigned* sink)
{
  void* p = heap.alloc(bytes);
  if (p == nullptr) { atomicAdd(sink, 1u); }
  heap.dealloc(p);
}
template <class H>
void run(const char* name)
{
  cudaFuncAttributes a{};
  CK(cudaFuncGetAttributes(&a, reinterpret_cast<const void*>(&capped<H>)));
  printf("%s capped24: regs %d local %zu\n", name, a.numRegs, (size_t)a.localSizeBytes);
  unsigned* bad; CK(cudaMalloc(&bad, 8));
  for (unsigned sizes : {0u, 240u, 4080u}) {
    for (int n : {1 << 14, 1 << 16, 1 << 18}) {
      H heap(std::size_t{1} << 30);
      CK(cudaMemset(bad, 0, 8));
      cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
      std::vector<float> ms;
      for (int r = 0; r < 9; ++r) {
        CK(cudaEventRecord(e0));
        allocfree<H><<<(n + 255) / 256, 256>>>(heap.handle(), n, sizes, bad);
        CK(cudaGetLastError());
        CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
        float t; CK(cudaEventElapsedTime(&t, e0, e1)); ms.push_back(t);
      }
      std::sort(ms.begin(), ms.end());
      unsigned h[2]; CK(cudaMemcpy(h, bad, 8, cudaMemcpyDeviceToHost));
      printf("%s sizes 16-%u n %d: median %.4f ms (min %.4f) = %.3f M allocs/s; failed %u corrupt %u\n", name, 16 + (sizes ? sizes - 1 : 0), n,
             ms[4], ms[0], n / ms[4] / 1e3, h[0], h[1]);
      CK(cudaEventDestroy(e0)); CK(cudaEventDestroy(e1));
    }
  }
  CK(cudaFree(bad));
}
int main()
{
  run<presets::circular>("circular");
  run<presets::circular_fused>("circular_fused");
  run<presets::circular_multi>("circular_multi");
  run<presets::circular_fused_multi>("circular_fused_multi");
  return 0;
}
