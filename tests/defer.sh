#!/bin/sh
# defer.sh: under the launcher a process leaves its report unsymbolized and
# the launcher finishes it after the program has exited:
# the program's exit names no frame (its profile has no symbolization row),
# and the report is as complete as without the launcher, whose LD_PRELOAD
# path still names frames in the process: the same call sites, with the
# same file:line.  The launcher says each file it wrote; `streamcheck
# report` names frames that come without file:line.  TAP.
. "${top_builddir:-.}/tests/env.sh"
echo "1..7"
n=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
show() { [ "$1" -eq 0 ] || sed 's/^/# /' "$2"; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-defer.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
app=framework_step

mkdir "$tmp/l" "$tmp/p"
(cd "$tmp" && STREAMCHECK_PROFILE=1 "$SC_CLI" --simulate --format=text,json,html --output=l -- "$SC_APPS/$app") \
    > /dev/null 2> "$tmp/l.err"
st=$?
STREAMCHECK_PROFILE=1 STREAMCHECK_FORMAT=text,json STREAMCHECK_OUTPUT="$tmp/p" STREAMCHECK_SIMULATED=1 \
    LD_PRELOAD="$SC_PRELOAD_SHIM" sc_sim "$SC_APPS/$app" > /dev/null 2> "$tmp/p.err"
[ $st -eq 0 ] && ! grep -q '^ *symbolization ' "$tmp/l.err" && grep -q '^ *symbolization ' "$tmp/p.err"
r=$?
ok $r "under the launcher the program's exit names no frame; without it, the process does"
show $r "$tmp/l.err"

grep -q "main (.*testapps/$app.cu:[0-9]*)" "$tmp/l.err"
ok $? "the launcher's text report names the frames with file:line"

# The same frames either way, call site by call site (a run may have a
# finding, and so a call site, that a loaded machine's timing did not give
# the other: only the sites both have are compared).
frames() {
    "$SC_CLI" report --verbose --color never --fail-on never "$1" |
        awk 'BEGIN { site = "^ *[0-9]+  "; for (i = 0; i < 16; i++) site = site "[0-9a-f]"; site = site "( |$)" }
             $0 ~ site { id = $2; next }
             id != "" && sub(/^    [ >] +([0-9]+|py)  /, "") { print id "\t" $0 }' | sort -u
}
# Of files $1 and $2, the lines of the call sites both have, into $1.both
# and $2.both.
both() {
    cut -f1 "$1" | sort -u > "$tmp/ids1"
    cut -f1 "$2" | sort -u > "$tmp/ids2"
    comm -12 "$tmp/ids1" "$tmp/ids2" > "$tmp/ids"
    grep -F -f "$tmp/ids" "$1" > "$1.both"
    grep -F -f "$tmp/ids" "$2" > "$2.both"
}
frames "$tmp"/l/*.json > "$tmp/l.frames"
frames "$tmp"/p/*.json > "$tmp/p.frames"
both "$tmp/l.frames" "$tmp/p.frames"
[ -s "$tmp/l.frames.both" ] && cmp -s "$tmp/l.frames.both" "$tmp/p.frames.both" &&
    grep -q "$app.cu:[0-9]" "$tmp/l.frames.both"
r=$?
ok $r "the launcher's report has the process's own frames ($(wc -l < "$tmp/ids") call sites both runs have)"
[ $r -eq 0 ] || diff "$tmp/p.frames.both" "$tmp/l.frames.both" | sed 's/^/# /'

# One line per file written, below the launch directory relative to it.
grep '^streamcheck: wrote ' "$tmp/l.err" | sed 's/^streamcheck: wrote //' | sort > "$tmp/wrote"
(cd "$tmp" && ls l/*) | sort > "$tmp/files"
[ "$(wc -l < "$tmp/wrote")" -eq 2 ] && cmp -s "$tmp/wrote" "$tmp/files"
r=$?
ok $r "the launcher says each file it wrote: $(tr '\n' ' ' < "$tmp/wrote")"
show $r "$tmp/l.err"
grep -q '^streamcheck: [0-9]* findings (' "$tmp/l.err"
ok $? "the summary line CI greps is there"

# A report left unsymbolized (what the launcher finishes, here kept):
# `streamcheck report` names its frames where the module is here, the same
# build.
mkdir "$tmp/st"
STREAMCHECK_STATUS_DIR="$tmp/st" STREAMCHECK_DEFER_SYMBOLS=1 STREAMCHECK_SIMULATED=1 \
    LD_PRELOAD="$SC_PRELOAD_SHIM" sc_sim "$SC_APPS/$app" > /dev/null 2>&1
set -- "$tmp"/st/*.json
! grep -q "$app.cu" "$1" && grep -q '"build_id": "[0-9a-f]*"' "$1" && frames "$1" > "$tmp/bare.frames" &&
    both "$tmp/bare.frames" "$tmp/p.frames" && [ -s "$tmp/bare.frames.both" ] &&
    cmp -s "$tmp/p.frames.both" "$tmp/bare.frames.both"
r=$?
ok $r "streamcheck report names the frames of a report left unsymbolized ($(wc -l < "$tmp/ids") call sites)"
[ $r -eq 0 ] || diff "$tmp/p.frames.both" "$tmp/bare.frames.both" | sed 's/^/# /'
sed 's/"build_id": "[0-9a-f]*"/"build_id": "00ff"/' "$1" > "$tmp/other.json"
frames "$tmp/other.json" > "$tmp/other.frames"
[ -s "$tmp/other.frames" ] && ! grep -q "$app.cu" "$tmp/other.frames"
ok $? "... but not from a module of another build"
