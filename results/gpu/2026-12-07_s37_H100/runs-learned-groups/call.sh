#!/usr/bin/env bash
# Prepared in session 36 for the next: creation::Runs as landed (main) against the learned-groups
# variant (ff: docs/notes/variants/2026-12-07_s36-runs-learned-groups.diff), same call, H100.
# carry [".deps/s46"]; about 90 s. Then, if ff wins the tight cells without costing the roomy
# ones: build devalloc_runs_cuda and devalloc_conformance_cuda with the diff applied and run them
# (and memcheck of *Runs*) before landing it.
set -u
nvidia-smi -L > $OUT/gpu.txt
for r in "16 4096" "2049 4096" "512 8192" "256 256"; do
  for v in main ff; do
    PLAIN_TOUCH=1 timeout 60 .deps/s46/pk-runs-$v 1048576 $r 8192 11 2>&1 | tail -1 | sed "s/^/$v /"
  done
done > $OUT/plain.log
cat $OUT/plain.log
for f in 0.8 0.9; do
  for cell in "131072 16 4096" "131072 512 8192" "1048576 16 4096"; do
    for v in main ff; do
      echo "== $v fill $f $cell"; UNIT_FILL=$f timeout 120 .deps/s46/ur-$v $cell 1 256 3 2>&1 | grep "^runs "
    done
  done
done > $OUT/tight.log
cat $OUT/tight.log
# The variant's GPU tests (built from 502da9f with the diff applied: devalloc_runs_cuda and
# devalloc_conformance_cuda in tests-ff.tar.xz).
mkdir -p /tmp/fft && tar -xJf .deps/s46/tests-ff.tar.xz -C /tmp/fft
timeout 60 /tmp/fft/devalloc_runs_cuda > $OUT/runs-tests-ff.log 2>&1; echo "== devalloc_runs_cuda (ff) rc=$?"
timeout 120 /tmp/fft/devalloc_conformance_cuda --gtest_filter='*Runs*' > $OUT/conformance-runs-ff.log 2>&1; echo "== conformance Runs (ff) rc=$?"
grep -E "^\[  (PASSED|FAILED)" $OUT/runs-tests-ff.log $OUT/conformance-runs-ff.log
timeout 150 compute-sanitizer --tool memcheck --print-limit 10 /tmp/fft/devalloc_conformance_cuda --gtest_filter='*Runs*' --gtest_brief=1 > $OUT/memcheck-runs-ff.log 2>&1
echo "== memcheck Runs (ff) rc=$?"; grep -E "ERROR SUMMARY" $OUT/memcheck-runs-ff.log
