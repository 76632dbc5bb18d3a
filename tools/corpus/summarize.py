#!/usr/bin/env python3
"""summarize.py: one program's streamcheck JSON reports, summarized and
checked against the corpus expectations (tests/corpus/expect.txt).

    summarize.py [--expect FILE --case NAME] [--src DIR...] [--top N]
                 [--write-expect OUT] [--row] REPORT.json|DIR...

Prints the findings (rule, severity, count, blocked time, the primary call
site: the first Python frame, else the first native frame with file:line,
else the first named function), the shim's own time estimate, and, with
--expect, whether the report holds what the case declares.

Expectation file: sections "[CASE]" (a program with its arguments, as
tools/corpus/run.sh names it), each holding lines of libstreamcheck(7)
EXPECTATIONS ("finding RULE FILE:LINE COUNT", "finding RULE - COUNT",
COUNT or COUNT+), plus:
  - a LINE written @MARK is the line of FILE (looked up in --src
    directories) carrying the comment "corpus: MARK";
  - "severity note" checks notes too (by default only warnings and errors
    are checked: notes are listed, not judged);
  - "# ..." comments, where the reasoning goes.
The check is exact both ways, as streamcheck report --expect's: each
expected line's findings add up to its count, and each finding at or above
the severity is matched by some line.  A case with no section, or an empty
one, demands no warnings.  --write-expect writes the resolved finding lines
for `streamcheck report --expect` (which checks notes as well).

--row prints one line for run.sh's table instead.  Exit: 0 held (or no
--expect), 1 did not, 2 bad input.
"""
import argparse
import glob
import json
import os
import re
import sys

SEV = {"note": 0, "warning": 1, "error": 2}


def load_reports(paths):
    files = []
    for p in paths:
        if os.path.isdir(p):
            files += sorted(glob.glob(os.path.join(p, "*.json")))
        else:
            files.append(p)
    findings, sites, procs = [], {}, []
    for f in files:
        try:
            d = json.load(open(f))
        except (OSError, ValueError) as e:
            print(f"summarize.py: {f}: {e}", file=sys.stderr)
            continue
        for c in d.get("callsites", []):
            sites[c["id"]] = c
        findings += d.get("findings", [])
        procs += d.get("processes", []) or [d.get("process", {})]
    return files, findings, sites, procs


def frames_of(site):
    """(file basename, line) of every native and Python frame."""
    if not site:
        return []
    out = []
    for fr in (site.get("python") or []) + (site.get("frames") or []):
        if fr.get("file") and fr.get("line"):
            out.append((os.path.basename(fr["file"]), int(fr["line"])))
    return out


def primary(site):
    if not site:
        return "-"
    py = site.get("python") or []
    if py:
        return "%s:%s" % (os.path.basename(py[0]["file"]), py[0]["line"])
    skip_next = False
    for fr in site.get("frames") or []:
        f = fr.get("file") or ""
        if skip_next or "cudafe1.stub" in f or "tmpxft" in f:
            # nvcc's launch stub, then the kernel's host wrapper (at the
            # __global__ line): the launch line is the frame after them.
            skip_next = "cudafe1.stub" in f or "tmpxft" in f
            continue
        if (f and fr.get("line") and "libstreamcheck" not in (fr.get("module") or "")
                and not re.search(r"/cuda[^/]*/.*include/|^\.\./(sysdeps|csu)/", f)):
            return "%s:%s" % (os.path.basename(f), fr["line"])
    for fr in site.get("frames") or []:
        if fr.get("function"):
            mod = os.path.basename(fr.get("module") or "?")
            return "%s[%s]" % (fr["function"][:40], mod)
    return site.get("id", "-")


def find_mark(fname, mark, srcdirs):
    pat = re.compile(r"corpus:\s*" + re.escape(mark) + r"(\s|$)")
    for d in srcdirs:
        for path in glob.glob(os.path.join(d, "**", fname), recursive=True):
            with open(path, errors="replace") as fh:
                for n, line in enumerate(fh, 1):
                    if pat.search(line):
                        return n
    return None


def parse_expect(path, case, srcdirs):
    """[(rule, file|None, line, count, at_least, text)], min severity."""
    lines, sev, cur, seen = [], "warning", None, False
    for n, raw in enumerate(open(path), 1):
        s = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if not s:
            continue
        m = re.match(r"^\[(.+)\]$", s)
        if m:
            cur = m.group(1).strip()
            seen = seen or cur == case
            continue
        if cur != case:
            continue
        f = s.split()
        if f[0] == "severity" and len(f) == 2 and f[1] in SEV:
            sev = f[1]
            continue
        if f[0] != "finding" or len(f) != 4:
            raise ValueError(f"{path}:{n}: bad line: {s}")
        rule, loc, cnt = f[1], f[2], f[3]
        at_least = cnt.endswith("+")
        count = int(cnt.rstrip("+"))
        if loc == "-":
            file, line = None, 0
        else:
            file, _, ln = loc.rpartition(":")
            if ln.startswith("@"):
                found = find_mark(file, ln[1:], srcdirs)
                if found is None:
                    raise ValueError(f"{path}:{n}: no 'corpus: {ln[1:]}' comment in {file}")
                ln = str(found)
            line = int(ln)
        lines.append((rule, file, line, count, at_least))
    return lines, sev, seen


def rule_is(fd, rule):
    return rule in (fd.get("rule"), fd.get("name"))


def check(findings, sites, exp, minsev):
    """Returns a list of mismatch strings (empty: it holds)."""
    judged = [fd for fd in findings if SEV.get(fd.get("severity"), 0) >= SEV[minsev]]
    bad, matched = [], set()
    for rule, file, line, count, at_least in exp:
        total = 0
        for i, fd in enumerate(judged):
            if not rule_is(fd, rule):
                continue
            fr = frames_of(sites.get(fd.get("callsite")))
            hit = (file is None and not fr) or (file is not None and (file, line) in fr)
            if hit:
                total += fd.get("count", 0)
                matched.add(i)
        ok = total >= count if at_least else total == count
        if not ok:
            where = "-" if file is None else f"{file}:{line}"
            bad.append(f"expected {rule} {where} {count}{'+' if at_least else ''}, found {total}")
    for i, fd in enumerate(judged):
        if i not in matched:
            bad.append(f"unexpected {fd['rule']} {fd.get('severity')} x{fd.get('count')} at "
                       f"{primary(sites.get(fd.get('callsite')))}")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reports", nargs="+")
    ap.add_argument("--expect")
    ap.add_argument("--case")
    ap.add_argument("--src", action="append", default=[])
    ap.add_argument("--top", type=int, default=5)
    ap.add_argument("--write-expect")
    ap.add_argument("--row", action="store_true")
    a = ap.parse_args()

    files, findings, sites, procs = load_reports(a.reports)
    nw = sum(1 for f in findings if f.get("severity") in ("warning", "error"))
    nn = sum(1 for f in findings if f.get("severity") == "note")
    shim = sum(p.get("shim_ns", 0) for p in procs)
    calls = sum(p.get("calls", 0) for p in procs)
    run = sum(max(0.0, p.get("end_time", 0) - p.get("start_time", 0)) for p in procs)
    ordered = sorted(findings, key=lambda f: (-SEV.get(f.get("severity"), 0), -f.get("count", 0)))

    verdict, bad = "-", []
    if a.expect:
        try:
            exp, minsev, seen = parse_expect(a.expect, a.case or "", a.src)
        except (OSError, ValueError) as e:
            print(f"summarize.py: {e}", file=sys.stderr)
            return 2
        bad = check(findings, sites, exp, minsev)
        verdict = "ok" if not bad else "MISMATCH"
        if a.write_expect:
            with open(a.write_expect, "w") as out:
                out.write(f"# {a.case}, resolved from {a.expect}\n")
                for rule, file, line, count, at_least in exp:
                    out.write(f"finding {rule} {'-' if file is None else f'{file}:{line}'} "
                              f"{count}{'+' if at_least else ''}\n")
    if not files:
        verdict = "NO-REPORT" if a.expect else verdict

    if a.row:
        top = ", ".join("%s x%d @%s" % (f["rule"], f.get("count", 0), primary(sites.get(f.get("callsite"))))
                        for f in ordered if f.get("severity") != "note")[:110] or "-"
        print(f"{nw:>3}W {nn:>3}N  expect:{verdict:<9} {top}")
        for b in bad[:2]:
            print(f"      {b}")
        return 1 if bad or verdict == "NO-REPORT" else 0

    print(f"reports: {len(files)}, processes: {len(procs)}, warnings+errors: {nw}, notes: {nn}")
    est = f"{shim / 1e6:.3f} ms" if shim or not calls else "too few calls to estimate"
    print(f"calls intercepted: {calls}, time in streamcheck: {est}"
          + (f" ({100.0 * shim / 1e9 / run:.2f}% of run time)" if run and shim else ""))
    for f in ordered[:a.top]:
        print("  %-6s %-8s x%-7d blocked %9.3f ms  %-24s %s" % (
            f["rule"], f.get("severity"), f.get("count", 0), f.get("blocked_ns", 0) / 1e6,
            f.get("api") or "-", primary(sites.get(f.get("callsite")))))
    if len(ordered) > a.top:
        print(f"  ... {len(ordered) - a.top} more")
    if a.expect:
        print(f"expectations ({a.case}): {verdict}")
        for b in bad:
            print(f"  {b}")
    return 1 if bad or verdict == "NO-REPORT" else 0


if __name__ == "__main__":
    sys.exit(main())
