# A/B: probe of eebcebf/a9c0312 (new: a lost install follows the slot in every class) vs 020835b (old), alternating, default config;
# then counts of the new one on small fills; then the Shrink<256> alignment failure rate (st5 style) base vs follow.
set -u
mkdir -p /tmp/pn /tmp/po && tar -xJf .deps/gpuc/probe.tar.xz -C /tmp/pn && tar -xJf .deps/gpuc/probe-old.tar.xz -C /tmp/po
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
export PROBE_DEFAULT_ONLY=1 PROBE_RESET=1
{
for rep in 1 2; do for v in po pn; do P=/tmp/$v/devalloc-scatter-probe
echo "##### $v run $rep"
$P tput 1048576 1 | grep default
for r in "131072 16 4096" "1048576 16 4096" "1048576 16 256" "1048576 512 8192" "131072 16 256"; do set -- $r; echo "### mix $1 $2-$3 $($P mix $1 1 3 $2 $3 | grep default)"; done
for c in "75157120 16 256 f25" "37578560 16 256 f50" "23486608 16 256 f80" "20876992 16 256 f90" "540868000 16 4096 f50" "4194304 16 16 f50" "2621440 16 16 f80" "2330176 16 16 f90" "596523248 4096 4096 f90" "37282704 256 256 f90" "41943040 256 256 f80"; do
  set -- $c; echo "### fill $4 $2-$3 $(PROBE_HEAP=$1 timeout 60 $P mix 131072 1 3 $2 $3 | grep default)"; done
echo "### simd 64B $(PROBE_SIMD_ONLY=1 $P tput 65536 1 3 64 64 | grep simd) $(PROBE_SIMD_ONLY=1 $P tput 262144 1 3 64 64 | grep simd) $(PROBE_SIMD_ONLY=1 $P tput 1048576 1 3 64 64 | grep simd)"
echo "### prob $(timeout 60 $P 65536 20 3 16 256 | grep default | cut -c1-120)"
echo "### census $($P census 16384 1 2 4 1500 | grep default)"
done; done
} > $OUT/follow-ab.log 2>&1
grep -E "#####|### " $OUT/follow-ab.log | sed -e 's/\[!! \([0-9]*\) failed 0 corrupt\]/[F\1]/g' | cut -c1-200
{
for c in "23486608 16 256 f80" "2330176 16 16 f90"; do set -- $c; echo "### counts new fill $4 $2-$3"; PROBE_HEAP=$1 timeout 60 /tmp/pn/devalloc-scatter-probe-counts mix 131072 1 3 $2 $3; done
} > $OUT/counts-new.log 2>&1
grep -E "###|rep 5" $OUT/counts-new.log | cut -c1-500
[ -f .deps/gpuc/st5.tar.xz ] && N=${N:-30} BUDGET=${BUDGET:-150} bash .deps/gpuc/st5.sh > $OUT/st-follow.log 2>&1; tail -6 $OUT/st-follow.log
