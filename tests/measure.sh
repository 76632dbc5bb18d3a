#!/bin/sh
# measure.sh: measured mode (--measure) on the simulator, whose
# libcupti.so.13 serves its GPU timeline (src/sim/README.md).  Two 100 ms
# kernels on two non-blocking streams overlap by about 100 ms; a tiny
# legacy-stream kernel between 100 ms kernels on two blocking streams costs
# about 100 ms of GPU time (its SC101's gpu_lost_ns); the trace holds every
# kernel on its stream's track and passes tests/trace_check.py; a CUPTI
# taken by another tool gives one line and a detect-mode report; reports
# merge with their gpu blocks; a program that starts its own CUPTI profiler
# part-way gets CUPTI handed over, and the report says where its timeline
# ends, also when its profiler lives in a library loaded with RTLD_LOCAL.
# A window of the run (--measure-window): six 100 ms steps, each with a
# legacy barrier worth 50 ms, priced 300 ms over the whole run (each step's
# chain its own); recorded 0.25 s to 0.55 s in, the GPU numbers are the
# window's and the SC101 is scaled from its calls there to all six; a
# window to the end of the run; one that never opens; the window survives
# streamcheck report.  The shim's own timing of the pinned rate (its copies
# on the legacy stream and on two streams of its own) is no part of the
# timeline: copy_pipeline's report lists its two streams only.  The one
# record the shim times at each recorded call (CUPTI's cost amid the
# program's work) is in that call's own time, not CUPTI's between calls.  Bounds are wide for a loaded 2-core machine: the
# twins sleep, but threads wake late.  TAP.
. "${top_builddir:-.}/tests/env.sh"
echo "1..25"
n=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
skip_all() { while [ $n -lt 23 ]; do n=$((n + 1)); echo "ok $n # SKIP $1"; done; exit 0; }
[ -n "$PYTHON3" ] || skip_all "python3 not found"
[ -x "$SC_APPS/measure_overlap" ] || skip_all "test apps not built"
dir=$(mktemp -d "${TMPDIR:-/tmp}/measure.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
run() { # run NAME APP [env...]: reports in $dir/NAME, stdout in NAME.out, stderr in NAME.err
    name=$1 app=$2; shift 2
    mkdir -p "$dir/$name"
    env "$@" "$SC_CLI" --simulate --measure --format=json,trace --output="$dir/$name" -- "$SC_APPS/$app" \
        >"$dir/$name.out" 2>"$dir/$name.err"
}
py() { "$PYTHON3" - "$@"; }

# 1-2: overlap of two concurrent 100 ms kernels
run overlap measure_overlap
py "$dir"/overlap/*.streamcheck.json <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))["processes"][0]["gpu"]
print("# overlap: span %.3f ms, busy %.3f ms, overlap %.3f ms, compute+compute %.3f ms, idle %.3f ms" % tuple(
    g[k] / 1e6 for k in ("span_ns", "busy_ns", "overlap_ns", "overlap_compute_compute_ns", "idle_ns")))
ok = 60e6 <= g["overlap_ns"] <= 200e6 and 60e6 <= g["overlap_compute_compute_ns"] <= 200e6 \
    and g["overlap_compute_copy_ns"] == 0 and g["ops"] == 2 and len(g["streams"]) == 2 \
    and all(60e6 <= s["busy_ns"] <= 200e6 for s in g["streams"])
sys.exit(0 if ok else 1)
PY
ok $? "two 100 ms kernels on two non-blocking streams: 60-200 ms of overlap (100 ms, and the loaded machine's delays), all of it compute with compute"
grep -q '"schema_version": 4' "$dir"/overlap/*.streamcheck.json
ok $? "the JSON report is schema version 4"

# 3-4: the legacy-stream barrier's cost
run barrier measure_barrier
py "$dir"/barrier/*.streamcheck.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
f = [f for f in r["findings"] if f["rule"] == "SC101"]
g = r["processes"][0]["gpu"]
print("# barrier: SC101 gpu_lost_ns %s; span %.3f ms, overlap %.3f ms" % (
    [x["gpu_lost_ns"] for x in f], g["span_ns"] / 1e6, g["overlap_ns"] / 1e6))
print("# barrier: SC101 cost %s (%s)" % ([x["cost_ns"] for x in f], [x["cost_basis"] for x in f]))
ok = len(f) == 1 and f[0]["gpu_lost_ns"] is not None and 60e6 <= f[0]["gpu_lost_ns"] <= 200e6 \
    and 60e6 <= f[0]["cost_ns"] <= 200e6 and f[0]["cost_basis"] == "replay-measured" \
    and f[0]["severity"] == "warning"
sys.exit(0 if ok else 1)
PY
ok $? "a tiny legacy-stream kernel between 100 ms kernels on blocking streams: SC101 held 60-200 ms of GPU time back, and moving it off the barrier saves 60-200 ms (100 ms, and the loaded machine's delays)"
py "$dir"/overlap/*.streamcheck.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("# overlap: " + ", ".join("%s %s %d ns (%s)" % (f["rule"], f["severity"], f["cost_ns"], f["cost_basis"])
                                for f in r["findings"]))
sys.exit(0 if r["findings"] and all(f["gpu_lost_ns"] == 0 and f["cost_ns"] < 1000000 and f["severity"] == "note"
                                    and f["cost_basis"] in ("gpu-timeline", "replay-measured")
                                    for f in r["findings"]) else 1)
PY
ok $? "the overlapping program's findings cost nothing on the GPU, nor would fixing them save anything"

# 5-7: the traces
"$PYTHON3" "$abs_top_srcdir/tests/trace_check.py" "$dir"/overlap/*.trace.json "$dir"/barrier/*.trace.json
ok $? "both traces follow the Chrome trace event format (tests/trace_check.py)"
py "$dir"/barrier/*.trace.json <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
k = [e for e in ev if e["ph"] == "X" and e.get("cat") == "kernel"]
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
on_track = all(e["tid"] == e["args"]["stream"] and e["pid"] == e["args"]["device"]
               and names.get((e["pid"], e["tid"])) == "stream %d" % e["args"]["stream"] for e in k)
long_ = sorted(e["dur"] for e in k)[1:]
flows = [e for e in ev if e["ph"] == "f"]
print("# trace: %d kernels on tracks %s, durations %s us" % (len(k), sorted({e["tid"] for e in k}), sorted(e["dur"] for e in k)))
ok = len(k) == 3 and len({e["tid"] for e in k}) == 3 and on_track and all(60e3 <= d <= 140e3 for d in long_) \
    and len(flows) == 1 and flows[0]["tid"] in {e["tid"] for e in k}
sys.exit(0 if ok else 1)
PY
ok $? "the trace holds every kernel on its stream's track, in microseconds, and a flow to the held-back kernel"
printf '{"traceEvents":[{"name":"a","ph":"X","ts":0,"dur":5,"pid":1,"tid":1},{"name":"b","ph":"X","ts":2,"dur":1,"pid":1,"tid":1},{"name":"c","ph":"s","id":7,"ts":1,"pid":1,"tid":1}]}\n' >"$dir/bad.json"
out=$("$PYTHON3" "$abs_top_srcdir/tests/trace_check.py" "$dir/bad.json")
[ $? -ne 0 ] && echo "$out" | grep -q overlap && echo "$out" | grep -q "never finishes" && echo "$out" | grep -q "no process_name"
ok $? "the checker rejects overlapping events, unmatched flows and unnamed tracks"

# 8-9: CUPTI taken by another tool
run taken measure_barrier STREAMCHECK_SIM_CUPTI_TAKEN=1
lines=$(grep -c "measured mode is off: CUPTI is in use by another tool" "$dir/taken.err")
others=$(grep -v "^streamcheck: " "$dir/taken.err" | grep -vc "measured mode is off")
[ "$lines" -eq 1 ] && [ "$others" -eq 0 ] && cmp -s "$dir/taken.out" "$dir/barrier.out"
ok $? "CUPTI taken: one line on stderr, the program's output unchanged"
py "$dir"/taken/*.streamcheck.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ok = r["processes"][0]["gpu"] is None and all(f["gpu_lost_ns"] is None and f["cost_basis"] != "gpu-timeline"
                                               for f in r["findings"]) \
    and sorted(f["rule"] for f in r["findings"]) == ["SC101", "SC102", "SC102"]
sys.exit(0 if ok else 1)
PY
ok $? "CUPTI taken: a detect-mode report with the same findings"

# 10: streamcheck report merges measured reports, keeping each gpu block
"$SC_CLI" report --format=json --output="$dir" --name=merged "$dir"/overlap/*.streamcheck.json \
    "$dir"/barrier/*.streamcheck.json "$dir"/taken/*.streamcheck.json >/dev/null 2>&1
py "$dir"/merged.streamcheck.json "$dir"/overlap/*.streamcheck.json <<'PY'
import json, sys
m, o = (json.load(open(p)) for p in sys.argv[1:3])
p = m["processes"]
ok = len(p) == 3 and p[0]["gpu"] == o["processes"][0]["gpu"] and p[1]["gpu"] is not None and p[2]["gpu"] is None
sys.exit(0 if ok else 1)
PY
ok $? "streamcheck report merges measured reports, each process keeping its gpu block"

# 11-14: the program's own profiler asks for CUPTI part-way (as torch.profiler
# does): measured mode hands it over, keeps what it measured until then
"$SC_CLI" --simulate -- "$SC_APPS/measure_handover" >"$dir/handover-detect.out" 2>/dev/null
run handover measure_handover
lines=$(grep -c "measured mode: the program's own profiler asked for CUPTI (cuptiSubscribe) .* handing it over" \
    "$dir/handover.err")
others=$(grep -v "^streamcheck: " "$dir/handover.err" | grep -vc "handing it over")
grep -qx "measure_handover: the profiler saw 4 kernels" "$dir/handover.out" && \
    cmp -s "$dir/handover.out" "$dir/handover-detect.out" && [ "$lines" -eq 1 ] && [ "$others" -eq 0 ]
ok $? "hand-over: the program's profiler sees all 4 of its kernels, as in detect mode; one line on stderr"
py "$dir"/handover/*.streamcheck.json "$SC_APPS/measure_handover.expect" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
g = r["processes"][0]["gpu"]
cs = {c["id"]: c["frames"][c["primary"]]["line"] for c in r["callsites"]}
f = {(x["rule"], cs[x["callsite"]]): x for x in r["findings"]}
lines = sorted(int(l.split()[2].split(":")[1]) for l in open(sys.argv[2]) if l.startswith("finding SC101 "))
before, after = f.get(("SC101", lines[0])), f.get(("SC101", lines[1]))
print("# handover: at %s ns; %d ops; SC101 before %s, after %s" % (
    g["handed_over_ns"], g["ops"], before and before["gpu_lost_ns"], after and after["gpu_lost_ns"]))
ok = g["handed_over_ns"] is not None and 150e6 <= g["handed_over_ns"] and g["ops"] == 3 \
    and before and before["cost_basis"] == "gpu-timeline" and 60e6 <= before["gpu_lost_ns"] <= 200e6 \
    and after and after["cost_basis"] == "unmeasured" and after["gpu_lost_ns"] is None
sys.exit(0 if ok else 1)
PY
ok $? "hand-over: the SC101 before it is priced from the timeline (60-200 ms), the one after in detect mode"
mkdir -p "$dir/handover-dlsym"
"$SC_CLI" --simulate --measure --format=json --output="$dir/handover-dlsym" -- "$SC_APPS/measure_handover" --dlsym \
    >"$dir/handover-dlsym.out" 2>"$dir/handover-dlsym.err"
cmp -s "$dir/handover-dlsym.out" "$dir/handover-detect.out" && \
    [ "$(grep -c "handing it over" "$dir/handover-dlsym.err")" -eq 1 ] && \
    grep -q '"handed_over_ns": [1-9]' "$dir"/handover-dlsym/*.streamcheck.json
ok $? "hand-over: also when the program looks cuptiSubscribe up with dlsym in libcupti's handle"
"$SC_CLI" report --format=text "$dir"/handover/*.streamcheck.json >"$dir/handover.txt" 2>&1
"$SC_CLI" report --format=html --output="$dir" --name=handover "$dir"/handover/*.streamcheck.json >/dev/null 2>&1
grep -q "measured for the first .* of the run only: the program's own profiler took CUPTI then" "$dir/handover.txt" && \
    tr -s ' \n' '  ' <"$dir/handover.txt" | grep -q "not measured: the program's own profiler took CUPTI before these calls" && \
    grep -q "the program's own profiler took CUPTI then" "$dir/handover.streamcheck.html"
ok $? "hand-over: the text and HTML reports say where the timeline ends and why the later finding is unmeasured"
# 15: the profiler in a library loaded with RTLD_LOCAL, as PyTorch's Kineto
# is: its calls bind to the shim, and the real CUPTI is out of RTLD_NEXT's
# reach; found anyway, in detect mode (nothing held) and in measured mode
for m in "" --measure; do
    "$SC_CLI" --simulate $m --format=json --output="$dir" -- "$SC_APPS/measure_handover_plugin" \
        >"$dir/plugin$m.out" 2>"$dir/plugin$m.err"
done
cmp -s "$dir/plugin.out" "$dir/handover-detect.out" && cmp -s "$dir/plugin--measure.out" "$dir/handover-detect.out" && \
    ! grep -q "cannot find the real" "$dir/plugin.err" "$dir/plugin--measure.err" && \
    [ "$(grep -c "handing it over" "$dir/plugin--measure.err")" -eq 1 ]
ok $? "a profiler in a library loaded with RTLD_LOCAL (as PyTorch's): all 4 kernels, in detect and measured mode"

# 16-20: a window of the run (--measure-window)
run wall measure_window
run win measure_window STREAMCHECK_MEASURE_WINDOW=0.25:0.3
py "$dir"/wall/*.streamcheck.json "$dir"/win/*.streamcheck.json <<'PY'
import json, sys
whole, win = (json.load(open(p)) for p in sys.argv[1:3])
gw, g = whole["processes"][0]["gpu"], win["processes"][0]["gpu"]
sc101 = lambda r: [f for f in r["findings"] if f["rule"] == "SC101"]
a, b = sc101(whole), sc101(win)
w = g["measure_window"]
print("# whole run: %d ops, SC101 %s ms; window %s ms: %d ops, span %.1f ms, SC101 %s ms" % (
    gw["ops"], [x["gpu_lost_ns"] / 1e6 for x in a], w and (w["start_ns"] / 1e6, w["end_ns"] / 1e6), g["ops"],
    g["span_ns"] / 1e6, [x["gpu_lost_ns"] / 1e6 for x in b]))
ok = gw["measure_window"] is None and len(a) == 1 and a[0]["count"] == 6 and 200e6 <= a[0]["gpu_lost_ns"] <= 400e6 \
    and w is not None and 0.2e9 <= w["start_ns"] <= 0.4e9 and 0.28e9 <= w["end_ns"] - w["start_ns"] <= 0.45e9 \
    and 3 <= g["ops"] < gw["ops"] and g["span_ns"] <= w["end_ns"] - w["start_ns"] + 0.1e9 \
    and len(b) == 1 and b[0]["count"] == 6 and b[0]["cost_basis"] == "gpu-timeline" \
    and 120e6 <= b[0]["gpu_lost_ns"] <= 480e6
sys.exit(0 if ok else 1)
PY
ok $? "a window: the GPU numbers are the window's, the SC101 (300 ms over the run) scaled from its calls there"
"$SC_CLI" report --format=text "$dir"/win/*.streamcheck.json >"$dir/win.txt" 2>&1
"$SC_CLI" report --format=text "$dir"/wall/*.streamcheck.json >"$dir/wall.txt" 2>&1
"$SC_CLI" report --format=html --output="$dir" --name=win "$dir"/win/*.streamcheck.json >/dev/null 2>&1
tr -s ' \n' '  ' <"$dir/win.txt" | grep -q "measured in a window of the run, from .* to .*: each finding's GPU cost scaled from its calls there" && \
    ! grep -q "measured in a window" "$dir/wall.txt" && grep -q "a window, <b>.*</b> to <b>.*</b> into the run" "$dir/win.streamcheck.html"
ok $? "a window: the text and HTML reports say where it lay"
run rest measure_window STREAMCHECK_MEASURE_WINDOW=0.25:
py "$dir"/rest/*.streamcheck.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
g, p = r["processes"][0]["gpu"], r["processes"][0]
run = (p["end_time"] - p["start_time"]) * 1e9
w = g["measure_window"]
print("# to the end: window %.1f-%.1f ms of a %.1f ms run, %d ops" % (w["start_ns"] / 1e6, w["end_ns"] / 1e6,
                                                                    run / 1e6, g["ops"]))
sys.exit(0 if 0.2e9 <= w["start_ns"] <= 0.4e9 and w["end_ns"] <= run and run - w["end_ns"] <= 0.2e9 \
    and 6 <= g["ops"] < 18 else 1)
PY
ok $? "a window to the end of the run (START:)"
run never measure_window STREAMCHECK_MEASURE_WINDOW=60:1
py "$dir"/never/*.streamcheck.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
sys.exit(0 if r["processes"][0]["gpu"] is None and all(f["gpu_lost_ns"] is None for f in r["findings"]) else 1)
PY
[ $? -eq 0 ] && [ "$(grep -c "measured mode: the run ended before its window (--measure-window) opened; reporting in detect mode" \
    "$dir/never.err")" -eq 1 ] && cmp -s "$dir/never.out" "$dir/wall.out"
ok $? "a window that never opens: one line, a detect-mode report, the program's output unchanged"
"$SC_CLI" report --format=json --output="$dir" --name=win-again "$dir"/win/*.streamcheck.json >/dev/null 2>&1
py "$dir"/win-again.streamcheck.json "$dir"/win/*.streamcheck.json <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(0 if a["processes"][0]["gpu"] == b["processes"][0]["gpu"] and b["processes"][0]["gpu"]["measure_window"] else 1)
PY
ok $? "the window survives streamcheck report"

# 21: legacy-stream work that orders with no stream is no barrier: seed 000's
# cuBLAS products on stream 0 beside non-blocking streams, joined by events.
# The timeline's other streams started late only for the events the program
# ordered them after; priced as barriers, SC601 cost the whole timed pass,
# half the range or more.  Alone its cost is under 1% of the range; on a
# 2-core machine loaded twice over it came to 10.5% (the simulator's
# streams preempted), so the line is drawn at a quarter.  Events' orders
# are left out of the run log: with them (measured mode's default) the
# replay prices SC601 by its fix, a handle per stream (tests/pricing.sh 16),
# which on the simulator gains about half the range (its products overlap
# on the CPU's cores), and the timeline's cost no longer decides severity.
mkdir -p "$dir/unordered"
STREAMCHECK_TEST_EVENT_ORDERS=0 "$SC_CLI" --simulate --measure --range=timed --format=json --output="$dir/unordered" -- \
    "$SC_APPS/seed000_matmul" 4 128 4 >"$dir/unordered.out" 2>"$dir/unordered.err"
py "$dir"/unordered/*.streamcheck.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
p = r["processes"][0]
f = [f for f in r["findings"] if f["rule"] == "SC601"]
print("# unordered: SC601 gpu_lost_ns %s of %.1f ms in the range" % ([x["gpu_lost_ns"] for x in f],
                                                                    p["nvtx_range_ns"] / 1e6))
sys.exit(0 if len(f) == 1 and f[0]["gpu_lost_ns"] is not None and f[0]["severity"] == "note"
         and f[0]["gpu_lost_ns"] < 0.25 * p["nvtx_range_ns"] else 1)
PY
ok $? "cuBLAS on the legacy stream beside non-blocking streams only (seed000_matmul): SC601 is no barrier, its measured cost under a quarter of the range"

# 22: the pinned-rate timing's copies (calibrate.c: after copy_pipeline's
# first pageable copy, a few on the legacy stream, four each on two streams
# of the shim's own) are left out of the timeline: the program's compute
# stream (its 8 pieces' copies and kernels and a warm-up kernel: 25) and
# its upload stream (the warm-up's two copies) are all the report lists.
mkdir -p "$dir/calib"
"$SC_CLI" --simulate --measure --format=json --output="$dir/calib" -- "$SC_APPS/copy_pipeline" \
    >"$dir/calib.out" 2>"$dir/calib.err"
py "$dir"/calib/*.streamcheck.json <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["processes"][0]["gpu"]["streams"]
print("# copy_pipeline's measured streams: %s" % [(x["stream"], x["ops"]) for x in s])
sys.exit(0 if sorted(x["ops"] for x in s) == [2, 25] else 1)
PY
ok $? "the pinned-rate timing's copies are not in the measured timeline: copy_pipeline's two streams only"

# 23: host_sync_loop makes no CUDA call between its recorded ones but the
# fast path's launches, of which the simulator's CUPTI records none: the
# record the shim times after each recorded call is the only one in the gap
# after it, and is the shim's own time there (own_ns), not CUPTI's
# (the pricing model's dump: "tool NS APIS OPS" of every call after the
# first is 0 0 0; with the timing counted as CUPTI's it would be 1 each).
STREAMCHECK_TEST_PRICE_DUMP="$dir/tool" "$SC_CLI" --simulate --measure -- "$SC_APPS/host_sync_loop" 20 1 1 each 0 \
    >/dev/null 2>&1
py "$dir"/tool.* <<'PY'
import sys
calls = [l.split() for l in open(sys.argv[1]) if l.startswith("  ")]
timed = [l for l in open(sys.argv[1]) if l.startswith("tool ")]
after = [c[c.index("tool") + 1:c.index("tool") + 4] for c in calls[1:]]
print("# %d calls after the first, their tool fields %s; %s" % (len(after), sorted(set(map(tuple, after))),
                                                               timed[0].strip() if timed else "no tool line"))
sys.exit(0 if len(after) >= 20 and all(t == ["0", "0", "0"] for t in after) and timed
         and int(timed[0].split()[6]) >= 20 else 1)
PY
ok $? "the record timed at each recorded call is the shim's own time, not counted as CUPTI's between calls"

# 24: SC102's own fix, the stream created non-blocking, replayed in
# measured mode: blocking_stream's two SC102 findings (one per
# legacy-stream API, one creation site) are one fix; the site's first
# carries what its SC101 sites save moved at once (the same barrier, lifted
# from the other side), within 2%, a warning, and the other is a note that
# saves nothing more; the report's total counts that once, at the SC101
# sites (two of them save something, or one in a TSan build, whose slower
# host leaves the other's kernel waiting anyway).  With the test hook
# STREAMCHECK_TEST_NONBLOCK=0 SC102 keeps the timeline's cost, a note.
mkdir -p "$dir/nb" "$dir/nb0"
"$SC_CLI" --simulate --measure --format=json,text --output="$dir/nb" -- \
    "$SC_APPS/blocking_stream" >/dev/null 2>"$dir/nb.err"
STREAMCHECK_TEST_NONBLOCK=0 "$SC_CLI" --simulate --measure --format=json --output="$dir/nb0" -- \
    "$SC_APPS/blocking_stream" >/dev/null 2>&1
py "$dir"/nb/*.streamcheck.json "$dir"/nb0/*.streamcheck.json "$dir/nb.err" <<'PY'
import json, re, sys
r, r0 = (json.load(open(p)) for p in sys.argv[1:3])
m = re.search(r"^@ Estimated cost +: ([0-9.]+) ms", open(sys.argv[3]).read(), re.M)
total = float(m.group(1)) * 1e6 if m else None
nb = [f for f in r["findings"] if f["rule"] == "SC102"]
legacy = [f for f in r["findings"] if f["rule"] == "SC101" and f["cost_basis"] == "replay-measured" and f["cost_ns"]]
moved = sum(f["cost_ns"] for f in legacy)
print("# SC102 %s; SC101 sites %s (%d ns); total %s; with the hook at 0 %s" % (
    [(f["severity"], f["cost_ns"], f["cost_basis"]) for f in nb], [f["cost_ns"] for f in legacy], moved, total,
    [(f["severity"], f["cost_basis"]) for f in r0["findings"] if f["rule"] == "SC102"]))
warned = sum(f["cost_ns"] for f in legacy if f["severity"] == "warning")
first = [f for f in nb if f["severity"] == "warning"]
other = [f for f in nb if f["severity"] == "note"]
sys.exit(0 if len(nb) == 2 and len(first) == 1 and len(other) == 1 and legacy and moved > 0 and total
         and abs(total - warned) <= 0.001 * warned + 1e3
         and first[0]["cost_basis"] == "replay-measured" and abs(first[0]["cost_ns"] - moved) <= 0.02 * moved
         and other[0]["cost_ns"] == 0 and "first SC102 finding" in other[0]["detail"]
         and all(f["severity"] == "note" and f["cost_basis"] == "gpu-timeline"
                 for f in r0["findings"] if f["rule"] == "SC102") else 1)
PY
ok $? "blocking_stream, SC102 priced by its stream made non-blocking: what its SC101 sites save, one warning, not added to it"

# 25: SC701's fix (CUDA_DEVICE_MAX_CONNECTIONS=32), measured mode's
# default: queue_limit's twelve streams, one kernel each, share 8 hardware
# queues without waiting behind each other, so the fix saves nothing (as it
# gained nothing on an H200): the model's device shares 8 queues, the SC701
# finding is replayed, and it is a note of 0.  With the test hook
# STREAMCHECK_TEST_QUEUES=0, neither.
mkdir -p "$dir/q1" "$dir/q0"
STREAMCHECK_TEST_PRICE_DUMP="$dir/q1/dump" "$SC_CLI" --simulate --measure --format=json \
    --output="$dir/q1" -- "$SC_APPS/queue_limit" >/dev/null 2>&1
STREAMCHECK_TEST_QUEUES=0 STREAMCHECK_TEST_PRICE_DUMP="$dir/q0/dump" "$SC_CLI" --simulate --measure --format=json \
    --output="$dir/q0" -- "$SC_APPS/queue_limit" >/dev/null 2>&1
py "$dir"/q1/*.streamcheck.json "$dir"/q0/*.streamcheck.json "$dir"/q1/dump.* "$dir"/q0/dump.* <<'PY'
import json, sys
r1, r0 = (json.load(open(p)) for p in sys.argv[1:3])
d1, d0 = (open(p).read() for p in sys.argv[3:5])
q1 = [(f["severity"], f["cost_ns"], f["cost_basis"]) for f in r1["findings"] if f["rule"] == "SC701"]
q0 = [(f["severity"], f["cost_basis"]) for f in r0["findings"] if f["rule"] == "SC701"]
print("# SC701 by default %s, with the hook off %s" % (q1, q0))
sys.exit(0 if q1 == [("note", 0, "replay-measured")] and " connections 8\n" in d1 and " rule SC701 fix 10 " in d1
         and len(q0) == 1 and q0[0][1] != "replay-measured" and " connections 0\n" in d0 else 1)
PY
ok $? "queue_limit, SC701 priced by its queues shared (the default; STREAMCHECK_TEST_QUEUES=0 off): 8 queues modelled, the fix saves nothing, a note"
