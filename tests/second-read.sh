#!/bin/sh
# second-read.sh: a step that reads two results (loss.item(), then an
# accuracy's .item() of a tiny kernel), on the simulator.  The second read
# finds the GPU drained by the first; with the first gone it would wait in
# its place, so SC403's price at the first read takes it along and the
# finding says so (libstreamcheck(7), PRICING, SC403): testapps/host_sync_loop
# 10 10 8 item2 gets an SC403 warning at its first read (host_sync_loop.cu,
# the second line reading the result; the lines come from the source)
# whose detail counts the waits taken along: one a step, of 10, where the
# second read came within 1 ms of the first's end and waited under a tenth
# of its wait (a loaded simulator sometimes stalls one for over a
# millisecond: that step's read is then priced as its own, and may be a
# warning at its second read), so 5 or more; mode item (one read a step)
# gets the warning at the first line reading the result, and no such
# detail.  A sanitized build's pace is its
# runtime's: it checks only that the warning is there.  TAP.
. "${top_builddir:-.}/tests/env.sh"
echo "1..2"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-second.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
if [ -z "$PYTHON3" ] || [ ! -x "$SC_APPS/host_sync_loop" ]; then
    echo "ok 1 # SKIP python3 or the test apps missing"; echo "ok 2 # SKIP python3 or the test apps missing"
    exit 0
fi
sanitized=0
case "$enable_sanitizers" in no | '') ;; *) sanitized=1 ;; esac
# facts MODE: "LINE SEVERITY TAKEN" of each SC403 finding at host_sync_loop.cu
facts() {
    mkdir -p "$tmp/$1"
    "$SC_CLI" --simulate --format=json --output="$tmp/$1" --fail-on=never -- \
        "$SC_APPS/host_sync_loop" 10 10 8 "$1" >/dev/null 2>&1
    "$PYTHON3" - "$tmp/$1"/*.streamcheck.json <<'PYEOF'
import json, re, sys
r = json.load(open(sys.argv[1]))
sites = {c["id"]: c for c in r["callsites"]}
for f in r["findings"]:
    if f["rule"] != "SC403":
        continue
    line = [fr["line"] for fr in sites[f["callsite"]]["frames"] if (fr.get("file") or "").endswith("host_sync_loop.cu")]
    m = re.search(r"takes along (\d+) wait", f.get("detail") or "")
    print(line[0] if line else 0, f["severity"], m.group(1) if m else 0)
PYEOF
}
# the lines reading the result: item's, then item2's first
reads=$(grep -n 'cudaMemcpyAsync(&result, d, sizeof(float), cudaMemcpyDeviceToHost, s)); // expect: SC403' \
    "$abs_top_srcdir/testapps/host_sync_loop.cu" | cut -d: -f1)
set -- $reads
at_item=$1 at_item2=$2
two=$(facts item2)
one=$(facts item)
echo "# item2: $two"
echo "# item: $one"
set -- $two
if [ "$sanitized" = 1 ]; then
    [ "$1" = "$at_item2" ] && [ "$2" = warning ]
else
    [ "$1" = "$at_item2" ] && [ "$2" = warning ] && [ "$3" -ge 5 ] && [ "$3" -le 10 ]
fi
r=$?
[ "$r" = 0 ] && echo "ok 1 - two reads a step: SC403 at the first, priced with the second" ||
    echo "not ok 1 - two reads a step: SC403 at the first, priced with the second"
set -- $one
[ $# = 3 ] && [ "$1" = "$at_item" ] && [ "$2" = warning ] && [ "$3" = 0 ]
r=$?
[ "$r" = 0 ] && echo "ok 2 - one read a step: SC403 at it, nothing taken along" ||
    echo "not ok 2 - one read a step: SC403 at it, nothing taken along"
