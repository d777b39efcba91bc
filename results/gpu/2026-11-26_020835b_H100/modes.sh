# A/B/C/D of the lost-install follow (minimal probes, default config): v0 = before (one lane, < 8 chunks a page),
# v1 = every share, waiting for an unopened page; v2 = every share, not waiting; v3 = every share only while the map is dense.
set -u
mkdir -p /tmp/v && tar -xJf .deps/gpuc/modes.tar.xz -C /tmp/v
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
export PROBE_RESET=1
{
for rep in 1 2; do for v in ${VARIANTS:-0 1 2 3}; do P=/tmp/v/pv$v/devalloc-scatter-probe
echo "##### v$v run $rep"
echo "### tput $($P tput 1048576 1 | grep default)"
for r in "131072 16 4096" "1048576 16 4096" "1048576 16 256" "1048576 512 8192" "131072 16 256"; do set -- $r; echo "### mix $1 $2-$3 $($P mix $1 1 3 $2 $3 | grep default)"; done
for c in "75157120 16 256 f25" "37578560 16 256 f50" "23486608 16 256 f80" "20876992 16 256 f90" "540868000 16 4096 f50" "8388608 16 16 f25" "4194304 16 16 f50" "2621440 16 16 f80" "2330176 16 16 f90" "596523248 4096 4096 f90" "37282704 256 256 f90" "41943040 256 256 f80"; do
  set -- $c; echo "### fill $4 $2-$3 $(PROBE_HEAP=$1 timeout 60 $P mix 131072 1 3 $2 $3 | grep default)"; done
echo "### simd 64B $(PROBE_SIMD_ONLY=1 $P tput 65536 1 3 64 64 | grep simd) $(PROBE_SIMD_ONLY=1 $P tput 262144 1 3 64 64 | grep simd) $(PROBE_SIMD_ONLY=1 $P tput 1048576 1 3 64 64 | grep simd)"
echo "### prob $(timeout 60 $P 65536 20 3 16 256 | grep default | cut -c1-120)"
echo "### census $($P census 16384 1 2 4 1500 | grep default)"
done; done
} > $OUT/modes.log 2>&1
grep -E "#####|### " $OUT/modes.log | sed -e 's/\[!! \([0-9]*\) failed 0 corrupt\]/[F\1]/g' -e 's/default *|//' -e 's/ free *[0-9.]*G//g' | cut -c1-200
