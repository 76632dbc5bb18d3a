#!/bin/sh
# pricing.sh: prices against what the fix gains, on the simulator.  Each
# hazard app and its fixed twin run natively, alternated (bench/price_check.py,
# 5 rounds: the gain is the median of the rounds' differences), and the hazard
# under streamcheck in detect and in measured mode: the finding at the app's
# marked line must cost what the twin gained -- a wait each step (SC403),
# GPU-bound and host-bound; threads taking turns on the legacy stream
# (SC103); pieces copied up and back on one stream, where copy streams
# would overlap the copies with the kernels (SC703, its copies paced as
# over a 0.5 GB/s link: bench/price_check.py).  The simulator's times are
# the CPU's, shared with whatever else runs: the bounds are wider than the
# GPU's (bench/price_check.py's defaults), and a pair that misses is run
# once more before it fails.  The
# pageable-copy pairs are left to the GPU (make bench-price, tools/gpu-verify.sh
# price): on the simulator a copy's rate is the CPU's memcpy under whatever
# else runs, and on a loaded 2-core machine the twin's gain swings by more
# than itself.  TAP.
. "${top_builddir:-.}/tests/env.sh"
pairs="host_sync_loop-gpu host_sync_loop-host multithread copy_pipeline"
echo "1..4"
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
