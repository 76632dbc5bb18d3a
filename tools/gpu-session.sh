#!/bin/bash
# tools/gpu-session.sh: what we run on a lent GPU, in one go.
#
# Build and install here first into the ignored .stage folder
# (./configure --prefix=$PWD/.stage && make install), copy in what the GPU
# host lacks (libunwind.so.8, libdw.so.1, libelf.so.1 into .stage/lib) and
# the developer pieces (.stage/dev), then run this there with .stage carried.
# Everything it prints also goes to $OUT/session.log; reports and logs go
# to $OUT/results.tgz.
#
#   tools/gpu-session.sh [STEP...]     steps: env selftest apps stress python
#                                      dlopen redirect-out bench-launch
#                                      bench-torch bench-redirect (default: all)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
stage=${STAGE:-$root/.stage}
out=${OUT:-/tmp/gpu-out}
res=$(mktemp -d)
mkdir -p "$out"
export PATH=$stage/bin:$PATH PYTHONUNBUFFERED=1
apps=$stage/libexec/streamcheck/testapps
dev=$stage/dev
steps=${*:-env selftest apps stress python dlopen redirect-out bench-launch bench-torch bench-redirect}
t0=$(date +%s)
step() { echo; echo "=== $* ($(( $(date +%s) - t0 )) s)"; }

run_steps() {
for s in $steps; do case $s in
env)
    step env
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
    python3 -c 'import sys, torch; print(sys.version.split()[0], "torch", torch.__version__, torch.version.cuda)'
    python3 -c 'import cupy; print("cupy", cupy.__version__)'
    ldd "$stage/lib/libstreamcheck.so"
    streamcheck --version ;;
selftest)
    step selftest
    streamcheck --selftest ;;
apps)
    step "default_stream, shared and static cudart"
    mkdir -p "$res/apps"
    for a in default_stream default_stream_static default_stream_fixed multithread_default_stream_pt cublas_default_stream; do
        streamcheck --format=json,text --output="$res/apps" -- "$apps/$a" >"$res/apps/$a.out" 2>"$res/apps/$a.err"
        echo "$a: exit $?, $(tail -n 1 "$res/apps/$a.err")"
    done
    sed -n '/Call sites/,$p' "$res/apps/default_stream_static.err" | head -40
    for a in default_stream default_stream_static; do
        streamcheck report --expect "$apps/default_stream.expect" "$res/apps/$a".*.json
    done ;;
stress)
    step "stress_mixed: 32 threads x 100000 calls"
    mkdir -p "$res/stress"
    CUDA_DEVICE_MAX_CONNECTIONS=32 streamcheck --format=json --output="$res/stress" -- "$apps/stress_mixed"
    streamcheck report --expect "$apps/stress_mixed.expect" "$res"/stress/*.json ;;
python)
    step "PyTorch seed 004 pipeline, pageable inputs"
    mkdir -p "$res/py"
    streamcheck --format=json,text --output="$res/py" -- python3 "$dev/python/seed004_pipeline.py" --pageable >"$res/py/seed004.out" 2>"$res/py/seed004.err"
    echo "exit $?"; cat "$res/py/seed004.out"; grep -E "seed004_pipeline:|SC[0-9]{3}|\.py:[0-9]+|^streamcheck:" "$res/py/seed004.err" | head -40
    step "CuPy"
    streamcheck --format=json,text --output="$res/py" -- python3 "$dev/python/cupy_streams.py" >"$res/py/cupy.out" 2>"$res/py/cupy.err"
    echo "exit $?"; cat "$res/py/cupy.out"; grep -E "SC[0-9]{3}|^streamcheck:" "$res/py/cupy.err" | head -20
    python3 - "$res/py" <<'PYEOF'
import glob, json, sys
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    d = json.load(open(f))
    print(f.rsplit("/", 1)[1])
    for lib, apis in sorted(d.get("api_counts_by_library", {}).items()):
        top = sorted(apis.items(), key=lambda kv: -kv[1])[:6]
        print("   %-40s %s" % (lib, ", ".join("%s=%d" % kv for kv in top)))
PYEOF
    ;;
dlopen)
    step "late dlopen of the runtime, global and local"
    for m in global local; do
        mkdir -p "$res/dlopen-$m"
        streamcheck --format=json --output="$res/dlopen-$m" -- "$dev/late_dlopen" "$dev/libscdlopen.so" $m
        streamcheck report --expect "$dev/dlopen_helper.expect" "$res/dlopen-$m"/*.json
        grep -c '"api": "cudaLaunchHostFunc"' "$res/dlopen-$m"/*.json
    done ;;
redirect-out)
    step "identical outputs with redirect: PyTorch seed 004, cuBLAS, graph capture"
    python3 "$dev/python/seed004_pipeline.py" >"$res/p.out" 2>/dev/null
    streamcheck --redirect=per-thread --format=json --output="$res" -- python3 "$dev/python/seed004_pipeline.py" >"$res/r.out" 2>"$res/r.err"
    cmp "$res/p.out" "$res/r.out" && echo "seed004: identical ($(cat "$res/p.out"))"
    for a in cublas_default_stream graph_capture multithread_default_stream; do
        "$apps/$a" >"$res/p.out" 2>/dev/null
        streamcheck --redirect=per-thread --format=json --output="$res" -- "$apps/$a" >"$res/r.out" 2>"$res/r.err"
        cmp "$res/p.out" "$res/r.out" && echo "$a: identical ($(head -n 1 "$res/p.out"))"
        grep -A3 "Redirect" "$res/r.err" | head -8
    done ;;
bench-launch)
    step "launch overhead (empty kernel), native vs streamcheck"
    for m in stream legacy; do
        STREAMCHECK=streamcheck "$dev/side-by-side.sh" "launch_overhead $m" launches_per_sec 7 -- "$dev/launch_overhead" $m 200000
    done ;;
bench-torch)
    step "PyTorch MLP step, native vs streamcheck"
    "$dev/side-by-side.sh" "torch MLP step" steps_per_sec 5 -- python3 "$dev/torch_step.py" 2000 ;;
bench-redirect)
    step "redirect vs recompile"
    TESTAPPS=$apps "$dev/redirect.sh" 5 5 10 4 8 16 ;;
*) echo "unknown step $s" ;;
esac; done
step done
}

run_steps 2>&1 | tee "$out/session.log"
tar -C "$res" -czf "$out/results.tgz" . 2>/dev/null
rm -rf "$res"
