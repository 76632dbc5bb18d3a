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
                                 [--batch-size N] [--cpus LIST] [--chunks N]
                                 [--torch-profiler] [--no-measure] [--no-detect] [--redirect METHODS]
                                 [--measure-window S:LEN|auto] [--ablate PARTS]

Each ratio comes with a 95% bootstrap interval of its median (the pairs
resampled): a difference is shown only when the interval excludes 1.
Beside the whole timed window, the per-chunk rate: the timed steps cut
into --chunks runs (the loop prints when each step ended, step_end_ns=),
a run's figure the median chunk's rate, so a disturbance that passes
slows one chunk and not the run.  --cpus pins every arm to the same CPUs.

With --measure-window an arm runs streamcheck --measure-window: S:LEN as
given, or auto: a fifth of the timed steps from 40% into them, placed by
the pair's native run (its timed_window_ns against its cuda_ready_ns, the
point the window counts from).  With --ablate hb,drain,rt,... an arm per
part runs with STREAMCHECK_TEST_ABLATE=PART (measured mode's parts, rt,
api, ext, ts, copy, parse, under --measure): what each part costs.
--no-detect skips the plain streamcheck arm.

With --torch-profiler a fourth arm runs the loop natively inside
torch.profiler (GPU activity): what CUPTI's tracing costs when PyTorch's
own profiler does it, beside the measure arm.  With --redirect entry,stream
(any of entry, handle, stream) an arm per method runs under
streamcheck --redirect=per-thread --redirect-method=METHOD.

Other loops: --prog PATH (or TRAIN_BENCH_PROG) runs another Python loop
that speaks the same (bench/torch_train.py, the autograd loop redirect must
keep bit-identical, takes the same options); --prog-args "ARGS" gives the
loop these arguments instead of --pin-memory, --steps, --warmup and
--batch-size; --launch "CMD" starts it with CMD instead of this Python
(torchrun --standalone --nproc_per_node 2 for a DDP loop).  The loop's
rate is its last images_per_s=, tokens_per_s= or samples_per_s= line
(tests/corpus/python/gpt2_step.py prints tokens, ddp_train.py samples,
rank 0, with the timed window and the shim's own time like
train_resnet.py).

More arms: --arm NAME:SPEC runs one more streamcheck arm with SPEC's
VAR=VALUE settings in the environment and its options (words starting
with -) given to the launcher: --arm nosample:STREAMCHECK_GPU_SAMPLE_US=0
is detect mode without the GPU sampler, --arm nohb:STREAMCHECK_TEST_ABLATE=hb
without the pthread tracker.

Environment: STREAMCHECK (the launcher, default streamcheck on PATH).
Prints whether the summed loss had the same bits in every run (when the
native runs agree among themselves); exits 1 when an arm's differ, 77
without a GPU or torch.
"""
import argparse
import glob
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import random
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROG = os.environ.get("TRAIN_BENCH_PROG") or os.path.join(HERE, "..", "tests", "corpus", "python", "train_resnet.py")


UNIT = ["images/s"]   # what the loop counts, from the first rate read


def ips(stderr):
    """The loop's rate: its last images_per_s=, tokens_per_s= or
    samples_per_s= line (the unit into UNIT), or None."""
    m = re.findall(r"^(images|tokens|samples)_per_s=([0-9.]+)", stderr, re.M)
    if not m:
        return None
    UNIT[0] = m[-1][0] + "/s"
    return float(m[-1][1])


def loss_bits(stdout):
    """The loop's summed loss as printed (loss_hex= where the loop prints
    both, as train_resnet.py does; else loss_sum=), or None.  A loop of
    several processes prints one per rank (ddp_train.py), in either order:
    all of them, by rank."""
    for key in ("loss_hex", "loss_sum"):
        m = re.findall(rf"^(?:rank=(\d+) )?.*\b{key}=(\S+)", stdout, re.M)
        if m:
            if any(r for r, _ in m):
                return ",".join(v for _, v in sorted(m, key=lambda x: int(x[0] or 0)))
            return m[-1][1]
    return None


def window_ns(stderr):
    m = re.findall(r"^timed_window_ns=([0-9]+),([0-9]+)", stderr, re.M)
    return int(m[-1][1]) - int(m[-1][0]) if m else None


def chunk_rates(stderr, window, chunks):
    """The timed steps split into CHUNKS runs of steps: the median of their
    steps per second.  A disturbance that passes (another process, a page
    fault storm) slows one chunk, not the run's figure; a cost the shim
    adds at every step or every few steps is in every chunk.  None when the
    loop printed no step_end_ns or has fewer steps than chunks."""
    m = re.findall(r"^step_end_ns=([0-9,]+)", stderr, re.M)
    if not m or window is None:
        return None
    ends = [int(t) for t in m[-1].split(",")]
    if len(ends) < chunks:
        return None
    start = ends[-1] - window
    marks = [start] + ends
    n = len(ends)
    cuts = [round(k * n / chunks) for k in range(chunks + 1)]
    rates = [(cuts[k + 1] - cuts[k]) * 1e9 / (marks[cuts[k + 1]] - marks[cuts[k]])
             for k in range(chunks) if marks[cuts[k + 1]] > marks[cuts[k]]]
    return statistics.median(rates) if rates else None


def interval(ratios, rounds=4000):
    """A 95% bootstrap interval of the median of RATIOS (pairs resampled
    with replacement; a fixed seed, so a rerun on the same numbers prints
    the same interval)."""
    rng = random.Random(1)
    meds = sorted(statistics.median(rng.choices(ratios, k=len(ratios))) for _ in range(rounds))
    return meds[int(0.025 * rounds)], meds[int(0.975 * rounds) - 1]


def cuda_ready(stderr):
    m = re.findall(r"^cuda_ready_ns=([0-9]+)", stderr, re.M)
    return int(m[-1]) if m else None


MEASURE_PARTS = ("rt", "api", "ext", "ts", "copy", "parse")


def auto_window(stderr):
    """--measure-window for a run like this native one: a fifth of its timed
    steps, from 40% into them, in seconds after its CUDA start."""
    m = re.findall(r"^timed_window_ns=([0-9]+),([0-9]+)", stderr, re.M)
    ready = cuda_ready(stderr)
    if not m or ready is None:
        return None
    w0, w1 = int(m[-1][0]), int(m[-1][1])
    return f"{(w0 - ready + 0.4 * (w1 - w0)) / 1e9:.3f}:{0.2 * (w1 - w0) / 1e9:.3f}"


def shim_args(arm, window):
    """The launcher's options of a streamcheck arm."""
    if arm == "measure":
        return ["--measure"]
    if arm == "measure-window":
        return [f"--measure-window={window}"]
    if arm.startswith("redirect-"):
        return ["--redirect=per-thread", "--redirect-method=" + arm[len("redirect-"):]]
    if arm.startswith("ablate-") and arm[len("ablate-"):] in MEASURE_PARTS:
        return ["--measure"]
    if arm in EXTRA:
        return EXTRA[arm][1]
    return []


EXTRA = {}   # arm-NAME -> (settings, launcher options), from --arm


def parse_arm(text):
    """--arm NAME:SPEC: (arm name, {VAR: VALUE}, [options]), or a ValueError.
    SPEC is space-separated: VAR=VALUE settings of the environment (VAR in
    capitals) and the launcher's options (starting with -)."""
    name, sep, spec = text.partition(":")
    if not sep or not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise ValueError("wants NAME:SPEC, NAME of letters, digits, '_', '.' or '-'")
    env, opts = {}, []
    for w in shlex.split(spec):
        if w.startswith("-"):
            opts.append(w)
        elif re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", w):
            var, _, val = w.partition("=")
            env[var] = val
        else:
            raise ValueError(f"'{w}' is neither VAR=VALUE nor an option")
    return "arm-" + name, env, opts


def self_in_window(stderr):
    m = re.findall(r"^shim_self_ns_window=([0-9]+)", stderr, re.M)
    return int(m[-1]) if m else None


def parse_cpus(text):
    """taskset's list form (0-3,8,10-11) as a set of CPU numbers."""
    out = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()):
            raise ValueError(f"'{part}' is not a CPU number or range")
        if int(hi or lo) < int(lo):
            raise ValueError(f"'{part}' is an empty range")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


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
    ap.add_argument("--batch-size", type=int, default=64,
                    help="images per step (default 64): a larger batch makes the loop wait on the GPU, not the host")
    ap.add_argument("--torch-profiler", action="store_true")
    ap.add_argument("--cpus", metavar="LIST",
                    help="run every arm on these CPUs only (taskset's list form, 4-11 or 0,2,4): "
                         "the same cores for every run, so the host's placement is not one more difference")
    ap.add_argument("--chunks", type=int, default=10,
                    help="split each run's timed steps into this many chunks for the per-chunk rate (default 10)")
    ap.add_argument("--prog", default=PROG, metavar="PATH",
                    help="the loop (default train_resnet.py, or TRAIN_BENCH_PROG)")
    ap.add_argument("--prog-args", metavar="ARGS",
                    help="the loop's arguments, split like a shell's, instead of --pin-memory, --steps, "
                         "--warmup and --batch-size")
    ap.add_argument("--launch", metavar="CMD",
                    help="start the loop with CMD (e.g. 'torchrun --standalone --nproc_per_node 2') "
                         "instead of this Python")
    ap.add_argument("--budget", type=float, default=0, metavar="S",
                    help="start no pair that would end after S seconds (the pairs so far tell how long one "
                         "takes): a lent machine's time limit still gets a summary (default 0: no limit)")
    ap.add_argument("--arm", action="append", default=[], metavar="NAME:SPEC",
                    help="one more streamcheck arm: SPEC is space-separated VAR=VALUE settings and launcher "
                         "options ('nosample:STREAMCHECK_GPU_SAMPLE_US=0', 'nohb:STREAMCHECK_TEST_ABLATE=hb')")
    ap.add_argument("--no-measure", action="store_true", help="skip the --measure arm")
    ap.add_argument("--no-detect", action="store_true", help="skip the plain streamcheck arm")
    ap.add_argument("--measure-window", metavar="S:LEN|auto",
                    help="an arm under --measure-window (auto: a fifth of the timed steps, placed by native)")
    ap.add_argument("--ablate", default="", metavar="PARTS",
                    help="comma-separated STREAMCHECK_TEST_ABLATE parts: an arm each")
    ap.add_argument("--redirect", default="", metavar="METHODS",
                    help="comma-separated redirect methods (entry, handle, stream): an arm each, "
                         "under --redirect=per-thread --redirect-method=METHOD")
    a = ap.parse_args()
    cpus = None
    if a.cpus:
        try:
            cpus = parse_cpus(a.cpus)
        except ValueError as e:
            ap.error(f"--cpus {a.cpus}: {e}")
        bad = cpus - os.sched_getaffinity(0)
        if bad:
            ap.error(f"--cpus {a.cpus}: CPU {min(bad)} is not available to this process")
    for text in a.arm:
        try:
            name, env, opts = parse_arm(text)
        except ValueError as e:
            ap.error(f"--arm {text}: {e}")
        EXTRA[name] = (env, opts)
    if not os.path.isfile(a.prog):
        ap.error(f"--prog {a.prog}: no such file")
    if a.chunks < 1 or a.pairs < 1 or a.batch_size < 1 or a.budget < 0:
        ap.error("--chunks, --pairs and --batch-size must be at least 1, --budget at least 0")
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
    cmd = (shlex.split(a.launch) if a.launch else [sys.executable]) + [a.prog]
    if a.prog_args is not None:
        cmd += shlex.split(a.prog_args)
    else:
        # one epoch: a DataLoader starts its workers again at each epoch,
        # a stall that moves a run's rate by more than the 1% sought
        cmd += ["--pin-memory", str(a.pin_memory), "--steps", str(a.steps),
                "--warmup", str(a.warmup), "--batch-size", str(a.batch_size),
                "--samples", str(a.batch_size * (a.steps + a.warmup))]
    parts = [x for x in a.ablate.split(",") if x]
    arms = {"native": [], "streamcheck": [], "measure": [], "torchprof": []}
    if a.no_detect:
        del arms["streamcheck"]
    if a.measure_window:
        arms["measure-window"] = []
    arms.update({f"redirect-{m}": [] for m in methods})
    arms.update({f"ablate-{x}": [] for x in parts})
    arms.update({k: [] for k in EXTRA})
    shimmed = [k for k in arms if k not in ("native", "torchprof")]
    walls = {k: [] for k in arms}
    est = {k: [] for k in shimmed}
    est_ms = {k: [] for k in shimmed}
    win = {k: {} for k in arms}          # arm -> pair -> timed window, ns
    win_est = {k: {} for k in shimmed}   # arm -> pair -> self-estimate in it, ns
    chunk = {k: {} for k in arms}        # arm -> pair -> median chunk rate, steps/s
    losses = {k: [] for k in arms}       # arm -> the summed loss of each run, as printed
    try:
        helptext = subprocess.run([sc, "--help"], capture_output=True, text=True).stdout
    except OSError:
        helptext = ""
    measure_ok = "--measure" in helptext and not a.no_measure
    if not measure_ok and not a.no_measure:
        print("train_bench: the launcher has no --measure; the measure arm is skipped", file=sys.stderr)
    window = None if a.measure_window == "auto" else a.measure_window
    tmp = tempfile.mkdtemp()
    started = time.monotonic()
    ran = 0
    try:
        for r in range(a.pairs):
            spent = time.monotonic() - started
            if a.budget and r and spent + spent / r > a.budget:
                print(f"train_bench: --budget {a.budget:g} s: {r} of {a.pairs} pairs run", file=sys.stderr)
                break
            ran = r + 1
            for arm in arms:
                if (arm == "measure" and not measure_ok) or (arm == "torchprof" and not a.torch_profiler):
                    continue
                if arm == "measure-window" and not window:
                    continue
                env = dict(os.environ)
                if arm.startswith("ablate-"):
                    env["STREAMCHECK_TEST_ABLATE"] = arm[len("ablate-"):]
                env.update(EXTRA.get(arm, ({}, []))[0])
                out = os.path.join(tmp, f"{arm}{r}")
                os.makedirs(out)
                c = cmd
                if arm == "torchprof":
                    c = cmd + ["--torch-profiler"]
                elif arm != "native":
                    c = [sc, "--format=json,text", f"--output={out}"] + shim_args(arm, window) + ["--"] + cmd
                t0 = time.monotonic()
                p = subprocess.run(c, capture_output=True, text=True, env=env,
                                   preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None)
                wall = time.monotonic() - t0
                if p.returncode == 77 and arm == "native":
                    print(f"train_bench: {os.path.basename(a.prog)} skipped (no torch or GPU)", file=sys.stderr)
                    return 77
                v = ips(p.stderr)
                if p.returncode != 0 or v is None:
                    print(f"train_bench: {arm} run {r}: exit {p.returncode}, no rate (images_per_s=...); "
                          f"{p.stderr.strip().splitlines()[-1:] or ''}", file=sys.stderr)
                    if arm == "measure":
                        measure_ok = False
                    continue
                arms[arm].append(v)
                walls[arm].append(wall)
                if arm == "native" and a.measure_window == "auto" and auto_window(p.stderr):
                    window = auto_window(p.stderr)
                    print(f"train_bench: pair {r}: --measure-window={window}", file=sys.stderr)
                if loss_bits(p.stdout) is not None:
                    losses[arm].append(loss_bits(p.stdout))
                if window_ns(p.stderr):
                    win[arm][r] = window_ns(p.stderr)
                    cr = chunk_rates(p.stderr, win[arm][r], a.chunks)
                    if cr:
                        chunk[arm][r] = cr
                if arm in win_est and self_in_window(p.stderr) is not None:
                    win_est[arm][r] = self_in_window(p.stderr)
                print(f"train_bench: pair {r} {arm}: {v:.1f} {UNIT[0]}, {wall:.1f} s", file=sys.stderr, flush=True)
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
    what = (f"{a.prog_args}" if a.prog_args is not None
            else f"pin_memory={a.pin_memory}, {a.steps} timed steps of {a.batch_size}")
    pairs = f"{a.pairs} pairs" if ran == a.pairs else f"{ran} of {a.pairs} pairs (--budget {a.budget:g} s)"
    print(f"{os.path.basename(a.prog)} ({what}), {pairs}" + (f", by {a.launch}" if a.launch else "")
          + (f", on CPUs {a.cpus}" if a.cpus else ""))
    print(f"  native          median {n0:9.1f} {UNIT[0]}   runs: {' '.join('%.0f' % v for v in arms['native'])}"
          f"   wall {w0:.2f} s")
    # The loss: a deterministic loop (native runs agree) must give the same
    # bits in every arm; redirect must not change results.
    status = 0
    native_bits = set(losses["native"])
    if len(native_bits) == 1:
        want = next(iter(native_bits))
        differ = {k: sorted(set(v) - {want}) for k, v in losses.items() if set(v) - {want}}
        n = sum(len(v) for v in losses.values())
        if differ:
            status = 1
            print(f"  loss: DIFFERENT from native's {want} in " +
                  "; ".join(f"{k}: {', '.join(v)}" for k, v in differ.items()))
        else:
            print(f"  loss: the same bits in all {n} runs ({want})")
    elif native_bits:
        print(f"  loss: native runs differ among themselves ({len(native_bits)} values): "
              "the loop is not deterministic, not compared")
    for arm in [k for k in arms if k != "native"]:
        v = arms[arm]
        if not v:
            if (arm != "torchprof" or a.torch_profiler) and not (arm == "measure" and a.no_measure):
                print(f"  {arm:15s} no runs" + (" (streamcheck --measure unknown or failed)" if arm == "measure" else ""))
            continue
        ratios = [x / y for x, y in zip(v, arms["native"])]
        m = statistics.median(v)
        e = statistics.median(est[arm]) if est.get(arm) else float("nan")
        print(f"  {arm:15s} median {m:9.1f} {UNIT[0]}   runs: {' '.join('%.0f' % x for x in v)}")
        lo, hi = interval(ratios)
        print(f"  {'':15s} ratio {statistics.median(ratios):.4f} (pairs min {min(ratios):.4f} max "
              f"{max(ratios):.4f}, 95% interval of the median {lo:.4f}-{hi:.4f}); measured slowdown "
              f"{100 * (1 - m / n0):+.2f}%, self-estimate {e:.2f}% of run time")
        cp = [r for r in chunk[arm] if r in chunk["native"]]
        if cp:
            cr = [chunk[arm][r] / chunk["native"][r] for r in cp]
            lo, hi = interval(cr)
            print(f"  {'':15s} per-chunk rate ratio {statistics.median(cr):.4f} (pairs min {min(cr):.4f} max "
                  f"{max(cr):.4f}, 95% interval of the median {lo:.4f}-{hi:.4f}; {a.chunks} chunks a run)")
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
    return status


if __name__ == "__main__":
    sys.exit(main())
