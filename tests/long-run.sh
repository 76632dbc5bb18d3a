#!/bin/sh
# long-run.sh: a run longer than the record's bound (libstreamcheck(7),
# PRICING, The model: at most 262144 calls a thread) is priced from the part
# the model held and extrapolated to the whole window, on the simulator.
# STREAMCHECK_TEST_RL_MAX (a test hook) lowers the bound to 1500 calls.
# testapps/host_sync_loop waits for the GPU in each of its 3000 steps (0.3
# ms of GPU and 0.3 ms of host work; SC403 at host_sync_loop.cu:76, two
# records a step), once with the bound and once without:
#  - bounded: process.model_held_ns is a part of the window, under half
#    (the first 750 steps or so of 3000); unbounded: no such member;
#  - both count nearly every wait in SC403 (2900 of 3000 or more: the calls
#    past the bound are judged as before; the first steps' waits may be too
#    short to count);
#  - SC403's share of the window is the unbounded run's within a fifth (its
#    saving extrapolated by its calls, all over those held); a sanitized
#    build's times are its runtime's, not the program's: skipped there;
#  - the text report says what the model held, and that the saving is
#    extrapolated; the HTML page says what the model held.
# TAP.
. "${top_builddir:-.}/tests/env.sh"
echo "1..4"
n=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-long.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
if [ -z "$PYTHON3" ] || ! "$PYTHON3" -c 'import json' 2>/dev/null || [ ! -x "$SC_APPS/host_sync_loop" ]; then
    for i in 1 2 3 4; do echo "ok $i - # SKIP python3 or the test apps missing"; done
    exit 0
fi

# run NAME BOUND: the app under streamcheck (BOUND 0: the shim's own), the
# JSON report and HTML page in tmp/NAME, the text report in tmp/NAME/stderr.
run() {
    mkdir -p "$tmp/$1"
    STREAMCHECK_TEST_RL_MAX=$2 "$SC_CLI" --simulate --format=json,text,html --output="$tmp/$1" --fail-on=never -- \
        "$SC_APPS/host_sync_loop" 3000 0.3 0.3 each >"$tmp/$1/stdout" 2>"$tmp/$1/stderr"
}
# facts NAME: "held window count share" of the JSON report: the part held
# and the window in ms, SC403's count at :76 and its cost's share (%) of
# the window.
facts() {
    "$PYTHON3" - "$tmp/$1"/*.streamcheck.json <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
p = r["processes"][0]
sites = {c["id"]: c for c in r["callsites"]}
def line(f):
    for fr in sites[f["callsite"]]["frames"]:
        if (fr.get("file") or "").endswith("host_sync_loop.cu"):
            return fr["line"]
    return 0
sc403 = [f for f in r["findings"] if f["rule"] == "SC403" and line(f) == 76]
f = sc403[0] if len(sc403) == 1 else {"cost_ns": 0, "count": 0}
win = p.get("window_ns", 0)
print("%.3f %.3f %d %.3f" % (p.get("model_held_ns", 0) / 1e6, win / 1e6, f["count"],
                             100.0 * f["cost_ns"] / win if win else 0))
EOF
}

run bounded 1500
run whole 0
set -- $(facts bounded) $(facts whole)
echo "# bounded: held $1 of $2 ms, SC403 x$3, $4% of the window; whole: held $5 of $6 ms, SC403 x$7, $8%"
awk -v h="$1" -v w="$2" -v h2="$5" 'BEGIN { exit !(h > 0 && h < w / 2 && h2 == 0) }'
ok $? "bounded at 1500 calls: the model held $1 of the $2 ms window; unbounded: all of it"
[ "$3" -ge 2900 ] && [ "$7" -ge 2900 ]
ok $? "the waits past the bound are judged: SC403 x$3 bounded, x$7 unbounded"
case "$enable_sanitizers" in
no | '')
    awk -v a="$4" -v b="$8" 'BEGIN { exit !(b > 5 && a > b * 0.8 && a < b * 1.2) }'
    ok $? "SC403's saving extrapolated from the part held: $4% of the window, unbounded $8%" ;;
*) skip "SC403's saving extrapolated from the part held" "a sanitized build ($enable_sanitizers): its times are not the program's" ;;
esac
grep -q '^@ Model held  *: its first [0-9.]* m\{0,1\}s (a thread.s calls reached the record.s bound)' \
    "$tmp/bounded/stderr" && grep -q 'extrapolated from the part of' "$tmp/bounded/stderr" &&
    ! grep -q 'Model held\|extrapolated' "$tmp/whole/stderr" &&
    grep -q 'Model held' "$tmp/bounded"/*.streamcheck.html && ! grep -q 'Model held' "$tmp/whole"/*.streamcheck.html
ok $? "the text report and the HTML page say what the model held, and the text that its savings are extrapolated"
