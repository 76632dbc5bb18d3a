#!/bin/sh
# overhead-probe.sh: where streamcheck's time goes on a real training loop
# (issue 14), for a GPU host without perf or gdb.
#
# Runs tests/corpus/python/train_resnet.py (ResNet-18, DataLoader with 4
# workers, pinned batches, backward, loss.item() every step) in three arms,
# alternating, for at least 5 rounds within a time budget (default 240 s):
#   native        python3 train_resnet.py
#   streamcheck   under the launcher, STREAMCHECK_PROFILE=1 (the phase
#                 table; profile mode adds one clock read per call)
#   disabled      under the launcher, STREAMCHECK_DISABLE=1 (preload only)
# and any arms added with --arm NAME:SPEC, SPEC being space-separated
# VAR=VALUE settings and launcher options, for instance
#   --arm "nohb:STREAMCHECK_TEST_ABLATE=hb" --arm "msr:--measure"
# (STREAMCHECK_TEST_ABLATE switches parts of the shim off: hb, slow, walk, drain,
# rt, api, ext, ts, copy, parse; see src/shim/core.h)
# and prints, side by side: images/s of each arm and the per-round ratios
# (median, min, max), the process wall times, the measured cost (steady
# state and whole process, in % and in ms) beside the report's own "Time
# in streamcheck", and the profile table of the median streamcheck round.
#
#   tools/overhead-probe.sh [--rounds N] [--budget SECONDS] [--steps N] [--warmup N]
#                           [--pin-memory 0|1] [--keep DIR] [--arm NAME:SPEC]...
#
# Run it from the build tree (it sources tests/env.sh) or set STREAMCHECK
# to the launcher.  Exits 77 without a GPU or torch.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
builddir=${abs_top_builddir:-$(pwd)}
# In a build tree, its launcher and shim (unless STREAMCHECK names one).
if [ -z "${STREAMCHECK:-}" ]; then
    for d in "$builddir" "$here"; do
        if [ -f "$d/tests/env.sh" ]; then
            . "$d/tests/env.sh"
            [ -x "$SC_CLI" ] && STREAMCHECK=$SC_CLI
            break
        fi
    done
fi
STREAMCHECK=${STREAMCHECK:-streamcheck}
export STREAMCHECK
PROG=${OVERHEAD_PROBE_PROG:-$here/tests/corpus/python/train_resnet.py}
export PROG
exec "${PYTHON3:-python3}" - "$@" <<'EOF'
import argparse, glob, json, os, re, shutil, statistics, subprocess, sys, tempfile, time

ap = argparse.ArgumentParser(prog="overhead-probe.sh")
ap.add_argument("--rounds", type=int, default=0, help="rounds of three runs (default: what the budget allows, >= 5)")
ap.add_argument("--budget", type=float, default=240.0, help="seconds for the whole probe")
ap.add_argument("--steps", type=int, default=40)
ap.add_argument("--warmup", type=int, default=10)
ap.add_argument("--pin-memory", type=int, choices=(0, 1), default=1)
ap.add_argument("--keep", help="keep the reports and logs in this directory")
ap.add_argument("--arm", action="append", default=[], metavar="NAME:SPEC",
                help="an extra arm: VAR=VALUE settings and launcher options, space-separated")
a = ap.parse_args()
extra = {}
for spec in a.arm:
    name, sep, rest = spec.partition(":")
    if not sep or not name or name in ("native", "streamcheck", "disabled") or name in extra:
        ap.error(f"--arm {spec!r}: give NAME:SPEC with a new NAME")
    env_set, opts = {}, []
    for tok in rest.split():
        if tok.startswith("--"):
            opts.append(tok)
        elif "=" in tok:
            k, _, v = tok.partition("=")
            env_set[k] = v
        else:
            ap.error(f"--arm {spec!r}: {tok!r} is neither VAR=VALUE nor a --option")
    extra[name] = (env_set, opts)

try:
    gpu = subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode == 0
except OSError:
    gpu = False
if not gpu:
    print("overhead-probe: no GPU; skipping", file=sys.stderr)
    sys.exit(77)

sc, prog = os.environ["STREAMCHECK"], os.environ["PROG"]
cmd = [sys.executable, prog, "--pin-memory", str(a.pin_memory), "--steps", str(a.steps), "--warmup", str(a.warmup)]
tmp = a.keep or tempfile.mkdtemp(prefix="overhead-probe.")
os.makedirs(tmp, exist_ok=True)
arms = ("native", "streamcheck", "disabled") + tuple(extra)
res = {k: [] for k in arms}   # (images/s, wall s, stderr, outdir)
start = time.monotonic()


def run(arm, r):
    out = os.path.join(tmp, f"{arm}{r}")
    os.makedirs(out, exist_ok=True)
    env = dict(os.environ)
    c = cmd
    if arm != "native":
        opts = extra[arm][1] if arm in extra else []
        c = [sc, "--format=json", f"--output={out}"] + opts + ["--"] + cmd
        if arm == "streamcheck":
            env["STREAMCHECK_PROFILE"] = "1"
        elif arm == "disabled":
            env["STREAMCHECK_DISABLE"] = "1"
        else:
            env.update(extra[arm][0])
    t0 = time.monotonic()
    p = subprocess.run(c, capture_output=True, text=True, env=env)
    wall = time.monotonic() - t0
    open(os.path.join(out, "stderr.txt"), "w").write(p.stderr)
    m = re.findall(r"^images_per_s=([0-9.]+)", p.stderr, re.M)
    if p.returncode == 77:
        print("overhead-probe: train_resnet.py skipped (no torch or GPU)", file=sys.stderr)
        sys.exit(77)
    if p.returncode != 0 or not m:
        tail = p.stderr.strip().splitlines()[-3:]
        print(f"overhead-probe: {arm} round {r}: exit {p.returncode}, no images_per_s: {tail}", file=sys.stderr)
        return None
    return (float(m[-1]), wall, p.stderr, out)


r = 0
while True:
    for arm in arms:
        v = run(arm, r)
        if v:
            res[arm].append(v)
    r += 1
    took = time.monotonic() - start
    per_round = took / r
    if a.rounds:
        if r >= a.rounds:
            break
        continue
    if r == 1 and 5 * per_round > a.budget:
        print(f"overhead-probe: a round takes {per_round:.0f} s: 5 rounds exceed the {a.budget:.0f} s budget "
              f"(lower --steps)", file=sys.stderr)
    if (r >= 5 and took + per_round > a.budget) or r >= 50:
        break


def report_of(out):
    """(shim s, run s, calls) from the JSON report of one run."""
    shim = run = 0.0
    calls = 0
    for f in glob.glob(os.path.join(out, "*.json")):
        try:
            d = json.load(open(f))
        except (OSError, ValueError):
            continue
        for p in d.get("processes", []) or [d.get("process", {})]:
            shim += p.get("shim_ns", 0) / 1e9
            calls += p.get("calls", 0)
            run = max(run, p.get("end_time", 0) - p.get("start_time", 0))
    return shim, run, calls


def med(x):
    return statistics.median(x) if x else float("nan")


n = min(len(res[k]) for k in arms)
if not res["native"] or not res["streamcheck"]:
    print("overhead-probe: not enough runs", file=sys.stderr)
    sys.exit(1)
nat = [x[0] for x in res["native"]]
print(f"overhead-probe: train_resnet.py --steps {a.steps} --warmup {a.warmup} --pin-memory {a.pin_memory}, "
      f"{r} rounds in {time.monotonic() - start:.0f} s ({tmp})")
print(f"  {'arm':12s} {'images/s':>10s} {'ratio':>7s} {'min':>7s} {'max':>7s} {'wall s':>8s}   runs (images/s)")
for arm in arms:
    v = [x[0] for x in res[arm]]
    w = [x[1] for x in res[arm]]
    if not v:
        print(f"  {arm:12s} no runs")
        continue
    ratios = [x / y for x, y in zip(v, nat)]
    print(f"  {arm:12s} {med(v):10.1f} {med(ratios):7.4f} {min(ratios):7.4f} {max(ratios):7.4f} {med(w):8.2f}   "
          + " ".join("%.0f" % x for x in v))

# The measured cost beside the estimate: steady state (images/s over the
# timed steps) and whole process (wall time, the estimate's denominator).
ests = [report_of(x[3]) for x in res["streamcheck"]]
est_s = med([e[0] for e in ests])
est_run = med([e[1] for e in ests])
calls = med([e[2] for e in ests])
ss = 100.0 * (1 - med([x[0] for x in res["streamcheck"]]) / med(nat))
dw = med([x[1] for x in res["streamcheck"]]) - med([x[1] for x in res["native"]])
dw_off = med([x[1] for x in res["disabled"]]) - med([x[1] for x in res["native"]]) if res["disabled"] else float("nan")
print(f"  measured: steady state {ss:+.2f}% (images/s); whole process {dw * 1e3:+.0f} ms wall "
      f"({100 * dw / med([x[1] for x in res['native']]):+.2f}%); preloaded but disabled {dw_off * 1e3:+.0f} ms wall")
print(f"  estimate: time in streamcheck {est_s * 1e3:.0f} ms = {100 * est_s / est_run if est_run else float('nan'):.2f}% "
      f"of the report's run ({est_run:.1f} s), {calls:.0f} calls intercepted")
print(f"  estimate / measured (whole process): {est_s / dw if dw > 0 else float('nan'):.2f}")

# The profile table of the median streamcheck round.
sc_runs = sorted(res["streamcheck"], key=lambda x: x[0])
mid = sc_runs[len(sc_runs) // 2]
lines = mid[2].splitlines()
for i, l in enumerate(lines):
    if "profile (STREAMCHECK_PROFILE=1)" in l:
        print(f"\nprofile of the median streamcheck round ({mid[0]:.1f} images/s):")
        for t in lines[i:]:
            if t.startswith("  ") or "profile (" in t:
                print(t)
            elif t.startswith("images_per_s") or not t.strip():
                continue
            else:
                break
        break
else:
    print("\n(no profile table: is this streamcheck built with STREAMCHECK_PROFILE?)")
if not a.keep:
    shutil.rmtree(tmp, ignore_errors=True)
EOF
