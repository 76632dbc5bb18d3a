#!/usr/bin/env python3
"""html_check.py: checks a streamcheck HTML report (--format=html).

    html_check.py REPORT.html [REPORT.json]

- well-formed: it parses as XML (the page is written to be XHTML-clean) and,
  with html.parser, every element that is opened is closed in order;
- self-contained: no <link>, <iframe>, <object>, <embed>, <img> or <base>,
  no src attribute, every href is a fragment (#...) naming an element of
  the page, no url(...) or @import in the CSS, nothing but xmlns declarations
  that look like a URL in an attribute;
- with the JSON report of the same run: every finding of it is in the page,
  findings[i] as id="finding-<i+1>" with the same rule, severity, process,
  call site and count.

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
            elif k == "style" and ("url(" in v or "@import" in v):
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


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip())
        return 2
    errors, _, _ = check(argv[1], argv[2] if len(argv) > 2 else None)
    for e in errors[:50]:
        print("%s: %s" % (argv[1], e))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
