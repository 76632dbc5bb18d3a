#!/bin/sh
# ablate.sh: the STREAMCHECK_TEST_ABLATE test hook (tools/overhead-probe.sh
# uses it on a GPU host to see what each part of the shim costs): each part
# it names is off, and only that part; an unknown name is refused in one
# line and ignored.  The program's output stays the same throughout.  TAP.
. "${top_builddir:-.}/tests/env.sh"
echo "1..4"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-ablate.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
app=$SC_APPS/default_stream
ref=$(sc_sim "$app" 2>/dev/null)

run() {   # run NAME ABLATE: text report in $tmp/NAME.err, stdout in $tmp/NAME.out
    STREAMCHECK_TEST_ABLATE=$2 "$SC_CLI" --simulate -- "$app" >"$tmp/$1.out" 2>"$tmp/$1.err"
}
summary() { sed -n 's/^streamcheck: \([0-9]*\) findings.*/\1/p' "$tmp/$1.err"; }
calls() { sed -n 's/^  Calls intercepted *: *\([0-9]*\).*/\1/p' "$tmp/$1.err"; }
same() { [ "$(cat "$tmp/$1.out")" = "$ref" ]; }

run all ""; run slow slow; run walk walk; run bogus bogus
# default_stream's expectation: SC101 at three lines (testapps/default_stream.expect).
if [ "$(summary all)" = 3 ] && [ "$(summary slow)" = 0 ] && [ "$(calls slow)" = "$(calls all)" ] && same slow &&
    grep -q "STREAMCHECK_TEST_ABLATE=slow: parts of the shim are off" "$tmp/slow.err"; then
    echo "ok 1 - slow: every call counted, none judged, a warning says so"
else
    echo "not ok 1 - slow: findings $(summary slow) (all: $(summary all)), calls $(calls slow) vs $(calls all)"
    sed 's/^/# /' "$tmp/slow.err" | tail -n 8
fi
# Without walks the three lines are one call site: one finding per API
# (the launches, and the copy at line 35).
if [ "$(summary walk)" = 2 ] && same walk; then
    echo "ok 2 - walk: no call sites, one finding per API"
else
    echo "not ok 2 - walk: $(summary walk) findings"; sed 's/^/# /' "$tmp/walk.err" | tail -n 8
fi
if [ "$(grep -c "STREAMCHECK_TEST_ABLATE: 'bogus' is not one of" "$tmp/bogus.err")" = 1 ] &&
    [ "$(summary bogus)" = 3 ] && same bogus; then
    echo "ok 3 - an unknown part is named once and ignored"
else
    echo "not ok 3 - bogus"; sed 's/^/# /' "$tmp/bogus.err" | tail -n 8
fi
if [ "$(summary all)" = 3 ] && ! grep -q TEST_ABLATE "$tmp/all.err" && same all; then
    echo "ok 4 - unset: nothing is off and nothing is said"
else
    echo "not ok 4 - unset"; sed 's/^/# /' "$tmp/all.err" | tail -n 8
fi
