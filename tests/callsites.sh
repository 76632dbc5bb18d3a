#!/bin/sh
# callsites.sh: call sites at the line the user wrote, on the simulator
# (issue 11, "Call sites at the line the user wrote").
#  - a kernel<<<...>>> launch is shown at its launch line, not in nvcc's
#    glue (crt/ headers, the device stub, the kernel's host-side wrapper):
#    the text report's first frame, the SARIF location (relative to the
#    source root, uriBaseId SRCROOT) and JSON's "primary"; the glue frames
#    stay in the report (JSON frames, SARIF relatedLocations);
#  - the source root: --source-root, STREAMCHECK_SOURCE_ROOT, the current
#    directory by default, and `streamcheck report --source-root`;
#  - a call site from a named thread carries the thread's name.
# TAP.
. "${top_builddir:-.}/tests/env.sh"
echo "1..18"
n=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-callsites.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
src=$(cd "$abs_top_srcdir" && pwd)   # as the shim writes a root: ./ and dir/../ taken out (VPATH builds: sub/../..)
# The apps are run from elsewhere: the source root must come from the option.
mkdir "$tmp/cwd"
cd "$tmp/cwd" || exit 1

line_of() { grep -n -F "$2" "$src/testapps/$1.cu" | head -n 1 | cut -d: -f1; }
saxpy=$(line_of default_stream 'sc_saxpy<<<64, 256>>>')
spin=$(line_of default_stream 'sc_spin<<<1, 1>>>(HOLD)')
fill=$(line_of named_thread 'sc_fill<<<64, 256>>>')
[ -n "$saxpy" ] && [ -n "$spin" ] && [ -n "$fill" ] || { echo "Bail out! launch lines not found"; exit 1; }

# Python reads the JSON and SARIF reports.
py() { "$PYTHON3" - "$@"; }
have_py=0
[ -n "$PYTHON3" ] && "$PYTHON3" -c 'import json' 2>/dev/null && have_py=1
skip_py() { n=$((n + 1)); echo "ok $n - $1 # SKIP no python3"; }

run() {  # run OUTDIR APP [streamcheck options]
    out=$1 app=$2
    shift 2
    mkdir -p "$tmp/$out"
    "$SC_CLI" --simulate --format text,json,sarif --output "$tmp/$out" "$@" -- "$SC_APPS/$app" \
        >"$tmp/$out/stdout" 2>"$tmp/$out/text"
}

# --- 1-3: text: the first frame of each launch finding is its launch line ---
run ds default_stream --source-root "$src"
ok $? "default_stream runs under streamcheck --source-root"
first_frame() {  # first_frame TEXT CALLSITE_NUMBER
    awk -v want="  Call site      : #$2 (" 'hit { sub(/^ +/, ""); print; exit } index($0, want) == 1 { hit = 1 }' "$1"
}
got=$(first_frame "$tmp/ds/text" 1)
[ "$got" = "main (testapps/default_stream.cu:$saxpy)" ]
st=$?; [ $st -ne 0 ] && echo "# call site #1 first frame: '$got'"
ok $st "text: sc_saxpy<<<>>> shown at testapps/default_stream.cu:$saxpy"
got=$(first_frame "$tmp/ds/text" 2)
[ "$got" = "main (testapps/default_stream.cu:$spin)" ]
st=$?; [ $st -ne 0 ] && echo "# call site #2 first frame: '$got'"
ok $st "text: sc_spin<<<>>> shown at testapps/default_stream.cu:$spin"

# --- 4-7: SARIF and JSON of the same run ---
# check_sarif FILE ROOT_URI_OR_- URI BASE(0|1) LINE: the result with count 10
check_sarif() {
    py "$@" <<'EOF'
import json, sys
path, root, uri, base, line = sys.argv[1:6]
run = json.load(open(path))["runs"][0]
bases = run.get("originalUriBaseIds", {})
if root != "-" and bases.get("SRCROOT", {}).get("uri") != root:
    sys.exit("originalUriBaseIds: %r, want SRCROOT %s" % (bases, root))
res = [r for r in run["results"] if r["properties"]["count"] == 10]
if len(res) != 1:
    sys.exit("%d results with count 10" % len(res))
r = res[0]
loc = r["locations"][0]["physicalLocation"]
art = loc["artifactLocation"]
want = {"uri": uri}
if base == "1":
    want["uriBaseId"] = "SRCROOT"
if art != want or loc["region"]["startLine"] != int(line):
    sys.exit("location %r line %r, want %r line %s" % (art, loc["region"]["startLine"], want, line))
rel = r.get("relatedLocations", [])
texts = " ".join(x.get("message", {}).get("text", "") for x in rel)
if "__device_stub__" not in texts or "__cudaLaunchKernel_helper" not in texts:
    sys.exit("relatedLocations lack nvcc's glue frames: %s" % texts)
if len({x["id"] for x in rel}) != len(rel):
    sys.exit("relatedLocations ids repeat")
EOF
}
if [ $have_py = 1 ]; then
    check_sarif "$tmp"/ds/default_stream.*.sarif "file://$src/" testapps/default_stream.cu 1 "$saxpy"
    ok $? "SARIF: location testapps/default_stream.cu:$saxpy relative to SRCROOT file://$src/"
    py "$tmp"/ds/default_stream.*.json "$saxpy" <<'EOF'
import json, sys
rep = json.load(open(sys.argv[1]))
line = int(sys.argv[2])
cs = [c for c in rep["callsites"] if any(f["line"] == line and (f["file"] or "").endswith("testapps/default_stream.cu") for f in c["frames"])]
if len(cs) != 1:
    sys.exit("%d call sites at the launch line" % len(cs))
c = cs[0]
p = c["primary"]
f = c["frames"][p]
if f["function"] != "main" or f["line"] != line or not f["file"].endswith("/testapps/default_stream.cu"):
    sys.exit("primary frame %d is %r" % (p, f))
if p == 0 or c["frames"][0]["function"] != "__cudaLaunchKernel_helper":
    sys.exit("the glue frames are not kept before the primary one: %r" % c["frames"][:p])
if "thread_name" in c:
    sys.exit("a main-thread call site has a thread name")
EOF
    ok $? "JSON: primary is the launch line; the glue frames stay, before it"
else
    skip_py "SARIF: location relative to SRCROOT"
    skip_py "JSON: primary is the launch line"
fi
"$SC_CLI" report --expect "$SC_APPS/default_stream.expect" "$tmp"/ds/default_stream.*.json >"$tmp/expect.out" 2>&1
st=$?; [ $st -ne 0 ] && sed 's/^/# /' "$tmp/expect.out"
ok $st "default_stream: its expectations still hold"
grep -q '"uri": "file:///.*/crt/device_functions.h"' "$tmp"/ds/default_stream.*.sarif
ok $? "SARIF: CUDA's own header, outside the root, stays absolute"

# --- 8-10: where the root comes from ---
mkdir -p "$tmp/env"
STREAMCHECK_SOURCE_ROOT=$src "$SC_CLI" --simulate --format sarif --output "$tmp/env" -- \
    "$SC_APPS/default_stream" >/dev/null 2>&1
if [ $have_py = 1 ]; then
    check_sarif "$tmp"/env/default_stream.*.sarif "file://$src/" testapps/default_stream.cu 1 "$saxpy"
    ok $? "STREAMCHECK_SOURCE_ROOT sets the root"
else
    skip_py "STREAMCHECK_SOURCE_ROOT sets the root"
fi
# Default: the current directory, here outside the sources: absolute URI.
run cwd-default default_stream
if [ $have_py = 1 ]; then
    check_sarif "$tmp"/cwd-default/default_stream.*.sarif "file://$tmp/cwd/" "file://$src/testapps/default_stream.cu" 0 "$saxpy" ||
        check_sarif "$tmp"/cwd-default/default_stream.*.sarif - "file://$(cd "$src" && pwd -P)/testapps/default_stream.cu" 0 "$saxpy"
    ok $? "default root: the current directory; a file outside it is an absolute URI"
else
    skip_py "default root: the current directory"
fi
# ... and inside the sources, relative without any option.
mkdir -p "$tmp/in-src"
(cd "$src" && "$SC_CLI" --simulate --format text --output "$tmp/in-src" -- "$SC_APPS/default_stream" \
    >/dev/null 2>"$tmp/in-src/text")
got=$(first_frame "$tmp/in-src/text" 1)
[ "$got" = "main (testapps/default_stream.cu:$saxpy)" ]
st=$?; [ $st -ne 0 ] && echo "# call site #1 first frame: '$got'"
ok $st "default root: run from the source directory, paths below it are relative"

# --- 11-12: streamcheck report re-renders against its own --source-root ---
mkdir "$tmp/re" "$tmp/re2"
"$SC_CLI" report --format sarif --output "$tmp/re" --source-root "$src" "$tmp"/cwd-default/default_stream.*.json \
    >/dev/null 2>&1
if [ $have_py = 1 ]; then
    check_sarif "$tmp/re/merged.streamcheck.sarif" "file://$src/" testapps/default_stream.cu 1 "$saxpy"
    ok $? "streamcheck report --source-root: relative to that root"
else
    skip_py "streamcheck report --source-root"
fi
(cd "$src/testapps" && "$SC_CLI" report --format sarif --output "$tmp/re2" "$tmp"/cwd-default/default_stream.*.json \
    >/dev/null 2>&1)
if [ $have_py = 1 ]; then
    check_sarif "$tmp/re2/merged.streamcheck.sarif" "file://$src/testapps/" default_stream.cu 1 "$saxpy"
    ok $? "streamcheck report: the current directory by default"
else
    skip_py "streamcheck report: the current directory by default"
fi

# --- 13-17: a named thread ---
run nt named_thread --source-root "$src"
ok $? "named_thread runs under streamcheck"
[ "$(grep -c '^  Thread         : sc_worker$' "$tmp/nt/text")" -eq 2 ]
ok $? "text: both findings name their thread (Thread: sc_worker)"
# Two findings of one count each: their order is that of the call-site ids.
got="$(first_frame "$tmp/nt/text" 1)|$(first_frame "$tmp/nt/text" 2)"
case "|$got|" in *"|worker(void*) (testapps/named_thread.cu:$fill)|"*) st=0 ;; *) st=1 ;; esac
[ $st -ne 0 ] && echo "# first frames: '$got'"
ok $st "text: the worker's launch shown at testapps/named_thread.cu:$fill"
if [ $have_py = 1 ]; then
    py "$tmp"/nt/named_thread.*.json <<'EOF'
import json, sys
rep = json.load(open(sys.argv[1]))
f = [x for x in rep["findings"] if x["rule"] == "SC101"]
cs = {c["id"]: c for c in rep["callsites"]}
if len(f) != 2 or any(cs[x["callsite"]].get("thread_name") != "sc_worker" for x in f):
    sys.exit("SC101 call sites: %r" % [cs.get(x["callsite"]) for x in f])
EOF
    ok $? "JSON: the call site's thread_name is sc_worker"
    py "$tmp"/nt/named_thread.*.sarif <<'EOF'
import json, sys
res = json.load(open(sys.argv[1]))["runs"][0]["results"]
if [r["properties"].get("threadName") for r in res] != ["sc_worker"] * 2:
    sys.exit("threadName: %r" % [r["properties"].get("threadName") for r in res])
EOF
    ok $? "SARIF: the result's threadName is sc_worker"
else
    skip_py "JSON: thread_name"
    skip_py "SARIF: threadName"
fi

# --- 18: the simulator's SARIF against the OASIS schema (tests/sarif) ---
. "$top_builddir/tests/sarif/jsonschema.sh"
if [ "$have_jsonschema" = yes ]; then
    "$PYTHON3" "$src/tests/sarif/validate.py" "$src/tests/sarif/sarif-schema-2.1.0.json" \
        "$tmp"/ds/default_stream.*.sarif "$tmp"/nt/named_thread.*.sarif >"$tmp/validate.out" 2>&1
    st=$?; [ $st -ne 0 ] && sed 's/^/# /' "$tmp/validate.out"
    ok $st "SARIF of default_stream and named_thread valid against the SARIF 2.1.0 schema"
else
    n=$((n + 1)); echo "ok $n - SARIF schema # SKIP no python3 jsonschema"
fi
