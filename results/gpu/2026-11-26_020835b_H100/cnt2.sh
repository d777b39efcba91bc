# counts old vs new: mix 2^20 16-256 (roomy), simd 64 B 2^18, fill f25 16-256
set -u
mkdir -p /tmp/pn /tmp/po && tar -xJf .deps/gpuc/pc-new.tar.xz -C /tmp/pn && tar -xJf .deps/gpuc/pc-old.tar.xz -C /tmp/po
export PROBE_DEFAULT_ONLY=1 PROBE_RESET=1
for v in po pn; do C=/tmp/$v/devalloc-scatter-probe-counts
echo "##### $v"
echo "### mix 2^20 16-256"; $C mix 1048576 1 3 16 256 | grep -E "rep 5|default"
echo "### mix 2^20 16-256 no reset"; PROBE_RESET= $C mix 1048576 1 3 16 256 | grep -E "rep 5|default"
echo "### simd 2^18 64"; PROBE_SIMD_ONLY=1 $C tput 262144 1 3 64 64 | grep -E "rep [1-5]|simd"
echo "### fill f25 16-256"; PROBE_HEAP=75157120 $C mix 131072 1 3 16 256 | grep -E "rep 5|default"
done > $OUT/cnt2.log 2>&1
cut -c1-700 $OUT/cnt2.log
