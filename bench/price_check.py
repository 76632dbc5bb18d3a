#!/usr/bin/env python3
"""price_check.py: does the price streamcheck puts on a finding match what its fix gains?

For each hazard and its fix (a pair), in one command: both ways natively,
alternated (A B, B A, ...; --pairs rounds, at least 5), each run timed by
the program itself (elapsed_ms= of the C apps; images_per_s= of the Python
loops, as ms a step; bench/step_timer.py's rankR.step_ms= for the DDP loop),
never by the process's wall time; the gain is the median of the rounds'
differences, the spread their range.  Then the hazard under streamcheck
(--sc-runs times), in detect mode and with --measure: the findings of the
pair's rule at the pair's marked lines (C apps: the lines their
APP.expect names for the rule, from the "// expect:" comments; Python: the
lines carrying "# corpus: RULE" or "# corpus: RULE-..."), summed, are the
estimate (ms a run for the C apps, ms a step for the Python loops: the cost
of every step divided by the steps run).  Judged by these bounds:
where the fix gains at least 5% of the hazard's time, estimate / gain
within 0.75-1.25 in measured mode (--measured-bound) and 0.5-2 in detect
mode (--detect-bound); where it gains less, the estimate under 5% of the
window (the report's window_ns when it has one, else the hazard's own time).

    python3 bench/price_check.py [--sim] [--stage DIR] [--only KEYS] [--pairs N]
                                 [--sc-runs N] [--out FILE.json] [--list]

Pairs (--only takes keys or the groups c, python; they run in the order it
names them, and --list with --only lists them so):
  host_sync_loop-gpu   testapps/host_sync_loop each vs end, GPU-bound (SC403)
  host_sync_loop-host  the same, host-bound (SC403)
  pageable_loop-gpu    testapps/pageable_loop pageable vs pinned, GPU-bound (SC203)
  pageable_loop-host   the same, host-bound, larger copies (SC203)
  pageable_loop-loader testapps/pageable_loop loader vs loader-pinned: each batch
                       received on the copying thread vs on a pinning thread (SC203)
  readback             testapps/pageable_loop fresh vs readback-pinned: a result read
                       back each step into a new mapping (first touches) vs into
                       one pinned buffer (SC203)
  multithread          multithread_default_stream vs its --default-stream
                       per-thread build (SC103)
  copy_pipeline        testapps/copy_pipeline: pieces uploaded, computed and
                       downloaded on one stream vs on copy streams (SC703)
  train_resnet         tests/corpus/python/train_resnet.py --pin-memory 0 vs 1 (SC203)
  lightning_train      tests/corpus/python/lightning_train.py --pin-memory 0 vs 1:
                       the same loop under Lightning's Trainer (SC203)
  resnet_item          tests/corpus/python/train_resnet.py, pinned, vs --metrics-on-gpu (SC403)
  item_loop            tests/corpus/python/item_loop.py vs --metrics-on-gpu (SC403)
  gpt2_item            tests/corpus/python/gpt2_step.py vs --metrics-on-gpu (SC403)
  readback_loop        tests/corpus/python/readback_loop.py: a 64 MiB result read
                       back with .cpu() each step (a fresh mapping each time)
                       vs into one pinned buffer (SC203)
  ddp_train            tests/corpus/python/ddp_train.py --pin-memory 0 vs 1 on 2
                       GPUs under torchrun, a row per rank (SC203)
  ddp_item             the same, pinned: loss.item() every step vs --metrics-on-gpu
                       (SC403)

Where things are: --stage DIR, an installed tree (./configure
--prefix=$PWD/.stage && make install; tools/stage-gpu.sh): streamcheck in
DIR/bin, the apps and their .expect files in DIR/libexec/streamcheck/testapps,
the simulator in DIR/libexec/streamcheck/sim; or --streamcheck, --apps and
--simdir (make bench-price names the build tree's).  The Python programs
come from the source tree (--python-dir).  Default: the source tree's .stage
if there is one, else the build tree when it is the source tree.

--sim: the C pairs only, natively on the CPU simulator and under
`streamcheck --simulate` (no GPU needed; the numbers say whether the
harness and the pricing work, not what a GPU does).  Without --sim a GPU
must be there (nvidia-smi -L), else it exits 77; the Python pairs are
skipped where torch or CUDA is missing (the programs exit 77), the DDP pair
where fewer than 2 GPUs are (--nproc 1 runs it as one rank on one GPU: its
DataLoader and copies as on two, without the other rank to wait for).

make bench-price (bench/local.mk) runs it with --sim against the build
tree (PRICE_ARGS adds options, PRICE_OUT names the JSON); on a lent GPU,
tools/gpu-verify.sh price runs every pair from the carried .stage
(PRICE_ONLY, PRICE_BUDGET) and leaves price-check.md and price-check.json in
$OUT.

Output: a Markdown table on stdout (pair, gain, each mode's estimate and
est / gain, the report's window and its predicted all-fixed time when the
JSON has them, the verdict) and every run and number as JSON (--out,
default $OUT/price-check.json when OUT is set, else price-check.json).
Exit: 1 when a row misses its bound or a run failed, 0 otherwise (skipped
rows included), 2 for a usage error, 77 without a GPU (no --sim).
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
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import seeds   # noqa: E402  its Runner: one run, its status, output and NAME=VALUE metrics
from together import added_up   # noqa: E402
RANKED = re.compile(r"^rank([0-9]+)\.(.+)$")
SKIPPED = 77


# ---------------------------------------------------------------- pairs ---

class Pair:
    """A hazard and its fix.  unit: "run" (the metric is the run's time in
    ms) or "step" (ms a step: the metric is images_per_s with batch images a
    step, tokens_per_s with batch tokens a step, or step_ms; the estimate
    is divided by steps, every step run).
    marks: the C app whose .expect names the rule's lines, or the Python
    script whose "# corpus:" comments do.  launch: None, or "torchrun" (a
    process a GPU, ranks rows)."""

    def __init__(self, key, group, title, hazard, fix, rule, metric, marks, unit="run", batch=None,
                 steps=None, launch=None, same_output=True, sim_env=None, sc_args=None, sc_env=None, modes=None,
                 gpu_args=None, env=None):
        self.key, self.group, self.title = key, group, title
        self.hazard, self.fix, self.rule, self.metric, self.marks = hazard, fix, rule, metric, marks
        self.unit, self.batch, self.steps, self.launch = unit, batch, steps, launch
        self.same_output = same_output
        self.sim_env = sim_env or {}   # environment of its runs on the simulator
        self.sc_args = sc_args or []   # streamcheck's options for the hazard's runs (--range=NAME)
        self.sc_env = sc_env or {}     # and their environment (a test hook)
        self.modes = modes             # the modes it is priced in (None: every one asked)
        self.gpu_args = gpu_args or []  # the C app's arguments on a GPU (both ways), not on the simulator
        self.env = env or {}           # environment of every run, both ways, native or not (the apps' timer)
        self.window = None    # --measure-window S:LEN, from its native runs (window_of)


# On the simulator a copy takes its memmove's time, which the CPU's caches
# and the machine's load make swing by more than pinning gains; paced as over
# links (pinned 2 GB/s, pageable 0.5: the driver's staging is the slower),
# every copy of a size takes one time, mostly asleep.
PAGEABLE_SIM = {"STREAMCHECK_SIM_COPY_GBPS": "2", "STREAMCHECK_SIM_PAGEABLE_GBPS": "0.5"}
EVEN_SIM = {"STREAMCHECK_SIM_COPY_GBPS": "2"}


def pair_table(a):
    """Every pair, with the arguments it runs at."""
    app = lambda name, *rest: [os.path.join(a.apps, name)] + [str(x) for x in rest]     # noqa: E731
    py = lambda script, *rest: [a.python, os.path.join(a.python_dir, script)] + [str(x) for x in rest]  # noqa: E731
    hsl = "host_sync_loop: STEPS GPU_MS HOST_MS; each step waits for the GPU, then works on the host"
    pgl = "pageable_loop: STEPS MIB GPU_MS HOST_MS; a batch copied from pageable memory each step"
    resnet = ["--steps", 40, "--warmup", 10, "--deterministic"]
    item = ["--steps", 200, "--warmup", 20, "--deterministic"]
    # One epoch (2 ranks x 256 x 120 samples): a DataLoader starts its workers
    # again at each epoch, a stall of tens of ms that moved the 60-step pair's
    # mean step by up to 1.5 ms between rounds, more than pinning gains.
    ddp = ["--steps", 120, "--samples", 2 * 256 * 120]
    rb = ["--steps", 40, "--warmup", 5]
    return [
        Pair("host_sync_loop-gpu", "c", hsl + " (GPU-bound: 10 10 8)",
             app("host_sync_loop", 10, 10, 8, "each"), app("host_sync_loop", 10, 10, 8, "end"),
             "SC403", "elapsed_ms", "host_sync_loop"),
        Pair("host_sync_loop-host", "c", hsl + " (host-bound: 10 4 10)",
             app("host_sync_loop", 10, 4, 10, "each"), app("host_sync_loop", 10, 4, 10, "end"),
             "SC403", "elapsed_ms", "host_sync_loop"),
        # the same wait as programs write it: a device sync, an event's, a
        # result read back with cudaMemcpy (C's loss.item()), cudaFree
        *[Pair("host_sync_loop-" + m, "c", hsl + " (GPU-bound: 10 10 8), the wait " + how,
               app("host_sync_loop", 10, 10, 8, m), app("host_sync_loop", 10, 10, 8, "end"),
               rule, "elapsed_ms", "host_sync_loop")
          for m, how, rule in (("device", "cudaDeviceSynchronize", "SC403"),
                               ("event", "cudaEventSynchronize", "SC403"),
                               ("read", "a 4-byte result read with cudaMemcpy", "SC403"),
                               ("free", "cudaFree of a scratch buffer", "SC303"),
                               ("item", "a 4-byte result read with cudaMemcpyAsync into pageable memory, then "
                                "cudaStreamSynchronize (PyTorch's .item())", "SC403"),
                               ("item2", "two such reads, the second of a tiny kernel's result (a loss.item(), "
                                "then an accuracy's)", "SC403"))],
        Pair("pageable_loop-gpu", "c", pgl + " (GPU-bound: 8 4 10 4)",
             app("pageable_loop", 8, 4, 10, 4, "pageable"), app("pageable_loop", 8, 4, 10, 4, "pinned"),
             "SC203", "elapsed_ms", "pageable_loop", sim_env=PAGEABLE_SIM),
        Pair("pageable_loop-host", "c", pgl + " (host-bound: 8 32 2 10)",
             app("pageable_loop", 8, 32, 2, 10, "pageable"), app("pageable_loop", 8, 32, 2, 10, "pinned"),
             "SC203", "elapsed_ms", "pageable_loop", sim_env=PAGEABLE_SIM),
        Pair("pageable_loop-memcpy", "c", pgl + " (GPU-bound, 8 4 10 4), the batch copied with cudaMemcpy and the "
             "kernels on the legacy stream, as C programs first write it, vs pinned",
             app("pageable_loop", 8, 4, 10, 4, "memcpy"), app("pageable_loop", 8, 4, 10, 4, "pinned"),
             "SC201", "elapsed_ms", "pageable_loop", sim_env=PAGEABLE_SIM),
        Pair("pageable_loop-even", "c", pgl + " (GPU-bound, 8 4 40 2, on the simulator pageable copies as fast "
             "as pinned: pinning gains next to nothing)",
             app("pageable_loop", 8, 4, 40, 2, "pageable"), app("pageable_loop", 8, 4, 40, 2, "pinned"),
             "SC203", "elapsed_ms", "pageable_loop", sim_env=EVEN_SIM),
        Pair("pageable_loop-loader", "c", pgl + " (16 1 2 5), each batch received first on the thread that "
             "copies it (5 ms waiting for it, a shared memory file mapped) and each step waited for, vs a pinning "
             "thread of its own that receives the batches into two pinned buffers: the receipts are the "
             "fixed loop's bottleneck (on the simulator pageable copies as fast as pinned ones, so that the "
             "gain is the receipts')",
             app("pageable_loop", 16, 1, 2, 5, "loader"), app("pageable_loop", 16, 1, 2, 5, "loader-pinned"),
             "SC203", "elapsed_ms", "pageable_loop", sim_env=EVEN_SIM),
        Pair("readback", "c", "pageable_loop 8 16 1 5: a 16 MiB result read back each step into a new mapping "
             "(its pages faulted in each time) vs into one pinned buffer",
             app("pageable_loop", 8, 16, 1, 5, "fresh"), app("pageable_loop", 8, 16, 1, 5, "readback-pinned"),
             "SC203", "elapsed_ms", "pageable_loop"),
        Pair("multithread", "c", "multithread_default_stream 4 5 10: 4 threads on the legacy stream "
             "vs built with --default-stream per-thread",
             app("multithread_default_stream", 4, 5, 10), app("multithread_default_stream_pt", 4, 5, 10),
             "SC103", "elapsed_ms", "multithread_default_stream", same_output=False),
        Pair("copy_pipeline", "c", "copy_pipeline 8 16 0.5: 8 pieces of 16 MiB up, 0.5 ms of kernels, back, "
             "on one stream vs copy streams ordered by events",
             app("copy_pipeline", 8, 16, 0.5, "one"), app("copy_pipeline", 8, 16, 0.5, "streams"),
             "SC703", "elapsed_ms", "copy_pipeline", sc_args=["--range=pipeline"],
             # a copy on the simulator takes its memmove's time, which cold
             # pages make several times what the warm buffer the pinned rate
             # is timed on gets: a 0.5 GB/s link makes them alike, and leaves
             # the CPU mostly idle (a loaded machine keeps the pace)
             sim_env={"STREAMCHECK_SIM_COPY_GBPS": "0.5"}),
        Pair("handle_per_stream", "c", "seed000_matmul: four cuBLAS products twice on one handle left on the "
             "legacy stream vs a handle per stream (4 streams); priced under --measure only (each kernel's time "
             "and events' orders, which measured mode records), as the fix's replay needs",
             app("seed000_matmul"), app("seed000_matmul_fixed"), "SC601", "elapsed_ms", "seed000_matmul",
             sc_args=["--range=timed"], modes=["measure"],
             # the simulator's products are its CPU's work (about 3 ms each):
             # 20 ms each, mostly asleep, they overlap on other streams as a
             # GPU's small kernels do, whatever else shares the CPU
             sim_env={"STREAMCHECK_SIM_KERNEL_MIN_US": "20000"},
             # on a GPU, seeds.py's sizes (bench/seeds.py, seed000-hazard):
             # 1024² products, ten passes, where an H200 gains about 30%
             gpu_args=[4, 1024, 10]),
        Pair("blocking_stream", "c", "blocking_stream: kernels on the legacy stream between a blocking stream's "
             "spins (three 2 ms spins, then a 60 ms one on the legacy stream) vs non-blocking streams that an "
             "event orders; the whole run (main_ms); priced under --measure only, where SC101's sites are "
             "moved off the barrier at once",
             app("blocking_stream"), app("blocking_stream_fixed"), "SC101", "main_ms", "blocking_stream",
             modes=["measure"], env={"SC_TESTAPP_TIMER": "1"}),
        Pair("train_resnet", "python", "train_resnet.py: DataLoader pin_memory 0 vs 1",
             py("train_resnet.py", "--pin-memory", 0, *resnet), py("train_resnet.py", "--pin-memory", 1, *resnet),
             "SC203", "images_per_s", "train_resnet.py", unit="step", batch=64, steps=50),
        Pair("lightning_train", "python", "lightning_train.py (train_resnet's loop under Lightning's Trainer): "
             "DataLoader pin_memory 0 vs 1",
             py("lightning_train.py", "--pin-memory", 0, "--steps", 40, "--warmup", 10),
             py("lightning_train.py", "--pin-memory", 1, "--steps", 40, "--warmup", 10),
             "SC203", "images_per_s", "lightning_train.py", unit="step", batch=64, steps=50),
        Pair("resnet_item", "python", "train_resnet.py, pinned: loss.item() every step vs --metrics-on-gpu",
             py("train_resnet.py", "--pin-memory", 1, *resnet),
             py("train_resnet.py", "--pin-memory", 1, "--metrics-on-gpu", *resnet),
             "SC403", "images_per_s", "train_resnet.py", unit="step", batch=64, steps=50),
        Pair("item_loop", "python", "item_loop.py: loss and accuracy .item() every step vs --metrics-on-gpu",
             py("item_loop.py", *item), py("item_loop.py", "--metrics-on-gpu", *item),
             "SC403", "images_per_s", "item_loop.py", unit="step", batch=128, steps=220),
        Pair("gpt2_item", "python", "gpt2_step.py: the loss summed with .item() every step vs on the GPU "
             "(--metrics-on-gpu)",
             py("gpt2_step.py", "--steps", 60, "--warmup", 10), py("gpt2_step.py", "--metrics-on-gpu", "--steps", 60,
                                                                  "--warmup", 10),
             "SC403", "tokens_per_s", "gpt2_step.py", unit="step", batch=16 * 256, steps=50),
        Pair("readback_loop", "python", "readback_loop.py: a 64 MiB result read back with .cpu() each step "
             "vs into one pinned buffer",
             py("readback_loop.py", *rb), py("readback_loop.py", "--pinned", *rb),
             "SC203", "step_ms", "readback_loop.py", unit="step", steps=45),
        Pair("ddp_train", "python", "ddp_train.py on 2 GPUs (torchrun): pin_memory 0 vs 1, per rank",
             py("ddp_train.py", "--pin-memory", 0, *ddp), py("ddp_train.py", "--pin-memory", 1, *ddp),
             "SC203", "step_ms", "ddp_train.py", unit="step", steps=120, launch="torchrun"),
        Pair("ddp_item", "python", "ddp_train.py on 2 GPUs (torchrun), pinned: loss.item() every step "
             "vs the loss summed on the GPU (--metrics-on-gpu), per rank",
             py("ddp_train.py", "--pin-memory", 1, *ddp), py("ddp_train.py", "--pin-memory", 1,
                                                   "--metrics-on-gpu", *ddp),
             "SC403", "step_ms", "ddp_train.py", unit="step", steps=120, launch="torchrun"),
    ]


# ----------------------------------------------------------------- runs ---

def by_rank(metrics):
    """A run's NAME=VALUE metrics as {rank: {name: value}}: rankR.NAME
    (bench/step_timer.py) under R, the others under None."""
    per = {}
    for name, v in metrics.items():
        r = RANKED.match(name)
        rank, name = (int(r.group(1)), r.group(2)) if r else (None, name)
        per.setdefault(rank, {})[name] = v
    return per


def launch(a, p, cmd, sc=None):
    """The command line and environment that run cmd (a pair's way) natively
    (sc None) or under streamcheck (sc: its options)."""
    env = dict(p.env)
    env.update(p.sim_env if a.sim else {})
    if not a.sim:
        cmd = cmd + [str(x) for x in p.gpu_args]
    if sc is not None:
        env.update(p.sc_env)
    if a.sim and sc is None:
        old = os.environ.get("LD_LIBRARY_PATH")
        env["LD_LIBRARY_PATH"] = a.simdir + (":" + old if old else "")
    if sc is not None:
        sc = [a.streamcheck] + (["--simulate"] if a.sim else []) + p.sc_args + sc + ["--"]
    if p.launch != "torchrun":
        return (sc or []) + cmd, env
    # torchrun as tools/multigpu-check.sh starts it: two processes on this
    # node, NVLink SHARP off; natively through step_timer.py for the times.
    env["NCCL_NVLS_ENABLE"] = "0"
    tr = [a.python, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", str(a.nproc)]
    if a.nproc < 2:
        env["DDP_TRAIN_MIN_GPUS"] = "1"   # ddp_train.py's one-rank run
    if sc is None:
        return tr + [os.path.join(HERE, "step_timer.py"), "--warmup", "10"] + cmd[1:], env
    return tr + ["--no-python"] + sc + cmd, env


def unit_time(p, m):
    """A run's time in the pair's unit (ms a run, or ms a step), or None."""
    v = m.get(p.metric)
    if v is None or v <= 0:
        return None
    return 1000.0 * p.batch / v if p.metric in ("images_per_s", "tokens_per_s") else v


def median(v):
    return statistics.median(v) if v else None


def native(a, runner, p):
    """The alternated runs: {"ways": {way: {rank: {round: ms}}}, "gain": {rank: stats}, "problems": [...]}."""
    ways = {"hazard": {}, "fix": {}}
    phases = {"hazard": {}, "fix": {}}   # phase_NAME_ms= a program prints: its host's time a step
    outs = {"hazard": set(), "fix": set()}
    problems, skipped = [], False
    for r in range(a.pairs):
        for way in ("hazard", "fix") if r % 2 == 0 else ("fix", "hazard"):
            cmd, env = launch(a, p, getattr(p, way))
            rc, out, err, m = runner.run(cmd, env)
            if way == "hazard" and rc == 0 and p.window is None:
                p.window = window_of(err)
            per = by_rank(m)
            if rc == SKIPPED:
                skipped = True
                continue
            if rc != 0:
                problems.append("%s exited %d" % (way, rc))
                continue
            outs[way].add("\n".join(sorted(out.strip().splitlines())))   # ranks print in any order
            for rank, m in per.items():
                t = unit_time(p, m)
                if t is not None:
                    ways[way].setdefault(rank, {})[r] = t
                for name, v in m.items():
                    if rank is None and name.startswith("phase_") and name.endswith("_ms"):
                        phases[way].setdefault(name[6:-3], []).append(v)
                    elif rank is not None and name == "next_ms":   # bench/step_timer.py's, a rank's
                        phases[way].setdefault("rank %d's DataLoader __next__" % rank, []).append(v)
            if not any(unit_time(p, m) for m in per.values()):
                problems.append("%s printed no %s=" % (way, p.metric))
            # progress, as each run ends: a command cut short by its time
            # limit still shows the rounds it ran
            times = ", ".join("%s%.3f" % ("" if rank is None else "rank %d: " % rank, t)
                              for rank, t in ((rank, unit_time(p, m)) for rank, m in sorted(
                                  per.items(), key=lambda x: -1 if x[0] is None else x[0])) if t is not None)
            print("price_check: %s round %d, %s: %s" % (p.key, r + 1, way, times or "no time"), file=sys.stderr,
                  flush=True)
        if skipped:
            break
    if p.same_output and all(len(o) == 1 for o in outs.values()) and outs["hazard"] != outs["fix"]:
        problems.append("the two ways printed different results")
    if any(len(o) > 1 for o in outs.values()):
        problems.append("a way printed different results in different runs")
    gain = {}
    for rank, h in ways["hazard"].items():
        f = ways["fix"].get(rank, {})
        d = [h[r] - f[r] for r in sorted(h) if r in f]     # the rounds where both ways ran
        if d:
            gain[rank] = {"hazard_ms": median(list(h.values())), "fix_ms": median(list(f.values())),
                          "gain_ms": median(d), "min_ms": min(d), "max_ms": max(d), "n": len(d)}
    return {"ways": ways, "gain": gain, "problems": sorted(set(problems), key=problems.index),
            "skipped": skipped and not gain, "phases": phases}


# -------------------------------------------------------------- reports ---

def marked_lines(a, p):
    """The (file basename, line) places of the pair's rule."""
    if p.group == "c":        # its .expect, made from the // expect: comments
        path = os.path.join(a.apps, p.marks + ".expect")
        found = []
        with open(path) as fh:
            for ln in fh:
                f = ln.split()
                if len(f) >= 3 and f[0] == "finding" and f[1] == p.rule and ":" in f[2]:
                    name, line = f[2].rsplit(":", 1)
                    found.append((name, int(line)))
        return found
    mark = re.compile(r"#\s*corpus:\s*%s(-[\w-]+)?\s*$" % re.escape(p.rule))
    with open(os.path.join(a.python_dir, p.marks)) as fh:
        return [(p.marks, i) for i, ln in enumerate(fh, 1) if mark.search(ln.rstrip())]


def frames_of(site):
    """(file basename, line) of each Python and native frame of a call site."""
    out = set()
    for fr in (site.get("python") or []) + (site.get("frames") or []):
        if fr.get("file") and fr.get("line"):
            out.add((os.path.basename(fr["file"]), int(fr["line"])))
    return out


def read_report(path, rule, places):
    """One JSON report: {rank, cost_ns, count, bases, other, window_ns, model_ns, fixed_ns, schema}."""
    with open(path) as fh:
        d = json.load(fh)
    procs = d.get("processes") or [d.get("process") or {}]
    proc = procs[0] if procs else {}
    sites = {c["id"]: c for c in d.get("callsites", [])}
    res = {"rank": proc.get("rank"), "cost_ns": 0, "count": 0, "bases": {}, "other": {},
           "schema": d.get("schema_version")}
    for k in ("window_ns", "model_ns", "fixed_ns"):
        res[k] = proc.get(k)
    marked = []
    for f in d.get("findings", []):
        if not frames_of(sites.get(f.get("callsite"), {})) & places:
            continue
        if f.get("rule") != rule:
            res["other"][f.get("rule", "?")] = res["other"].get(f.get("rule", "?"), 0) + int(f.get("count", 0))
            continue
        marked.append(f)
        c = int(f.get("cost_ns") or 0)
        res["count"] += int(f.get("count", 0))
        b = f.get("cost_basis") or "-"
        res["bases"][b] = res["bases"].get(b, 0) + c
    res["cost_ns"] = added_up(marked)   # findings fixed together: once, at what their fix saves
    return res


# streamcheck's options of each mode: detect; measured over the whole run;
# measured in a window (window_of: a fifth of the timed steps, from 40% into
# them, as bench/train_bench.py's auto), the estimate scaled to the run
MEASURED = ("measure", "window")


def mode_opts(p, mode):
    if mode == "window":
        return ["--measure-window=" + p.window]
    return ["--measure"] if mode == "measure" else []


def window_of(stderr):
    """--measure-window S:LEN for a run like this native one (its
    timed_window_ns= and cuda_ready_ns=, CLOCK_MONOTONIC), or None."""
    w = re.findall(r"^timed_window_ns=([0-9]+),([0-9]+)", stderr or "", re.M)
    ready = re.findall(r"^cuda_ready_ns=([0-9]+)", stderr or "", re.M)
    if not w or not ready:
        return None
    w0, w1, r = int(w[-1][0]), int(w[-1][1]), int(ready[-1])
    return "%.3f:%.3f" % ((w0 - r + 0.4 * (w1 - w0)) / 1e9, 0.2 * (w1 - w0) / 1e9)


def priced(a, runner, p, mode, places):
    """The hazard under streamcheck, --sc-runs times: {"runs": [{rank: report}], "problems": [...]}."""
    runs, problems = [], []
    for k in range(a.sc_runs):
        d = tempfile.mkdtemp(prefix="%s.%s.%d." % (p.key, mode, k), dir=runner.tmp)
        opts = ["--format=json", "--output=" + d, "--log-level=quiet"] + mode_opts(p, mode)
        cmd, env = launch(a, p, p.hazard, opts)
        if a.keep:   # the pricing model's dump beside the report, for bench/price_replay
            env = dict(env, STREAMCHECK_TEST_PRICE_DUMP=os.path.join(d, "model"))
        rc = runner.run(cmd, env)[0]
        files = sorted(glob.glob(os.path.join(d, "*.json")))
        if rc == SKIPPED:
            return {"runs": [], "problems": [], "skipped": True}
        if rc != 0 or not files:
            problems.append("under streamcheck (%s) exited %d with %d reports" % (mode, rc, len(files)))
            continue
        try:
            reps = [read_report(f, p.rule, places) for f in files]
        except (OSError, ValueError, KeyError) as x:
            problems.append("unreadable report (%s): %s" % (mode, x))
            continue
        if a.keep:
            for f in files + sorted(glob.glob(os.path.join(d, "model.*"))):
                shutil.copy(f, os.path.join(a.keep, "%s.%s.%d.%s" % (p.key, mode, k, os.path.basename(f))))
        runs.append(by_process(reps, p.launch is not None))
    return {"runs": runs, "problems": problems, "skipped": False}


def by_process(reps, ranked):
    """One run's reports as {rank: report} (rank None unless ranked).  A
    rank's reports (a DataLoader's workers write their own) add up; the
    window and model times are those of the report with the longest window."""
    out = {}
    for r in reps:
        k = r["rank"] if ranked else None
        if k not in out:
            out[k] = r
            continue
        m = out[k]
        m["cost_ns"] += r["cost_ns"]
        m["count"] += r["count"]
        for field in ("bases", "other"):
            for name, v in r[field].items():
                m[field][name] = m[field].get(name, 0) + v
        if (r["window_ns"] or 0) > (m["window_ns"] or 0):
            m.update({t: r[t] for t in ("window_ns", "model_ns", "fixed_ns")})
    return out


# -------------------------------------------------------------- verdict ---

def per_unit(p, ns):
    """ns of a whole run in the pair's unit (ms, or ms a step)."""
    return None if ns is None else ns / 1e6 / (p.steps if p.unit == "step" else 1)


def estimate(p, pr, rank):
    """The median estimate over the streamcheck runs for a rank, with the
    report's window and model times, in the pair's unit; None when no run."""
    reps = [r[rank] for r in pr["runs"] if rank in r]
    if not reps:
        return None
    pick = lambda k: median([r[k] for r in reps if r.get(k) is not None])     # noqa: E731
    bases = {}
    for r in reps:
        for b, c in r["bases"].items():
            bases[b] = bases.get(b, 0) + c
    other = {}
    for r in reps:
        for rule, n in r["other"].items():
            other[rule] = max(other.get(rule, 0), n)
    return {"ms": per_unit(p, pick("cost_ns")), "count": pick("count"), "n": len(reps),
            "basis": max(bases, key=bases.get) if bases else "-", "other": other,
            "window_ms": per_unit(p, pick("window_ns")), "model_ms": per_unit(p, pick("model_ns")),
            "fixed_ms": per_unit(p, pick("fixed_ns")), "schema": reps[0].get("schema")}


def judge(a, g, est, mode):
    """(ratio, verdict) of one mode's estimate against the gain g."""
    if est is None:
        return None, "no run"
    big = g["hazard_ms"] > 0 and g["gain_ms"] >= a.min_gain * g["hazard_ms"]
    ratio = est["ms"] / g["gain_ms"] if g["gain_ms"] > 0 else None
    if big:
        lo, hi = (1 - a.measured_bound, 1 + a.measured_bound) if mode in MEASURED else \
            (1 / a.detect_bound, a.detect_bound)
        return ratio, "pass" if lo <= ratio <= hi else "FAIL (est/gain %.3f outside %.2f-%.2f)" % (ratio, lo, hi)
    window = est["window_ms"] or g["hazard_ms"]
    share = est["ms"] / window if window else float("inf")
    return ratio, "pass" if share < a.min_gain else "FAIL (gain < %g%%, estimate %.1f%% of the window)" % (
        100 * a.min_gain, 100 * share)


def rows_of(a, p, nat, prices):
    """A row per rank: the gain, each mode's estimate and verdict."""
    rows = []
    for rank in sorted(nat["gain"], key=lambda r: -1 if r is None else r):
        g = nat["gain"][rank]
        row = {"key": p.key if rank is None else "%s rank %d" % (p.key, rank), "unit": p.unit, "gain": g,
               "rule": p.rule, "modes": {}}
        for mode, pr in prices.items():
            est = estimate(p, pr, rank)
            ratio, verdict = judge(a, g, est, mode)
            row["modes"][mode] = {"estimate": est, "ratio": ratio, "verdict": verdict}
        rows.append(row)
    return rows


# --------------------------------------------------------------- output ---

def fmt(v, d=2):
    return "–" if v is None else "%.*f" % (d, v)


def row_cells(r, modes):
    u = "ms" if r["unit"] == "run" else "ms/step"
    g = r["gain"]
    share = 100 * g["gain_ms"] / g["hazard_ms"] if g["hazard_ms"] else None
    cells = [r["key"], "%s %s (%s–%s); %s%% of %s" % (fmt(g["gain_ms"]), u, fmt(g["min_ms"]), fmt(g["max_ms"]),
                                                     fmt(share, 0), fmt(g["hazard_ms"], 1))]
    window = fixed = None
    for mode in modes:
        m = r["modes"].get(mode)
        e = m and m["estimate"]
        if not e:
            cells += ["not run" if m else "not available", "–"]
            continue
        what = "%s×%s, %s" % (r["rule"], fmt(e["count"], 0), e["basis"]) if e["count"] else "no %s there" % r["rule"]
        cells += ["%s (%s)" % (fmt(e["ms"]), what), fmt(m["ratio"])]
        window = window or e["window_ms"]
        if e["model_ms"] is not None and e["fixed_ms"] is not None and fixed is None:
            fixed = "%s → %s" % (fmt(e["model_ms"]), fmt(e["fixed_ms"]))
    bad = ["%s: %s" % (mode, m["verdict"]) for mode, m in r["modes"].items() if m["verdict"] != "pass"]
    cells += [fmt(window), fixed or "–", "pass" if not bad else "**%s**" % "; ".join(bad)]
    return cells


def markdown(a, results, meta):
    shown = ["detect", "measure"] + (["window"] if "window" in a.modes else [])
    title = {"detect": "detect estimate", "measure": "measured estimate", "window": "window estimate"}
    lines = ["# streamcheck's prices against the gains of the fixes", "",
             "%s, %s; %d alternated rounds of each pair natively, %d run(s) of the hazard under streamcheck "
             "in each mode. Gains and estimates in ms a run (C apps) or ms a step (Python loops); gain: the "
             "median of the rounds' differences (their range), and its share of the hazard's time. "
             "Bounds: est/gain %.2f–%.2f measured, %.2f–%.2f detect where the fix gains ≥ %g%%, else the "
             "estimate < %g%% of the window." % (
                 meta["where"], meta["started"], a.pairs, a.sc_runs, 1 - a.measured_bound, 1 + a.measured_bound,
                 1 / a.detect_bound, a.detect_bound, 100 * a.min_gain, 100 * a.min_gain), "",
             "| pair | gain | " + "".join("%s | est/gain | " % title[m] for m in shown) +
             "window | model → all fixed | result |",
             "|---|---:|" + "---:|---:|" * len(shown) + "---:|---:|---|"]
    notes = []
    for res in results:
        if res["skipped"] or not res["rows"]:
            why = res["skipped"] or "; ".join(res["problems"]) or "no gain measured"
            lines.append("| %s | %s%s |" % (res["key"], "– | " * (2 * len(shown) + 3), why))
        for r in res["rows"]:
            lines.append("| " + " | ".join(row_cells(r, shown)) + " |")
            for mode, m in r["modes"].items():
                e = m["estimate"]
                if e and e["other"]:
                    notes.append("%s (%s): other findings at the marked lines: %s" % (
                        r["key"], mode, ", ".join("%s×%d" % kv for kv in sorted(e["other"].items()))))
        notes += ["%s: %s" % (res["key"], x) for x in res["problems"] if res["rows"]]
        ph = res.get("native", {}).get("phases", {})
        if ph.get("hazard") and ph.get("fix"):
            notes.append("%s: the host's time a step natively (median of the rounds), hazard → fix: %s" % (
                res["key"], ", ".join("%s %s → %s ms" % (k, fmt(median(v)), fmt(median(ph["fix"].get(k, []))))
                                      for k, v in sorted(ph["hazard"].items()))))
    if notes:
        lines += [""] + ["- " + n for n in notes]
    lines += ["", "Pairs (the rule's findings at the marked lines are the estimate):", ""]
    lines += ["- %s: %s; %s at %s" % (res["key"], res["title"], res["rule"], ", ".join(res.get("places", [])) or "–")
              for res in results]
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------- main ---

def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="\n".join(__doc__.splitlines()[2:]))
    p.add_argument("--sim", action="store_true", help="the C pairs on the CPU simulator")
    p.add_argument("--stage", help="installed tree (bin/streamcheck, libexec/streamcheck/{testapps,sim})")
    p.add_argument("--streamcheck", help="the launcher")
    p.add_argument("--apps", help="directory of the test apps and their .expect files")
    p.add_argument("--simdir", help="the simulator's libraries (--sim)")
    p.add_argument("--python-dir", default=os.path.join(ROOT, "tests", "corpus", "python"),
                   help="the corpus's Python programs (default: the source tree's)")
    p.add_argument("--python", default=sys.executable or "python3", help="interpreter for the Python pairs")
    p.add_argument("--only", help="pair keys or groups (c, python), comma-separated")
    p.add_argument("--list", action="store_true", help="list the pairs and exit")
    p.add_argument("--nproc", type=int, default=2, choices=(1, 2),
                   help="processes (GPUs) of the torchrun pairs (default 2; 1: one rank, DDP_TRAIN_MIN_GPUS=1)")
    p.add_argument("--pairs", type=int, default=5, help="alternated rounds of each pair (at least 5; default 5)")
    p.add_argument("--sc-runs", type=int, default=1, help="runs of the hazard under streamcheck in each mode")
    p.add_argument("--modes", default="detect,measure",
                   help="detect, measure (the whole run), window (--measure-window over a fifth of the timed "
                        "steps, where the program prints timed_window_ns= and cuda_ready_ns=), comma-separated "
                        "(default detect,measure)")
    p.add_argument("--measured-bound", type=float, default=0.25, help="measured mode: |est/gain - 1| at most this")
    p.add_argument("--detect-bound", type=float, default=2.0, help="detect mode: est/gain within 1/B..B")
    p.add_argument("--min-gain", type=float, default=0.05,
                   help="a gain under this share of the hazard's time counts as none (default 0.05)")
    p.add_argument("--timeout-s", type=float, default=300.0, help="limit for one run (default 300 s)")
    p.add_argument("--budget-s", type=float, default=0, help="start no pair after this many seconds (0: no limit)")
    p.add_argument("--out", help="the JSON results (default $OUT/price-check.json, else price-check.json), "
                   "rewritten after each pair, the table so far beside it (NAME.so-far.md, removed at the end)")
    p.add_argument("--keep", help="copy the JSON reports, and the pricing model's dumps (price_replay), into this directory")
    a = p.parse_args()
    if a.pairs < 5:
        p.error("--pairs must be at least 5")
    if a.sc_runs < 1:
        p.error("--sc-runs must be at least 1")
    a.modes = [m for m in a.modes.split(",") if m]
    if not a.modes or set(a.modes) - {"detect", "measure", "window"}:
        p.error("--modes: detect, measure, window, comma-separated")
    return a


def locate(a):
    """Fills in the launcher, the apps and the simulator; an error message or None."""
    if not a.stage and not a.streamcheck and os.path.isdir(os.path.join(ROOT, ".stage")):
        a.stage = os.path.join(ROOT, ".stage")
    if a.stage:
        st = os.path.abspath(a.stage)
        a.streamcheck = a.streamcheck or os.path.join(st, "bin", "streamcheck")
        a.apps = a.apps or os.path.join(st, "libexec", "streamcheck", "testapps")
        a.simdir = a.simdir or os.path.join(st, "libexec", "streamcheck", "sim")
    elif not a.streamcheck and os.path.exists(os.path.join(ROOT, "src", "streamcheck")):
        a.streamcheck = os.path.join(ROOT, "src", "streamcheck")
        a.apps = a.apps or os.path.join(ROOT, "testapps")
        a.simdir = a.simdir or os.path.join(ROOT, "src", "sim", ".libs")
    a.simdir = a.simdir or os.environ.get("STREAMCHECK_SIMDIR")
    if not a.streamcheck or not os.path.exists(a.streamcheck):
        return "no streamcheck: name --stage DIR or --streamcheck"
    if not a.apps or not os.path.isdir(a.apps):
        return "no test apps: name --stage DIR or --apps"
    if a.sim and (not a.simdir or not os.path.exists(os.path.join(a.simdir, "libcuda.so.1"))):
        return "no simulator (libcuda.so.1) in %s: name --simdir" % a.simdir
    return None


def gpus():
    try:
        r = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=60)
        return r.stdout.decode(errors="replace").count("GPU ") if r.returncode == 0 else 0
    except (OSError, subprocess.TimeoutExpired):
        return 0


def selected(a, table):
    """The pairs to run, or an error message."""
    want = set(a.only.split(",")) if a.only else {"c", "python"}
    known = {p.key for p in table} | {"c", "python"}
    if want - known:
        return "unknown pair(s) %s; --list lists them" % ", ".join(sorted(want - known))
    # in the order --only names them (a group's pairs in the table's order),
    # so that a budget cut leaves the later ones
    order = a.only.split(",") if a.only else ["c", "python"]
    rank = lambda p: min(order.index(k) for k in (p.key, p.group) if k in order)  # noqa: E731
    chosen = sorted((p for p in table if p.key in want or p.group in want), key=rank)
    if a.sim:
        dropped = [p.key for p in chosen if p.group != "c"]
        if dropped and a.only:
            print("price_check: --sim runs the C pairs only; not %s" % ", ".join(dropped), file=sys.stderr)
        chosen = [p for p in chosen if p.group == "c"]
    return chosen


def check_pair(a, runner, p, ngpu):
    """One pair: its native rounds, its priced runs, its rows."""
    res = {"key": p.key, "title": p.title, "rule": p.rule, "rows": [], "problems": [], "skipped": None}
    if p.group == "python" and not a.torch:
        res["skipped"] = "skipped: %s has no torch" % a.python
        return res
    if p.launch == "torchrun" and ngpu < a.nproc:
        res["skipped"] = "skipped: %d GPU(s), needs %d" % (ngpu, a.nproc)
        return res
    try:
        places = set(marked_lines(a, p))
    except OSError as x:
        res["problems"].append("cannot read the marked lines: %s" % x)
        return res
    if not places:
        res["problems"].append("no line marked for %s in %s" % (p.rule, p.marks))
        return res
    res["places"] = sorted("%s:%d" % x for x in places)
    nat = native(a, runner, p)
    res["native"] = {"ways": {w: {str(k): v for k, v in d.items()} for w, d in nat["ways"].items()},
                     "gain": {str(k): v for k, v in nat["gain"].items()}, "phases": nat["phases"]}
    res["problems"] += nat["problems"]
    if nat["skipped"]:
        res["skipped"] = "skipped: the program exits 77 here (no torch or CUDA)"
        return res
    if not nat["gain"]:
        return res
    # window mode where the program says when its timed steps ran (the Python loops)
    prices = {mode: priced(a, runner, p, mode, places) for mode in a.modes
              if (mode != "window" or p.window) and (not p.modes or mode in p.modes)}
    for pr in prices.values():
        res["problems"] += pr["problems"]
    res["rows"] = rows_of(a, p, nat, prices)
    return res


def failed(res):
    if res["skipped"]:
        return False
    if res["problems"] and not res["rows"]:
        return True
    return any(m["verdict"] != "pass" for r in res["rows"] for m in r["modes"].values())


def main():
    a = parse_args()
    why = locate(a)
    if a.list:   # with --only, those it would run, in its order
        a.apps = a.apps or "testapps"
        chosen = selected(a, pair_table(a)) if a.only else pair_table(a)
        if isinstance(chosen, str):
            print("price_check: " + chosen, file=sys.stderr)
            return 2
        for p in chosen:
            print("%-20s %-7s %s  %s" % (p.key, p.group, p.rule, p.title))
        return 0
    if why:
        print("price_check: " + why, file=sys.stderr)
        return 2
    chosen = selected(a, pair_table(a))
    if isinstance(chosen, str):
        print("price_check: " + chosen, file=sys.stderr)
        return 2
    ngpu = 0 if a.sim else gpus()
    if not a.sim and not ngpu:
        print("price_check: needs a GPU (nvidia-smi -L finds none); --sim runs the C pairs on the simulator")
        return SKIPPED
    if set(MEASURED) & set(a.modes) and "--measure" not in subprocess.run(
            [a.streamcheck, "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT).stdout.decode():
        print("price_check: this streamcheck has no --measure; detect mode only", file=sys.stderr)
        a.modes = [m for m in a.modes if m not in MEASURED]
    a.torch = any(p.group == "python" for p in chosen) and subprocess.run(
        [a.python, "-c", "import torch"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)
    out = a.out or os.path.join(os.environ.get("OUT") or ".", "price-check.json")
    outdir = os.path.dirname(os.path.abspath(out))
    meta = {"where": "the CPU simulator" if a.sim else "%d GPU(s)" % ngpu,
            "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "argv": seeds.portable(sys.argv, outdir), "streamcheck": seeds.portable(a.streamcheck, outdir),
            "modes": a.modes}
    runner = seeds.Runner(a)
    results, t0 = [], time.monotonic()
    so_far = os.path.splitext(out)[0] + ".so-far.md"
    for p in chosen:
        if a.budget_s and time.monotonic() - t0 > a.budget_s:
            results.append({"key": p.key, "title": p.title, "rule": p.rule, "rows": [], "problems": [],
                            "skipped": "not run: over --budget-s %g" % a.budget_s})
            continue
        results.append(check_pair(a, runner, p, ngpu))
        r = results[-1]
        print("price_check: %-20s %s (%.0f s)" % (p.key, r["skipped"] or ("fail" if failed(r) else "pass"),
                                                  time.monotonic() - t0), file=sys.stderr, flush=True)
        # So far, after every pair: a run cut short (a lent GPU's time
        # limit) still leaves the pairs it finished, and their table.
        write_out(out, outdir, meta, results, runner)
        with open(so_far, "w") as fh:
            fh.write(markdown(a, results, meta))
    text = markdown(a, results, meta)
    print(text, end="")
    write_out(out, outdir, meta, results, runner)
    if os.path.exists(so_far):
        os.unlink(so_far)
    print("price_check: %s written" % out, file=sys.stderr)
    shutil.rmtree(runner.tmp, ignore_errors=True)
    return 1 if any(failed(r) for r in results) else 0


def write_out(out, outdir, meta, results, runner):
    with open(out, "w") as fh:
        # Paths made portable as bench/seeds.py keeps them (./..., <scratch>/...).
        json.dump({"meta": meta, "pairs": results,
                   "runs": [seeds.portable_run(r, outdir, runner.tmp) for r in runner.raw]}, fh, indent=1, default=str)


if __name__ == "__main__":
    sys.exit(main())
