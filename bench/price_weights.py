#!/usr/bin/env python3
"""price_weights.py: what detect mode would price if it knew each call's GPU time.

Detect mode shares a stretch's sampled busy time among the submissions made
in it by their number (src/shim/pricing_attribute.c); measured mode knows
each call's GPU time from CUPTI.  This asks how much of the difference
between the two modes' prices that sharing is: for each pair of a dump set
(bench/data/*price-dumps*.tar.xz, pairs.txt; or two dumps named with
--detect and --measured), it gives the detect-mode dump the measured dump's
per-call GPU times ("gpu KNOWN OWN FAST"), call by call, and replays it with
bench/price_replay.  The two runs are of the same program, so their calls
are aligned as sequences (by what, stream and submissions before), per
thread; calls left unmatched keep the detect dump's (unknown) times.  Both
runs' busy time and host times stay their own.

    python3 bench/price_weights.py [--replay bench/price_replay] [--data FILE]...
    python3 bench/price_weights.py --detect DUMP --measured DUMP [--rule SCnnn]

Prints, per pair, the rule's saving as detect mode's dump prices it, and with
the measured run's GPU times (a difference of a few percent says per-call
times would not move detect mode's price).  Exit 0; 2 for a file that is
not a dump.
"""
import argparse
import difflib
import glob
import os
import subprocess
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from price_offline import savings   # noqa: E402


def parse(path):
    """The dump's lines, and per thread the indexes of its call lines."""
    lines = open(path).read().split("\n")
    threads, cur = {}, None
    for i, line in enumerate(lines):
        if line.startswith("thread "):
            cur = line.split()[1]
            threads[cur] = []
        elif line.startswith("  ") and cur is not None:
            threads[cur].append(i)
    if not lines or not lines[0].startswith("window "):
        sys.exit("price_weights.py: %s is not a pricing model's dump" % path)
    return lines, threads


def key(line):
    """What aligns two runs' calls: what, stream and submissions before."""
    p = line.split()
    return (p[5], p[7], p[9])


def merged(detect, measured, out):
    """detect's dump with measured's per-call GPU times, written to out: (matched, unmatched) calls."""
    d, dth = parse(detect)
    m, mth = parse(measured)
    matched = unmatched = 0
    for t, a in dth.items():
        b = mth.get(t, [])
        sm = difflib.SequenceMatcher(None, [key(d[i]) for i in a], [key(m[j]) for j in b], autojunk=False)
        hit = 0
        for blk in sm.get_matching_blocks():
            for k in range(blk.size):
                pd, pm = d[a[blk.a + k]].split(), m[b[blk.b + k]].split()
                if "gpu" not in pd or "gpu" not in pm:
                    continue
                gd, gm = pd.index("gpu"), pm.index("gpu")
                pd[gd + 1:gd + 4] = pm[gm + 1:gm + 4]
                d[a[blk.a + k]] = "  " + " ".join(pd)
                hit += 1
        matched += hit
        unmatched += len(a) - hit
    open(out, "w").write("\n".join(d))
    return matched, unmatched


def saving(replay, path, rule):
    """The rule's findings' savings, as the replay prices the dump, in ms."""
    out = subprocess.run([replay, path], capture_output=True, text=True, check=True).stdout
    return savings(out, rule)[0] / 1e6


def row(a, name, rule, detect, measured, tmp):
    """One pair's line; 0 where the measured dump has no per-call GPU times (older dumps)."""
    if " gpu " not in open(measured).read():
        return 0
    out = os.path.join(tmp, "merged.%d" % os.getpid())
    hit, miss = merged(detect, measured, out)
    before, after = saving(a.replay, detect, rule), saving(a.replay, out, rule)
    print("| %s | %s | %.3f | %.3f (%s) | %d of %d |" % (
        name, rule or "all", before, after, "%.2fx" % (after / before) if before else "-", hit, hit + miss))
    return 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--replay", default=os.path.join(os.getcwd(), "bench", "price_replay"))
    ap.add_argument("--data", action="append", help="a tarball of dumps with a pairs.txt")
    ap.add_argument("--detect", help="a detect-mode dump")
    ap.add_argument("--measured", help="a measured-mode dump of the same program")
    ap.add_argument("--rule", help="the rule whose findings to add up (default: all)")
    a = ap.parse_args()
    if not os.access(a.replay, os.X_OK):
        sys.exit("price_weights.py: no %s (make bench/price_replay)" % a.replay)
    print("| pair | rule | detect saving (ms) | with the measured run's GPU times (ms) | calls matched |")
    print("|---|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        if a.detect or a.measured:
            if not (a.detect and a.measured):
                sys.exit("price_weights.py: --detect and --measured go together")
            if not row(a, os.path.basename(a.detect), a.rule, a.detect, a.measured, tmp):
                print("price_weights.py: %s has no per-call GPU times" % a.measured, file=sys.stderr)
            return 0
        here = os.path.dirname(os.path.abspath(__file__))
        older = 0
        for data in a.data or sorted(glob.glob(os.path.join(here, "data", "*price-dumps*.tar.xz"))):
            with tarfile.open(data) as t:
                t.extractall(tmp, filter="data") if hasattr(tarfile, "data_filter") else t.extractall(tmp)
            top = os.path.join(tmp, os.path.basename(data)[:-len(".tar.xz")])
            pairs = os.path.join(top, "pairs.txt")
            if not os.path.exists(pairs):
                continue
            for line in open(pairs):
                if not line.strip():
                    continue
                name, rule, pd, pm = line.rstrip("\n").split("\t")
                older += not row(a, "%s: %s" % (os.path.basename(data), name), rule,
                                 os.path.join(top, "d." + pd), os.path.join(top, "d." + pm), tmp)
        if older:
            print("\n%d more pairs: their measured dumps have no per-call GPU times (recorded before they were)"
                  % older)
    return 0


if __name__ == "__main__":
    sys.exit(main())
