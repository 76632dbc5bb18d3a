#!/bin/sh
# html.sh: the HTML report (--format=html) on the simulator (issue 17, "A
# report people look at").  Each app's page is checked by
# tests/html_check.py against the JSON report of the same run: well-formed
# (as XML, and every element closed in order), self-contained (no URL, no
# <link>, no src, every href a fragment naming an element of the page),
# every finding of the JSON there as finding-N with its rule, severity,
# process, call site and count.  Then: the source line around a call site,
# the empty state, `streamcheck report --format=html` of all processes (a
# section each and a table), hostile program text (escaped, the page still
# well-formed), Python lines, relative paths below --source-root, unreadable
# sources, STREAMCHECK_FORMAT=html and --format=all.  Measured mode
# (--measure, the simulator's CUPTI): the GPU numbers and the timeline,
# checked against the Chrome trace of the same run (lanes, operations,
# finding marks, their links and the streams they point at), the time a
# finding held GPU work back, and a training run's worth of timeline (the
# golden fixture's synthetic one) kept small.  TAP.
. "${top_builddir:-.}/tests/env.sh"
echo "1..24"
n=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
skip_all() { while [ $n -lt 24 ]; do n=$((n + 1)); echo "ok $n # SKIP $1"; done; exit 0; }
[ -n "$PYTHON3" ] && "$PYTHON3" -c 'import html.parser, xml.etree.ElementTree' 2>/dev/null ||
    skip_all "no python3"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-html.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
src=$abs_top_srcdir
check="$src/tests/html_check.py"
py() { PYTHONPATH="$src/tests" "$PYTHON3" - "$@"; }

run() {  # run APP [ARGS]: reports in $tmp/APP
    app=$1
    shift
    mkdir -p "$tmp/$app"
    "$SC_CLI" --simulate --format=html,json --output="$tmp/$app" --source-root="$src" -- "$SC_APPS/$app" "$@" \
        >"$tmp/$app.out" 2>"$tmp/$app.err"
}
checked() {  # checked HTML JSON: html_check.py, its complaints as comments
    "$PYTHON3" "$check" "$@" >"$tmp/check.out" 2>&1
    st=$?
    [ $st -ne 0 ] && sed 's/^/# /' "$tmp/check.out" | head -n 20
    return $st
}

# --- 1-5: the apps, each page against its JSON ---
for app in seed004_pipeline seed004_pipeline_fixed framework_step named_thread default_stream; do
    run $app
    st=$?
    if [ $st -eq 0 ] && [ -f "$tmp"/$app/$app.*.streamcheck.html ]; then
        checked "$tmp"/$app/$app.*.streamcheck.html "$tmp"/$app/$app.*.streamcheck.json
        st=$?
    else
        echo "# $app: exit $st, files: $(ls "$tmp/$app")"
        st=1
    fi
    ok $st "$app: <exe>.<pid>.streamcheck.html, well-formed, self-contained, every JSON finding in it"
done

# --- 6: the source line of the first finding, with lines around it ---
py "$tmp"/seed004_pipeline/*.html "$tmp"/seed004_pipeline/*.json "$src/testapps/seed004_pipeline.cu" <<'EOF'
import json, re, sys
page, rep, cu = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), open(sys.argv[3]).read().split("\n")
f = rep["findings"][0]
cs = {c["id"]: c for c in rep["callsites"]}[f["callsite"]]
line = cs["frames"][cs["primary"]]["line"]
card = page[page.index('id="finding-1"'):]
card = card[:card.index("</article>")]
lines = re.findall(r'<span class="l( hl)?"><span class="n">(\d+)</span>(.*?)</span>', card)
hl = [(int(n), t) for h, n, t in lines if h]
unesc = lambda s: s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&#39;", "'").replace("&amp;", "&")
if len(hl) != 1 or hl[0][0] != line or unesc(hl[0][1]) != cu[line - 1]:
    sys.exit("highlighted %r, want line %d %r" % (hl, line, cu[line - 1]))
nums = [int(n) for _, n, _ in lines]
if nums != list(range(line - 3, line + 4)):
    sys.exit("lines shown %r, want %d-%d" % (nums, line - 3, line + 3))
EOF
ok $? "seed004_pipeline: finding 1 shows its call site's line, highlighted, three lines either side"

# --- 7: the empty state ---
grep -q 'class="empty">No findings' "$tmp"/seed004_pipeline_fixed/*.html &&
    grep -q 'No finding worth fixing' "$tmp"/seed004_pipeline_fixed/*.html
ok $? "seed004_pipeline_fixed: says there is nothing to fix"

# --- 8: rows of one rule shown at the same line say what tells them apart ---
py "$tmp"/seed004_pipeline/*.html "$tmp"/seed004_pipeline/*.json "$tmp"/default_stream/*.html <<'EOF'
import json, re, sys
page, rep, other = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), open(sys.argv[3]).read()
table = page[page.index('<table class="findings">'):]
table = table[:table.index("</table>")]
rows = re.findall(r'<tr[^>]*><td class="num"><a href="#finding-(\d+)">.*?<code class="where">(.*?)</code>(.*?)</td>', table)
text = lambda s: re.sub(r"<[^>]*>", "", s).strip()
sites = {c["id"]: c for c in rep["callsites"]}
seen = {}
for n, where, after in rows:
    # the caller's line, in its own span (the timed pass's rows also carry
    # the tag of their NVTX range, seed_common.h)
    m = re.search(r'<span class="via">.*?</span>', after)
    via = m.group(0) if m else ""
    f = rep["findings"][int(n) - 1]
    cs = sites[f["callsite"]]
    caller = cs["frames"][cs["primary"] + 1]          # pass() is called by main() at two lines
    want = "via %s (" % caller["function"]
    if not text(via).startswith(want) or not text(via).endswith(":%d)" % caller["line"]):
        sys.exit("row %s: %r, want %r...:%d)" % (n, text(via), want, caller["line"]))
    key = (f["rule"], text(where))
    if text(via) in seen.setdefault(key, set()):
        sys.exit("row %s: two rows at %r say %r" % (n, key, text(via)))
    seen[key].add(text(via))
if len(rows) != 4 or sorted(len(v) for v in seen.values()) != [2, 2]:
    sys.exit("rows %d, places %r" % (len(rows), seen))
if 'class="via"' in other:
    sys.exit("default_stream: its findings are at three lines, yet a row says 'via'")
EOF
ok $? "seed004_pipeline: the two rows at each copy line name their caller's line; default_stream's rows do not"

# --- 8-9: streamcheck report of all processes ---
"$SC_CLI" report --format=html,json --output="$tmp/merged" --source-root="$src" \
    "$tmp"/*/*.streamcheck.json >"$tmp/merged.out" 2>&1
st=$?
[ $st -ne 0 ] && sed 's/^/# /' "$tmp/merged.out"
[ $st -eq 0 ] && checked "$tmp/merged/merged.streamcheck.html" "$tmp/merged/merged.streamcheck.json"
ok $? "streamcheck report --format=html of five processes: well-formed, self-contained, every finding"
py "$tmp/merged/merged.streamcheck.html" "$tmp/merged/merged.streamcheck.json" <<'EOF'
import json, sys
import html_check
errors, p, by_id = html_check.check(sys.argv[1], sys.argv[2])
rep = json.load(open(sys.argv[2]))
procs = [a for t, a in p.elements if t == "section" and a.get("id", "").startswith("process-")]
rows = [a for t, a in p.elements if t == "a" and a.get("href", "").startswith("#process-")]
want = ["process-%d" % i for i in range(len(rep["processes"]))]
if [a["id"] for a in procs] != want or len({a["href"] for a in rows}) != len(want):
    sys.exit("sections %r, table links %r" % ([a["id"] for a in procs], sorted({a["href"] for a in rows})))
# each finding inside its own process's section
text = open(sys.argv[1]).read()
for i, f in enumerate(rep["findings"]):
    at = text.index('id="finding-%d"' % (i + 1))
    sec = text.rindex('<section class="process" id="process-', 0, at)
    got = int(text[sec:].split('"')[3].split("-")[1])
    if got != f["process"]:
        sys.exit("finding-%d is in process-%d's section, not process-%d's" % (i + 1, got, f["process"]))
EOF
ok $? "merged: a section per process, a table linking to each, every finding in its process's section"

# --- 10-12: program text that is not markup, Python lines, relative paths ---
mkdir -p "$tmp/hostile/pkg" "$tmp/hostile/out"
printf 'import torch\n\ndef step(x):\n    y = x.cuda()  # "<&>" \047q\047 </script>\n    return y\n' >"$tmp/hostile/pkg/train.py"
printf 'int main() {\n  launch<<<1, 1>>>(); // <b>&amp;</b>\n}\n' >"$tmp/hostile/pkg/app.cu"
py "$tmp"/framework_step/*.json "$tmp/hostile/in.json" "$tmp/hostile/pkg/train.py" <<'EOF'
import json, sys
rep = json.load(open(sys.argv[1]))
p = rep["processes"][0]
p["exe"] = "/opt/<b>bold</b> & \"q\" 'a'/app"
p["cmdline"] = "app --x='</script><script>alert(1)</script>' --y=\"<!--\" \u0001\u007f\u0085 caf\u00e9 \ufffe"
p["host"] = "<i>host</i>"
rep["findings"][0]["detail"] = "detail <img src=x onerror=alert(1)> ]]> &amp; \u0007"
cs = {c["id"]: c for c in rep["callsites"]}
c0 = cs[rep["findings"][0]["callsite"]]
c0["python"] = [{"file": sys.argv[3], "line": 4, "function": "step<lambda>"}]
c0["thread_name"] = "<thr&>"
c1 = cs[rep["findings"][1]["callsite"]]
c1["frames"] = [{"module": "/x/app", "offset": "0x10", "function": "main<T>", "file": "pkg/app.cu", "line": 2}]
c1.pop("primary", None)
c2 = cs[rep["findings"][2]["callsite"]]
c2["frames"] = [{"module": "/x/app", "offset": "0x10", "function": "f", "file": "/nonexistent/dir/x.cu", "line": 9}]
c2.pop("primary", None)
json.dump(rep, open(sys.argv[2], "w"))
EOF
"$SC_CLI" report --format=html,json --output="$tmp/hostile/out" --source-root="$tmp/hostile" \
    "$tmp/hostile/in.json" >"$tmp/hostile.out" 2>&1
st=$?
[ $st -ne 0 ] && sed 's/^/# /' "$tmp/hostile.out"
[ $st -eq 0 ] && checked "$tmp/hostile/out/merged.streamcheck.html" "$tmp/hostile/out/merged.streamcheck.json"
ok $? "markup, controls and noncharacters in program text: escaped, the page still well-formed and self-contained"
py "$tmp/hostile/out/merged.streamcheck.html" <<'EOF'
import re, sys
import html_check
errors, p, by_id = html_check.check(sys.argv[1])
tags = {t for t, a in p.elements}
text = open(sys.argv[1]).read().replace("<wbr/>", "")
if {"i", "img"} & tags or p.scripts != 1 or "<b>bold" in text or "onerror=alert(1)>" in text:
    sys.exit("program text became markup: tags %r, %d scripts" % (sorted(tags), p.scripts))
if "&lt;b&gt;bold&lt;/b&gt;" not in text or "&lt;/script&gt;&lt;script&gt;alert(1)" not in text:
    sys.exit("the program's name or command line is not shown, escaped")
card = text[text.index('id="finding-1"'):]
card = card[:card.index("</article>")]
hl = re.findall(r'<span class="l hl"><span class="n">(\d+)</span>(.*?)</span>', card)
want = '    y = x.cuda()  # &quot;&lt;&amp;&gt;&quot; &#39;q&#39; &lt;/script&gt;'
if hl != [("4", want)]:
    sys.exit("Python line: %r" % hl)
if "train.py</span>:4" not in card.replace("<wbr/>", "") and "train.py:4" not in card:
    sys.exit("the Python frame is not where finding 1 is shown")
if "&lt;thr&amp;&gt;" not in card:
    sys.exit("thread name not shown escaped")
EOF
ok $? "a Python call site shows the .py line (escaped) and its thread name"
py "$tmp/hostile/out/merged.streamcheck.html" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
def card(i):
    c = text[text.index('id="finding-%d"' % i):]
    return c[:c.index("</article>")]
hl = re.findall(r'<span class="l hl"><span class="n">(\d+)</span>(.*?)</span>', card(2))
if hl != [("2", "  launch&lt;&lt;&lt;1, 1&gt;&gt;&gt;(); // &lt;b&gt;&amp;amp;&lt;/b&gt;")]:
    sys.exit("relative path below the source root: %r" % hl)
if 'class="src"' in card(3) or "/nonexistent/dir/x.cu:9" not in card(3).replace("<wbr/>", ""):
    sys.exit("an unreadable source: %r" % card(3)[:600])
EOF
ok $? "a relative source path is read below --source-root; an unreadable one is named, without lines"

# --- 13-14: how the format is asked for ---
mkdir -p "$tmp/env"
STREAMCHECK_FORMAT=html "$SC_CLI" --simulate --output="$tmp/env" -- "$SC_APPS/default_stream" >/dev/null 2>"$tmp/env.err"
set -- "$tmp"/env/default_stream.*.streamcheck.html
[ -f "$1" ] && [ $# -eq 1 ] && grep -q '^streamcheck: [0-9]* findings' "$tmp/env.err"
ok $? "STREAMCHECK_FORMAT=html writes the page; stderr keeps the summary line"
mkdir -p "$tmp/all"
"$SC_CLI" report --format=all --output="$tmp/all" "$tmp"/default_stream/*.json >/dev/null 2>&1
[ -f "$tmp/all/merged.streamcheck.html" ]
ok $? "streamcheck report --format=all includes html"

# --- 15: --format lists html in its error ---
"$SC_CLI" --format=htm -- true >/dev/null 2>"$tmp/bad.err"
[ $? -eq 2 ] && grep -q "html" "$tmp/bad.err"
ok $? "an unknown format names html among the formats"

# --- 16-17: a report of many findings stays small and says what it left out ---
py "$tmp"/framework_step/*.json "$tmp/many.json" <<'EOF'
import copy, json, sys
rep = json.load(open(sys.argv[1]))
f0 = rep["findings"][0]
rep["findings"] = []
for i in range(1500):
    f = copy.deepcopy(f0)
    f["count"] = 1500 - i
    f["severity"] = "note"
    rep["findings"].append(f)
json.dump(rep, open(sys.argv[2], "w"))
EOF
mkdir -p "$tmp/many"
"$SC_CLI" report --format=html,json --output="$tmp/many" "$tmp/many.json" >/dev/null 2>&1 &&
    checked "$tmp/many/merged.streamcheck.html" "$tmp/many/merged.streamcheck.json"
ok $? "1500 findings: every one in the page"
size=$(wc -c <"$tmp/many/merged.streamcheck.html")
echo "# 1500 findings: $size bytes"
[ "$size" -lt 3000000 ] && grep -q 'are shown in full below' "$tmp/many/merged.streamcheck.html"
ok $? "1500 findings: under 3 MB, cards for the first ones, and the page says so"

# --- 18-21: measured mode: the GPU numbers and the timeline ---
mrun() {  # mrun APP: html, json and trace in $tmp/m-APP
    mkdir -p "$tmp/m-$1"
    "$SC_CLI" --simulate --measure --format=html,json,trace --output="$tmp/m-$1" --source-root="$src" -- \
        "$SC_APPS/$1" >"$tmp/m-$1.out" 2>"$tmp/m-$1.err"
}
for app in measure_barrier seed004_pipeline; do
    mrun $app
    if [ -f "$tmp"/m-$app/$app.*.streamcheck.trace.json ]; then
        checked "$tmp"/m-$app/$app.*.streamcheck.html "$tmp"/m-$app/$app.*.streamcheck.json \
            "$tmp"/m-$app/$app.*.streamcheck.trace.json
        ok $? "$app --measure: the timeline has the trace's streams, operations and finding marks, each linked to its finding"
    else
        sed 's/^/# /' "$tmp/m-$app.err"
        ok 1 "$app --measure: wrote no trace"
    fi
done
py "$tmp"/m-measure_barrier/*.streamcheck.html "$tmp"/m-measure_barrier/*.streamcheck.json <<'EOF'
import json, re, sys
import xml.etree.ElementTree as ET
text = open(sys.argv[1]).read()
rep = json.load(open(sys.argv[2]))
root = ET.fromstring(re.sub(r"^<!DOCTYPE html>", "", text))
i = [k for k, f in enumerate(rep["findings"]) if f["rule"] == "SC101"][0]
lost = [r for r in root.iter("rect") if r.get("class") == "l" and r.get("data-f") == str(i + 1)]
print("# held back: %s ns" % [r.get("data-ns") for r in lost])
if len(lost) != 1 or not 60e6 <= int(lost[0].get("data-ns")) <= 200e6:
    sys.exit("the SC101's held-back time is not shaded once, 60-200 ms")
if "GPU busy" not in text or 'class="gbar"' not in text:
    sys.exit("no GPU numbers")
EOF
ok $? "measure_barrier: the 100 ms the legacy-stream kernel held back is shaded and linked to its SC101; the GPU numbers"
"$SC_CLI" report --format=html --output="$tmp/m-merged" "$tmp"/m-*/*.streamcheck.json "$tmp"/default_stream/*.json \
    >/dev/null 2>&1 && checked "$tmp/m-merged/merged.streamcheck.html" &&
    [ "$(grep -c 'class="gbar"' "$tmp/m-merged/merged.streamcheck.html")" -eq 2 ] &&
    grep -q 'do not carry it' "$tmp/m-merged/merged.streamcheck.html"
ok $? "streamcheck report of measured and unmeasured processes: GPU numbers for the measured ones, and where their timeline is"

# --- 22-23: a training run's worth of timeline stays small ---
"$abs_top_builddir/tests/golden/golden-report" timeline html >"$tmp/big.html" &&
    "$abs_top_builddir/tests/golden/golden-report" timeline json >"$tmp/big.json" &&
    checked "$tmp/big.html" "$tmp/big.json"
ok $? "200000 GPU operations, 50000 finding events: the page is well-formed, self-contained, every finding in it"
py "$tmp/big.html" <<'EOF'
import os, re, sys
text = open(sys.argv[1]).read()
size = os.path.getsize(sys.argv[1])
rects = len(re.findall(r'<rect class="(?:k|c|s|x|h|i|l|nk)"', text))
marks = len(re.findall(r'<a href="#finding-\d+" class="mk', text))
print("# %d bytes, %d rectangles, %d marks" % (size, rects, marks))
if size > 3 << 20 or rects > 16000 or marks > 2000:
    sys.exit("too big")
if not re.search(r"drawn as \d+ rectangles: operations of a stream, or calls of a thread, less than", text) \
        or "more left out" not in text or "keeps the first" not in text:
    sys.exit("the page does not say what it aggregated or left out")
EOF
ok $? "200000 GPU operations: under 3 MB, at most 16000 rectangles and 2000 marks, and the page says so"
