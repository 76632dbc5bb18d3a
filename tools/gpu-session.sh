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
#                                      bench-torch bench-redirect queue
#                                      pyline seeds-peak corpus-samples
#                                      corpus-python corpus-pairs measure (default:
#                                      env .. queue; tools/corpus/README.md)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
stage=${STAGE:-$root/.stage}
out=${OUT:-/tmp/gpu-out}
res=$(mktemp -d)
mkdir -p "$out"
export PATH=$stage/bin:$PATH PYTHONUNBUFFERED=1
apps=$stage/libexec/streamcheck/testapps
dev=$stage/dev
steps=${*:-env selftest apps stress python dlopen redirect-out bench-launch bench-torch bench-redirect queue}
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
    step "identical outputs with redirect (default method, entry, handle): PyTorch seed 004, cuBLAS, graph capture, mixed streams"
    python3 "$dev/python/seed004_pipeline.py" >"$res/p.out" 2>/dev/null
    for m in default entry handle; do
        o=; [ $m = default ] || o=--redirect-method=$m
        streamcheck --redirect=per-thread $o --format=json --output="$res" -- python3 "$dev/python/seed004_pipeline.py" >"$res/r.out" 2>"$res/r.err"
        if cmp -s "$res/p.out" "$res/r.out"; then echo "seed004 ($m): identical ($(cat "$res/p.out"))"; else echo "seed004 ($m): DIFFERENT"; cat "$res/r.out"; fi
    done
    for a in cublas_default_stream graph_capture multithread_default_stream redirect_mixed; do
        "$apps/$a" >"$res/p.out" 2>/dev/null
        echo "$a plain: exit $?"
        for m in default entry handle; do
            o=; [ $m = default ] || o=--redirect-method=$m
            streamcheck --redirect=per-thread $o --format=json,text --output="$res" -- "$apps/$a" >"$res/r.out" 2>"$res/r.err"
            rc=$?
            if cmp -s "$res/p.out" "$res/r.out"; then echo "$a ($m): exit $rc, identical ($(head -n 1 "$res/p.out"))"; else echo "$a ($m): exit $rc, DIFFERENT: $(head -n 1 "$res/r.out")"; grep lost "$res/r.err"; fi
        done
        grep -E "^@ Mode" "$res/r.err"; sed -n '/Redirects/,/^  Redirected/p' "$res/r.err" | head -12
    done ;;
bench-launch)
    step "launch overhead (empty kernel), native vs streamcheck, and vs streamcheck disabled (preloaded, pass-through)"
    # Both variants on the same two cores, so the scheduler moves neither.
    pin=; command -v taskset >/dev/null && pin="taskset -c 2,3"
    for m in stream legacy; do
        STREAMCHECK=streamcheck $pin "$dev/side-by-side.sh" "launch_overhead $m" launches_per_sec ${LAUNCH_REPS:-11} -- "$dev/launch_overhead" $m 300000 15
    done
    STREAMCHECK_DISABLE=1 STREAMCHECK=streamcheck $pin "$dev/side-by-side.sh" "launch_overhead stream, disabled" launches_per_sec ${LAUNCH_REPS:-11} -- "$dev/launch_overhead" stream 300000 15 ;;
bench-torch)
    step "PyTorch MLP step, native vs streamcheck"
    "$dev/side-by-side.sh" "torch MLP step" steps_per_sec 5 -- python3 "$dev/torch_step.py" 2000 ;;
bench-redirect)
    step "redirect vs recompile"
    # shellcheck disable=SC2086
    TESTAPPS=$apps "$dev/redirect.sh" ${REDIRECT_ARGS:-5 5 10 4 8 16} ;;
queue)
    step "hardware queues: 16 threads on 8 connections"
    # Where do 16 busy streams land on the default 8 queues, by how they
    # are made, and does the shim's presence alone (no redirect) change it?
    for m in ptds lazy upfront pool; do
        printf '%-8s' "$m"; for r in 1 2 3; do printf ' %s' "$("$dev/queue_mapping" $m 16 5 10 | sed -n 's/^elapsed_ms=\([0-9.]*\).*/\1/p')"; done; echo
    done
    ms() { sed -n 's/^elapsed_ms=//p' "$1"; }
    for v in pt-native pt-shim redirect-entry redirect-handle plain-shim; do
        printf '%-16s' "$v"
        for r in 1 2 3 4 5; do
            case $v in
            pt-native) "$apps/multithread_default_stream_pt" 16 5 10 >/dev/null 2>"$res/q.err" ;;
            pt-shim) streamcheck --format=json --output="$res" --log-level=quiet -- "$apps/multithread_default_stream_pt" 16 5 10 >/dev/null 2>"$res/q.err" ;;
            redirect-entry) streamcheck --redirect=per-thread --format=json --output="$res" --log-level=quiet -- "$apps/multithread_default_stream" 16 5 10 >/dev/null 2>"$res/q.err" ;;
            redirect-handle) streamcheck --redirect=per-thread --redirect-method=handle --format=json --output="$res" --log-level=quiet -- "$apps/multithread_default_stream" 16 5 10 >/dev/null 2>"$res/q.err" ;;
            plain-shim) STREAMCHECK_DISABLE=1 streamcheck --format=json --output="$res" --log-level=quiet -- "$apps/multithread_default_stream_pt" 16 5 10 >/dev/null 2>"$res/q.err" ;;
            esac
            printf ' %s' "$(ms "$res/q.err")"
        done; echo
    done ;;
pyline)
    step "Python lines in a PyTorch report (GIL released)"
    mkdir -p "$res/pyline"
    streamcheck --format=json,text --output="$res/pyline" -- python3 "$dev/python/seed004_pipeline.py" --pageable >/dev/null 2>"$res/pyline/seed004.err"
    grep -n -A4 -E '^\[(warning|note)\] SC(203|101)' "$res/pyline/seed004.err" | head -40
    python3 - "$res/pyline" <<'PYEOF'
import glob, json, sys
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    d = json.load(open(f))
    sites = {c["id"]: c for c in d.get("callsites", [])}
    for fd in d.get("findings", []):
        py = sites.get(fd.get("callsite"), {}).get("python") or []
        where = "%s:%s in %s" % (py[0]["file"].rsplit("/", 1)[-1], py[0]["line"], py[0]["function"]) if py else "NONE"
        print("%s %-8s %-22s x%-6s python: %s" % (fd["rule"], fd["severity"], fd.get("api"), fd.get("count"), where))
PYEOF
    ;;
seeds-peak)
    step "bench-seeds: the PyTorch pin-peak pair, merged into the earlier run's RESULTS"
    cp "$root/docs/RESULTS-runs.json" "$out/RESULTS-runs.json"
    python3 "$root/bench/seeds.py" --stage "$stage" --only py-seed004-peak --merge --results "$out/RESULTS.md" ;;
measure)
    step "measured mode: seed 001, ResNet pageable/pinned (tools/measure-check.sh)"
    OUT="$res" STAGE="$stage" bash "$root/tools/measure-check.sh" ;;
corpus-samples|corpus-python|corpus-pairs)
    # The corpus (tools/corpus/README.md): .corpus-src carried beside .stage.
    step "corpus: ${s#corpus-}"
    case $s in
    corpus-samples) cs="build samples" ;;
    corpus-python) cs=python ;;
    corpus-pairs) cs="python resnet-pairs"; export PY_CASES=train_resnet-pin0 ;;
    esac
    # shellcheck disable=SC2086
    STAGE=$stage OUT=$res/$s "$root/tools/corpus/run.sh" $cs | sed -n '/^=== done/,$p'
    unset PY_CASES ;;
*) echo "unknown step $s" ;;
esac; done
step done
}

run_steps 2>&1 | tee "$out/session.log"
tar -C "$res" -czf "$out/results.tgz" . 2>/dev/null
rm -rf "$res"
