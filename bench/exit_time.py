#!/usr/bin/env python3
"""exit_time.py: what streamcheck adds to a program's exit,
in alternating rounds.

Arms, each a run of the program (a round runs them in order, the next round
in reverse, and so on):
  native    the program alone
  inproc    the shim preloaded as without the launcher: the process names
            its call sites' frames at exit (libdw, STREAMCHECK_SYMBOLIZE_MS)
  deferred  the shim preloaded as the launcher preloads it
            (STREAMCHECK_STATUS_DIR, STREAMCHECK_DEFER_SYMBOLS=1): the
            process leaves its report unsymbolized for the launcher
  launcher  streamcheck itself: the deferred program, then the launcher
            finishing the report (time the program does not pay)

Measured: each run's wall time (the monotonic clock around it); for a
Python program (PROGRAM is python or python3), also its exit: from the last
of its atexit handlers (a marker this script registers first, so that it
runs last) to the moment the process was reaped -- the part of the exit
that the shim's report is in.  Medians with their range; "+exit" is the
median exit less native's.

    python3 bench/exit_time.py [--rounds N] [--simulate] [--streamcheck PATH]
                               [--shim PATH] [--simdir DIR] -- PROGRAM [ARGS...]

Defaults come from the build tree this script is in (src/streamcheck,
src/.libs/libstreamcheck.so, src/sim/.libs).  On a GPU host, for the issue's
PyTorch figure (exit adds <= 200 ms):

    python3 bench/exit_time.py --rounds 7 -- python3 tests/corpus/python/train_resnet.py --steps 20
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
ARMS = ["native", "inproc", "deferred", "launcher"]

# Registered first, so that it runs after every other Python atexit handler:
# what follows it is the interpreter's teardown and the C-level exit, where
# the shim's report is.
MARKER = (
    "import atexit, runpy, sys, time\n"
    "m = sys.argv[1]\n"
    "atexit.register(lambda: open(m, 'w').write(str(time.monotonic_ns())))\n"
    "sys.argv = sys.argv[2:]\n"
    "runpy.run_path(sys.argv[0], run_name='__main__')\n"
)


def is_python(prog):
    return os.path.basename(prog).startswith("python")


def command(arm, args, marker, opts):
    cmd = list(args.program)
    if marker:
        cmd = [cmd[0], "-c", MARKER, marker] + cmd[1:]
    if arm == "launcher":
        return [opts.streamcheck] + (["--simulate"] if opts.simulate else []) + ["--"] + cmd
    return cmd


def environment(arm, opts, status):
    env = dict(os.environ)
    env.pop("STREAMCHECK_STATUS_DIR", None)
    env.pop("STREAMCHECK_DEFER_SYMBOLS", None)
    if opts.simulate and arm != "launcher":
        env["LD_LIBRARY_PATH"] = opts.simdir + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
        if arm != "native":
            env["STREAMCHECK_SIMULATED"] = "1"
    if arm in ("inproc", "deferred"):
        env["LD_PRELOAD"] = opts.shim
    if arm == "deferred":
        env["STREAMCHECK_STATUS_DIR"] = status
        env["STREAMCHECK_DEFER_SYMBOLS"] = "1"
    return env


def run_once(arm, opts, scratch):
    status = tempfile.mkdtemp(dir=scratch)
    marker = os.path.join(status, "marker") if is_python(opts.program[0]) else None
    env = environment(arm, opts, status)
    t0 = time.monotonic_ns()
    p = subprocess.run(command(arm, opts, marker, opts), env=env, cwd=scratch,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    t1 = time.monotonic_ns()
    if p.returncode != 0:
        sys.stderr.write(p.stderr.decode(errors="replace")[-2000:])
        raise SystemExit("exit_time.py: %s arm exited %d" % (arm, p.returncode))
    exit_ns = None
    if marker and os.path.exists(marker):
        with open(marker) as f:
            exit_ns = t1 - int(f.read())
    return (t1 - t0) / 1e6, exit_ns / 1e6 if exit_ns is not None else None


def spread(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "-", None
    return "%.1f [%.1f-%.1f]" % (statistics.median(xs), min(xs), max(xs)), statistics.median(xs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--simulate", action="store_true", help="on streamcheck's CPU simulator")
    ap.add_argument("--streamcheck", default=os.path.join(TOP, "src", "streamcheck"))
    ap.add_argument("--shim", default=os.path.join(TOP, "src", ".libs", "libstreamcheck.so"))
    ap.add_argument("--simdir", default=os.path.join(TOP, "src", "sim", ".libs"))
    ap.add_argument("program", nargs=argparse.REMAINDER)
    opts = ap.parse_args()
    if opts.program and opts.program[0] == "--":
        opts.program = opts.program[1:]
    if not opts.program:
        ap.error("no program given")
    # The runs start in a scratch folder: paths given relative to here (the
    # program, a script after python3) are made absolute first.
    opts.program = [os.path.abspath(a) if "/" in a and os.path.exists(a) else a for a in opts.program]
    # and so are streamcheck's own (a relative --streamcheck was not found
    # from the scratch folder)
    opts.streamcheck, opts.shim, opts.simdir = (os.path.abspath(p) for p in (opts.streamcheck, opts.shim, opts.simdir))
    times = {a: [] for a in ARMS}
    exits = {a: [] for a in ARMS}
    with tempfile.TemporaryDirectory(prefix="sc-exit-") as scratch:
        for r in range(opts.rounds):
            for arm in ARMS if r % 2 == 0 else reversed(ARMS):
                wall, ex = run_once(arm, opts, scratch)
                times[arm].append(wall)
                exits[arm].append(ex)
                # Each run as it ends, on stderr: a run cut short keeps them.
                print("exit_time.py: round %d %-9s wall %.1f ms, exit %s" %
                      (r + 1, arm, wall, "%.1f ms" % ex if ex is not None else "-"), file=sys.stderr, flush=True)
    print("exit_time.py: %s, %d rounds%s" % (" ".join(opts.program), opts.rounds,
                                             ", simulator" if opts.simulate else ""))
    print("%-9s %-24s %-24s %s" % ("arm", "wall ms (median [range])", "exit ms (median [range])", "+exit ms"))
    native_exit = spread(exits["native"])[1]
    for arm in ARMS:
        w, _ = spread(times[arm])
        e, em = spread(exits[arm])
        plus = "%+.1f" % (em - native_exit) if em is not None and native_exit is not None else "-"
        print("%-9s %-24s %-24s %s" % (arm, w, e, plus))


if __name__ == "__main__":
    main()
