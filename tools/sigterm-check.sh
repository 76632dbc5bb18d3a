#!/bin/bash
# tools/sigterm-check.sh: a PyTorch training loop under streamcheck, ended
# by SIGTERM mid-run as Slurm ends a job at its time limit, must leave a
# report that names its warnings (issue 26).  On a GPU, after
# tools/stage-gpu.sh (or with streamcheck on PATH):
#   tools/sigterm-check.sh [SECONDS]
# runs tests/corpus/python/train_resnet.py --pin-memory 0 (pageable batches:
# SC203 at its "# corpus: SC203" line) under streamcheck in a process group
# of its own, sends SIGTERM to the whole group after SECONDS (default 60:
# past the model's first steps), as Slurm signals every process of a step,
# and waits at most KILLWAIT seconds (default 30, Slurm's default) before
# SIGKILL.  Then it checks: the program ended by the SIGTERM (exit status
# 143) within KILLWAIT, the JSON report is there, parses, and names SC203.
# Environment: OUT (default /tmp/sigterm-check: the reports, the logs and
# summary.txt), STAGE (a staged install, default .stage), EXTRA (more
# streamcheck options, e.g. --measure or --snapshot=10), PYTHON (python3).
# Exits 0 when every check passed, 1 otherwise, 77 without torch or a GPU.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
stage=${STAGE:-$root/.stage}
out=${OUT:-/tmp/sigterm-check}
secs=${1:-60}
killwait=${KILLWAIT:-30}
py=${PYTHON:-python3}
export PATH=$stage/bin:$PATH PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
rm -rf "$out/reports"
mkdir -p "$out/reports"
sum=$out/summary.txt
: >"$sum"
say() { echo "$*" | tee -a "$sum"; }

if ! command -v streamcheck >/dev/null; then
    say "streamcheck is not on PATH (stage it with tools/stage-gpu.sh, or set STAGE)"
    exit 1
fi
# setsid: a process group of its own, so the SIGTERM reaches the launcher,
# the program and its DataLoader workers at once, as Slurm's does.
# shellcheck disable=SC2086
setsid streamcheck --format=json,text --output="$out/reports" ${EXTRA:-} -- \
    "$py" "$root/tests/corpus/python/train_resnet.py" --pin-memory 0 --steps 1000000 \
    >"$out/stdout.txt" 2>"$out/stderr.txt" &
pid=$!
for _ in $(seq "$secs"); do
    sleep 1
    kill -0 "$pid" 2>/dev/null || break
done
if ! kill -0 "$pid" 2>/dev/null; then
    wait "$pid"
    st=$?
    if [ "$st" -eq 77 ]; then say "skipped: no torch or no GPU"; exit 77; fi
    say "the program ended by itself before the SIGTERM (status $st); see $out/stderr.txt"
    exit 1
fi
t0=$(date +%s%N)
kill -TERM -- "-$pid" 2>/dev/null
st=
for _ in $(seq $((killwait * 10))); do
    if ! kill -0 "$pid" 2>/dev/null; then
        wait "$pid"
        st=$?
        break
    fi
    sleep 0.1
done
t1=$(date +%s%N)
if [ -z "$st" ]; then
    kill -KILL -- "-$pid" 2>/dev/null
    wait "$pid"
    st="killed after ${killwait} s"
fi
say "SIGTERM after $secs s: exit status $st, $(( (t1 - t0) / 1000000 )) ms after the signal"
fails=0
[ "$st" = 143 ] || { say "FAIL: the program did not end by SIGTERM (status 143) within $killwait s"; fails=1; }
"$py" - "$out/reports" <<'EOF' | tee -a "$sum"
import glob, json, sys
files = glob.glob(sys.argv[1] + "/*.json")
ok = False
for f in files:
    try:
        r = json.load(open(f))
    except ValueError as e:
        print("FAIL: %s does not parse: %s" % (f, e))
        continue
    rules = {}
    for x in r.get("findings", []):
        rules[x.get("rule")] = rules.get(x.get("rule"), 0) + x.get("count", 0)
    warn = sorted({x.get("rule") for x in r.get("findings", []) if x.get("severity") == "warning"})
    print("%s: findings %s; warnings: %s" % (f.split("/")[-1], rules, ", ".join(warn) or "none"))
    ok = ok or "SC203" in rules
print("report names SC203: %s" % ("yes" if ok else "NO"))
sys.exit(0 if ok else 1)
EOF
[ "${PIPESTATUS[0]}" -eq 0 ] || fails=1
grep -E "^streamcheck(\[[0-9]+\])?: " "$out/stderr.txt" | tail -n 5 | tee -a "$sum"
[ "$fails" -eq 0 ] && say "PASS" || say "FAIL (logs in $out)"
exit "$fails"
