#!/bin/sh
# seeds.sh: the seed-exercise apps (testapps/seed*.cu) on the simulator, in
# every mode the self-test does not run: each mode plainly and under
# streamcheck, same output and exit status, the report exactly what the
# app declares (the declarations hold in every mode), and the same result
# in all modes and twins of one lesson.  The timed region's NVTX range
# "timed": every app opens it, and under --range=timed seed004_pipeline
# reports and prices its timed pass only.  Also: mps-farm.sh skips without
# a GPU, and docs/RESULTS.md is bench/seeds.py's placeholder or its output,
# and bench/seeds.py sets no estimate against a gain another GPU timed.
# (tests/sim/twin-names.sh checks the seed kernels' twins.)  TAP.
. "${top_builddir:-.}/tests/env.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

# LESSON APP ARGS...: one run of a mode; all runs of a lesson must print the same.
run() {
    lesson=$1 app=$2
    shift 2
    name="$app${*:+ $*}"
    d=$tmp/$(echo "$name" | tr ' ' _)
    mkdir -p "$d"
    sc_sim "$SC_APPS/$app" "$@" >"$d/plain.out" 2>"$d/plain.err"
    p=$?
    "$SC_CLI" --simulate --format=json --output="$d" --log-level=quiet -- "$SC_APPS/$app" "$@" >"$d/shim.out" 2>"$d/shim.err"
    s=$?
    why=
    if [ $p -ne 0 ] || [ $s -ne 0 ]; then why="exit $p plainly, $s under streamcheck"
    elif ! cmp -s "$d/plain.out" "$d/shim.out"; then why="output differs under streamcheck"
    elif ! grep -q '_ms=' "$d/plain.err"; then why="no time on stderr"
    elif [ "${check:-expect}" = expect ] &&
         ! "$SC_CLI" report --expect "$SC_APPS/$app.expect" "$d"/*.json >"$d/expect" 2>&1; then
        why="report differs from $app.expect: $(tr '\n' ' ' <"$d/expect" | cut -c1-300)"
    fi
    if [ -f "$tmp/$lesson.first" ]; then
        cmp -s "$tmp/$lesson.first" "$d/plain.out" || why="${why:+$why; }result differs from $(cat "$tmp/$lesson.name")"
    else
        cp "$d/plain.out" "$tmp/$lesson.first"
        echo "$name" >"$tmp/$lesson.name"
    fi
    if [ -z "$why" ]; then ok "$name"; else notok "$name: $why"; sed 's/^/# /' "$d/shim.err" | tail -n 5; fi
}

run matmul seed000_matmul_fixed 1
run matmul seed000_matmul_fixed 2
run matmul seed000_matmul_fixed 4
run matmul seed000_matmul 1
run matmul seed000_matmul 2
run matmul seed000_matmul 4
run copies seed001_copies
run copies seed001_copies_fixed
run tensor seed001_tensor_pow concurrent
run tensor seed001_tensor_pow serial
run priority seed001_priority priority
run priority seed001_priority equal
run farm seed002_farm
run farm seed002_farm 4 48 4
run sin seed003_nested_sin events
run sin seed003_nested_sin one
# hostsync: the seed's own host synchronizations; its SC402 count depends on
# timing, so only the output is checked.
check=output
run sin seed003_nested_sin hostsync
check=expect
run pipeline seed004_pipeline streamed
run pipeline seed004_pipeline sequential
run pipeline seed004_pipeline_fixed streamed
run pipeline seed004_pipeline_fixed sequential
run peak seed004_pin_peak alloc
run peak seed004_pin_peak later

# The timed region's NVTX range "timed" (seed_common.h), which
# bench/seeds.py's estimates keep to (--range=timed): every app opens it;
# under it, seed004_pipeline reports its timed pass's copies only, one
# finding at each copy line with one count per input, and the pricing model
# prices those copies alone.  (Their estimate against the whole run's is a
# matter of microseconds on the simulator, two runs in ten the other way
# under load: not asserted.)
if [ -n "$PYTHON3" ]; then
    # DIR: the process's nvtx_range_ns; "LINE CALLER RANGE COUNT RULE" per finding.
    range_ns() {
        "$PYTHON3" -c 'import json, sys; print(json.load(open(sys.argv[1]))["processes"][0].get("nvtx_range_ns") or 0)' \
            "$1"/*.json
    }
    sites() {
        "$PYTHON3" - "$1"/*.json <<'PY' | sort
import json, sys
r = json.load(open(sys.argv[1]))
cs = {c["id"]: c for c in r["callsites"]}
for f in r["findings"]:
    c = cs[f["callsite"]]
    print(c["frames"][c["primary"]]["line"], c["frames"][c["primary"] + 1]["line"],
          f["nvtx_range"] or "-", f["count"], f["rule"])
PY
    }
    for a in "seed000_matmul" "seed000_matmul_fixed" "seed001_copies" "seed001_copies_fixed" \
             "seed001_tensor_pow" "seed001_priority" "seed002_farm" "seed003_nested_sin" \
             "seed004_pipeline" "seed004_pipeline_fixed" "seed004_pin_peak later"; do
        d=$tmp/timed-$(echo "$a" | tr ' ' _)
        mkdir -p "$d"
        # shellcheck disable=SC2086 # the app and its mode word
        "$SC_CLI" --simulate --range=timed --format=json --output="$d" --log-level=quiet -- $SC_APPS/$a \
            >/dev/null 2>"$d/err"
        st=$?
        ns=$(range_ns "$d" 2>/dev/null)
        if [ $st -eq 0 ] && [ "${ns:-0}" -gt 0 ]; then ok "$a: its timed region opens the NVTX range timed"
        else notok "$a: exit $st, time inside the range timed ${ns:-?} ns"; tail -n 3 "$d/err" | sed 's/^/# /'; fi
    done

    src=$abs_top_srcdir/testapps/seed004_pipeline.cu
    # shellcheck disable=SC2046 # one line number a word
    set -- $(grep -n 'cudaMemcpyAsync(' "$src" | cut -d: -f1)
    h2d=$1 d2h=$2
    warm=$(grep -n '^    pass(&t, ev, nstreams);' "$src" | cut -d: -f1)
    timed=$(grep -n '^    float ms = pass(&t, ev, nstreams);' "$src" | cut -d: -f1)
    if [ $# -ne 2 ] || [ -z "$warm" ] || [ -z "$timed" ]; then
        echo "Bail out! seed004_pipeline.cu: expected two copies, a warm-up and a timed pass"; exit 1
    fi
    # LABEL [OPTIONS]: seed004_pipeline streamed under streamcheck, with the pricing model's dump.
    pipeline() {
        d=$tmp/pipeline-$1
        shift
        rm -rf "$d"
        mkdir -p "$d"
        STREAMCHECK_TEST_PRICE_DUMP="$d/dump" "$SC_CLI" --simulate --format=json --output="$d" \
            --log-level=quiet "$@" -- "$SC_APPS/seed004_pipeline" streamed >/dev/null 2>&1
    }
    # DIR: "COPIES PRICED": the model's pageable copies (what 5), and those carrying a finding.
    priced() {
        awk '/ what 5 / { n++; if ($0 !~ / f 0,0 /) f++ } END { print n + 0, f + 0 }' "$1"/dump.*
    }
    pipeline range --range=timed
    pipeline all
    printf '%s %s timed 8 SC203\n' "$h2d" "$timed" "$d2h" "$timed" | sort >"$tmp/want-range"
    { cat "$tmp/want-range"; printf '%s %s - 8 SC203\n' "$h2d" "$warm" "$d2h" "$warm"; } | sort >"$tmp/want-all"
    sites "$tmp/pipeline-range" >"$tmp/got-range"
    sites "$tmp/pipeline-all" >"$tmp/got-all"
    if cmp -s "$tmp/want-range" "$tmp/got-range"; then
        ok "seed004_pipeline --range=timed: SC203 at the timed pass's two copies only, 8 each (one per input)"
    else notok "seed004_pipeline --range=timed: findings (LINE CALLER RANGE COUNT RULE)"
        diff "$tmp/want-range" "$tmp/got-range" | sed 's/^/# /'; fi
    if cmp -s "$tmp/want-all" "$tmp/got-all"; then
        ok "seed004_pipeline: without --range, the timed pass's findings name the range timed, the warm-up's none"
    else notok "seed004_pipeline without --range: findings (LINE CALLER RANGE COUNT RULE)"
        diff "$tmp/want-all" "$tmp/got-all" | sed 's/^/# /'; fi
    r=$(priced "$tmp/pipeline-range") a=$(priced "$tmp/pipeline-all")
    if [ "$r" = "32 16" ] && [ "$a" = "32 32" ]; then
        ok "seed004_pipeline: the pricing model holds the timed pass's 16 copies under --range=timed, all 32 without"
    else notok "seed004_pipeline: the model's pageable copies and those priced: '$r' with the range, '$a' without"; fi
else
    skip "the seed apps' NVTX range timed" "no python3"
fi

# Redirect keeps the results of the legacy-stream version (PG semantics are
# kept within the thread).
d=$tmp/redirect
mkdir -p "$d"
"$SC_CLI" --simulate --redirect=per-thread --format=json --output="$d" --log-level=quiet -- \
    "$SC_APPS/seed000_matmul" >"$d/out" 2>"$d/err"
if [ $? -eq 0 ] && cmp -s "$d/out" "$tmp/matmul.first"; then ok "seed000_matmul under --redirect=per-thread: same result"
else notok "seed000_matmul under --redirect=per-thread"; sed 's/^/# /' "$d/err" | tail -n 5; fi

# mps-farm.sh: usage errors, and a skip where it cannot run.
farm=$abs_top_srcdir/testapps/mps/mps-farm.sh
sh "$farm" -n 0 >/dev/null 2>&1
if [ $? -eq 2 ]; then ok "mps-farm.sh -n 0 is a usage error"; else notok "mps-farm.sh -n 0 should exit 2"; fi
if nvidia-smi -L >/dev/null 2>&1; then
    skip "mps-farm.sh without a GPU" "a GPU is here (make bench-seeds runs it)"
else
    STREAMCHECK=$SC_CLI TESTAPPS=$SC_APPS sh "$farm" >"$tmp/farm.out" 2>"$tmp/farm.err"
    st=$?
    if [ $st -eq 77 ] && grep -q "no GPU" "$tmp/farm.err"; then ok "mps-farm.sh skips (77) without a GPU"
    else notok "mps-farm.sh without a GPU exited $st"; sed 's/^/# /' "$tmp/farm.err"; fi
fi

# bench/seeds.py writes the placeholder that docs/RESULTS.md holds until a GPU run.
if [ -n "$PYTHON3" ]; then
    if "$PYTHON3" -B "$abs_top_srcdir/bench/seeds.py" --placeholder "$tmp/RESULTS.md" >/dev/null 2>&1 &&
       cmp -s "$tmp/RESULTS.md" "$abs_top_srcdir/docs/RESULTS.md"; then
        ok "docs/RESULTS.md is bench/seeds.py's placeholder"
    elif grep -q "^Generated by bench/seeds.py on" "$abs_top_srcdir/docs/RESULTS.md"; then
        ok "docs/RESULTS.md holds a GPU run of bench/seeds.py"
    else
        notok "docs/RESULTS.md is neither bench/seeds.py's placeholder nor its output"
    fi
else skip "docs/RESULTS.md" "no python3"; fi

# bench/seeds.py --estimates-from: a gain timed on one GPU and estimates run
# on another of another kind are not set against each other.
estimated_on() {
    cat >"$tmp/gains.json" <<'EOF'
{"meta": {"gpu": "GPU A, 1, 2 MiB, Default", "gpus": 1, "cuda": "13.0", "nvcc": "", "host": "h", "cpus": 2,
          "argv": ["x"], "started": "2026-01-01 00:00 UTC"},
 "comparisons": {"seed004-seq": {"values": {"slow": [10, 10, 10, 10, 10], "fast": [5, 5, 5, 5, 5]},
                                 "findings": {}, "problems": [], "status": "measured", "note": "", "estimates": {}}},
 "runs": []}
EOF
    sed "s/GPU A/$1/; s/2026-01-01/2026-01-02/" "$tmp/gains.json" | "$PYTHON3" -c '
import json, sys
d = json.load(sys.stdin)
no = {"all_ms": 0.0, "warnings_ms": 0.0, "basis": "-", "range": "timed"}
d["comparisons"] = {"seed004-seq": {"estimates": {
    "detect": {"slow": {"all_ms": 4.0, "warnings_ms": 4.0, "basis": "replay", "range": "timed"}, "fast": no},
    "measure": {"slow": {"all_ms": 6.0, "warnings_ms": 6.0, "basis": "replay-measured", "range": "timed"}, "fast": no}}}}
json.dump(d, sys.stdout)' >"$tmp/est.json"
    cp "$tmp/gains.json" "$tmp/raw.json"
    "$PYTHON3" -B "$abs_top_srcdir/bench/seeds.py" --apps "$tmp/none" --merge --estimates --estimates-from "$tmp/est.json" \
        --results "$tmp/R.md" --raw "$tmp/raw.json" --only seeds >/dev/null 2>&1 && grep '^| seed004-seq |' "$tmp/R.md" | tail -n 1
}
if [ -n "$PYTHON3" ]; then
    same=$(estimated_on "GPU A")
    other=$(estimated_on "GPU B")
    if [ "$same" = "| seed004-seq | 5.000 | range \`timed\` | 4.000 | replay | 0.800 | 6.000 | 1.200 |" ] &&
       [ "$other" = "| seed004-seq | 5.000 | range \`timed\` | 4.000 | replay | – (other GPUs) | 6.000 | – (other GPUs) |" ] &&
       grep -q "gain timed on an GPU A, estimated on an GPU B" "$tmp/R.md" &&
       grep -qx '| earlier commands (--merge kept from them) | `x` (2026-01-01 00:00 UTC) |' "$tmp/R.md"; then
        ok "bench/seeds.py: est / gain on one GPU, none across GPUs of two kinds; the header names the run it kept from"
    else
        notok "bench/seeds.py: est / gain across GPUs: '$same', '$other'"
    fi
else skip "bench/seeds.py across GPUs" "no python3"; fi
# bench/seeds.py --est-runs N: each way's estimates the median of N runs
# (median_estimate: a failed run left out, the basis seen most), every
# run's beside it, and the table says so under it.
if [ -n "$PYTHON3" ]; then
    med=$(PYTHONPATH="$abs_top_srcdir/bench" "$PYTHON3" -B -c '
import importlib.util, sys
spec = importlib.util.spec_from_file_location("seeds", sys.argv[1])
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
r = lambda a, b: {"all_ms": a, "warnings_ms": a, "basis": b, "range": "timed"}
e = m.median_estimate([r(5.0, "replay"), None, r(3.0, "replay-measured"), r(4.0, "replay-measured")])
print(e["all_ms"], e["basis"], e["runs"], m.median_estimate([None, None]), m.median_estimate([r(1.0, "x")]) == r(1.0, "x"))
' "$abs_top_srcdir/bench/seeds.py" 2>&1)
    cp "$tmp/gains.json" "$tmp/raw.json"
    "$PYTHON3" -c '
import json, sys
d = json.load(open(sys.argv[1]))
no = {"all_ms": 0.0, "warnings_ms": 0.0, "basis": "-", "range": "timed"}
s = {"all_ms": 4.0, "warnings_ms": 4.0, "basis": "replay", "range": "timed", "runs": [5.0, 3.0, 4.0]}
d["comparisons"]["seed004-seq"]["estimates"] = {"detect": {"slow": s, "fast": no}, "measure": {"slow": s, "fast": no}}
json.dump(d, open(sys.argv[2], "w"))' "$tmp/gains.json" "$tmp/est3.json"
    "$PYTHON3" -B "$abs_top_srcdir/bench/seeds.py" --apps "$tmp/none" --merge --estimates --estimates-from \
        "$tmp/est3.json" --results "$tmp/R3.md" --raw "$tmp/raw.json" --only seeds >/dev/null 2>&1
    if [ "$med" = "4.0 replay-measured [5.0, 3.0, 4.0] None True" ] &&
       grep -qx -- '- \*\*seed004-seq\*\*: the median of 3 runs of each way; the slow way'"'"'s estimates, detect 5.000, 3.000, 4.000 ms; measure 5.000, 3.000, 4.000 ms.' "$tmp/R3.md"; then
        ok "bench/seeds.py --est-runs: the median of the runs, the spread under the table"
    else
        notok "bench/seeds.py --est-runs: '$med'; $(grep -c 'the median of' "$tmp/R3.md" 2>/dev/null) lines"
    fi
else skip "bench/seeds.py --est-runs" "no python3"; fi
# bench/seeds.py: seed 001's priorities shorten a latency inside the run
# (elapsed_ms, the short chain), not the run (backlog_ms): the estimates are
# set against the run's gain, taken from the kept runs of either way's
# command where the comparison has none of its own, and a line says so.
if [ -n "$PYTHON3" ]; then
    "$PYTHON3" -c '
import json, sys
run = lambda mode, e, b: {"cmd": ["./x/seed001_priority", mode, "20", "8", "200"], "env": {}, "rc": 0,
                          "metrics": {"elapsed_ms": e, "backlog_ms": b}}
no = {"all_ms": 0.0, "warnings_ms": 0.0, "basis": "-", "range": "timed"}
d = {"meta": {"gpu": "GPU A, 1, 2 MiB, Default", "gpus": 1, "cuda": "13.0", "nvcc": "", "host": "h", "cpus": 2,
              "started": "2026-01-01 00:00 UTC", "argv": ["x"]},
     "comparisons": {"seed001-priority": {"values": {"slow": [3.0, 3.2, 3.1], "fast": [1.5, 1.6, 1.4]},
                                          "findings": {}, "problems": [], "status": "measured", "note": "",
                                          "estimates": {"detect": {"slow": no, "fast": no},
                                                        "measure": {"slow": no, "fast": no}}}},
     "runs": [run("equal", 3.0, 35.8), run("priority", 1.5, 36.0), run("equal", 3.2, 35.9),
              run("priority", 1.6, 36.1), run("equal", 3.1, 35.7), run("priority", 1.4, 35.9)]}
json.dump(d, open(sys.argv[1], "w"))' "$tmp/prio.json"
    "$PYTHON3" -B "$abs_top_srcdir/bench/seeds.py" --apps "$tmp/none" --merge --estimates --estimates-from "$tmp/prio.json" \
        --results "$tmp/RP.md" --raw "$tmp/prio.json" --only seeds >/dev/null 2>&1
    row=$(grep '^| seed001-priority |' "$tmp/RP.md" | tail -n 1)
    if [ "$row" = "| seed001-priority | -0.200 | range \`timed\` (\`backlog_ms\`) | 0.000 | - | -0.000 | 0.000 | -0.000 |" ] &&
       grep -q '^- \*\*seed001-priority\*\*: the fix shortens `elapsed_ms` (a latency inside the run) by 1.600 ms; the run, `backlog_ms`, took 35.800 ms one way and 36.000 the other' "$tmp/RP.md"; then
        ok "bench/seeds.py: a latency's fix set against the run's gain (backlog_ms from the kept runs), and said so"
    else
        notok "bench/seeds.py: seed001-priority's row '$row'"
    fi
else skip "bench/seeds.py run_metric" "no python3"; fi
# The estimates' sums (bench/together.py, as the report's total): a fix
# shared by findings counted once, and a measured SC102, whose time is its
# legacy-stream commands' own findings', left out (blocking_stream on an
# H200: SC101 2.89 + 2.89 ms, the SC102 note 2.02 more).
if [ -n "$PYTHON3" ]; then
    sum=$("$PYTHON3" -B -c '
import sys
sys.path.insert(0, sys.argv[1])
from together import added_up
f = [{"rule": "SC101", "cost_ns": 2890000, "cost_basis": "replay-measured"},
     {"rule": "SC101", "cost_ns": 2890000, "cost_basis": "replay-measured"},
     {"rule": "SC102", "cost_ns": 2020000, "cost_basis": "gpu-timeline"},
     {"rule": "SC203", "cost_ns": 3000000, "together_findings": 2, "together_ns": 5000000},
     {"rule": "SC203", "cost_ns": 4000000, "together_findings": 2, "together_ns": 5000000}]
print(added_up(f), added_up(f[2:4]))' "$abs_top_srcdir/bench")
    if [ "$sum" = "10780000 3000000" ]; then
        ok "bench/together.py: a shared fix counted once, a measured SC102 left out"
    else
        notok "bench/together.py: sums '$sum'"
    fi
else skip "bench/together.py" "no python3"; fi
echo "1..$n"
exit 0
