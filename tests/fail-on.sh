#!/bin/sh
# fail-on.sh: the launcher's exit status.  --fail-on warning --error-exitcode 3
# on a hazard app exits 3, and so does --error-exitcode 3 alone (a warning
# fails the run, as compute-sanitizer's option does); on its twin, the
# app's own status; a failing program's status passes through; bad options
# exit 2 before the program runs.  TAP.
. "${top_builddir:-.}/tests/env.sh"
echo "1..9"
n=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2 (got $3)"; fi; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-fail-on.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
# Every priced finding a warning: this is about exit statuses, not about
# what the simulator's copies cost.
q="--simulate --format=json --output=$tmp --log-level=quiet --warn-cost=0 --warn-share=0"
"$SC_CLI" $q --fail-on warning --error-exitcode 3 -- "$SC_APPS/pageable_copy" >/dev/null 2>&1
st=$?; [ $st -eq 3 ]; ok $? "hazard app, --fail-on warning --error-exitcode 3: exit 3" $st
"$SC_CLI" $q --fail-on warning --error-exitcode 3 -- "$SC_APPS/pageable_copy_fixed" >/dev/null 2>&1
st=$?; [ $st -eq 0 ]; ok $? "its twin: the app's own status, 0" $st
"$SC_CLI" $q --error-exitcode 3 -- "$SC_APPS/pageable_copy" >/dev/null 2>&1
st=$?; [ $st -eq 3 ]; ok $? "--error-exitcode 3 alone, as compute-sanitizer's: a warning exits 3" $st
"$SC_CLI" $q --error-exitcode 3 -- "$SC_APPS/pageable_copy_fixed" >/dev/null 2>&1
st=$?; [ $st -eq 0 ]; ok $? "--error-exitcode 3 alone on the twin: 0" $st
"$SC_CLI" $q --fail-on error --error-exitcode 3 -- "$SC_APPS/pageable_copy" >/dev/null 2>&1
st=$?; [ $st -eq 0 ]; ok $? "warnings do not reach --fail-on error" $st
"$SC_CLI" $q -- sh -c 'exit 7' >/dev/null 2>&1
st=$?; [ $st -eq 7 ]; ok $? "the program's exit status passes through" $st
"$SC_CLI" --fail-on sometimes -- sh -c 'echo ran' >"$tmp/ran" 2>/dev/null
st=$?; [ $st -eq 2 ] && [ ! -s "$tmp/ran" ]; ok $? "a bad option: exit 2, the program not run" $st
"$SC_CLI" --no-such-option -- true >/dev/null 2>&1
st=$?; [ $st -eq 2 ]; ok $? "an unknown option: exit 2" $st
out=$(STREAMCHECK_STACK_DEPTH=lots "$SC_CLI" --simulate --format=json --output="$tmp" -- "$SC_APPS/pageable_copy_fixed" 2>&1 >/dev/null)
st=$?
echo "$out" | grep -q "STREAMCHECK_STACK_DEPTH='lots' is not valid (expected an integer from 1 to 64)" && [ $st -eq 0 ]
ok $? "a malformed variable: one line naming it and what it accepts; the program runs" $st
