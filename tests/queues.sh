#!/bin/sh
# queues.sh: SC701 (more busy streams than hardware queues) in detect mode
# on the simulator, where nothing measures what it costs: a queue starts its
# work in the order it was queued, so a stream's work holds up another's
# only where it cannot start yet, behind its own stream's unfinished work.
# With the test hook STREAMCHECK_TEST_QUEUE_DEPTH=1 (off until a GPU judges
# it):
#  - testapps/queue_depth (12 streams of two spins each, as NVIDIA's
#    simpleHyperQ): the first spin of each of the last four streams is a
#    note, their second, behind the first, a warning;
#  - testapps/queue_limit (12 streams of one spin each, whose fix gained
#    nothing on an H200): four notes, no warning;
#  - without the hook, the count alone (queue_limit's four are warnings).
# TAP.
. "${top_builddir:-.}/tests/env.sh"
echo "1..3"
n=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-queues.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
if [ -z "$PYTHON3" ] || ! "$PYTHON3" -c 'import json' 2>/dev/null; then
    echo "ok 1 # SKIP python3 not found"
    echo "ok 2 # SKIP python3 not found"
    echo "ok 3 # SKIP python3 not found"
    exit 0
fi
# sc701 APP: "LINE SEVERITY COUNT" per SC701 finding of APP's detect-mode report, sorted
sc701() {
    rm -rf "${tmp:?}/$1"
    env -u CUDA_DEVICE_MAX_CONNECTIONS "$SC_CLI" --simulate --format=json --output="$tmp/$1" -- "$SC_APPS/$1" \
        >"$tmp/$1.out" 2>"$tmp/$1.err" || echo "exit $?"
    "$PYTHON3" - "$tmp/$1"/"$1".*.json <<'PY' | sort
import json, sys
r = json.load(open(sys.argv[1]))
cs = {c["id"]: c for c in r["callsites"]}
for f in r["findings"]:
    if f["rule"] == "SC701":
        c = cs[f["callsite"]]
        print(c["frames"][c["primary"]]["line"], f["severity"], f["count"])
PY
}
line() { grep -n "$2" "$abs_top_srcdir/testapps/$1.cu" | cut -d: -f1; }

# expect APP WHAT [VAR=VALUE]: APP's SC701 findings are "$tmp/want"
expect() {
    app=$1 what=$2
    shift 2
    (if [ $# -gt 0 ]; then export "$@"; fi; sc701 "$app") >"$tmp/got"
    cmp -s "$tmp/want" "$tmp/got"
    r=$?
    ok $r "$what"
    [ $r -eq 0 ] || diff "$tmp/want" "$tmp/got" | sed 's/^/# /'
}

set -- $(line queue_depth 'expect: SC701')
printf '%s note 4\n%s warning 4\n' "$1" "$2" | sort >"$tmp/want"
expect queue_depth "queue_depth: each stream past the queues a note where it turned busy, a warning where its next spin waits behind its own" \
    STREAMCHECK_TEST_QUEUE_DEPTH=1
printf '%s note 4\n' "$(line queue_limit 'expect: SC701')" >"$tmp/want"
expect queue_limit "queue_limit: one spin a stream, nothing queued behind another: notes only" \
    STREAMCHECK_TEST_QUEUE_DEPTH=1
printf '%s warning 4\n' "$(line queue_limit 'expect: SC701')" >"$tmp/want"
expect queue_limit "without the hook: queue_limit's SC701 by the count alone, warnings"
