#!/bin/sh
# via.sh: the call site of a CUDA call a framework makes is the program's
# line, with the framework's frame that made the call beside it (issue 28,
# item 6: Lightning's batch_to under the user's tr.fit(...)), on the
# simulator.  tests/pyframes/via_user.py calls a fake installed framework
# (tests/pyframes/site-packages/fakeframework), which copies from pageable
# memory through ctypes 100 frames below the program's line (SC203):
#  - JSON: the call site's python frames are the framework's, then the
#    program's; "via" is the framework's index;
#  - text: the program's line first, "via fakeframework/apply_func.py:N in
#    batch_to()" under it; HTML beside it; SARIF located at the program's
#    line, the framework's frame a related location saying so;
#  - streamcheck report renders the same from the JSON.
# Needs a python3 that streamcheck reads (3.11-3.13); skipped otherwise.  TAP.
. "${top_builddir:-.}/tests/env.sh"
py=${PYFRAMES_PYTHON:-python3}
if ! command -v "$py" >/dev/null 2>&1 || ! "$py" -c 'import ctypes, json' >/dev/null 2>&1; then
    echo "1..0 # SKIP no $py with ctypes"
    exit 0
fi
if ! "$py" -c 'import sys; sys.exit(not (3, 11) <= sys.version_info[:2] <= (3, 13))'; then
    echo "1..0 # SKIP $py is not one of the Pythons streamcheck reads (3.11 to 3.13)"
    exit 0
fi
# ThreadSanitizer's runtime preloaded into Debian 12's python3 crashes it.
if [ -n "$SAN_RUNTIME" ] && ! LD_PRELOAD="$SAN_RUNTIME" "$py" -c pass >/dev/null 2>&1; then
    echo "1..0 # SKIP $py does not start with $SAN_RUNTIME preloaded"
    exit 0
fi
echo "1..6"
n=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-via.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
src=$(cd "$abs_top_srcdir" && pwd)
dir=$src/tests/pyframes
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE
mark() { grep -n "# @$2\$" "$1" | head -n 1 | cut -d: -f1; }
fit=$(mark "$dir/via_user.py" fit)
batch=$(mark "$dir/site-packages/fakeframework/apply_func.py" batch_to)
[ -n "$fit" ] && [ -n "$batch" ] || { echo "Bail out! markers not found"; exit 1; }
user_line="tests/pyframes/via_user.py:$fit in <module>()"
via_line="via fakeframework/apply_func.py:$batch in batch_to()"

"$SC_CLI" --simulate --source-root "$src" --format text,json,sarif,html --output "$tmp" -- \
    "$py" "$dir/via_user.py" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 0 ] && [ "$(cat "$tmp/out")" = "via_user: done" ]
ok $? "via_user.py runs under streamcheck"
[ $? -eq 0 ] || tail -n 5 "$tmp/err" | sed 's/^/# /'

"$py" - "$tmp"/*.json "$dir" "$fit" "$batch" <<'EOF'
import json, sys
rep, d, fit, batch = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
f = [x for x in rep["findings"] if x["rule"] == "SC203"]
if len(f) != 1 or f[0]["count"] != 3:
    sys.exit("SC203 findings: %r" % f)
cs = [c for c in rep["callsites"] if c["id"] == f[0]["callsite"]][0]
want = [{"file": d + "/site-packages/fakeframework/apply_func.py", "line": batch, "function": "batch_to"},
        {"file": d + "/via_user.py", "line": fit, "function": "<module>"}]
if cs["python"] != want or cs["via"] != 0:
    sys.exit("python %r, via %r" % (cs["python"], cs["via"]))
EOF
ok $? "JSON: the framework's frame, then the program's line (100 frames further out); via is 0"

# The finding's call-site lines: the program's line, then the framework's.
awk '/^  Call site      : #/ { getline a; getline b; sub(/^ +/, "", a); sub(/^ +/, "", b); print a; print b; exit }' \
    "$tmp/err" > "$tmp/site"
printf '%s\n%s\n' "$user_line" "$via_line" | cmp -s - "$tmp/site"
ok $? "text: '$user_line', then '$via_line'"
[ $? -eq 0 ] || sed 's/^/# /' "$tmp/site"

grep -q "<code class=\"where via\">$via_line</code>" "$tmp"/*.html
ok $? "HTML: the framework's frame beside the program's line"

"$py" - "$tmp"/*.sarif "$fit" "$batch" <<'EOF'
import json, sys
res = [r for r in json.load(open(sys.argv[1]))["runs"][0]["results"] if r["ruleId"] == "SC203"][0]
fit, batch = int(sys.argv[2]), int(sys.argv[3])
loc = res["locations"][0]["physicalLocation"]
if loc["artifactLocation"]["uri"] != "tests/pyframes/via_user.py" or loc["region"]["startLine"] != fit:
    sys.exit("location %r" % loc)
rel = [x for x in res["relatedLocations"] if "(via)" in x["message"]["text"]]
if len(rel) != 1 or rel[0]["id"] != 1 or rel[0]["physicalLocation"]["region"]["startLine"] != batch or \
        rel[0]["physicalLocation"]["artifactLocation"]["uri"] != "tests/pyframes/site-packages/fakeframework/apply_func.py":
    sys.exit("related (via): %r" % rel)
if " via fakeframework/apply_func.py:%d in batch_to()." % batch not in res["message"]["text"]:
    sys.exit("message: %s" % res["message"]["text"])
EOF
ok $? "SARIF: at the program's line; the framework's frame a related location marked (via), and in the message"

"$SC_CLI" report --source-root "$src" "$tmp"/*.json > "$tmp/re.out" 2>&1
grep -qx "                   $via_line" "$tmp/re.out"
ok $? "streamcheck report: the same from the JSON"
