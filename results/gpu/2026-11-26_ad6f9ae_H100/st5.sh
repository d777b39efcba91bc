# Shrink<256> alignment test + ScatterFragmentation, round-robin over variants of the shared directory scan (see the session's notes)
N=${N:-60}
mkdir -p /tmp/st && tar -xJf .deps/gpuc/st5.tar.xz -C /tmp/st
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
V=$(cd /tmp/st && ls scatter.* | sed 's/scatter\.//' | tr '\n' ' ')
declare -A fails; for v in $V; do fails[$v]=0; done
s=$(date +%s)
for i in $(seq $N); do
  for v in $V; do
    /tmp/st/scatter.$v --gtest_brief=1 --gtest_filter="ScatterFailureClasses.PointersKeepTheirAlignment:ScatterFragmentation.*" > /tmp/st/run.log 2>&1 || { fails[$v]=$((fails[$v]+1)); echo "$v run $i: $(grep -E "Which is: [1-9]" /tmp/st/run.log | head -3 | tr -s ' ' | tr '\n' ' ') $(grep -E "^alignment|FAILED  \]" /tmp/st/run.log | head -4 | tr '\n' ' ')"; }
  done
  [ $(( $(date +%s) - s )) -gt ${BUDGET:-240} ] && { echo "stopped after $i rounds (time)"; N=$i; break; }
done
for v in $V; do echo "== $v: ${fails[$v]} of $N runs failed"; done
