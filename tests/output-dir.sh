#!/bin/sh
# output-dir.sh: --output DIR and STREAMCHECK_OUTPUT=DIR create DIR and its
# missing parents; a DIR that is a file is refused.  TAP.
. "${top_builddir:-.}/tests/env.sh"
echo "1..3"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-output.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
sim() { sc_sim "$@"; }

"$SC_CLI" --simulate --format=json --output="$tmp/a/b/c" -- "$SC_APPS/default_stream" >"$tmp/1.out" 2>&1
if [ -d "$tmp/a/b/c" ] && [ "$(ls "$tmp/a/b/c" | grep -c '\.json$')" -eq 1 ]; then
    echo "ok 1 - --output makes the directory and its parents"
else
    echo "not ok 1 - --output $tmp/a/b/c"; sed 's/^/# /' "$tmp/1.out"
fi

STREAMCHECK_FORMAT=json STREAMCHECK_OUTPUT="$tmp/x/y" LD_PRELOAD="$SC_PRELOAD_SHIM" \
    sim "$SC_APPS/default_stream" >"$tmp/2.out" 2>&1
if [ "$(ls "$tmp/x/y" 2>/dev/null | grep -c '\.json$')" -eq 1 ]; then
    echo "ok 2 - STREAMCHECK_OUTPUT makes the directory and its parents"
else
    echo "not ok 2 - STREAMCHECK_OUTPUT=$tmp/x/y"; sed 's/^/# /' "$tmp/2.out"
fi

: > "$tmp/file"
"$SC_CLI" --simulate --format=json --output="$tmp/file" -- "$SC_APPS/default_stream" >"$tmp/3.out" 2>&1
st=$?
if [ $st -ne 0 ] && grep -q "not a directory" "$tmp/3.out"; then
    echo "ok 3 - --output naming a file is refused"
else
    echo "not ok 3 - --output naming a file: status $st"; sed 's/^/# /' "$tmp/3.out"
fi
