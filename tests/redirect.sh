#!/bin/sh
# redirect.sh: --redirect=per-thread on the simulator.
#  - T=4 threads' launches on the legacy stream go to the streams a
#    --default-stream per-thread build would use;
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
args="4 2 5"   # 4 threads, 2 ms spins, 5 kernels each, 1 spin from the main thread

# The simulator's trace names the stream each launch went to (stream 1 is
# the legacy stream).  Where the work ran is the assertion, not how fast:
# the redirected runs must spread the launches over streams exactly as the
# --default-stream per-thread build does (one per thread, none on the
# legacy stream), and the plain build must keep them all on stream 1.
# (Speed-ups are measured on the GPU by bench/redirect.sh.)
streams() { sed -n 's/.*trace: launch _Z7sc_spiny.* on stream \([0-9]*\)$/\1/p' "$1" | sort -n | uniq -c | awk '{printf "%s%sx%s", sep, $2, $1; sep = " "}'; }
STREAMCHECK_SIM_TRACE=1; export STREAMCHECK_SIM_TRACE
sim "$app" $args >"$tmp/plain.out" 2>"$tmp/plain.err"
"$SC_CLI" --simulate --redirect=per-thread --format=json --output="$tmp" -- "$app" $args \
    >"$tmp/entry.out" 2>"$tmp/entry.err"
"$SC_CLI" --simulate --redirect=per-thread --redirect-method=handle --format=json --output="$tmp" -- \
    "$app" $args >"$tmp/handle.out" 2>"$tmp/handle.err"
sim "$SC_APPS/multithread_default_stream_pt" $args >"$tmp/pt.out" 2>"$tmp/pt.err"
unset STREAMCHECK_SIM_TRACE
p=$(ms "$tmp/plain.err") e=$(ms "$tmp/entry.err") h=$(ms "$tmp/handle.err") c=$(ms "$tmp/pt.err")
echo "# elapsed ms (informational): plain $p, redirect entry $e, redirect handle $h, recompiled $c"
sp=$(streams "$tmp/plain.err") se=$(streams "$tmp/entry.err") sh=$(streams "$tmp/handle.err") sc=$(streams "$tmp/pt.err")
echo "# spin launches per stream (stream x count): plain [$sp] entry [$se] handle [$sh] recompiled [$sc]"
[ "$sp" = "1x21" ] && [ -n "$sc" ] && [ "$se" = "$sc" ] && [ "${sc#1x}" = "$sc" ]
ok $? "redirect by entry point: launches land on the streams a --default-stream per-thread build uses"
[ "$sp" = "1x21" ] && [ -n "$sc" ] && [ "$sh" = "$sc" ]
ok $? "redirect by handle: launches land on the streams a --default-stream per-thread build uses"
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
