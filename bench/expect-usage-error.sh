#!/bin/sh
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 the devalloc authors
# bench/expect-usage-error.sh BINARY ARGS... — passes iff BINARY ARGS exits with status 2 (usage
# error) and prints the usage text: bad arguments must never crash or start a run.
bin=$1
shift
out=$("$bin" "$@" 2>&1)
status=$?
printf '%s\n' "$out" | head -3
[ "$status" -eq 2 ] || { echo "expected exit status 2, got $status"; exit 1; }
printf '%s\n' "$out" | grep -q '^usage: devalloc-bench' || { echo "no usage text"; exit 1; }
