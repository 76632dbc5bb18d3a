#!/bin/sh
# parent.sh: the launcher as a good parent.  It
# passes SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 on to the
# program; a SIGKILL to it takes the program down, and the next launcher
# removes the status folder it left; it keeps that folder in TMPDIR, and
# when it cannot, says so and fails --fail-on; where no report could be
# written it says why (a signal, a crash, a program the loader did not
# preload the shim into), and "no CUDA calls were seen" only when that is
# true, with the simulator's command where there is no GPU; a relative
# --output is the launch directory's, whatever the program's is.  TAP.
. "${top_builddir:-.}/tests/env.sh"
echo "1..25"
n=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-parent.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
app="$abs_top_builddir/tests/parent_app"
# Waits (up to 5 s) until file has a line.
wait_for() { i=0; while [ ! -s "$1" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done; }
# Shows a file as TAP comments when the last test failed.
show() { [ "$1" -eq 0 ] || sed 's/^/# /' "$2"; }

# --- signals sent to the launcher alone reach the program.  A job of a
# non-interactive shell starts with SIGINT and SIGQUIT ignored, and the
# program would inherit that: env resets them, where it can. ---
if env --default-signal=INT true 2>/dev/null; then dflt="env --default-signal=INT,QUIT"; else dflt=; fi
for sig in TERM INT HUP QUIT USR1 USR2; do
    if [ -z "$dflt" ] && { [ $sig = INT ] || [ $sig = QUIT ]; }; then
        skip "SIG$sig to the launcher reaches the program" "env has no --default-signal"
        continue
    fi
    rm -f "$tmp/ready"
    $dflt "$SC_CLI" -- sh -c "trap 'echo got $sig; exit 3' $sig; : > '$tmp/ready'; while :; do sleep 0.1; done" \
        > "$tmp/sig.out" 2> "$tmp/sig.err" &
    pid=$!
    wait_for "$tmp/ready"
    [ -e "$tmp/ready" ] && kill -$sig $pid
    wait $pid
    st=$?
    [ $st -eq 3 ] && [ "$(cat "$tmp/sig.out")" = "got $sig" ]
    r=$?
    ok $r "SIG$sig to the launcher reaches the program, whose status passes through (exit $st)"
    show $r "$tmp/sig.err"
done

# --- a SIGKILL to the launcher takes the program down ---
mkdir "$tmp/t"
TMPDIR="$tmp/t" "$SC_CLI" -- sh -c "echo \$\$ > '$tmp/prog.pid'; exec sleep 60" > /dev/null 2>&1 &
pid=$!
wait_for "$tmp/prog.pid"
prog=$(cat "$tmp/prog.pid")
kill -KILL $pid
wait $pid 2>/dev/null
i=0
while [ $i -lt 50 ] && kill -0 "$prog" 2>/dev/null && ! grep -q '^State:.*Z' "/proc/$prog/status" 2>/dev/null; do
    sleep 0.1; i=$((i + 1))
done
! kill -0 "$prog" 2>/dev/null || grep -q '^State:.*Z' "/proc/$prog/status" 2>/dev/null
ok $? "a SIGKILL to the launcher ends the program (PR_SET_PDEATHSIG)"
[ "$(ls "$tmp/t" | grep -c '^streamcheck\.')" -eq 1 ] && TMPDIR="$tmp/t" "$SC_CLI" -- true 2>/dev/null &&
    [ -z "$(ls -A "$tmp/t")" ]
ok $? "the next launcher removes the status folder the killed one left"

# --- the status folder: TMPDIR, or a clear failure ---
dir=$(TMPDIR="$tmp/t" "$SC_CLI" -- sh -c 'echo "$STREAMCHECK_STATUS_DIR"' 2>/dev/null)
case "$dir" in "$tmp/t/streamcheck."*) r=0 ;; *) r=1 ;; esac
ok $r "the status folder is made in TMPDIR ($dir)"
TMPDIR="$tmp/none" "$SC_CLI" --fail-on warning -- true > /dev/null 2> "$tmp/none.err"
st=$?
[ $st -eq 1 ] &&
    grep -qxF "streamcheck: cannot know what true found: no status directory (TMPDIR=$tmp/none: No such file or directory)" "$tmp/none.err" &&
    grep -qxF "streamcheck: --fail-on warning: the findings are unknown (see above); exit status 1" "$tmp/none.err"
r=$?
ok $r "no status folder with --fail-on: said, and the run fails (exit $st)"
show $r "$tmp/none.err"
TMPDIR="$tmp/none" "$SC_CLI" -- sh -c 'exit 4' 2> /dev/null
st=$?
[ $st -eq 4 ]
ok $? "no status folder without --fail-on: the program's status (exit $st)"
TMPDIR="$tmp/none" "$SC_CLI" --fail-on error --error-exitcode 6 -- true 2> /dev/null
st=$?
[ $st -eq 6 ]
ok $? "--fail-on error fails when the findings cannot be known (exit $st)"

# --- where no report could be written, why ---
"$SC_CLI" --simulate --fail-on never -- "$app" kill > /dev/null 2> "$tmp/kill.err"
st=$?
[ $st -eq 137 ] && grep -Eqx "streamcheck: process [0-9]+ \(parent_app\) used CUDA but ended before streamcheck could write its report: signal 9 \(Killed\); its findings are unknown" "$tmp/kill.err" &&
    ! grep -q "no CUDA calls" "$tmp/kill.err"
r=$?
ok $r "CUDA calls, then SIGKILL: the signal is named, exit 137 (exit $st)"
show $r "$tmp/kill.err"
"$SC_CLI" --simulate --fail-on warning --error-exitcode 5 -- "$app" kill > /dev/null 2>&1
st=$?
[ $st -eq 5 ]
ok $? "... and --fail-on warning fails the run: its findings are unknown (exit $st)"
"$SC_CLI" --simulate -- "$app" _exit > /dev/null 2> "$tmp/exit.err"
st=$?
# _exit is interposed: the report is written before it, as at exit.
[ $st -eq 0 ] && grep -Eq "^streamcheck: [0-9]+ findings? \(" "$tmp/exit.err" && ! grep -q "ended before" "$tmp/exit.err"
r=$?
ok $r "CUDA calls, then _exit: the report is written before it (exit $st)"
show $r "$tmp/exit.err"
"$SC_CLI" --simulate --fail-on note -- "$app" exit > /dev/null 2> "$tmp/done.err"
st=$?
[ $st -eq 0 ] && ! grep -q "ended before\|no CUDA calls\|without streamcheck" "$tmp/done.err"
r=$?
ok $r "CUDA calls, a normal exit: a report, nothing more to say (exit $st)"
show $r "$tmp/done.err"
"$SC_CLI" -- "$app" none > /dev/null 2> "$tmp/none.err"
st=$?
grep -qxF "streamcheck: no CUDA calls were seen in $app" "$tmp/none.err" && [ $st -eq 0 ]
r=$?
ok $r "no CUDA call: 'no CUDA calls were seen', true here"
show $r "$tmp/none.err"
if ls /dev/nvidia* > /dev/null 2>&1; then
    skip "no GPU: the simulator's command is suggested" "this machine has a GPU"
else
    grep -qxF "streamcheck: this machine has no NVIDIA GPU (no /dev/nvidia* device); to check how a program uses CUDA without a GPU, run it on streamcheck's CPU simulator: streamcheck --simulate [OPTIONS] $app (programs built with nvcc -cudart shared)" "$tmp/none.err"
    r=$?
    ok $r "no GPU: the simulator's command is suggested"
    show $r "$tmp/none.err"
fi
"$SC_CLI" --simulate -- "$app" none > /dev/null 2> "$tmp/sim.err"
! grep -q "simulator's command\|--simulate" "$tmp/sim.err"
ok $? "... but not under --simulate"
printf 'int main(void) { return 0; }\n' > "$tmp/static.c"
if ${CC:-cc} -static -o "$tmp/static" "$tmp/static.c" 2> /dev/null; then
    "$SC_CLI" --fail-on warning -- "$tmp/static" > /dev/null 2> "$tmp/static.err"
    st=$?
    [ $st -eq 1 ] && grep -qxF "streamcheck: $tmp/static ran without streamcheck: libstreamcheck.so was not loaded into it (the loader ignores LD_PRELOAD for set-user-ID and statically linked programs); nothing was checked" "$tmp/static.err"
    r=$?
    ok $r "a static program: the shim was not loaded, said; --fail-on fails (exit $st)"
    show $r "$tmp/static.err"
else
    skip "a static program: the shim was not loaded, said" "cannot link a static program"
fi

# The lines of the shim's exit paths (signals, exec, _exit: status.h),
# written here by the program itself.
"$SC_CLI" -- sh -c 'printf "noreport\nended signal 15\n" > "$STREAMCHECK_STATUS_DIR/99999.status"' \
    > /dev/null 2> "$tmp/noreport.err"
grep -qxF "streamcheck: process 99999 (sh) used CUDA but ended before streamcheck could write its report: signal 15 (Terminated); its findings are unknown" "$tmp/noreport.err"
r=$?
ok $r "a process that could not write its report says which signal ended it"
show $r "$tmp/noreport.err"
"$SC_CLI" -- sh -c 'printf "0 0 0 0\nerror static-cudart\n" > "$STREAMCHECK_STATUS_DIR/99998.status"' \
    > /dev/null 2> "$tmp/static-cudart.err"
st=$?
[ $st -eq 1 ] && grep -qF "streamcheck: process 99998 (sh) was not checked: it carries NVIDIA's CUDA runtime linked statically" "$tmp/static-cudart.err" &&
    grep -qF "rebuild it with nvcc -cudart shared" "$tmp/static-cudart.err"
r=$?
ok $r "a process that could not be checked: said, and no false clean (exit $st)"
show $r "$tmp/static-cudart.err"

# --- a relative --output is the launch directory's ---
mkdir -p "$tmp/l/sub"
(cd "$tmp/l" && "$SC_CLI" --simulate --format=json --output=rep -- sh -c "cd sub && exec '$SC_APPS/pageable_copy'") \
    > /dev/null 2> "$tmp/rel.err"
[ "$(ls "$tmp/l/rep" 2>/dev/null | grep -c '\.json$')" -eq 1 ] && [ ! -e "$tmp/l/sub/rep" ]
r=$?
ok $r "a relative --output is the launch directory's, though the program changes directory"
show $r "$tmp/rel.err"
(cd "$tmp/l" && STREAMCHECK_FORMAT=json "$SC_CLI" --simulate -- sh -c "cd sub && exec '$SC_APPS/pageable_copy'") \
    > /dev/null 2>&1
[ "$(ls "$tmp/l" | grep -c '\.json$')" -eq 1 ] && [ "$(ls "$tmp/l/sub" | grep -c '\.json$')" -eq 0 ]
ok $? "without --output, the files go to the launch directory too"

# --- a program that cannot be run ---
"$SC_CLI" -- "$tmp/nonexistent" > /dev/null 2> "$tmp/norun.err"
st=$?
[ $st -eq 127 ] && [ "$(cat "$tmp/norun.err")" = "streamcheck: cannot run '$tmp/nonexistent': No such file or directory" ]
r=$?
ok $r "a program that does not exist: one line, exit 127 (exit $st)"
show $r "$tmp/norun.err"
