#!/bin/sh
# pricing.sh: prices against what the fix gains, on the simulator.  Each
# hazard app and its fixed twin run natively, alternated (bench/price_check.py,
# 5 rounds: the gain is the median of the rounds' differences), and the hazard
# under streamcheck in detect and in measured mode: the finding at the app's
# marked line must cost what the twin gained -- a wait each step (SC403),
# GPU-bound and host-bound, and written four more ways (cudaDeviceSynchronize,
# cudaEventSynchronize, a result read with cudaMemcpy, cudaFree of a
# scratch buffer: SC303; PyTorch's .item(), once a step and twice, the
# second of a tiny kernel's result); threads taking turns on the legacy stream
# (SC103); pieces copied up and back on one stream, where copy streams
# would overlap the copies with the kernels (SC703); a batch copied from
# pageable memory each step (SC203), GPU-bound and host-bound, with
# cudaMemcpy on the legacy stream (SC201), and GPU-bound
# where pageable copies go as fast as pinned ones, so that pinning gains
# next to nothing and the price must stay under 5% of the run; each batch
# received on the copying thread (a DataLoader's main thread without
# pin_memory), against a pinning thread that receives and pins them, whose
# receipts are then the loop's bottleneck (pageable copies as fast as
# pinned ones, so that the gain is the receipts'); seed 000's cuBLAS handle
# left on the legacy stream against a handle per stream (SC601, under
# --measure only, whose run log records events' orders; its products
# paced at 20 ms each, mostly asleep, so that they overlap on other
# streams whatever shares the CPU); kernels on the
# legacy stream between a blocking stream's spins, against non-blocking
# streams that an event orders (SC101, under --measure, its sites moved off
# the barrier at once; the whole run's time, main_ms).  The copies
# are paced as over links (bench/price_check.py's sim_env: pinned 0.5 or 2
# GB/s, pageable 0.5), so that they are mostly sleep and a loaded machine
# keeps their pace.  The simulator's times are the CPU's, shared with
# whatever else runs: the bounds are wider than the GPU's
# (bench/price_check.py's defaults), and a pair that misses is run once more
# before it fails.  The read-back pair (pages faulted in each step) is left
# to the GPU (make bench-price, tools/gpu-verify.sh price).  TAP.
. "${top_builddir:-.}/tests/env.sh"
pairs="host_sync_loop-gpu host_sync_loop-host host_sync_loop-device host_sync_loop-event host_sync_loop-read
    host_sync_loop-free host_sync_loop-item host_sync_loop-item2 multithread copy_pipeline pageable_loop-gpu
    pageable_loop-host pageable_loop-memcpy pageable_loop-even pageable_loop-loader handle_per_stream
    blocking_stream"
echo "1..17"
# A sanitized build's times are its runtime's, not the program's.
case "$enable_sanitizers" in
no | '') ;;
*) for p in $pairs; do echo "ok - $p # SKIP a sanitized build ($enable_sanitizers): its times are not the program's"; done
   exit 0 ;;
esac
[ -n "$PYTHON3" ] && [ -x "$SC_APPS/host_sync_loop" ] || {
    for p in $pairs; do echo "ok - $p # SKIP python3 or the test apps missing"; done
    exit 0
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-pricing.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
check() {
    "$PYTHON3" "$abs_top_srcdir/bench/price_check.py" --sim --streamcheck "$SC_CLI" --apps "$SC_APPS" \
        --simdir "$STREAMCHECK_SIMDIR" --only "$1" --pairs 5 --measured-bound 0.4 --detect-bound 2 \
        --out "$tmp/$1.json" >"$tmp/$1.md" 2>&1
}
n=0
for p in $pairs; do
    n=$((n + 1))
    check "$p" || check "$p"
    rc=$?
    grep "^| $p " "$tmp/$p.md" | sed 's/^/# /'
    if [ $rc -eq 0 ]; then echo "ok $n - $p: the price is what the fix gains"; else
        echo "not ok $n - $p: the price is not what the fix gains"
        sed 's/^/# /' "$tmp/$p.md" | tail -n 20
    fi
done
