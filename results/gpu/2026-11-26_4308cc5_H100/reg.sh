# the bench's registers test alone (the quick run's budget skipped the Circular and list cells)
mkdir -p /tmp/b && tar -xJf .deps/gpuc/benchonly.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
/tmp/b/devalloc-bench-cuda --quick --tests registers --out $OUT/reg > $OUT/reg.log 2>&1; echo "rc=$?"
python3 - <<'PY'
import json,os
rs=json.load(open(os.environ['OUT']+'/reg/results.json'))
rs=rs['records'] if isinstance(rs,dict) else rs
for r in rs:
    if r.get('test')=='registers':
        print(f"{r['allocator']:22s} {r.get('variant'):12s} regs {r.get('registers')} cuobjdump {r.get('registers_cuobjdump')} local {r.get('local_bytes')} capped {r.get('registers_capped')} local_capped {r.get('local_bytes_capped')} {r.get('status')}")
PY
