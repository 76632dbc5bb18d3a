#!/bin/sh
# idle.sh: a process that made CUDA calls but submitted no work to the GPU
# (a torchrun parent asking for the device count) is not one of the job's
# GPU processes: its report says submitted 0, the launcher counts it apart,
# and `streamcheck report` leaves it out of a merge, saying so.  TAP.
. "${top_builddir:-.}/tests/env.sh"
echo "1..4"
n=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
show() { [ "$1" -eq 0 ] || sed 's/^/# /' "$2"; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-idle.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
app="$abs_top_builddir/tests/parent_app"

"$SC_CLI" --simulate --format=json --output="$tmp/r" --warn-cost=0 --warn-share=0 -- \
    sh -c "'$app' exit && '$SC_APPS/pageable_copy' > /dev/null" > /dev/null 2> "$tmp/run.err"
# (pageable_copy.cu:33 copies once: a note whatever the bars, price.c few_calls_unfixed)
grep -qxF "streamcheck: 1 process: 2 findings (0 errors, 1 warnings, 1 notes); left out: 1 that submitted no work to the GPU" "$tmp/run.err"
r=$?
ok $r "the launcher counts the process without GPU work apart"
show $r "$tmp/run.err"

grep -l '"submitted": 0' "$tmp"/r/parent_app.*.json > /dev/null &&
    grep -q '"submitted": [1-9]' "$tmp"/r/pageable_copy.*.json
ok $? "each report says what it submitted (0 for the one without work)"

"$SC_CLI" report --format=json --output="$tmp/m" --fail-on never "$tmp"/r/*.json > /dev/null 2> "$tmp/merge.err"
st=$?
pid=$(sed -n 's/^ *"pid": \([0-9]*\).*/\1/p' "$tmp"/r/parent_app.*.json | head -n 1)
[ $st -eq 0 ] &&
    grep -qxF "streamcheck report: left out 1 process that submitted no work to the GPU: parent_app (pid $pid on $(hostname))" "$tmp/merge.err"
r=$?
ok $r "streamcheck report leaves it out of the merge, and says so"
show $r "$tmp/merge.err"
! grep -q '"exe": ".*/parent_app"' "$tmp/m/merged.streamcheck.json" &&
    grep -q '"exe": ".*/pageable_copy"' "$tmp/m/merged.streamcheck.json"
ok $? "the merged report has the one process that did GPU work"
