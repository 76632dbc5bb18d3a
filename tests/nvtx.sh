#!/bin/sh
# nvtx.sh: findings name the NVTX range they happened in, and --range keeps
# to one (issue 28, item 5), on the simulator with testapps/nvtx_ranges:
#  - the launcher makes the shim NVTX's injection library
#    (NVTX_INJECTION64_PATH), and leaves another tool's in place, saying so;
#  - each finding's nvtx_range in JSON, the innermost named range of its
#    call: one call site in two ranges is two findings; ranges pushed
#    (A, W, Ex, a domain's with a registered string), started and ended,
#    nested, unnamed, and popped through the payload extension as NCCL
#    pops its own (no range left open after them); text and HTML show it
#    beside the call site;
#  - --range NAME: only findings with a range of that name open, innermost
#    or enclosing; the process's nvtx_range and the time inside it; a name
#    never opened gets a warning and no findings;
#  - streamcheck report reads the ranges back (JSON to JSON, same bytes).
# TAP.
. "${top_builddir:-.}/tests/env.sh"
echo "1..13"
n=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-nvtx.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
have_py=0
[ -n "$PYTHON3" ] && "$PYTHON3" -c 'import json' 2>/dev/null && have_py=1
app=$SC_APPS/nvtx_ranges
src=$abs_top_srcdir/testapps/nvtx_ranges.cu

# The copies of the app, in the order of the file: outside any range,
# step/eval, forward, load, wide, registered, ex, and outside any range
# after NCCL's pattern.
set -- $(grep -n 'cudaMemcpyAsync(dev, host' "$src" | cut -d: -f1)
[ $# -eq 8 ] || { echo "Bail out! expected 8 copies in $src, found $#"; exit 1; }
outside=$1 step=$2 forward=$3 load=$4 wide=$5 registered=$6 ex=$7 after=$8

run() {  # run DIR [streamcheck options]: the app, text on DIR/err, JSON, HTML and SARIF in DIR
    d=$tmp/$1
    shift
    mkdir -p "$d"
    "$SC_CLI" --simulate --format text,json,html,sarif --output "$d" "$@" -- "$app" >"$d/out" 2>"$d/err"
}
# ranges DIR: "LINE RANGE COUNT" per SC203 finding, sorted (RANGE - for none).
ranges() {
    "$PYTHON3" - "$1"/nvtx_ranges.*.json <<'EOF' | sort
import json, sys
r = json.load(open(sys.argv[1]))
cs = {c["id"]: c for c in r["callsites"]}
for f in r["findings"]:
    c = cs[f["callsite"]]
    fr = c["frames"][c["primary"]]
    print(fr["line"], f["nvtx_range"] if f["nvtx_range"] is not None else "-", f["count"], f["rule"])
EOF
}

# --- 1-2: the launcher and NVTX_INJECTION64_PATH ---
got=$(env -u NVTX_INJECTION64_PATH "$SC_CLI" --simulate -- env 2>/dev/null | sed -n 's/^NVTX_INJECTION64_PATH=//p')
[ -n "$got" ] && [ "$(realpath "$got")" = "$(realpath "$SC_SHIM")" ]
ok $? "the launcher sets NVTX_INJECTION64_PATH to the shim"
[ $? -eq 0 ] || echo "# NVTX_INJECTION64_PATH=$got"
got=$(NVTX_INJECTION64_PATH=/opt/tool/libinj.so "$SC_CLI" --simulate --range step -- env 2>"$tmp/held.err" |
      sed -n 's/^NVTX_INJECTION64_PATH=//p')
[ "$got" = /opt/tool/libinj.so ] &&
    [ "$(grep -c NVTX_INJECTION64_PATH "$tmp/held.err")" -eq 1 ] &&
    grep -qx "streamcheck: NVTX_INJECTION64_PATH names another tool's library (/opt/tool/libinj.so): findings will name no NVTX range, and --range will find nothing" "$tmp/held.err"
ok $? "another tool's NVTX_INJECTION64_PATH is kept, and the launcher says so once"
[ $? -eq 0 ] || sed 's/^/# /' "$tmp/held.err"

# --- 3-6: every finding names its innermost range ---
run all
ok $? "nvtx_ranges runs under streamcheck"
if [ $have_py = 1 ]; then
    cat > "$tmp/want" <<END
$outside - 1 SC203
$step step 2 SC203
$step eval 2 SC203
$forward forward 4 SC203
$load load 1 SC203
$wide wide 1 SC203
$registered registered 1 SC203
$ex ex 1 SC203
$after - 1 SC203
END
    sort -o "$tmp/want" "$tmp/want"
    ranges "$tmp/all" > "$tmp/got"
    cmp -s "$tmp/want" "$tmp/got"
    ok $? "JSON: each finding's nvtx_range (push A/W/Ex, domain, registered, start/end, nested, unnamed, payload pops)"
    [ $? -eq 0 ] || diff "$tmp/want" "$tmp/got" | sed 's/^/# /'
else
    skip "JSON: each finding's nvtx_range" "no python3"
fi
# Text: the range beside the call site, one line per finding in a range.
[ "$(grep -c '^  NVTX range     : ' "$tmp/all/err")" -eq 7 ] &&
    awk '/^  NVTX range     : forward$/ { r = 1; next } r && /^  Call site      : #/ { ok = 1 } { r = 0 } END { exit !ok }' \
        "$tmp/all/err"
ok $? "text: 'NVTX range : NAME' before the call site of each finding in a range"
grep -q '<span class="tag">NVTX range step</span>' "$tmp"/all/nvtx_ranges.*.html &&
    grep -q '<span class="tag">NVTX range registered</span>' "$tmp"/all/nvtx_ranges.*.html &&
    [ "$(grep -c '"nvtxRange": "forward"' "$tmp"/all/nvtx_ranges.*.sarif)" -eq 1 ]
ok $? "HTML: the range as a tag beside the call site; SARIF: the result's nvtxRange"

# --- 7-10: --range ---
run step --range step
if [ $have_py = 1 ]; then
    printf '%s step 2 SC203\n%s forward 2 SC203\n' "$step" "$forward" | sort > "$tmp/want"
    ranges "$tmp/step" > "$tmp/got"
    cmp -s "$tmp/want" "$tmp/got"
    ok $? "--range step: the findings inside step, innermost (step) or enclosing (forward in step)"
    [ $? -eq 0 ] || diff "$tmp/want" "$tmp/got" | sed 's/^/# /'
    "$PYTHON3" - "$tmp"/step/nvtx_ranges.*.json <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))["processes"][0]
span = (p["end_time"] - p["start_time"]) * 1e9
# Two step ranges, each waiting for two 2 ms spins (testapps/common.h, SPIN).
if p.get("nvtx_range") != "step" or not 8e6 <= p.get("nvtx_range_ns", 0) < span:
    sys.exit("nvtx_range %r, nvtx_range_ns %r, run %d ns" % (p.get("nvtx_range"), p.get("nvtx_range_ns"), span))
EOF
    ok $? "--range step: the process's nvtx_range, and the time inside it (>= 8 ms, < the run)"
else
    skip "--range step: findings" "no python3"
    skip "--range step: time inside" "no python3"
fi
grep -q '^@ NVTX range           : step: findings inside it only; .* inside it (what shares are of)$' "$tmp/step/err"
ok $? "--range step: the text header says so"
run nosuch --range nosuch
grep -q '^streamcheck: 0 findings' "$tmp/nosuch/err" &&
    grep -q 'streamcheck\[[0-9]*\]: warning: --range nosuch: the program opened no NVTX range of that name: nothing was reported$' \
        "$tmp/nosuch/err"
ok $? "--range with a name never opened: no findings, and a warning"
[ $? -eq 0 ] || tail -n 3 "$tmp/nosuch/err" | sed 's/^/# /'

# --- 11: --range keeps to the innermost match too ---
if [ $have_py = 1 ]; then
    run fwd --range forward
    printf '%s forward 4 SC203\n' "$forward" > "$tmp/want"
    ranges "$tmp/fwd" > "$tmp/got"
    cmp -s "$tmp/want" "$tmp/got"
    ok $? "--range forward: the nested range's findings in both enclosing ranges"
    [ $? -eq 0 ] || diff "$tmp/want" "$tmp/got" | sed 's/^/# /'
else
    skip "--range forward" "no python3"
fi

# --- 12-13: read back ---
mkdir "$tmp/re"
"$SC_CLI" report --format json --output "$tmp/re" "$tmp"/step/nvtx_ranges.*.json >/dev/null 2>"$tmp/re/err" &&
    grep -v '"tool"' "$tmp"/step/nvtx_ranges.*.json > "$tmp/a" &&
    grep -v '"tool"' "$tmp/re/merged.streamcheck.json" > "$tmp/b" && cmp -s "$tmp/a" "$tmp/b"
ok $? "streamcheck report: the ranges read back, JSON to JSON the same"
[ $? -eq 0 ] || diff "$tmp/a" "$tmp/b" | head -n 10 | sed 's/^/# /'
"$SC_CLI" report --expect "$SC_APPS/nvtx_ranges.expect" "$tmp"/all/nvtx_ranges.*.json >"$tmp/expect.out" 2>&1
st=$?; [ $st -ne 0 ] && sed 's/^/# /' "$tmp/expect.out"
ok $st "nvtx_ranges: its expectations hold (a line's ranges summed)"
