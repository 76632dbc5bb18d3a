#!/bin/sh
# mps-farm.sh: seed 002 ("Nvidia MPS"), GPU farming.  Starts N instances of
# a small GPU job at once, first without MPS (the GPU time-slices between
# the processes' contexts), then with the MPS control daemon (their kernels
# may share the GPU at the same time), each instance under streamcheck.  It
# prints the throughput of both rounds and merges every report with
# `streamcheck report`.
#
#   mps-farm.sh [-n N] [-o DIR] [-- JOB [ARGS...]]
#     -n N   instances at once (default 4; MPS serves up to 48 clients per GPU)
#     -o DIR keep the reports there (DIR/no-mps, DIR/mps; it must exist);
#            default: a temporary directory, removed at the end
#     JOB    the job and its arguments (default: seed002_farm next to this
#            script, or in $TESTAPPS, with 20000 192 4: 20000 items of four
#            192x192 products, about 0.7 s alone on an H100 and far from
#            filling it; 2.2x the throughput with MPS there)
#
# The MPS daemon is started and stopped here, with CUDA_MPS_PIPE_DIRECTORY
# and CUDA_MPS_LOG_DIRECTORY in a private temporary directory (so a daemon
# of someone else's is neither used nor disturbed), and stopped on exit and
# on interrupt.  Environment: STREAMCHECK (the launcher; default: the one
# installed with this script, else streamcheck on PATH), TESTAPPS.
#
# Output: one table row per round (instances, wall time, instances per
# second, work items per second, median GPU time of one instance), the
# speed-up, the merged report's summary line, and machine-readable lines
# "farm_<round>_instances_per_s=..." for bench/seeds.py.
# Exit status: 0; 77 (skip) when there is no GPU, no nvidia-cuda-mps-control,
# or the daemon or its server cannot start here (permissions, compute mode,
# a daemon already using the GPU); 1 if an instance fails or outputs differ;
# 2 for a usage error.
set -u

n=4
keep=
while [ $# -gt 0 ]; do
    case $1 in
    -n) [ $# -ge 2 ] || { echo "usage: $0 [-n N] [-o DIR] [-- JOB [ARGS...]]" >&2; exit 2; }
        n=$2; shift 2 ;;
    -o) [ $# -ge 2 ] || { echo "usage: $0 [-n N] [-o DIR] [-- JOB [ARGS...]]" >&2; exit 2; }
        keep=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: $0 [-n N] [-o DIR] [-- JOB [ARGS...]]" >&2; exit 2 ;;
    esac
done
case $n in ''|*[!0-9]*) echo "$0: -n wants a number of instances" >&2; exit 2 ;; esac
if [ "$n" -lt 1 ] || [ "$n" -gt 48 ]; then echo "$0: -n must be 1 to 48" >&2; exit 2; fi

skip() { echo "mps-farm: $*; skipping" >&2; exit 77; }
nvidia-smi -L >/dev/null 2>&1 || skip "no GPU here (nvidia-smi -L finds none)"
command -v nvidia-cuda-mps-control >/dev/null 2>&1 || skip "nvidia-cuda-mps-control is not installed"
mode=$(nvidia-smi -i 0 --query-gpu=compute_mode --format=csv,noheader 2>/dev/null | head -n 1)
case $mode in *Prohibited*) skip "GPU 0's compute mode is Prohibited" ;; esac

here=$(cd "$(dirname "$0")" && pwd)
if [ $# -eq 0 ]; then
    job=
    for d in "${TESTAPPS:-}" "$here" "$here/.."; do
        if [ -n "$d" ] && [ -x "$d/seed002_farm" ]; then job=$d/seed002_farm; break; fi
    done
    [ -n "$job" ] || { echo "$0: seed002_farm not found (set TESTAPPS or name a JOB)" >&2; exit 2; }
    set -- "$job" 20000 192 4
fi
sc=${STREAMCHECK:-}
if [ -z "$sc" ]; then
    if [ -x "$here/../../../bin/streamcheck" ]; then sc=$here/../../../bin/streamcheck
    else sc=$(command -v streamcheck || true); fi
fi
if [ -z "$sc" ] || [ ! -x "$sc" ]; then echo "$0: streamcheck not found (set STREAMCHECK)" >&2; exit 2; fi


tmp=$(mktemp -d "${TMPDIR:-/tmp}/mps-farm.XXXXXX") || exit 1
out=${keep:-$tmp/reports}
mkdir -p "$out/no-mps" "$out/mps" "$tmp/pipe" "$tmp/log" || exit 1
pids=
daemon=no
cleanup() {
    # Only what this script started: its instances, by pid, and its own
    # daemon, through its private pipe directory ("quit" stops the server
    # and the daemon).
    for p in $pids; do kill "$p" 2>/dev/null; done
    if [ "$daemon" = yes ]; then
        daemon=no
        echo quit | CUDA_MPS_PIPE_DIRECTORY=$tmp/pipe nvidia-cuda-mps-control >/dev/null 2>&1
        i=0   # wait (5 s at most) until it no longer answers
        while [ "$i" -lt 50 ] && echo get_server_list |
              CUDA_MPS_PIPE_DIRECTORY=$tmp/pipe nvidia-cuda-mps-control >/dev/null 2>&1; do
            sleep 0.1; i=$((i + 1))
        done
    fi
    rm -rf "$tmp"
}
trap 'cleanup' EXIT
trap 'cleanup; trap - EXIT; exit 130' INT
trap 'cleanup; trap - EXIT; exit 143' TERM

now_ns() { date +%s%N; }
median() { sort -n | awk '{v[NR] = $1} END {if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; else print "nan"}'; }

# round NAME: N instances at once under streamcheck, reports into $out/NAME.
# Sets wall_s, ok (instances that exited 0) and the per-instance files.
round() {
    name=$1
    shift
    t0=$(now_ns)
    pids=
    i=1
    while [ "$i" -le "$n" ]; do
        "$sc" --format=json --output="$out/$name" --log-level=quiet -- "$@" \
            >"$tmp/$name.$i.out" 2>"$tmp/$name.$i.err" &
        pids="$pids $!"
        i=$((i + 1))
    done
    ok=0
    i=1
    for p in $pids; do
        if wait "$p"; then ok=$((ok + 1)); else echo "mps-farm: $name instance $i failed:" >&2; tail -n 5 "$tmp/$name.$i.err" >&2; fi
        i=$((i + 1))
    done
    pids=
    wall_s=$(echo "$t0 $(now_ns)" | awk '{printf "%.3f", ($2 - $1) / 1e9}')
}

# report NAME: the round's row; returns 1 if an instance failed or outputs differ.
report() {
    name=$1 label=$2
    items=$(cat "$tmp/$name".*.err | sed -n 's/^items=//p' | awk '{s += $1} END {print s + 0}')
    gpu=$(cat "$tmp/$name".*.err | sed -n 's/^elapsed_ms=//p' | median)
    printf '%-8s %9s %9s %13s %12s %16s\n' "$label" "$n" "$wall_s" \
        "$(echo "$n $wall_s" | awk '{printf "%.3f", $1 / $2}')" \
        "$(echo "$items $wall_s" | awk '{printf "%.1f", $1 / $2}')" "$gpu"
    echo "farm_${name}_instances_per_s=$(echo "$n $wall_s" | awk '{printf "%.4f", $1 / $2}')" >>"$tmp/metrics"
    echo "farm_${name}_items_per_s=$(echo "$items $wall_s" | awk '{printf "%.2f", $1 / $2}')" >>"$tmp/metrics"
    [ "$ok" -eq "$n" ] || return 1
    first=$tmp/$name.1.out
    for f in "$tmp/$name".*.out; do cmp -s "$first" "$f" || { echo "mps-farm: $f differs from $first" >&2; return 1; }; done
    return 0
}

echo "mps-farm: $n instances of: $*"
echo "mps-farm: GPU: $(nvidia-smi -i 0 --query-gpu=name,driver_version,compute_mode --format=csv,noheader 2>/dev/null | head -n 1)"
status=0
printf '%-8s %9s %9s %13s %12s %16s\n' round instances wall_s instances/s items/s "instance GPU ms"

# Round 1, without MPS.  An exclusive-process GPU admits one context: skip it.
case $mode in
*Exclusive_Process*) echo "no-mps   (skipped: the GPU is in Exclusive_Process mode, which only MPS can share)"; nomps_wall= ;;
*) round no-mps "$@"; report no-mps "no MPS" || status=1; nomps_wall=$wall_s ;;
esac

# Round 2, with the MPS control daemon (seed 002, "How to enable MPS").
export CUDA_MPS_PIPE_DIRECTORY="$tmp/pipe" CUDA_MPS_LOG_DIRECTORY="$tmp/log"
if ! nvidia-cuda-mps-control -d >"$tmp/daemon.out" 2>&1; then
    cat "$tmp/daemon.out" >&2
    skip "the MPS control daemon did not start"
fi
daemon=yes
i=0
until echo get_server_list | nvidia-cuda-mps-control >/dev/null 2>&1; do
    i=$((i + 1))
    [ $i -lt 50 ] || skip "the MPS control daemon does not answer"
    sleep 0.1
done
round mps "$@"
if [ "$ok" -eq 0 ]; then
    echo "mps-farm: no instance could use the MPS server; its log says:" >&2
    tail -n 5 "$tmp/log/server.log" "$tmp/log/control.log" 2>/dev/null >&2
    skip "MPS does not work here"
fi
report mps "MPS" || status=1
servers=$(echo get_server_list | nvidia-cuda-mps-control 2>/dev/null | tr '\n' ' ')
echo "mps-farm: MPS server pid(s) during the round: ${servers:-none}"

if [ -n "$nomps_wall" ]; then
    echo "mps-farm: throughput with MPS / without: $(echo "$nomps_wall $wall_s" | awk '{printf "%.2fx", $1 / $2}')"
fi
echo "mps-farm: reports merged:"
"$sc" report "$out"/no-mps/*.json "$out"/mps/*.json | tail -n 1
cat "$tmp/metrics"
[ -n "$keep" ] && echo "mps-farm: reports in $out/no-mps and $out/mps"
exit $status
