#!/usr/bin/env bash
# Session 38: the GPU tests of DEVALLOC_COMMIT in priority order within DEADLINE seconds: every
# suite plain first (Runs, Scatter with its Runs configurations, conformance, the others), then
# compute-sanitizer (memcheck of the Runs and Scatter_Runs factories and of Scatter's Runs
# configurations, synccheck of the Scatter suite and of conformance's concurrent cases, memcheck of
# the Scatter suite less its churns), then plain-kernel measurements if time is left.
set -u
s0=$(date +%s)
el() { echo $(($(date +%s) - s0)); }
DEADLINE=${DEADLINE:-300}
nvidia-smi -L > $OUT/gpu.txt
bin=/tmp/t; L=$OUT/tests; rm -rf $bin; mkdir -p $bin $L; tar -xJf .deps/s48/tests.tar.xz -C $bin
{ nvidia-smi -L; date -u; echo "commit ${DEVALLOC_COMMIT:-?}"; } | tee $L/gpus.txt
sum() { grep -E "^\[  (PASSED|FAILED|SKIPPED) +\]|tests? ran|Failure|Which is|ERROR SUMMARY" "$1" | head -6 | cut -c1-200; }
run() { # NAME LIMIT CMD...
  local n=$1 t=$2; shift 2; local s=$(date +%s)
  [ $(el) -ge $DEADLINE ] && { echo "== $n skipped (deadline)"; return; }
  [ $(( $(el) + t )) -gt $DEADLINE ] && t=$(( DEADLINE - $(el) ))
  timeout $t "$@" --gtest_brief=1 > $L/$n.log 2>&1; echo "== $n rc=$? $(($(date +%s) - s))s (at $(el)s)"; sum $L/$n.log
}
S=compute-sanitizer
run test-runs_cuda 30 $bin/devalloc_runs_cuda
run test-scatter_tests_cuda 90 $bin/devalloc_scatter_tests_cuda
run conformance-all 120 $bin/devalloc_conformance_cuda
for b in fdg coalesce scatter_override circular lists; do run test-${b}_cuda 40 $bin/devalloc_${b}_cuda; done
run memcheck-runs 90 $S --tool memcheck --print-limit 10 $bin/devalloc_conformance_cuda --gtest_filter='*Runs*'
run memcheck-scatter-runs 90 $S --tool memcheck --print-limit 10 $bin/devalloc_scatter_tests_cuda --gtest_filter='ScatterEach/Runs*:ScatterProtocol.RunsOfUnits*:-*RandomChurn*'
run synccheck-scatter 40 $S --tool synccheck --print-limit 10 $bin/devalloc_scatter_tests_cuda
run synccheck-conformance 60 $S --tool synccheck --print-limit 10 $bin/devalloc_conformance_cuda --gtest_filter='*Concurrent*:*Churn*:*Divergent*:-*DeviceMalloc*:*FDG*'
run memcheck-runs-tests 40 $S --tool memcheck --print-limit 10 $bin/devalloc_runs_cuda
run memcheck-scatter 120 $S --tool memcheck --print-limit 10 $bin/devalloc_scatter_tests_cuda --gtest_filter='-*RandomChurn*'
echo "tests done at $(el)s"
(cd $OUT && tar czf test-logs.tgz tests && rm -rf tests)
if [ $(( $(el) + 30 )) -lt $DEADLINE ]; then
  m1=/tmp/m1; m2=/tmp/m2; rm -rf $m1 $m2; mkdir -p $m1 $m2
  tar -xJf .deps/s48/meas.tar.xz -C $m1; tar -xJf .deps/s48/meas2.tar.xz -C $m2
  for r in "1048576 16 4096" "1048576 4096 4096" "1048576 16 256" "131072 16 256" "1048576 512 8192" "131072 16 4096" "1048576 2049 4096" "1048576 16 16" "1048576 256 256"; do
    [ $(( $(el) + 8 )) -ge $DEADLINE ] && break
    for v in m2/pk-main m1/pk-runs m2/pk-runs; do
      PLAIN_TOUCH=1 timeout 15 /tmp/$v $r 8192 11 2>&1 | tail -1 | sed "s|^|$v $r: |"
    done
  done > $OUT/plain.log
  sed 's/touched, threads [0-9]*, sizes [0-9-]* B, heap 8192 MiB, 11 reps: //' $OUT/plain.log | cut -c1-150
fi
if [ $(( $(el) + 15 )) -lt $DEADLINE ]; then
  for cell in "131072 0.8" "131072 0.9" "131072 0.8 4096 4096" "131072 0.9 4096 4096" "1048576 0.9"; do
    [ $(( $(el) + 5 )) -ge $DEADLINE ] && break
    for v in m2/fa-main m1/fa-runs m2/fa-runs; do echo "== $v $cell"; timeout 10 /tmp/$v $cell 2>&1; done
  done > $OUT/fill-anatomy.log
  grep -E "^== |of the requests failed|first alloc start" $OUT/fill-anatomy.log | sed 's/threads x.*span_pages 1: //; s/launch .* first alloc start to last end/launch/' | paste - - - | cut -c1-150
fi
echo "all done at $(el)s"
