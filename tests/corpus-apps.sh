#!/bin/sh
# corpus-apps.sh: the sample-style corpus apps (tests/corpus/apps) on the
# simulator: each runs to PASSED under streamcheck, and its report holds
# exactly what a CORRECT tool reports (its "// expect:" comments).  TAP.
#
# TODO lines are the precision work's to-do: they fail today, so they are
# expected failures (XFAIL); when the tool gets them right they XPASS and
# make check fails, and the TODO goes.
. "${top_builddir:-.}/tests/env.sh"
dir=$abs_top_builddir/tests/corpus/apps
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0

# APP [TODO-REASON]
app() {
    a=$1 todo=${2:+ # TODO $2}
    d=$tmp/$a
    mkdir -p "$d"
    "$SC_CLI" --simulate --format=json --output="$d" --log-level=quiet -- "$dir/$a" >"$d/out" 2>"$d/err"
    rc=$?
    n=$((n + 1))
    if [ $rc -eq 0 ] && grep -q PASSED "$d/out"; then
        echo "ok $n - $a runs under streamcheck on the simulator"
    else
        echo "not ok $n - $a under streamcheck: exit $rc"; sed 's/^/# /' "$d/out" "$d/err" | tail -n 5
    fi
    n=$((n + 1))
    if "$SC_CLI" report --expect "$dir/$a.expect" "$d"/*.json >"$d/check" 2>&1; then
        echo "ok $n - $a: the findings a correct tool reports$todo"
    else
        echo "not ok $n - $a: the findings a correct tool reports$todo"; sed 's/^/# /' "$d/check"
    fi
}

app vector_add
app async_api
echo "1..$n"
exit 0
