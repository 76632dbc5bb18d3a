#!/bin/sh
# man-page.sh: man/libstreamcheck.7 is exactly what tools/gen-man-rules makes
# of the template and src/common/rules.def (so it cannot drift from the rules), it
# documents every rule, and groff formats it without a warning.
set -u
: "${top_srcdir:?run through make check}" "${top_builddir:?run through make check}"
. "$top_srcdir/tests/golden/tap.sh"
page=$top_srcdir/man/libstreamcheck.7
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-man.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

if "$top_builddir/tools/gen-man-rules" "$top_srcdir/man/libstreamcheck.7.in" >"$tmp/page.7" &&
    cmp -s "$page" "$tmp/page.7"; then
    ok "man/libstreamcheck.7 is up to date"
else
    not_ok "man/libstreamcheck.7 differs from the generator's output: run 'make update-man'"
    diff -u "$page" "$tmp/page.7" | head -40 | diag
fi

missing=
for id in $(sed -n 's/^SC_RULE(\(SC[0-9]*\),.*/\1/p' "$top_srcdir/src/common/rules.def"); do
    grep -q "^\.SS \"$id " "$page" || missing="$missing $id"
done
[ -z "$missing" ] && ok "every rule of rules.def has a section" || not_ok "rules without a section:$missing"
grep -q '@[A-Z_]*@' "$page" && not_ok "no template marker left" || ok "no template marker left"

if command -v groff >/dev/null 2>&1; then
    groff -man -Tutf8 -ww -z "$page" 2>"$tmp/warn"
    if [ $? -eq 0 ] && [ ! -s "$tmp/warn" ]; then
        ok "groff -man -Tutf8 -ww: no warnings"
    else
        not_ok "groff -man -Tutf8 -ww warns"
        head -20 "$tmp/warn" | diag
    fi
else
    ok "groff -man -Tutf8 -ww # SKIP groff not installed"
fi
tap_done
