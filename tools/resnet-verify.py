#!/usr/bin/env python3
"""resnet-verify: one run on a GPU that checks what streamcheck says about a
real training loop against what the loop measures, side by side.

The loop is tests/corpus/python/train_resnet.py (ResNet-18, a DataLoader
with 4 workers, backward, SGD, loss.item() every step).  Arms, alternated
in rounds (the order rotates each round, so drift hits every arm alike):

  native-pin1   pin_memory=True, natively
  native-pin0   pin_memory=False, natively: the pinning gain per step
  sc-pin1       pin_memory=True under streamcheck: the overhead, the
                self-estimate beside it, and the warnings (none expected)
  sc-pin0       pin_memory=False under streamcheck: the first warning (SC203
                at the x.cuda(non_blocking=True) line expected) and its
                cost per step beside the pinning gain
  msr-pin0      the same under streamcheck --measure (its measured cost)
  msr-pin1      pin_memory=True under --measure (measured mode's overhead)

The --measure arms run in the first --measure-rounds rounds only, and are
dropped if streamcheck has no --measure.  Everything goes to --out (JSON
reports, logs, a summary); the summary is printed last.

    python3 tools/resnet-verify.py [--rounds 7] [--measure-rounds 3]
        [--steps 30] [--warmup 10] [--out DIR]
"""
import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PROG = os.path.join(HERE, "..", "tests", "corpus", "python", "train_resnet.py")


def marked_line(mark):
    with open(PROG) as fh:
        for i, l in enumerate(fh, 1):
            if l.rstrip().endswith("# corpus: " + mark):
                return i
    return None


def run(arm, args, out, k):
    pin = arm[-1]
    cmd = [sys.executable, PROG, "--pin-memory", pin, "--steps", str(args.steps),
           "--warmup", str(args.warmup), "--deterministic"]
    rep = os.path.join(out, "%s.%d" % (arm, k))
    os.makedirs(rep, exist_ok=True)
    if arm.startswith("sc-"):
        cmd = [args.streamcheck, "--format=json,text", "--output=" + rep, "--"] + cmd
    elif arm.startswith("msr-"):
        cmd = [args.streamcheck, "--measure", "--format=json,text", "--output=" + rep, "--"] + cmd
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    o, e = r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")
    with open(os.path.join(rep, "log.txt"), "w") as fh:
        fh.write("$ %s\nexit %d\n--- stdout\n%s\n--- stderr\n%s" % (" ".join(cmd), r.returncode, o, e))
    m = re.findall(r"^images_per_s=([0-9.]+)", e, re.M)
    loss = re.findall(r"^loss_sum=\S+ loss_hex=(\S+)", o, re.M)
    res = {"rc": r.returncode, "ips": float(m[-1]) if m else None, "loss": loss[-1] if loss else None}
    files = glob.glob(os.path.join(rep, "*.json"))
    if files:
        res["reports"] = [json.load(open(f)) for f in files]
    return res


def findings(res):
    for d in res.get("reports", []):
        for f in d.get("findings", []):
            yield d, f


def where(d, f):
    cs = {c["id"]: c for c in d.get("callsites", [])}.get(f.get("callsite"))
    if not cs:
        return "-"
    for p in cs.get("python", []):
        if p.get("file") and p.get("line"):
            return "%s:%d" % (os.path.basename(p["file"]), p["line"])
    fr = cs.get("frames", [])
    i = cs.get("primary", 0) or 0
    if i < len(fr) and fr[i].get("file"):
        return "%s:%d" % (os.path.basename(fr[i]["file"]), fr[i]["line"])
    return "-"


def med(v):
    return statistics.median(v) if v else float("nan")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--measure-rounds", type=int, default=3)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--streamcheck", default="streamcheck")
    p.add_argument("--out", default=os.environ.get("OUT") or tempfile.mkdtemp(prefix="resnet-verify."))
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    has_measure = subprocess.run([args.streamcheck, "--help"], stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT).stdout.decode().find("--measure") >= 0
    arms = ["native-pin1", "native-pin0", "sc-pin1", "sc-pin0"]
    marms = ["msr-pin0", "msr-pin1"] if has_measure else []
    results = {a: [] for a in arms + marms}
    for k in range(args.rounds):
        order = arms[k % len(arms):] + arms[:k % len(arms)]
        if k < args.measure_rounds:
            order += marms
        for a in order:
            r = run(a, args, args.out, k)
            results[a].append(r)
            print("round %d %-12s rc %d images/s %s" % (k, a, r["rc"], r["ips"]), flush=True)

    ips = {a: [r["ips"] for r in results[a] if r["ips"]] for a in results}
    step_ms = lambda v: 1000.0 * args.batch_size / v     # noqa: E731
    lines = []
    w = lines.append
    w("== resnet-verify: %d rounds, %d timed steps after %d warm-up, batch %d" %
      (args.rounds, args.steps, args.warmup, args.batch_size))
    for a in results:
        if ips[a]:
            w("%-12s images/s median %8.1f  min %8.1f  max %8.1f  (n=%d)" %
              (a, med(ips[a]), min(ips[a]), max(ips[a]), len(ips[a])))
    # Pinning gain, per step, from the pairs of each round.
    gains = [step_ms(b["ips"]) - step_ms(a["ips"]) for a, b in zip(results["native-pin1"], results["native-pin0"])
             if a["ips"] and b["ips"]]
    w("pinning gain per step: median %.2f ms (min %.2f, max %.2f); images/s %.3fx" %
      (med(gains), min(gains or [0]), max(gains or [0]), med(ips["native-pin1"]) / med(ips["native-pin0"])))
    # Overhead: per-round ratio sc / native.
    for sc, nat in (("sc-pin1", "native-pin1"), ("sc-pin0", "native-pin0"), ("msr-pin1", "native-pin1")):
        rs = [s["ips"] / n["ips"] for s, n in zip(results.get(sc, []), results[nat]) if s["ips"] and n["ips"]]
        if rs:
            est = []
            for r in results[sc]:
                for d in r.get("reports", []):
                    for pr in d.get("processes", []):
                        run_s = (pr.get("end_time") or 0) - (pr.get("start_time") or 0)
                        if run_s > 0 and "python" in os.path.basename(pr.get("exe", "")):
                            est.append(100.0 * pr.get("shim_ns", 0) / 1e9 / run_s)
            w("%-9s / %-11s ratio median %.3f (min %.3f, max %.3f, n=%d): slowdown %.1f%%; "
              "self-estimate %.2f%% of run time (median over runs)" %
              (sc, nat, med(rs), min(rs), max(rs), len(rs), 100 * (1 - med(rs)), med(est)))
    # What streamcheck said.
    line = marked_line("SC203")
    for a in ("sc-pin0", "sc-pin1", "msr-pin0", "msr-pin1"):
        if not results.get(a):
            continue
        r = results[a][0]
        warns = [(d, f) for d, f in findings(r) if f["severity"] in ("warning", "error")]
        w("%s (round 0): %d warnings, %d notes; loss %s" %
          (a, len(warns), sum(1 for _ in findings(r)) - len(warns), r["loss"]))
        for d, f in warns[:5]:
            w("   %s %s x%d at %s, cost %.2f ms (%s)%s" % (
                f["rule"], f["severity"], f["count"], where(d, f), f.get("cost_ns", 0) / 1e6,
                f.get("cost_basis"), "" if f.get("gpu_lost_ns") is None else
                ", gpu_lost %.2f ms" % (f["gpu_lost_ns"] / 1e6)))
        for d in r.get("reports", []):
            for pr in d.get("processes", []):
                if pr.get("gpu"):
                    g = pr["gpu"]
                    w("   GPU: span %.1f ms, busy %.1f, idle %.1f, overlap %.1f" % (
                        g.get("span_ns", 0) / 1e6, g.get("busy_ns", 0) / 1e6, g.get("idle_ns", 0) / 1e6,
                        g.get("overlap_ns", 0) / 1e6))
    # SC203 at the batch line, per step, beside the pinning gain.
    for a in ("sc-pin0", "msr-pin0"):
        per = []
        for r in results.get(a, []):
            for d, f in findings(r):
                if f["rule"] == "SC203" and where(d, f) == "train_resnet.py:%s" % line and f["count"]:
                    per.append(f.get("cost_ns", 0) / 1e6 / f["count"])
        if per:
            g = med(gains)
            w("%s: SC203 at train_resnet.py:%s costs %.2f ms a step (median of %d runs) against a "
              "measured pinning gain of %.2f ms a step: estimate / gain %.2f" %
              (a, line, med(per), len(per), g, med(per) / g if g else float("nan")))
    # Same results under streamcheck.
    for a in results:
        losses = set(r["loss"] for r in results[a] if r["loss"])
        w("%-12s loss values seen: %s" % (a, ", ".join(sorted(losses)) or "none"))
    text = "\n".join(lines)
    with open(os.path.join(args.out, "summary.txt"), "w") as fh:
        fh.write(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
