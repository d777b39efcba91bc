# the contested cells, v0/v4/v1 alternating, 3 runs
set -u
mkdir -p /tmp/v && tar -xJf .deps/gpuc/modes.tar.xz -C /tmp/v
export PROBE_RESET=1
{
for rep in 1 2 3; do for v in 0 4 1; do P=/tmp/v/pv$v/devalloc-scatter-probe
echo "##### v$v run $rep"
for r in "131072 16 4096" "131072 16 256"; do set -- $r; echo "### mix $1 $2-$3 $($P mix $1 1 3 $2 $3 | grep default)"; done
for r in "131072 16 4096" "131072 16 256" "1048576 16 4096" "1048576 16 256"; do set -- $r; echo "### mix1G $1 $2-$3 $(PROBE_HEAP=1073741824 $P mix $1 1 3 $2 $3 | grep default)"; done
for c in "75157120 16 256 f25" "37578560 16 256 f50" "1081736000 16 4096 f25"; do
  set -- $c; echo "### fill $4 $2-$3 $(PROBE_HEAP=$1 timeout 60 $P mix 131072 1 3 $2 $3 | grep default)"; done
echo "### prob $(timeout 60 $P 65536 20 3 16 256 | grep default | cut -c1-120)"
done; done
} > $OUT/modes2.log 2>&1
