#!/bin/sh
# tests/sim/e2e.sh: nvcc-built programs (-cudart shared, -lcublas) run
# unchanged on the simulator through LD_LIBRARY_PATH=$SC_SIMDIR.
. "${top_builddir:?}/tests/env.sh"

bin="$abs_top_builddir/tests/sim"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-e2e.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=1; echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else not_ok "$1"; fi; }

# The simulator's libraries may be built with sanitizers; nvcc-built
# programs are not, so the sanitizer runtime has to be loaded first.
run_sim() {
    env LD_LIBRARY_PATH="$SC_SIMDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        ${SAN_RUNTIME:+LD_PRELOAD="$SAN_RUNTIME"} "$@"
}

echo "1..16"

out=$(run_sim "$bin/sim_app" 2>"$tmp/sim_app.err"); rc=$?
printf '%s\n' "$out" | sed 's/^/# sim_app: /'
sed 's/^/# sim_app stderr: /' "$tmp/sim_app.err"
check "sim_app exits 0" '[ $rc -eq 0 ]'
check "sim_app ran on the simulator" \
    'printf "%s\n" "$out" | grep -qx "device: streamcheck simulated GPU (132 SMs, compute capability 9.0)"'
check "saxpy through <<<>>> gives the kernel's result" \
    'printf "%s\n" "$out" | grep -qx "saxpy: ok"'
check "events time a 100 ms kernel" \
    'printf "%s\n" "$out" | grep -qx "event elapsed >= 95 ms: yes"'
check "legacy default stream waits for a blocking stream" \
    'printf "%s\n" "$out" | grep -qx "sync copy waited for blocking stream: yes"'
check "legacy default stream does not wait for a non-blocking stream" \
    'printf "%s\n" "$out" | grep -qx "sync copy waited for non-blocking stream: no"'
check "captured graph replays" 'printf "%s\n" "$out" | grep -qx "graph replay: ok"'
check "sim_app prints no simulator notes" '! grep -q streamcheck-sim "$tmp/sim_app.err"'

# --default-stream per-thread binds the _ptsz/_ptds entry points.
check "nvcc --default-stream per-thread binds __cudaLaunchKernel_ptsz" \
    'nm -D "$bin/sim_app_pt" | grep -q " U __cudaLaunchKernel_ptsz@libcudart.so.13"'
out=$(run_sim "$bin/sim_app_pt" 2>&1); rc=$?
printf '%s\n' "$out" | sed 's/^/# sim_app_pt: /'
check "sim_app_pt exits 0" '[ $rc -eq 0 ]'
check "per-thread default stream does not wait for a blocking stream" \
    'printf "%s\n" "$out" | grep -qx "sync copy waited for blocking stream: no"'
check "per-thread build computes the same" \
    '[ "$(printf "%s\n" "$out" | grep -c -x -e "saxpy: ok" -e "graph replay: ok" -e "default stream: ok")" -eq 3 ]'

out=$(run_sim "$bin/sim_cublas" 2>&1); rc=$?
printf '%s\n' "$out" | sed 's/^/# sim_cublas: /'
check "sim_cublas exits 0" '[ $rc -eq 0 ]'
check "cublasSgemm computes the product" 'printf "%s\n" "$out" | grep -qx "sgemm: ok"'
check "sim_cublas used the simulated cuBLAS" \
    'printf "%s\n" "$out" | grep -qx "cublas version: 130100"'
check "sim_cublas linked libcublas.so.13" \
    'readelf -d "$bin/sim_cublas" | grep -q "NEEDED.*libcublas.so.13"'

exit $failed
