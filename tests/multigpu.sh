#!/bin/sh
# multigpu.sh: streamcheck on the simulator with two devices
# (STREAMCHECK_SIM_DEVICES=2); the per-device apps themselves are in the
# selftest (multigpu_legacy, multigpu_legacy_fixed, multigpu_peer).
#  - --redirect=per-thread, by each method, on two devices: four threads,
#    two per device, each handing its data between its device's legacy
#    stream and its per-thread stream; the output is identical to the plain
#    run's (the app checks its results), no launch is left on either
#    device's legacy stream, and every launch runs on its thread's device;
#  - two "ranks" (RANK=0/1, LOCAL_RANK=0/1) of a data-parallel job, one
#    report each: each names its rank and device, and `streamcheck report`
#    merges them into one that names the ranks (process table, findings);
#  - two ranks of a DDP-style step (ddp_step: NCCL's stand-in beside the
#    default stream), merged: no warnings in either rank but the SC403 the
#    app declares either way;
#  - the device list of a one-device run is as it always was;
#  - two devices: the pinned rate of the run log's copies is not timed (its
#    allocations synchronize: on 2 H200s, timed before multigpu_peer's
#    read-back, they let the peer copy the read-back races finish first),
#    where one device's run of copy_pipeline times it.
# TAP.
. "${top_builddir:-.}/tests/env.sh"
echo "1..11"
n=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
STREAMCHECK_SIM_DEVICES=2
export STREAMCHECK_SIM_DEVICES
sim() { sc_sim "$@"; }   # tests/env.sh: preloads what a sanitized build needs

# --- redirect on two devices ------------------------------------------------
# The simulator's trace: "create stream N on device D (kind)" and "launch
# KERNEL ... on stream N".  Streams 1 and 2 are the two legacy streams.
app=$SC_APPS/multigpu_redirect
args="4 2 2"
launches() {   # launches FILE: "STREAM:DEVICE" per launch
    awk '/trace: create stream/ { for (i = 1; i <= NF; i++) if ($i == "stream") s = $(i + 1); for (i = 1; i <= NF; i++) if ($i == "device") d[s] = $(i + 1) }
         /trace: launch / { print $NF ":" d[$NF] }' "$1"
}
# shellcheck disable=SC2086 # args: several words
STREAMCHECK_SIM_TRACE=1 sim "$app" $args >"$tmp/plain.out" 2>"$tmp/plain.err"
plain_legacy=$(launches "$tmp/plain.err" | grep -c '^[12]:')
echo "# plain: $(launches "$tmp/plain.err" | sort | uniq -c | tr -s ' \n' ' ')"
for m in entry handle stream; do
    mkdir -p "$tmp/$m"
    # shellcheck disable=SC2086 # args: several words
    STREAMCHECK_SIM_TRACE=1 "$SC_CLI" --simulate --redirect=per-thread --redirect-method=$m --format=json \
        --output="$tmp/$m" -- "$app" $args >"$tmp/$m.out" 2>"$tmp/$m.err"
    st=$?
    echo "# $m: $(launches "$tmp/$m.err" | sort | uniq -c | tr -s ' \n' ' ')"
    # Every launch on a stream of the launching thread's device: the app's
    # threads 0 and 2 work on device 0, 1 and 3 on device 1, so device 0
    # and device 1 each get half of the launches.
    d0=$(launches "$tmp/$m.err" | grep -c ':0$')
    d1=$(launches "$tmp/$m.err" | grep -c ':1$')
    left=$(launches "$tmp/$m.err" | grep -c '^[12]:')
    [ "$st" -eq 0 ] && cmp -s "$tmp/plain.out" "$tmp/$m.out" && [ "$plain_legacy" -gt 0 ] && [ "$left" -eq 0 ] &&
        [ "$d0" -gt 0 ] && [ "$d0" -eq "$d1" ] &&
        grep -q '"outcome": "redirected"' "$tmp/$m"/multigpu_redirect.*.json
    ok $? "redirect ($m) on two devices: same output as plain ($(tr -d '\n' <"$tmp/plain.out")), no launch left on a legacy stream, $d0 + $d1 launches on each device's own streams"
done

# --- two ranks, merged ------------------------------------------------------
for r in 0 1; do
    mkdir -p "$tmp/rank$r"
    RANK=$r LOCAL_RANK=$r WORLD_SIZE=2 "$SC_CLI" --simulate --format=json --output="$tmp/rank$r" -- \
        "$SC_APPS/multigpu_rank" >"$tmp/rank$r.out" 2>"$tmp/rank$r.err"
done
j0=$(ls "$tmp"/rank0/*.json 2>/dev/null) j1=$(ls "$tmp"/rank1/*.json 2>/dev/null)
grep -q '"rank": 0' "$j0" && grep -q '"rank": 1' "$j1" &&
    grep -q 'multigpu_rank: device 0' "$tmp/rank0.out" && grep -q 'multigpu_rank: device 1' "$tmp/rank1.out"
ok $? "each rank's report records its rank"
"$PYTHON3" - "$j0" "$j1" <<'PY'
import json, sys
for want, path in enumerate(sys.argv[1:]):
    r = json.load(open(path))
    p = r["processes"][0]
    assert [d["ordinal"] for d in p["devices"]] == [want], p["devices"]
    assert p["devices"][0]["name"] == "streamcheck simulated GPU %d" % want, p["devices"]
    assert r["findings"] and all(f["device"] == want for f in r["findings"]), r["findings"]
PY
ok $? "each rank's report names the one device it used, and its findings carry it"
"$SC_CLI" report --top all "$j0" "$j1" >"$tmp/merged.txt" 2>&1
awk '/^@--- Processes/ { on = 1; next } /^@---/ { on = 0 } on' "$tmp/merged.txt" >"$tmp/procs.txt"
sed 's/^/# /' "$tmp/procs.txt"
grep -q 'Rank' "$tmp/procs.txt" && awk '$1 == "0" && $2 == "0" { a = 1 } $1 == "1" && $2 == "1" { b = 1 } END { exit !(a && b) }' "$tmp/procs.txt"
ok $? "the merged report's process table names the ranks"
grep -q 'Process *: rank 0, pid' "$tmp/merged.txt" && grep -q 'Process *: rank 1, pid' "$tmp/merged.txt"
ok $? "each merged finding names its rank (Process: rank N, pid ...)"
"$SC_CLI" report --format json --output "$tmp/m" --name merged "$j0" "$j1" >/dev/null 2>&1 &&
    "$SC_CLI" report --format json --output "$tmp/m2" --name merged "$tmp/m/merged.streamcheck.json" >/dev/null 2>&1 &&
    cmp -s "$tmp/m/merged.streamcheck.json" "$tmp/m2/merged.streamcheck.json" &&
    grep -q '"rank": 1' "$tmp/m/merged.streamcheck.json" && grep -q '"device": 1' "$tmp/m/merged.streamcheck.json"
ok $? "the merged JSON keeps ranks and devices, and reads back to the same bytes"

# --- a DDP step on two ranks: clean --------------------------------------------
for r in 0 1; do
    mkdir -p "$tmp/ddp$r"
    RANK=$r LOCAL_RANK=$r WORLD_SIZE=2 "$SC_CLI" --simulate --format=json --output="$tmp/ddp$r" -- \
        "$SC_APPS/ddp_step" >"$tmp/ddp$r.out" 2>"$tmp/ddp$r.err"
done
# The loss read each step is an SC403 either way (ddp_step.cu declares it
# x0+): the model prices the wait the run made, 0.05-0.44 ms a run of rank
# 0 here, and once 1.04 ms with two busy loops beside it (the shim of
# b91e97a, before SC703, as well), which makes a warning.  Every other
# rule: none.
"$SC_CLI" report --ignore SC403 --fail-on warning "$tmp"/ddp0/*.json "$tmp"/ddp1/*.json >"$tmp/ddp.txt" 2>&1
st=$?
grep 'streamcheck:' "$tmp/ddp.txt" | sed 's/^/# /'
[ "$st" -eq 0 ] || grep -A6 '^\[warning' "$tmp/ddp.txt" | sed 's/^/# /'
[ "$st" -eq 0 ] && grep -q 'ddp_step: device 0' "$tmp/ddp0.out" && grep -q 'ddp_step: device 1' "$tmp/ddp1.out" &&
    grep -Eq '^ +1 +1 +[0-9]+ ' "$tmp/ddp.txt"   # rank 1's row of the process table
ok $? "two DDP-style ranks (all-reduce on NCCL's stream beside the default stream): no warnings in the merged report but the declared SC403"

# --- one device: as before ----------------------------------------------------
STREAMCHECK_SIM_DEVICES=1 "$SC_CLI" --simulate -- "$SC_APPS/multigpu_rank" >/dev/null 2>"$tmp/one.err"
grep -q '^@ Device  *: streamcheck simulated GPU; driver' "$tmp/one.err" && ! grep -q 'Devices\|Device  *: [0-9]' "$tmp/one.err" &&
    ! grep -q '^@ Rank' "$tmp/one.err"
ok $? "one device, no rank: the header says 'Device: streamcheck simulated GPU' as before, findings name no device"

# --- the pinned rate with two devices ------------------------------------------
rates() { awk '/^device / { print $8, $10 }' "$1"/d.* 2>/dev/null | tr '\n' ' '; }
mkdir -p "$tmp/rate2" "$tmp/rate1"
STREAMCHECK_TEST_PRICE_DUMP="$tmp/rate2/d" "$SC_CLI" --simulate -- "$SC_APPS/multigpu_peer" >/dev/null 2>&1
STREAMCHECK_SIM_DEVICES=1 STREAMCHECK_TEST_PRICE_DUMP="$tmp/rate1/d" "$SC_CLI" --simulate -- \
    "$SC_APPS/copy_pipeline" 2 1 0 >/dev/null 2>&1
two=$(rates "$tmp/rate2") one=$(rates "$tmp/rate1")
echo "# pinned rates (h2d d2h per device): multigpu_peer $two; copy_pipeline $one"
echo "$two" | awk '{ exit !(NF == 4 && $1 == 0 && $2 == 0 && $3 == 0 && $4 == 0) }' &&
    echo "$one" | awk '{ exit !(NF == 2 && $1 > 0 && $2 > 0) }'
ok $? "two devices: the run log's pinned copies are not timed (multigpu_peer); one device: they are (copy_pipeline)"
