# Shrink<256> alignment test + ScatterFragmentation, N runs each, alternating: base = main (per-lane scan), shared = main + 4e882ca's shared scan
N=${N:-60}
mkdir -p /tmp/st && tar -xJf .deps/gpuc/st4.tar.xz -C /tmp/st
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
declare -A fails=([base]=0 [shared]=0)
s=$(date +%s)
for i in $(seq $N); do
  for v in base shared; do
    /tmp/st/scatter.$v --gtest_brief=1 --gtest_filter="ScatterFailureClasses.PointersKeepTheirAlignment:ScatterFragmentation.*" > /tmp/st/run.log 2>&1 || { fails[$v]=$((fails[$v]+1)); echo "$v run $i: $(grep -E "Which is: [1-9]" /tmp/st/run.log | head -3 | tr -s ' ' | tr '\n' ' ') $(grep -E "^alignment|FAILED  \]" /tmp/st/run.log | head -4 | tr '\n' ' ')"; }
  done
  [ $(( $(date +%s) - s )) -gt ${BUDGET:-240} ] && { echo "stopped after $i rounds (time)"; N=$i; break; }
done
echo "== base: ${fails[base]} of $N runs failed; shared: ${fails[shared]} of $N"
