// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/detail/scatter_pagesize.hpp — the one default of the page size shared by
// creation::Scatter and distribution::XMallocSIMD (their configurations must agree; see the
// policy_check in xmalloc_simd.hpp). Override with -DDEVALLOC_SCATTER_PAGESIZE=<bytes>.
#pragma once

#ifndef DEVALLOC_SCATTER_PAGESIZE
#define DEVALLOC_SCATTER_PAGESIZE 4096
#endif
