// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// tests/mixed/main.cpp — one program of .cpp (g++) and .cu (nvcc) files that all use devalloc, as a
// CUDA application usually is. Each part must get its own backend's and its own configuration's
// code: the CPU parts allocate from host memory and verify every allocation; the CUDA part runs on
// the GPU when there is one, and otherwise fails with devalloc's "no CUDA device" error (it must
// never run the CPU backend's code, which would silently hand host memory to kernels).
#include <cstdio>
#include <string>

#include "mixed_parts.hpp"

namespace {
int failures = 0;
int passes = 0;

void check(bool ok, const std::string& what)
{
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", what.c_str());
  (ok ? passes : failures) += 1;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
}  // namespace

int main()
{
  const std::size_t workers = 4096;

  const part_report cpu = cpu_part(workers);
  check(cpu.error.empty(), "CPU part ran (" + cpu.error + ")");
  check(cpu.backend == "cpu", "CPU part reports the cpu backend, got " + cpu.backend);
  check(cpu.verified == workers,
        "CPU part verified " + std::to_string(cpu.verified) + " of " + std::to_string(workers));
  check(contains(cpu.info, "pagesize=4096"), "CPU part has the default page size: " + cpu.info);

  const part_report small = cpu_part_small_pages(workers);
  check(small.error.empty(), "1 KiB-page part ran (" + small.error + ")");
  check(small.verified == workers, "1 KiB-page part verified " + std::to_string(small.verified));
  check(contains(small.info, "pagesize=1024"), "1 KiB-page part has its own page size: " + small.info);

  const part_report gpu = cuda_part(workers);
  check(gpu.backend == "cuda", "CUDA part reports the cuda backend, got " + gpu.backend);
  check(contains(gpu.info, "CudaMalloc") && !contains(gpu.info, "host memory"),
        "CUDA part's pool policy is the CUDA one: " + gpu.info);
  if (gpu.error.empty()) {
    check(gpu.verified == workers, "CUDA part verified " + std::to_string(gpu.verified) + " on the GPU");
  } else {
    check(contains(gpu.error, "no CUDA device"), "without a GPU the CUDA part fails cleanly: " + gpu.error);
  }

  std::printf("%d passed, %d failed\n", passes, failures);
  return failures == 0 ? 0 : 1;
}
