#!/usr/bin/env python3
"""html_check.py: checks a streamcheck HTML report (--format=html).

    html_check.py REPORT.html [REPORT.json [REPORT.trace.json]]

- well-formed: it parses as XML (the page is written to be XHTML-clean) and,
  with html.parser, every element that is opened is closed in order;
- self-contained: no <link>, <iframe>, <object>, <embed>, <img> or <base>,
  no src attribute, every href is a fragment (#...) naming an element of
  the page, no url(...) or @import in the CSS, nothing but xmlns declarations
  that look like a URL in an attribute;
- with the JSON report of the same run: every finding of it is in the page,
  findings[i] as id="finding-<i+1>" with the same rule, severity, process,
  call site and count;
- with the Chrome trace of the same measured run (--format=trace), the
  timeline: each device's SVG has a lane per stream the trace has a track
  for, each kernel, copy and memset of the trace inside a rectangle of its
  stream's lane (operations may share one), each host thread with a finding
  a lane, each finding event of the trace a mark of the same rule within two
  units of its time, linking to a finding of the same rule and call site,
  and pointing at the stream the trace's flow arrow ends on.

Prints what is wrong, one line each, and exits 1; exits 0 when all holds.
"""
import html.parser
import json
import re
import sys
import xml.etree.ElementTree as ET

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
FORBIDDEN = {"link", "iframe", "object", "embed", "img", "base", "frame", "frameset", "applet", "audio",
             "video", "source", "track", "form"}
URLISH = re.compile(r"^\s*(?:[a-z][a-z0-9+.-]*:|//)", re.I)


class Strict(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []
        self.errors = []
        self.ids = set()
        self.hrefs = []
        self.styles = []
        self.scripts = 0
        self.elements = []          # (tag, attrs) in document order
        self._in_style = False

    def where(self):
        line, col = self.getpos()
        return "%d:%d" % (line, col + 1)

    def handle_starttag(self, tag, attrs):
        self._open(tag, attrs)
        if tag not in VOID:
            self.stack.append((tag, self.where()))

    def handle_startendtag(self, tag, attrs):
        self._open(tag, attrs)

    def _open(self, tag, attrs):
        a = {}
        for k, v in attrs:
            if k in a:
                self.errors.append("%s: <%s> repeats attribute %s" % (self.where(), tag, k))
            a[k] = v
        self.elements.append((tag, a))
        if tag in FORBIDDEN:
            self.errors.append("%s: <%s> (not self-contained)" % (self.where(), tag))
        if tag == "script":
            self.scripts += 1
        self._in_style = tag == "style"
        for k, v in a.items():
            if v is None:
                continue
            if k == "id":
                if v in self.ids:
                    self.errors.append("%s: id %r twice" % (self.where(), v))
                self.ids.add(v)
            if k in ("src", "srcset", "action", "formaction", "poster", "background", "data", "xlink:href"):
                self.errors.append("%s: <%s %s=%r> (not self-contained)" % (self.where(), tag, k, v))
            elif k == "href":
                self.hrefs.append((self.where(), v))
                if not v.startswith("#"):
                    self.errors.append("%s: <%s href=%r> is not a fragment" % (self.where(), tag, v))
            elif k == "style":
                if "url(" in v or "@import" in v or "expression(" in v:
                    self.errors.append("%s: style attribute loads %r" % (self.where(), v))
            elif k.startswith("xmlns"):
                continue
            elif URLISH.match(v) and not v.startswith(("#",)) and k not in ("content", "title") \
                    and not k.startswith("data-") and not k.startswith("aria-"):
                self.errors.append("%s: <%s %s=%r> looks like a URL" % (self.where(), tag, k, v))

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack:
            self.errors.append("%s: </%s> closes nothing" % (self.where(), tag))
            return
        top, at = self.stack.pop()
        if top != tag:
            self.errors.append("%s: </%s> closes <%s> of %s" % (self.where(), tag, top, at))

    def handle_data(self, data):
        if self._in_style:
            self.styles.append(data)

    def close(self):
        super().close()
        for tag, at in self.stack:
            self.errors.append("<%s> of %s never closed" % (tag, at))


def check(path, json_path=None):
    errors = []
    text = open(path, encoding="utf-8", errors="strict").read()
    if not text.startswith("<!DOCTYPE html>"):
        errors.append("does not start with <!DOCTYPE html>")
    # XML: the page without its doctype
    try:
        ET.fromstring(re.sub(r"^<!DOCTYPE html>", "", text))
    except ET.ParseError as e:
        errors.append("not well-formed XML: %s" % e)
    p = Strict()
    p.feed(text)
    p.close()
    errors += p.errors
    for where, href in p.hrefs:
        if href.startswith("#") and href[1:] not in p.ids:
            errors.append("%s: href %r names no element" % (where, href))
    for css in p.styles:
        if re.search(r"url\s*\(|@import", css):
            errors.append("the stylesheet loads something (url() or @import)")
    if p.scripts > 1:
        errors.append("%d scripts (one inline script at most)" % p.scripts)
    by_id = {a.get("id"): (tag, a) for tag, a in p.elements if a.get("id")}
    if json_path:
        rep = json.load(open(json_path))
        for i, f in enumerate(rep["findings"]):
            fid = "finding-%d" % (i + 1)
            if fid not in by_id:
                errors.append("findings[%d] (%s at %s): no element with id %s" % (i, f["rule"], f["callsite"], fid))
                continue
            a = by_id[fid][1]
            want = {"data-rule": f["rule"], "data-severity": f["severity"], "data-process": str(f["process"]),
                    "data-callsite": f["callsite"] or "", "data-count": str(f["count"])}
            got = {k: a.get(k) for k in want}
            if got != want:
                errors.append("findings[%d]: %s has %r, the JSON %r" % (i, fid, got, want))
        extra = [k for k in by_id if k and k.startswith("finding-") and
                 not (k[8:].isdigit() and 1 <= int(k[8:]) <= len(rep["findings"]))]
        if extra:
            errors.append("findings in the page that the JSON does not have: %s" % ", ".join(sorted(extra)[:5]))
    return errors, p, by_id


def check_timeline(path, json_path, trace_path):
    """The timeline against the trace; a list of complaints."""
    errors = []
    text = open(path, encoding="utf-8").read()
    root = ET.fromstring(re.sub(r"^<!DOCTYPE html>", "", text))
    rep = json.load(open(json_path))
    ev = json.load(open(trace_path))["traceEvents"]
    by_id = {e.get("id"): e for e in root.iter() if e.get("id")}
    devices = {e["pid"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"
               and e["args"]["name"].startswith("GPU ")}
    tracks = {}
    for e in ev:
        if e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] in devices:
            tracks.setdefault(e["pid"], set()).add(e["tid"])
    svgs = {int(s.get("data-device")): s for s in root.iter("svg") if s.get("data-device") is not None}
    if set(svgs) != devices:
        errors.append("SVGs for devices %s, the trace has %s" % (sorted(svgs), sorted(devices)))
    for dev, svg in svgs.items():
        t0, unit = int(svg.get("data-t0")), float(svg.get("data-unit"))
        lanes = {int(g.get("data-stream")): g for g in svg.iter("g") if g.get("data-stream") is not None}
        if set(lanes) != tracks.get(dev, set()):
            errors.append("GPU %d: lanes for streams %s, the trace has %s" % (dev, sorted(lanes), sorted(tracks.get(dev, ()))))
        for e in ev:
            if e["ph"] != "X" or e.get("cat") not in ("kernel", "memcpy", "memset") or e["pid"] != dev:
                continue
            start = round(e["ts"] * 1000) - e["args"].get("clipped_ns", 0)
            end = round((e["ts"] + e["dur"]) * 1000)
            a, b = (start - t0) / unit, (end - t0) / unit
            g = lanes.get(e["tid"])
            rects = [] if g is None else [r for r in g.iter("rect") if r.get("class") in ("k", "c", "s", "x")]
            if not any(int(r.get("x")) <= a + 1 and int(r.get("x")) + int(r.get("width")) >= b - 1 for r in rects):
                errors.append("GPU %d stream %d: %s at %d ns (units %.1f-%.1f) is in no rectangle" %
                              (dev, e["tid"], e["name"], start, a, b))
    # the finding events: the trace's instants, their calls (for the start
    # before any clipping) and their flows
    marks = [a for svg in svgs.values() for a in svg.iter("a") if a.get("data-t") is not None]
    units = {int(s.get("data-device")): float(s.get("data-unit")) for s in svgs.values()}
    unit = max(units.values()) if units else 1.0
    calls = {(e["ts"], e["args"].get("correlation")): e for e in ev if e["ph"] == "X" and e.get("cat") == "streamcheck"}
    flows_s = {e["id"]: e for e in ev if e["ph"] == "s"}
    flows_f = {e["id"]: e for e in ev if e["ph"] == "f"}
    target = {}
    for fid, s in flows_s.items():
        if fid in flows_f:
            target[(s["pid"], s["tid"], s["ts"])] = flows_f[fid]["tid"]
    for e in ev:
        if e["ph"] != "i" or e.get("cat") != "streamcheck":
            continue
        call = calls.get((e["ts"], e["args"].get("correlation")))
        start = round(e["ts"] * 1000) - (call["args"].get("clipped_ns", 0) if call else 0)
        near = [m for m in marks if m.get("data-rule") == e["args"]["rule"] and abs(int(m.get("data-t")) - start) <= 2 * unit + 1]
        if not near:
            errors.append("finding event %s at %d ns: no mark" % (e["args"]["rule"], start))
            continue
        m = min(near, key=lambda m: abs(int(m.get("data-t")) - start))
        f = by_id.get(m.get("href", "")[1:])
        if f is None or f.get("data-rule") != e["args"]["rule"] or f.get("data-callsite") != e["args"]["callsite"]:
            errors.append("mark of %s at %d ns links to %s (%s at %s), the trace says %s at %s" % (
                e["args"]["rule"], start, m.get("href"), f is not None and f.get("data-rule"),
                f is not None and f.get("data-callsite"), e["args"]["rule"], e["args"]["callsite"]))
        want = target.get((e["pid"], e["tid"], e["ts"]))
        if want is not None and m.get("data-stream") != str(want):
            errors.append("mark of %s at %d ns points at stream %s, the trace's flow at %s" % (
                e["args"]["rule"], start, m.get("data-stream"), want))
    # a lane for every host thread with a finding
    threads = {int(g.get("data-thread")) for svg in svgs.values() for g in svg.iter("g") if g.get("data-thread")}
    for m in marks:
        if int(m.get("data-thread")) not in threads:
            errors.append("mark on thread %s, which has no lane" % m.get("data-thread"))
    return errors


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip())
        return 2
    errors, _, _ = check(argv[1], argv[2] if len(argv) > 2 else None)
    if len(argv) > 3:
        errors += check_timeline(argv[1], argv[2], argv[3])
    for e in errors[:50]:
        print("%s: %s" % (argv[1], e))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
