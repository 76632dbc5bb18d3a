#!/bin/sh
# faults.sh: reports survive how jobs end, and streamcheck never changes the
# program's result or files (issue 26), on the simulator.  Each case runs
# tests/fault_app (a program with one known finding, SC203) under the shim,
# ends it as jobs end, and checks: the report is there and valid (read back
# by 'streamcheck report'), names SC203, the exit status is the one the
# program has without streamcheck, the status file the launcher reads says
# how the process ended, and the program's own files are untouched.
#  - SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGXCPU mid-run: without a handler
#    (the report, then death by the signal), with a handler of the
#    program's installed after the shim started, before it, and with
#    signal() (the handler runs; the program exits as it chooses); a
#    handler that takes the signal and goes on, then SIGKILL: the interim
#    report stays;
#  - abort(), a SIGSEGV, exec, _exit;
#  - SIGTERM to the launcher, passed on: while the program sleeps, and while
#    it is inside CUDA calls nearly all the time (the report within 5 s,
#    not the 10 s a handler waits for one);
#  - --snapshot=1, then SIGKILL: the last snapshot is there;
#  - the GPU sampler's last round held up (a test hook): the report comes
#    without its samples, in well under the round's 5 s;
#  - 30 threads inside CUDA calls at exit: exit takes the report's time, not
#    a second per thread (the exit handshake: under 150 ms);
#  - a program that closes fd 2 and opens its results file there: the file
#    is byte-identical, the report goes to the stderr it started with; a
#    program started without fd 2 gets the text report as a file;
#  - a program linked with the static CUDA runtime under --simulate: an
#    error naming 'nvcc -cudart shared', "error static-cudart" in its
#    status, and (from the launcher) a non-zero exit;
#  - settings files that are not: /dev/zero (no hang), a 1 MB binary (one
#    line, not thousands);
#  - --output through a symbolic link another user planted in a shared
#    sticky directory: not followed;
#  - a weak cuInit in a program without libcuda: still NULL under the shim;
#  - the shim leaves "loaded" in the status directory of every process it
#    loads in (none: it never loaded, e.g. a setuid program; checked as
#    root).
# What a program's queries answer after completed work under --redirect is
# tests/redirect.sh's (26-28).  TAP.
. "${top_builddir:-.}/tests/env.sh"
echo "1..35"
n=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-faults.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
ulimit -c 0 2>/dev/null
app=$abs_top_builddir/tests/fault_app
case=0

# shim DIR COMMAND...: COMMAND under the shim on the simulator, JSON and
# text reports, files in DIR/out, status in DIR/st.
shim() {
    d=$1; shift
    mkdir -p "$d/out" "$d/st"
    LD_PRELOAD="$SC_PRELOAD_SHIM" STREAMCHECK_SIMULATED=1 STREAMCHECK_FORMAT=json,text \
        STREAMCHECK_OUTPUT="$d/out" STREAMCHECK_STATUS_DIR="$d/st" sc_sim "$@"
}
native() { sc_sim "$@"; }
# The report of DIR: one JSON file, valid, naming SC203.
report_ok() {
    set -- "$1"/out/*.json
    [ $# -eq 1 ] && [ -f "$1" ] && "$SC_CLI" report --format=text --fail-on=never "$1" >/dev/null 2>&1 &&
        grep -q '"rule": "SC203"' "$1"
}
# The status file of DIR has LINE.
status_has() { cat "$1"/st/*.status 2>/dev/null | grep -qx "$2"; }
# ready DIR: waits (60 s at most: a loaded machine starts slowly) until
# fault_app has said "ready PID" in DIR/stdout.
ready() {
    for i in $(seq 1200); do grep -q '^ready' "$1/stdout" 2>/dev/null && return 0; sleep 0.05; done
    return 1
}
# signalled DIR SIG [HOW] [RUNNER]: fault_app wait HOW under RUNNER (shim
# or native), SIG sent once it is ready; the exit status.  DIR is its own
# (it set the callers' d once, so the run under the shim went into the
# native run's folder; and where the shell had not yet truncated the
# folder's stdout when ready() read it, the signal went to the native
# run's ended PID: the program looped its 90 s and exited 3, twice on a
# loaded machine).
signalled() {
    sd=$1 sig=$2 how=$3 runner=${4:-shim}
    mkdir -p "$sd"
    rm -f "$sd/stdout"
    $runner "$sd" "$app" wait $how >"$sd/stdout" 2>"$sd/stderr" &
    bg=$!
    ready "$sd" || echo "# $sd: the program did not get ready in 60 s"
    t0=$(date +%s)
    kill -"$sig" "$(sed -n 's/^ready //p' "$sd/stdout")" 2>/dev/null
    wait $bg
    st=$?
    echo $(( $(date +%s) - t0 )) >"$sd/took"   # from the signal to the end
    return $st
}
native_in() { shift; native "$@"; }   # native DIR COMMAND...: as shim, without it
# explain DIR: what a failed case left, as TAP comments (CI keeps only the log).
explain() {
    { echo "files:"; (cd "$1" && find . -type f | sort); for f in "$1"/stderr "$1"/st/*.status; do
        [ -f "$f" ] && echo "$f:" && tail -n 20 "$f"; done; } 2>&1 | sed 's/^/# /'
}

# --- signals, default disposition ---------------------------------------
for sn in TERM:15 INT:2 HUP:1 QUIT:3 XCPU:24; do
    s=${sn%:*} num=${sn#*:}
    case=$((case + 1)); d=$tmp/c$case
    signalled "$d.native" $s "" native_in; want=$?
    signalled "$d" $s; got=$?
    [ "$got" -eq "$want" ] && report_ok "$d" && status_has "$d" "ended signal $num"
    ok $? "SIG$s mid-run: the report names SC203, then the signal ends the program (status $got, natively $want)"
done

# --- signals, the program's own handler ---------------------------------
for how in handler early signal; do
    for s in TERM INT; do
        case=$((case + 1)); d=$tmp/c$case
        signalled "$d.native" $s $how native_in; want=$?
        signalled "$d" $s $how; got=$?
        [ "$got" -eq "$want" ] && [ "$want" -ge 100 ] && report_ok "$d" && ! status_has "$d" "partial signal 15"
        r=$?; [ $r -eq 0 ] || { echo "# took $(cat "$d/took" 2>/dev/null) s"; explain "$d"; }
        ok $r "SIG$s, the program's handler ($how): it runs, the program exits $got (natively $want), the report is whole"
    done
done
# A handler that takes SIGTERM and goes on; SIGKILL later: the interim
# report written before the handler ran is what is left.
case=$((case + 1)); d=$tmp/c$case
signalled "$d" TERM keep >/dev/null 2>&1 &
for i in $(seq 1200); do status_has "$d" "partial signal 15" && break; sleep 0.05; done
kill -KILL "$(sed -n 's/^ready //p' "$d/stdout")" 2>/dev/null
wait
report_ok "$d" && status_has "$d" "partial signal 15"
ok $? "SIGTERM taken by the program's handler, then SIGKILL: the interim report is there"

# --- abort, crash, exec, _exit --------------------------------------------
check_end() {   # check_end MODE LINE WHAT
    case=$((case + 1)); d=$tmp/c$case
    native "$app" "$1" >/dev/null 2>&1; want=$?
    shim "$d" "$app" "$1" >"$d.out" 2>"$d.err"; got=$?
    [ "$got" -eq "$want" ] && report_ok "$d" && status_has "$d" "$2"
    ok $? "$3: the report names SC203, exit status $got as natively ($want)"
}
check_end abort "ended signal 6" "abort()"
# A sanitized build's runtime takes SIGSEGV for its own report first (and
# keeps the program from taking it): here the fault is the program's.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0" UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}handle_segv=0" \
    TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}handle_segv=0" \
    check_end segv "ended signal 11" "SIGSEGV"
# The test hook STREAMCHECK_TEST_FAULT_TRACE=1: where the fault struck, on
# stderr first (the return addresses and the executable mappings, for
# addr2line), then as before; without it, no such line.
case=$((case + 1)); d=$tmp/c$case
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0" UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}handle_segv=0" \
    TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}handle_segv=0" STREAMCHECK_TEST_FAULT_TRACE=1 \
    shim "$d" "$app" segv >"$d.out" 2>"$d.err"; got=$?
grep -q "^streamcheck\[[0-9]*\]: fault, signal 11 0x[0-9a-f]* " "$d.err" && grep -q "^  0x[0-9a-f]*$" "$d.err" &&
    grep -q "r-xp .*fault_app$" "$d.err" && [ "$got" -eq "$want" ] && report_ok "$d" &&
    ! grep -q "fault, signal" "$tmp/c$((case - 1)).err"
ok $? "SIGSEGV under STREAMCHECK_TEST_FAULT_TRACE=1: where it struck on stderr, exit status $got as natively ($want)"
# Streams created, given a memset and destroyed 3000 times while the GPU
# sampler asks every 10 us: it never asks about a destroyed one (on a GPU,
# a freed handle: one seed 004 run in 80 died of it in cuStreamQuery on an
# H200; after the fix, 0 of 168).  With the hold released before the
# stream left the table, 5 of 5 such runs here asked about 1-40.
case=$((case + 1)); d=$tmp/c$case
r=0
for i in 1 2 3; do
    STREAMCHECK_GPU_SAMPLE_US=10 STREAMCHECK_LOG_LEVEL=info shim "$d.$i" "$app" churn 3000 >"$d.$i.out" 2>"$d.$i.err" || r=1
    ! grep "sampler asked" "$d.$i.err" || r=1
done
ok $r "3000 streams created and destroyed under a sampler asking every 10 us: exit 0, never a destroyed one asked about"
check_end exec "ended exec" "exec"
check_end _exit "ended _exit" "_exit"

# --- snapshots --------------------------------------------------------------
case=$((case + 1)); d=$tmp/c$case
mkdir -p "$d"
STREAMCHECK_SNAPSHOT=1 shim "$d" "$app" wait >"$d/stdout" 2>"$d/stderr" &
bg=$!
for i in $(seq 1200); do status_has "$d" "partial snapshot" && break; sleep 0.05; done
kill -KILL "$(sed -n 's/^ready //p' "$d/stdout")" 2>/dev/null
wait $bg; got=$?
[ "$got" -eq 137 ] && report_ok "$d" && status_has "$d" "partial snapshot"
ok $? "--snapshot=1, then SIGKILL: the last snapshot is a valid JSON report naming SC203"

# --- exit with threads inside CUDA calls -------------------------------------
case=$((case + 1)); d=$tmp/c$case
t0=$(date +%s%N); native "$app" threads 30 >/dev/null 2>&1; t1=$(date +%s%N)
STREAMCHECK_PROFILE=1 shim "$d" "$app" threads 30 >/dev/null 2>"$d.err"; got=$?; t2=$(date +%s%N)
nat=$(( (t1 - t0) / 1000000 )) ours=$(( (t2 - t1) / 1000000 ))
hs=$(sed -n 's/^ *exit handshake  *[0-9]*  *\([0-9.]*\) .*/\1/p' "$d.err")
echo "# 30 threads inside CUDA calls at exit: $ours ms under streamcheck (handshake ${hs:-?} ms), $nat ms natively"
[ "$got" -eq 0 ] && report_ok "$d" && [ -n "$hs" ] && awk -v h="$hs" 'BEGIN { exit !(h < 150) }' &&
    [ "$ours" -lt $((nat + 3000)) ]
ok $? "exit with 30 threads inside CUDA calls: handshake ${hs:-?} ms, $ours ms in all (natively $nat ms)"

# --- a GPU sampler held up in the driver at the end ---------------------------
# Its last round takes 5 s (a test hook standing for a query that waits on a
# lock a signalled thread holds): the report gives it 200 ms, then prices
# from the waits (testapps/host_sync_loop: SC403 each step).
case=$((case + 1)); d=$tmp/c$case b=$tmp/c${case}base
t0=$(date +%s%N)
shim "$b" "$SC_APPS/host_sync_loop" >/dev/null 2>&1   # (shim sets d)
t1=$(date +%s%N)
STREAMCHECK_TEST_GS_STALL_MS=5000 shim "$tmp/c$case" "$SC_APPS/host_sync_loop" >/dev/null 2>&1; got=$?
t2=$(date +%s%N)
base=$(( (t1 - t0) / 1000000 )) took=$(( (t2 - t1) / 1000000 ))
[ "$got" -eq 0 ] && [ -f "$d"/out/*.json ] && grep -q '"rule": "SC403"' "$d"/out/*.json &&
    grep -q '"busy_source": "waits"' "$d"/out/*.json && grep -q '"busy_source": "sampled"' "$b"/out/*.json &&
    [ "$took" -lt $((base + 2500)) ]
ok $? "a GPU sampler held up in the driver at exit: the report, priced from the waits, in $took ms ($base ms with the samples; the round takes 5 s)"

# --- the program's files --------------------------------------------------------
case=$((case + 1)); d=$tmp/c$case
mkdir -p "$d"
native "$app" stderr "$d/native.txt" >/dev/null 2>&1
shim "$d" "$app" stderr "$d/results.txt" >/dev/null 2>"$d/stderr"; got=$?
[ "$got" -eq 0 ] && cmp -s "$d/native.txt" "$d/results.txt" && grep -q '^streamcheck: 1 findings' "$d/stderr" &&
    report_ok "$d"
ok $? "a program that closes fd 2 and opens its results file: the file is untouched, the report goes to the original stderr"
case=$((case + 1)); d=$tmp/c$case
shim "$d" "$app" quiet >/dev/null 2>&-
set -- "$d"/out/*.txt
[ -f "$1" ] && grep -q '^streamcheck: 1 findings' "$1"
ok $? "a program started without fd 2: the text report is a file beside the others"

# --- static CUDA runtime under --simulate --------------------------------------------
case=$((case + 1)); d=$tmp/c$case
shim "$d" "$SC_APPS/default_stream_static" >/dev/null 2>"$d.err"
grep -q "nvcc -cudart shared" "$d.err" && status_has "$d" "error static-cudart"
ok $? "static CUDA runtime under --simulate: an error naming 'nvcc -cudart shared', and the status says so"
"$SC_CLI" --simulate --output="$d/l" -- "$SC_APPS/default_stream_static" >/dev/null 2>&1
[ $? -ne 0 ]
ok $? "static CUDA runtime under --simulate: the launcher exits non-zero"
# A program that ignores the failures exits 0 on its own: the launcher
# must fail the run all the same (it reads the status line).
printf '#!/bin/sh\n"%s" "$@"\nexit 0\n' "$SC_APPS/default_stream_static" >"$d/ignores.sh"
chmod +x "$d/ignores.sh"
"$SC_CLI" --simulate --output="$d/l" -- "$d/ignores.sh" >/dev/null 2>&1
[ $? -ne 0 ]
ok $? "static runtime, program exits 0: the launcher fails the run"

# --- settings files -----------------------------------------------------------------------------
case=$((case + 1)); d=$tmp/c$case
mkdir -p "$d"
STREAMCHECK_CONFIG=/dev/zero timeout 20 env LD_PRELOAD="$SC_PRELOAD_SHIM" STREAMCHECK_SIMULATED=1 \
    LD_LIBRARY_PATH="$SC_SIMDIR" "$app" quiet >/dev/null 2>"$d.err"
got=$?
[ "$got" -eq 0 ] && grep -q "STREAMCHECK_CONFIG: '/dev/zero' is not a regular file; using defaults" "$d.err"
ok $? "--config /dev/zero: refused in one line, the program runs (status $got)"
head -c 1048576 /dev/urandom >"$d/binary.conf" 2>/dev/null || dd if=/dev/urandom of="$d/binary.conf" bs=1024 count=1024 2>/dev/null
"$SC_CLI" --simulate --config "$d/binary.conf" --output="$d" -- "$app" quiet >/dev/null 2>"$d.err2"
lines=$(grep -c 'STREAMCHECK_CONFIG\|binary.conf' "$d.err2")
[ "$lines" -eq 1 ]
ok $? "a 1 MB binary settings file: one line ($lines)"
printf 'junk\n%.0s' $(seq 40) >"$d/bad.conf"
STREAMCHECK_CONFIG="$d/bad.conf" shim "$d" "$app" quiet >/dev/null 2>"$d.err3"
lines=$(grep -c 'bad.conf' "$d.err3")
[ "$lines" -eq 6 ] && grep -q '35 more lines were not understood' "$d.err3"
ok $? "40 bad lines in a settings file: five said, the rest counted in one line ($lines lines)"

# --- --output through a planted link ----------------------------------------------
case=$((case + 1)); d=$tmp/c$case
mkdir -p "$d/shared" "$d/target"
chmod 1777 "$d/shared"
ln -s "$d/target" "$d/shared/out"
if [ "$(id -u)" -eq 0 ] && chown -h 12345 "$d/shared/out" 2>/dev/null; then
    LD_PRELOAD="$SC_PRELOAD_SHIM" STREAMCHECK_SIMULATED=1 STREAMCHECK_FORMAT=json \
        STREAMCHECK_OUTPUT="$d/shared/out/reports" sc_sim "$app" quiet >/dev/null 2>"$d.err"
    [ -z "$(ls -A "$d/target")" ] && grep -q "symbolic link of another user" "$d.err" && grep -q '"schema_version"' "$d.err"
    ok $? "--output through another user's link in a shared sticky directory: not followed, the report on stderr"
else
    skip "--output through another user's link" "needs root to plant a link of another user"
fi

# --- weak cuInit, the shim loaded ---------------------------------------------------
case=$((case + 1)); d=$tmp/c$case
mkdir -p "$d/st"
LD_PRELOAD="$SC_PRELOAD_SHIM" STREAMCHECK_STATUS_DIR="$d/st" "$abs_top_builddir/tests/weak_cuinit" >"$d.out" 2>&1
grep -qx "cpu path" "$d.out"
ok $? "a weak cuInit in a program without libcuda: NULL under the shim too, the CPU path taken"
[ -f "$d/st/loaded" ] && [ -z "$(ls "$d/st" | grep '\.status$')" ]
ok $? "a process the shim loaded in leaves 'loaded' (and no status when it made no CUDA call)"
case=$((case + 1)); d=$tmp/c$case
mkdir -p "$d/st"
if [ "$(id -u)" -eq 0 ] && cp "$abs_top_builddir/tests/weak_cuinit" "$d/suid" && chown nobody "$d/suid" 2>/dev/null &&
    chmod 4755 "$d/suid" && chmod 755 "$d" "$tmp"; then
    LD_PRELOAD="$SC_SHIM" STREAMCHECK_STATUS_DIR="$d/st" "$d/suid" >/dev/null 2>&1
    [ ! -f "$d/st/loaded" ]
    ok $? "a setuid program: the loader ignores LD_PRELOAD, and no 'loaded' says so"
else
    skip "a setuid program" "needs root"
fi

# --- through the launcher -----------------------------------------------------------------
# launched DIR [HOW]: fault_app wait HOW under the launcher, SIGTERM sent to
# the launcher once the program is ready; the exit status (and how long
# the end took, in DIR/took).
launched() {
    mkdir -p "$1"
    "$SC_CLI" --simulate --format=json --output="$1/out" -- "$app" wait $2 >"$1/stdout" 2>"$1/stderr" &
    bg=$!
    ready "$1"
    t0=$(date +%s)
    kill -TERM $bg
    wait $bg; st=$?
    echo $(($(date +%s) - t0)) >"$1/took"
    return $st
}
case=$((case + 1)); d=$tmp/c$case
launched "$d"; got=$?
[ "$got" -eq 143 ] && report_ok "$d"
r=$?; [ $r -eq 0 ] || explain "$d"
ok $r "SIGTERM to the launcher: passed on, the report written, exit status 143 ($got)"
# The program inside CUDA calls nearly all the time: the signal comes
# there, not in a sleep, and the report must not wait for the driver.
case=$((case + 1)); d=$tmp/c$case
launched "$d" busy; got=$?
[ "$got" -eq 143 ] && report_ok "$d" && [ "$(cat "$d/took")" -le 5 ]
r=$?; [ $r -eq 0 ] || explain "$d"
ok $r "SIGTERM while the program is inside CUDA calls: the report written, exit status 143 ($got), in $(cat "$d/took") s"
