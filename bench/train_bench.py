"""train_bench: streamcheck's cost on a real training loop, and its own estimate.

Runs tests/corpus/python/train_resnet.py (ResNet-18, DataLoader, pinned
batches) natively and under streamcheck, alternating, PAIRS times (default
7); a third arm runs `streamcheck --measure` when the launcher knows that
option (skipped otherwise, and dropped after its first failure).  Prints
the median images/s of each arm, the median of the per-pair ratios (under
streamcheck / native) with their min-max, and beside the measured cost the
report's own "Time in streamcheck" estimate (shim_ns of the JSON report):
as a share of the run, and in ms beside the whole process's extra wall
time (the same denominator: the estimate covers the whole run, start-up
and exit included, while images/s covers the timed steps only).  Inside the
timed steps themselves: each pair's extra time (its streamcheck window
less its native window) beside the shim's own estimate of its time in that
window (shim_self_ns_window, which train_resnet.py prints under
streamcheck).

    python3 bench/train_bench.py [--pairs N] [--steps N] [--warmup N] [--pin-memory {0,1}]
                                 [--torch-profiler] [--no-measure] [--redirect METHODS]

With --torch-profiler a fourth arm runs the loop natively inside
torch.profiler (GPU activity): what CUPTI's tracing costs when PyTorch's
own profiler does it, beside the measure arm.  With --redirect entry,stream
(any of entry, handle, stream) an arm per method runs under
streamcheck --redirect=per-thread --redirect-method=METHOD.

Environment: STREAMCHECK (the launcher, default streamcheck on PATH);
TRAIN_BENCH_PROG (the loop, default train_resnet.py; bench/torch_train.py,
the autograd loop redirect must keep bit-identical, speaks the same).
Exits 77 without a GPU or torch.
"""
import argparse
import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROG = os.environ.get("TRAIN_BENCH_PROG") or os.path.join(HERE, "..", "tests", "corpus", "python", "train_resnet.py")


def ips(stderr):
    m = re.findall(r"^images_per_s=([0-9.]+)", stderr, re.M)
    return float(m[-1]) if m else None


def window_ns(stderr):
    m = re.findall(r"^timed_window_ns=([0-9]+),([0-9]+)", stderr, re.M)
    return int(m[-1][1]) - int(m[-1][0]) if m else None


def self_in_window(stderr):
    m = re.findall(r"^shim_self_ns_window=([0-9]+)", stderr, re.M)
    return int(m[-1]) if m else None


def estimate(outdir):
    """(shim seconds, run seconds) from the JSON reports of one run."""
    shim = run = 0.0
    for f in glob.glob(os.path.join(outdir, "*.json")):
        d = json.load(open(f))
        for p in d.get("processes", []) or [d.get("process", {})]:
            shim += p.get("shim_ns", 0) / 1e9
            run = max(run, p.get("end_time", 0) - p.get("start_time", 0))
    return shim, run


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=7)
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--warmup", type=int, default=15)
    ap.add_argument("--pin-memory", type=int, choices=(0, 1), default=1)
    ap.add_argument("--torch-profiler", action="store_true")
    ap.add_argument("--no-measure", action="store_true", help="skip the --measure arm")
    ap.add_argument("--redirect", default="", metavar="METHODS",
                    help="comma-separated redirect methods (entry, handle, stream): an arm each, "
                         "under --redirect=per-thread --redirect-method=METHOD")
    a = ap.parse_args()
    methods = [m for m in a.redirect.split(",") if m]
    bad = [m for m in methods if m not in ("entry", "handle", "stream")]
    if bad:
        ap.error(f"--redirect: {', '.join(bad)}: not a method (entry, handle, stream)")
    try:
        gpu = subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode == 0
    except OSError:
        gpu = False
    if not gpu:
        print("train_bench: no GPU; skipping", file=sys.stderr)
        return 77
    sc = os.environ.get("STREAMCHECK", "streamcheck")
    cmd = [sys.executable, PROG, "--pin-memory", str(a.pin_memory), "--steps", str(a.steps),
           "--warmup", str(a.warmup)]
    arms = {"native": [], "streamcheck": [], "measure": [], "torchprof": []}
    arms.update({f"redirect-{m}": [] for m in methods})
    shimmed = [k for k in arms if k not in ("native", "torchprof")]
    walls = {k: [] for k in arms}
    est = {k: [] for k in shimmed}
    est_ms = {k: [] for k in shimmed}
    win = {k: {} for k in arms}          # arm -> pair -> timed window, ns
    win_est = {k: {} for k in shimmed}   # arm -> pair -> self-estimate in it, ns
    try:
        helptext = subprocess.run([sc, "--help"], capture_output=True, text=True).stdout
    except OSError:
        helptext = ""
    measure_ok = "--measure" in helptext and not a.no_measure
    if not measure_ok and not a.no_measure:
        print("train_bench: the launcher has no --measure; the measure arm is skipped", file=sys.stderr)
    tmp = tempfile.mkdtemp()
    try:
        for r in range(a.pairs):
            for arm in arms:
                if (arm == "measure" and not measure_ok) or (arm == "torchprof" and not a.torch_profiler):
                    continue
                env = dict(os.environ)
                out = os.path.join(tmp, f"{arm}{r}")
                os.makedirs(out)
                c = cmd
                if arm == "torchprof":
                    c = cmd + ["--torch-profiler"]
                elif arm != "native":
                    c = [sc, "--format=json,text", f"--output={out}"] + \
                        (["--measure"] if arm == "measure" else []) + \
                        (["--redirect=per-thread", "--redirect-method=" + arm[len("redirect-"):]]
                         if arm.startswith("redirect-") else []) + ["--"] + cmd
                t0 = time.monotonic()
                p = subprocess.run(c, capture_output=True, text=True, env=env)
                wall = time.monotonic() - t0
                if p.returncode == 77 and arm == "native":
                    print(f"train_bench: {os.path.basename(PROG)} skipped (no torch or GPU)", file=sys.stderr)
                    return 77
                v = ips(p.stderr)
                if p.returncode != 0 or v is None:
                    print(f"train_bench: {arm} run {r}: exit {p.returncode}, no images_per_s; "
                          f"{p.stderr.strip().splitlines()[-1:] or ''}", file=sys.stderr)
                    if arm == "measure":
                        measure_ok = False
                    continue
                arms[arm].append(v)
                walls[arm].append(wall)
                if window_ns(p.stderr):
                    win[arm][r] = window_ns(p.stderr)
                if arm in win_est and self_in_window(p.stderr) is not None:
                    win_est[arm][r] = self_in_window(p.stderr)
                print(f"train_bench: pair {r} {arm}: {v:.1f} images/s, {wall:.1f} s", file=sys.stderr, flush=True)
                if arm in est:
                    s, t = estimate(out)
                    if t > 0:
                        est[arm].append(100.0 * s / t)
                        est_ms[arm].append(1e3 * s)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    if not arms["native"]:
        print("train_bench: no native numbers", file=sys.stderr)
        return 1
    n0 = statistics.median(arms["native"])
    w0 = statistics.median(walls["native"])
    print(f"{os.path.basename(PROG)} (pin_memory={a.pin_memory}, {a.steps} timed steps of 64), {a.pairs} pairs")
    print(f"  native          median {n0:9.1f} images/s   runs: {' '.join('%.0f' % v for v in arms['native'])}"
          f"   wall {w0:.2f} s")
    for arm in [k for k in arms if k != "native"]:
        v = arms[arm]
        if not v:
            if arm != "torchprof" or a.torch_profiler:
                print(f"  {arm:15s} no runs" + (" (streamcheck --measure unknown or failed)" if arm == "measure" else ""))
            continue
        ratios = [x / y for x, y in zip(v, arms["native"])]
        m = statistics.median(v)
        e = statistics.median(est[arm]) if est.get(arm) else float("nan")
        print(f"  {arm:15s} median {m:9.1f} images/s   runs: {' '.join('%.0f' % x for x in v)}")
        print(f"  {'':15s} ratio {statistics.median(ratios):.4f} (pairs min {min(ratios):.4f} max "
              f"{max(ratios):.4f}); measured slowdown {100 * (1 - m / n0):+.2f}%, "
              f"self-estimate {e:.2f}% of run time")
        if walls[arm] and est_ms.get(arm):
            dw = 1e3 * (statistics.median(walls[arm]) - w0)
            em = statistics.median(est_ms[arm])
            print(f"  {'':15s} whole process: {dw:+.0f} ms wall ({100 * dw / (1e3 * w0):+.2f}%), "
                  f"self-estimate {em:.0f} ms" + (f" ({em / dw:.2f} of it)" if dw > 0 else ""))
        pairs = [r for r in win_est.get(arm, {}) if r in win["native"] and r in win[arm]]
        if pairs:
            extra = statistics.median(win[arm][r] - win["native"][r] for r in pairs) / 1e6
            inside = statistics.median(win_est[arm][r] for r in pairs) / 1e6
            print(f"  {'':15s} timed steps: {extra:+.1f} ms longer than native (median of {len(pairs)} pairs), "
                  f"self-estimate {inside:.1f} ms inside them" + (f" ({inside / extra:.2f} of it)" if extra > 0 else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
