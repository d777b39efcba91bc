// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/devalloc.hpp — everything: the host class, the launch helper, every policy and the presets.
#pragma once

#include "allocator.hpp"
#include "buffer.hpp"
#include "launch.hpp"
#include "presets.hpp"
