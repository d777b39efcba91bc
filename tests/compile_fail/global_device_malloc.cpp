// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// tests/compile_fail/global_device_malloc.cpp — must compile: the global allocator may be one whose
// creation policy provides no getAvailableSlots (only calling it is an error).
#include <devalloc/global.hpp>

DEVALLOC_SET_ALLOCATOR_TYPE(devalloc::presets::device_malloc)

int main() { return devalloc::global::providesAvailableSlots() ? 1 : 0; }
