#!/bin/sh
# output-dir.sh: --output DIR and STREAMCHECK_OUTPUT=DIR create DIR and its
# missing parents; a DIR that is a file is refused; a process's files are
# named EXE.HOST.PID[.rRANK].START, so that ranks and reruns never collide.
# TAP.
. "${top_builddir:-.}/tests/env.sh"
echo "1..5"
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

host=$(hostname)
set -- "$tmp"/x/y/*.json
name=$(basename "$1")
case "$name" in
    "default_stream.$host."[0-9]*.[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]-[0-9][0-9][0-9][0-9][0-9][0-9].streamcheck.json)
        echo "ok 4 - a process's report is EXE.HOST.PID.START ($name)" ;;
    *) echo "not ok 4 - a process's report is EXE.HOST.PID.START, not $name" ;;
esac

STREAMCHECK_FORMAT=json STREAMCHECK_OUTPUT="$tmp/r" RANK=3 LD_PRELOAD="$SC_PRELOAD_SHIM" \
    sim "$SC_APPS/default_stream" >"$tmp/5.out" 2>&1
set -- "$tmp"/r/*.json
name=$(basename "$1")
case "$name" in
    "default_stream.$host."[0-9]*.r3.[0-9]*-[0-9]*.streamcheck.json)
        echo "ok 5 - with a rank, EXE.HOST.PID.rRANK.START ($name)" ;;
    *) echo "not ok 5 - with a rank, EXE.HOST.PID.rRANK.START, not $name"; sed 's/^/# /' "$tmp/5.out" ;;
esac
