#!/bin/bash
# tools/multigpu-check.sh: streamcheck on a machine with two (or more) GPUs,
# what the two-device simulator in `make check` cannot prove.  Run it there
# from an installed tree (as tools/gpu-session.sh: ./configure
# --prefix=$PWD/.stage && make install, plus the libraries the GPU host
# lacks), with .stage carried:
#
#   tools/multigpu-check.sh [STEP...]    steps: env selftest apps redirect
#                                        ranks ddp-native ddp-pin1 ddp-pin0
#                                        (default: all, in that order)
#
# env        nvidia-smi, torch, the GPU count (fewer than 2: exit 77)
# selftest   streamcheck --selftest; the two-device apps (multigpu_legacy,
#            multigpu_legacy_fixed, multigpu_peer) and ddp_step must pass,
#            not skip: per-device findings, peer copies counted and judged
# apps       the same apps again with their reports kept, and the text
#            report of multigpu_legacy (Devices header, a Device per finding)
# redirect   multigpu_redirect (4 threads, 2 per device) plain and under
#            --redirect=per-thread by each method: the same output (the
#            app checks its own results)
# ranks      multigpu_rank and ddp_step as two ranks at once (RANK and
#            LOCAL_RANK 0 and 1, one device each), reports merged with
#            `streamcheck report`: the ranks named; ddp_step no warnings
# ddp-native tests/corpus/python/ddp_train.py under torchrun --nproc_per_node 2
#            (NCCL_NVLS_ENABLE=0), --pin-memory 1 and 0, natively: the
#            loss_sum of each rank, for the runs under streamcheck to match
# ddp-pin1   the same under streamcheck (detect mode, one JSON report per
#            rank): each rank's report names its rank and device, no
#            warnings on any rank but SC403 at loss.item() (streamcheck
#            report --ignore SC403 --fail-on warning),
#            tests/corpus/expect.txt [ddp_train-pin1] on each rank, same
#            loss_sum as natively, the loop's findings in no NVTX range
#            (NCCL's ranges closed)
# ddp-pin0   pageable DataLoader: SC203 at the batch copy ("# corpus: SC203")
#            on each rank ([ddp_train-pin0]), same loss_sum as natively
#
# Environment: STAGE (installed tree, default .stage; its bin goes first on
# PATH), OUT (default /tmp/multigpu-out), STEPS_DDP (training steps,
# default 40), RUN_TIMEOUT (seconds per run, default 300).  Everything
# printed also goes to $OUT/multigpu.log, every report and output to
# $OUT/results.tgz.  Exit: 0 all checks passed, 1 some failed, 77 fewer
# than two GPUs.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
stage=${STAGE:-$root/.stage}
out=${OUT:-/tmp/multigpu-out}
tmo=${RUN_TIMEOUT:-300}
ddp_steps=${STEPS_DDP:-40}
res=$(mktemp -d)
mkdir -p "$out"
export PATH=$stage/bin:$PATH PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
apps=$stage/libexec/streamcheck/testapps
py=$root/tests/corpus/python
expect=$root/tests/corpus/expect.txt
summarize=$root/tools/corpus/summarize.py
steps=${*:-env selftest apps redirect ranks ddp-native ddp-pin1 ddp-pin0}
t0=$(date +%s)
step() { echo; echo "=== $* ($(( $(date +%s) - t0 )) s)"; }
check() {   # check STATUS WHAT: one PASS or FAIL line, counted at the end
    if [ "$1" -eq 0 ]; then echo "PASS  $2"; else echo "FAIL  $2"; fi
}
# The per-rank result lines of a torchrun run, sorted.
losses() { grep -hE '^rank=[0-9]+ loss_sum=' "$@" | sort; }
# torchrun, two processes on this node; NVLS (NVLink SHARP multicast) off,
# as the lent machines need.
trun() { NCCL_NVLS_ENABLE=0 timeout "$tmo" torchrun --standalone --nproc_per_node 2 "$@"; }

ngpu() { nvidia-smi -L 2>/dev/null | grep -c '^GPU '; }

run_steps() {
for s in $steps; do case $s in
env)
    step env
    nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv
    nvidia-smi topo -m 2>/dev/null | head -8
    python3 -c 'import sys, torch; print(sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version(), "gpus", torch.cuda.device_count())'
    streamcheck --version
    n=$(ngpu)
    if [ "$n" -lt 2 ]; then
        echo "multigpu-check: $n GPU(s) here; this needs 2"
        return 77
    fi ;;
selftest)
    step "selftest (the two-device apps must run, not skip)"
    streamcheck --selftest >"$res/selftest.txt" 2>&1
    st=$?
    cat "$res/selftest.txt"
    check $st "streamcheck --selftest passes"
    for a in multigpu_legacy multigpu_legacy_fixed multigpu_peer ddp_step; do
        grep -qE "^$a +gpu .* pass$" "$res/selftest.txt"
        check $? "selftest: $a ran on the GPUs and passed"
    done ;;
apps)
    step "two-device apps, reports kept"
    mkdir -p "$res/apps"
    for a in multigpu_legacy multigpu_legacy_fixed multigpu_peer; do
        timeout "$tmo" streamcheck --format=json,text --output="$res/apps" -- "$apps/$a" \
            >"$res/apps/$a.out" 2>"$res/apps/$a.err"
        st=$?
        echo "$a: exit $st, $(tail -n 1 "$res/apps/$a.err")"
        streamcheck report --expect "$apps/$a.expect" "$res/apps/$a".*.json
        check $? "$a: the report holds $a.expect (per-device findings)"
    done
    grep -E '^@ Devices|^  Device  ' "$res/apps/multigpu_legacy.err" | sort | uniq -c
    grep -q '^@ Devices *: 0 .*, 1 ' "$res/apps/multigpu_legacy.err"
    check $? "multigpu_legacy: the header lists both devices" ;;
redirect)
    step "redirect on two devices"
    mkdir -p "$res/redirect"
    a=$apps/multigpu_redirect
    timeout "$tmo" "$a" 4 3 5 >"$res/redirect/plain.out" 2>"$res/redirect/plain.err"
    check $? "multigpu_redirect runs natively: $(cat "$res/redirect/plain.out")"
    for m in entry handle stream; do
        timeout "$tmo" streamcheck --redirect=per-thread --redirect-method=$m --format=json \
            --output="$res/redirect" -- "$a" 4 3 5 >"$res/redirect/$m.out" 2>"$res/redirect/$m.err"
        st=$?
        [ "$st" -eq 0 ] && cmp -s "$res/redirect/plain.out" "$res/redirect/$m.out"
        check $? "redirect ($m): same output as natively on two devices"
    done ;;
ranks)
    step "two ranks at once, merged"
    for a in multigpu_rank ddp_step; do
        for r in 0 1; do
            mkdir -p "$res/ranks/$a$r"
            RANK=$r LOCAL_RANK=$r WORLD_SIZE=2 timeout "$tmo" streamcheck --format=json \
                --output="$res/ranks/$a$r" -- "$apps/$a" >"$res/ranks/$a$r.out" 2>"$res/ranks/$a$r.err" &
        done
        wait
        cat "$res/ranks/$a"0.out "$res/ranks/$a"1.out
        streamcheck report --top all "$res/ranks/$a"0/*.json "$res/ranks/$a"1/*.json >"$res/ranks/$a.merged.txt" 2>&1
        sed -n '/^@--- Processes/,/^$/p' "$res/ranks/$a.merged.txt"
        grep -q 'Process *: rank 0, pid' "$res/ranks/$a.merged.txt" &&
            grep -q 'Process *: rank 1, pid' "$res/ranks/$a.merged.txt" &&
            grep -q "$a: device 1" "$res/ranks/${a}1.out"
        check $? "$a: two ranks on two devices, the merged report names them"
    done
    streamcheck report --fail-on warning "$res/ranks/ddp_step"0/*.json "$res/ranks/ddp_step"1/*.json >/dev/null 2>&1
    check $? "ddp_step: no warnings on either rank" ;;
ddp-native)
    step "DDP (torchrun, 2 GPUs), natively"
    for pin in 1 0; do
        trun "$py/ddp_train.py" --pin-memory "$pin" --steps "$ddp_steps" >"$res/ddp-native-pin$pin.out" \
            2>"$res/ddp-native-pin$pin.err"
        st=$?
        losses "$res/ddp-native-pin$pin.out"
        [ "$st" -eq 0 ] && [ "$(losses "$res/ddp-native-pin$pin.out" | wc -l)" -eq 2 ]
        check $? "ddp_train --pin-memory $pin natively: both ranks ran"
    done ;;
ddp-pin1 | ddp-pin0)
    pin=${s#ddp-pin}
    step "DDP (torchrun, 2 GPUs) under streamcheck, --pin-memory $pin"
    d=$res/ddp-pin$pin
    mkdir -p "$d/report"
    trun --no-python streamcheck --format=json --output="$d/report" -- \
        python3 "$py/ddp_train.py" --pin-memory "$pin" --steps "$ddp_steps" >"$d/out" 2>"$d/err"
    st=$?
    tail -n 5 "$d/err"
    ls "$d/report"
    check $st "ddp_train --pin-memory $pin under streamcheck: exit 0"
    if [ -s "$res/ddp-native-pin$pin.out" ]; then
        [ "$(losses "$d/out")" = "$(losses "$res/ddp-native-pin$pin.out")" ]
        check $? "ddp_train --pin-memory $pin: each rank's loss_sum as natively"
    fi
    nrep=0
    for j in "$d"/report/*.json; do
        [ -e "$j" ] || continue
        nrep=$((nrep + 1))
        python3 - "$j" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
p = r["processes"][0]
print("  %s: rank %s, devices %s, %d findings (%d warnings)" % (
    sys.argv[1].rsplit("/", 1)[-1], p.get("rank"),
    [(x["ordinal"], x["name"]) for x in p.get("devices", [])], len(r["findings"]),
    r["summary"]["warnings"]))
PY
        python3 "$summarize" --top 8 --expect "$expect" --case "ddp_train-pin$pin" --src "$py" "$j"
        check $? "ddp_train-pin$pin: $(basename "$j") holds tests/corpus/expect.txt [ddp_train-pin$pin]"
        python3 -c 'import json, sys; p = json.load(open(sys.argv[1]))["processes"][0]; sys.exit(not (p.get("rank") in (0, 1) and [d["ordinal"] for d in p.get("devices", [])] == [p["rank"]]))' "$j"
        check $? "ddp_train-pin$pin: $(basename "$j") names its rank and its one device"
        # the loop opens no NVTX range: NCCL's, pushed by name and popped
        # through the payload extension, must not stay open over it
        python3 - "$j" "$py/ddp_train.py" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
marked = {i + 1 for i, l in enumerate(open(sys.argv[2])) if "# corpus:" in l}
cs = {c["id"]: c for c in r["callsites"]}
bad = []
for f in r["findings"]:
    py = (cs.get(f["callsite"]) or {}).get("python") or [{}]
    if str(py[0].get("file", "")).endswith("ddp_train.py") and py[0].get("line") in marked and f.get("nvtx_range"):
        bad.append("%s at line %s in range %s" % (f["rule"], py[0].get("line"), f["nvtx_range"]))
print("  loop findings in an NVTX range: %s" % ("; ".join(bad) or "none"))
sys.exit(1 if bad else 0)
PY
        check $? "ddp_train-pin$pin: $(basename "$j"): the loop's findings in no NVTX range (NCCL's closed)"
    done
    [ "$nrep" -eq 2 ]
    check $? "ddp_train --pin-memory $pin: one report per rank ($nrep)"
    streamcheck report --top all "$d"/report/*.json >"$d/merged.txt" 2>&1
    sed -n '/^@--- Processes/,/^$/p' "$d/merged.txt"
    grep 'streamcheck:' "$d/merged.txt"
    if [ "$pin" = 1 ]; then
        # loss.item() each step may be an SC403 warning (tests/corpus/expect.txt)
        streamcheck report --ignore SC403 --fail-on warning "$d"/report/*.json >/dev/null 2>&1
        check $? "ddp_train --pin-memory 1: no warnings on any rank but SC403 (merged report)"
    fi ;;
*)
    echo "multigpu-check: unknown step '$s'" ;;
esac; done
}

run_steps 2>&1 | tee "$out/multigpu.log"
st=${PIPESTATUS[0]}
tar -C "$res" -czf "$out/results.tgz" . 2>/dev/null
echo
p=$(grep -c '^PASS  ' "$out/multigpu.log") f=$(grep -c '^FAIL  ' "$out/multigpu.log")
echo "multigpu-check: $p passed, $f failed ($(( $(date +%s) - t0 )) s); log $out/multigpu.log, files $out/results.tgz"
rm -rf "$res"
[ "$st" -eq 77 ] && exit 77
[ "$f" -eq 0 ]
