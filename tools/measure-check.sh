#!/bin/bash
# tools/measure-check.sh: measured mode (--measure) on a real GPU, for the
# H100 session (tools/gpu-session.sh measure runs it).  Under
#   streamcheck --measure --format=json,text,trace
# it runs seed 001's copies app, pageable and pinned (testapps/seed001_copies
# and _fixed), its PyTorch version (seed001_swimming.py copies [--pageable])
# and the ResNet training loop of the corpus with a pageable and a pinned
# DataLoader (train_resnet.py --pin-memory 0/1), and prints each run's GPU
# line and its top findings with gpu_lost_ns.  It also measures the pinning
# gain natively in the same session (images/s of --pin-memory 0 vs 1,
# alternating, PAIRS pairs) so SC203's measured cost per step can be set
# beside the time per step that pinning gives back.  Under 3 minutes on an
# H100.  Every trace is checked with tests/trace_check.py.
#
#   STAGE=.stage OUT=/tmp/measure tools/measure-check.sh
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
stage=${STAGE:-$root/.stage}
out=${OUT:-/tmp/measure-out}/measure
pairs=${PAIRS:-2}
export PATH=$stage/bin:$PATH PYTHONUNBUFFERED=1
apps=$stage/libexec/streamcheck/testapps
resnet=$root/tests/corpus/python/train_resnet.py
mkdir -p "$out"
t0=$(date +%s)
say() { echo; echo "=== $* ($(( $(date +%s) - t0 )) s)"; }

# summary DIR: the GPU line and the top findings of the JSON report in DIR
summary() {
    python3 - "$1" <<'PY'
import glob, json, sys
for path in sorted(glob.glob(sys.argv[1] + "/*.streamcheck.json")):
    r = json.load(open(path))
    p = r["processes"][0]
    g = p.get("gpu")
    if not g:
        print("  %s: not measured (see the stderr log)" % path.split("/")[-1])
        continue
    ms = lambda ns: "%.3f ms" % (ns / 1e6)
    pc = lambda ns: "%.1f%%" % (100.0 * ns / g["span_ns"]) if g["span_ns"] else "-"
    print("  GPU: span %s, busy %s (%s), overlap %s (%s; compute+copy %s, compute+compute %s), idle %s (%s), "
          "%d ops, %d dropped" % (ms(g["span_ns"]), ms(g["busy_ns"]), pc(g["busy_ns"]), ms(g["overlap_ns"]),
          pc(g["overlap_ns"]), ms(g["overlap_compute_copy_ns"]), ms(g["overlap_compute_compute_ns"]),
          ms(g["idle_ns"]), pc(g["idle_ns"]), g["ops"], g["dropped_records"]))
    for s in sorted(g["streams"], key=lambda s: -s["busy_ns"])[:6]:
        print("    stream %d: busy %s, %d ops" % (s["stream"], ms(s["busy_ns"]), s["ops"]))
    sites = {c["id"]: c for c in r["callsites"]}
    def where(f):
        c = sites.get(f["callsite"] or "", {})
        for fr in c.get("python", []):
            return "%s:%d" % (fr["file"].split("/")[-1], fr["line"])
        for fr in c.get("frames", []):
            if fr["file"]:
                return "%s:%d" % (fr["file"].split("/")[-1], fr["line"])
        return "-"
    fs = sorted(r["findings"], key=lambda f: -(f["gpu_lost_ns"] or 0))[:6]
    for f in fs:
        print("    %-5s %-8s %-22s x%-6d gpu_lost %-12s blocked %-12s %s" % (
            f["rule"], f["severity"], f["api"][:22], f["count"], ms(f["gpu_lost_ns"] or 0), ms(f["blocked_ns"]),
            where(f)))
PY
    python3 "$root/tests/trace_check.py" "$1"/*.trace.json >/dev/null 2>&1 && echo "  trace: valid" ||
        echo "  trace: INVALID ($(python3 "$root/tests/trace_check.py" "$1"/*.trace.json 2>&1 | head -3 | tr '\n' ' '))"
}

measured() { # NAME CMD...: one run under --measure, reports in $out/NAME
    local name=$1; shift
    rm -rf "$out/$name"; mkdir -p "$out/$name"
    local s=$(date +%s.%N)
    streamcheck --measure --format=json,text,trace --output="$out/$name" -- "$@" \
        >"$out/$name/stdout" 2>"$out/$name/stderr"
    local rc=$?
    printf '%s: exit %d, %s s; %s\n' "$name" $rc "$(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')" \
        "$(grep -m1 'measured mode is off' "$out/$name/stderr" || tail -n 1 "$out/$name/stderr")"
    summary "$out/$name"
}

say "seed 001 copies (C++): pageable, then pinned"
measured seed001_copies "$apps/seed001_copies"
measured seed001_copies_fixed "$apps/seed001_copies_fixed"

say "seed 001 copies (PyTorch): pageable, then pinned"
measured py_seed001_pageable python3 "$apps/python/seed001_swimming.py" copies --pageable
measured py_seed001_pinned python3 "$apps/python/seed001_swimming.py" copies

say "ResNet training loop: the pinning gain, natively ($pairs alternating pairs)"
: >"$out/native.txt"
for i in $(seq "$pairs"); do
    for pin in 0 1; do
        ips=$(python3 "$resnet" --pin-memory $pin 2>&1 >/dev/null | sed -n 's/^images_per_s=//p')
        echo "pin$pin $ips" | tee -a "$out/native.txt"
    done
done

say "ResNet training loop under --measure: pageable, then pinned DataLoader"
measured resnet_pin0 python3 "$resnet" --pin-memory 0
measured resnet_pin1 python3 "$resnet" --pin-memory 1

say "SC203's measured cost beside what pinning gives back"
python3 - "$out" <<'PY'
import glob, json, statistics, sys
out = sys.argv[1]
ips = {0: [], 1: []}
for line in open(out + "/native.txt"):
    k, v = line.split()
    if v:
        ips[int(k[-1])].append(float(v))
batch, steps, warmup = 64, 60, 10          # train_resnet.py's defaults
if not ips[0] or not ips[1]:
    sys.exit("no native timings")
i0, i1 = statistics.median(ips[0]), statistics.median(ips[1])
gain_step = batch / i0 - batch / i1        # seconds per step pinning gives back
print("native: pageable %.1f images/s, pinned %.1f images/s: %.2fx, %.3f ms per step" % (
    i0, i1, i1 / i0, gain_step * 1e3))
for name in ("resnet_pin0", "resnet_pin1"):
    for path in glob.glob("%s/%s/*.streamcheck.json" % (out, name)):
        r = json.load(open(path))
        f = [x for x in r["findings"] if x["rule"] == "SC203"]
        lost = sum(x["gpu_lost_ns"] or 0 for x in f)
        calls = sum(x["count"] for x in f)
        per_step = lost / (steps + warmup) / 1e6
        line = "%s: SC203 %d calls at %d site(s), gpu_lost %.3f ms in all, %.3f ms per step" % (
            name, calls, len(f), lost / 1e6, per_step)
        if name == "resnet_pin0" and gain_step > 0:
            line += " = %.0f%% of the native gain per step" % (100 * per_step / (gain_step * 1e3))
        print(line)
PY
echo
echo "reports and traces: $out ($(( $(date +%s) - t0 )) s)"
