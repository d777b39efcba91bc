// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// tests/mixed/cpu_handle_in_kernel.cu — must NOT compile: a handle of the CPU backend passed to a
// CUDA kernel. (DEVALLOC_FORCE_CPU_BACKEND gives an nvcc translation unit the CPU backend, as a
// .cpp file has; its handle's alloc() is host code, which a kernel cannot call.)
#define DEVALLOC_FORCE_CPU_BACKEND
#include <devalloc/devalloc.hpp>

__global__ void kernel(devalloc::backend_cpu::presets::bump::handle_type heap) { (void)heap.alloc(16); }

int main() { return 0; }
