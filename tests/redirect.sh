#!/bin/sh
# redirect.sh: --redirect=per-thread on the simulator.
#  - T=4 threads on the legacy stream run close to 4x faster redirected;
#  - the checksum is the same for the plain build, redirected by entry point
#    and by handle, and the --default-stream per-thread build;
#  - the graph-capture and cuBLAS-on-stream-0 apps print the same with and
#    without redirect, and the report says what was redirected and why not.
# TAP.
. "${top_builddir:-.}/tests/env.sh"
echo "1..7"
n=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sim() { LD_LIBRARY_PATH="$SC_SIMDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"; }
ms() { sed -n 's/^elapsed_ms=//p' "$1"; }
app=$SC_APPS/multithread_default_stream
args="4 20 5"   # 4 threads, 20 ms spins, 5 kernels: 400 ms serialized, 100 ms concurrent

sim "$app" $args >"$tmp/plain.out" 2>"$tmp/plain.err"
"$SC_CLI" --simulate --redirect=per-thread --format=json --output="$tmp" -- "$app" $args \
    >"$tmp/entry.out" 2>"$tmp/entry.err"
"$SC_CLI" --simulate --redirect=per-thread --redirect-method=handle --format=json --output="$tmp" -- \
    "$app" $args >"$tmp/handle.out" 2>"$tmp/handle.err"
sim "$SC_APPS/multithread_default_stream_pt" $args >"$tmp/pt.out" 2>"$tmp/pt.err"
p=$(ms "$tmp/plain.err") e=$(ms "$tmp/entry.err") h=$(ms "$tmp/handle.err") c=$(ms "$tmp/pt.err")
echo "# elapsed ms: plain $p, redirect entry $e, redirect handle $h, recompiled $c"
# Close to 4x: at least 2.5x, allowing for a loaded 2-core CI machine.
awk -v p="$p" -v e="$e" 'BEGIN { exit !(p > 0 && e > 0 && p / e >= 2.5) }'
ok $? "redirect by entry point: speed-up $(awk -v p="$p" -v e="$e" 'BEGIN { printf "%.2f", p / e }')x with 4 threads"
awk -v p="$p" -v h="$h" 'BEGIN { exit !(p > 0 && h > 0 && p / h >= 2.5) }'
ok $? "redirect by handle: speed-up $(awk -v p="$p" -v h="$h" 'BEGIN { printf "%.2f", p / h }')x with 4 threads"
cmp -s "$tmp/plain.out" "$tmp/entry.out" && cmp -s "$tmp/plain.out" "$tmp/handle.out" && cmp -s "$tmp/plain.out" "$tmp/pt.out"
ok $? "same checksum: plain, redirected (entry, handle), recompiled per-thread"
grep -q '"outcome": "redirected"' "$tmp"/multithread_default_stream.*.json
ok $? "the report lists what was redirected"

for a in graph_capture cublas_default_stream; do
    sim "$SC_APPS/$a" >"$tmp/$a.plain" 2>/dev/null
    "$SC_CLI" --simulate --redirect=per-thread --format=json --output="$tmp" -- "$SC_APPS/$a" >"$tmp/$a.red" 2>/dev/null
    cmp -s "$tmp/$a.plain" "$tmp/$a.red"
    ok $? "$a: same output with redirect"
done
# The memset issued during the capture stayed where it was, and the report
# says why.
grep -q '"outcome": "not redirected: a stream capture was in progress"' "$tmp"/graph_capture.*.json
ok $? "graph_capture: work during the capture is not redirected, and the report says so"
