// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// tests/mixed/cuda_part.cu — compiled by nvcc: the CUDA backend, default configuration.
#include "part_body.hpp"

part_report cuda_part(std::size_t workers) { return run_part(workers); }
