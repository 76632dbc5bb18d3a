#!/usr/bin/env python3
"""trace_check.py: checks a streamcheck trace (--format=trace) against the
Chrome trace event format's rules, as Perfetto and chrome://tracing read it.

  - a JSON object with a "traceEvents" array (displayTimeUnit, if there,
    "ms" or "ns");
  - every event has name, ph, pid and tid; every event but metadata a
    numeric ts in microseconds, >= 0;
  - complete events ("X") have a numeric dur >= 0; instants ("i") a scope
    s of g, p or t;
  - flow events: every "s" has an "f" with the same id and vice versa, at a
    ts not before it, and the "f" binds to the enclosing slice ("bp":"e");
  - metadata ("M") is process_name/thread_name with args.name, or
    process_sort_index/thread_sort_index with args.sort_index; every pid
    used has a process_name and every (pid, tid) with events a thread_name;
  - no two complete events overlap on one (pid, tid) track.

Usage: trace_check.py FILE...   Exit 0 when all pass; one line per problem.
"""
import json
import sys

PHASES = {"X", "i", "s", "f", "M"}
EPS_US = 0.0005  # ts and dur are printed with ns decimals


def check(path):
    errs = []
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        return ["%s: not JSON: %s" % (path, e)]
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        return ["%s: not an object with a traceEvents array" % path]
    if doc.get("displayTimeUnit", "ms") not in ("ms", "ns"):
        errs.append("displayTimeUnit %r" % doc["displayTimeUnit"])
    pnames, tnames, used_p, used_t = set(), set(), set(), set()
    tracks, starts, finishes = {}, {}, {}
    for n, e in enumerate(doc["traceEvents"]):
        where = "event %d" % n
        if not isinstance(e, dict):
            errs.append("%s: not an object" % where)
            continue
        for k in ("name", "ph", "pid", "tid"):
            if k not in e:
                errs.append("%s: no %s" % (where, k))
        ph = e.get("ph")
        if ph not in PHASES:
            errs.append("%s: phase %r" % (where, ph))
            continue
        if not isinstance(e.get("pid"), int) or not isinstance(e.get("tid"), int):
            errs.append("%s: pid and tid must be integers" % where)
            continue
        key = (e["pid"], e["tid"])
        if ph == "M":
            args = e.get("args", {})
            if e["name"] in ("process_name", "thread_name"):
                if not isinstance(args.get("name"), str) or not args["name"]:
                    errs.append("%s: %s without args.name" % (where, e["name"]))
                (pnames if e["name"] == "process_name" else tnames).add(e["pid"] if e["name"] == "process_name" else key)
            elif e["name"] in ("process_sort_index", "thread_sort_index"):
                if not isinstance(args.get("sort_index"), int):
                    errs.append("%s: %s without args.sort_index" % (where, e["name"]))
            else:
                errs.append("%s: unknown metadata %r" % (where, e["name"]))
            continue
        ts = e.get("ts")
        if not isinstance(ts, (int, float)) or isinstance(ts, bool) or ts < 0:
            errs.append("%s: ts %r is not a time in microseconds >= 0" % (where, ts))
            continue
        if not isinstance(e.get("name"), str):
            errs.append("%s: name is not a string" % where)
        used_p.add(e["pid"])
        if ph == "X":
            dur = e.get("dur")
            if not isinstance(dur, (int, float)) or isinstance(dur, bool) or dur < 0:
                errs.append("%s: complete event with dur %r" % (where, dur))
                continue
            used_t.add(key)
            tracks.setdefault(key, []).append((ts, ts + dur, n))
        elif ph == "i":
            if e.get("s", "t") not in ("g", "p", "t"):
                errs.append("%s: instant scope %r" % (where, e.get("s")))
            used_t.add(key)
        elif ph in ("s", "f"):
            if "id" not in e:
                errs.append("%s: flow event without id" % where)
                continue
            d = starts if ph == "s" else finishes
            if e["id"] in d:
                errs.append("%s: flow id %r used twice for %r" % (where, e["id"], ph))
            d[e["id"]] = (ts, key)
            if ph == "f" and e.get("bp") != "e":
                errs.append("%s: flow end without \"bp\":\"e\"" % where)
    for i in starts:
        if i not in finishes:
            errs.append("flow %r starts but never finishes" % (i,))
        elif finishes[i][0] + EPS_US < starts[i][0]:
            errs.append("flow %r finishes before it starts" % (i,))
    for i in finishes:
        if i not in starts:
            errs.append("flow %r finishes but never starts" % (i,))
    for p in sorted(used_p - pnames):
        errs.append("pid %d has no process_name" % p)
    for k in sorted(used_t - tnames):
        errs.append("track %r has no thread_name" % (k,))
    for k, evs in tracks.items():
        evs.sort()
        for (a0, a1, na), (b0, b1, nb) in zip(evs, evs[1:]):
            if b0 + EPS_US < a1:
                errs.append("track %r: events %d and %d overlap (%.3f < %.3f)" % (k, na, nb, b0, a1))
    return ["%s: %s" % (path, m) for m in errs]


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    bad = []
    for p in argv[1:]:
        bad += check(p)
    for m in bad:
        print(m)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
