#!/bin/sh
# golden.sh: renders the fixture report (tests/golden/fixture.c) in every
# format and compares the bytes with the files in tests/golden/.  After an
# intended change of output: 'make update-golden', then review the diff.
set -u
: "${top_srcdir:?run through make check}" "${top_builddir:?run through make check}"
gold=$top_srcdir/tests/golden
prog=$top_builddir/tests/golden/golden-report
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-golden.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

echo "1..$(grep -cv '^#' "$gold/cases")"
i=0
grep -v '^#' "$gold/cases" | {
    while read -r name case format; do
        i=$((i + 1))
        if "$prog" "$case" "$format" >"$tmp/out" 2>"$tmp/err" && cmp -s "$gold/$name" "$tmp/out"; then
            echo "ok $i - $name"
        else
            echo "not ok $i - $name (golden-report $case $format)"
            diff -u "$gold/$name" "$tmp/out" | head -60 | sed 's/^/# /'
            sed 's/^/# /' "$tmp/err"
        fi
    done
}
