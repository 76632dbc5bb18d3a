#!/bin/sh
# fork.sh: forking while other threads are inside the shim (issue 10).
# tests/fork_stress forks 60 times while 4 threads create and destroy
# streams, events, allocations and cuBLAS handles under the shim, on the
# simulator; every child makes a CUDA call, exits and writes its report.
# A lock the fork handler does not take (core.c: every registered sc_part)
# can be inherited held, and the child hangs: fork_stress kills it after
# 20 s and fails.  TAP.
. "${top_builddir:-.}/tests/env.sh"
echo "1..2"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-fork.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/out"
# ThreadSanitizer's children run slowly on a loaded machine (one took over
# 20 s): a minute there, where a lock inherited held still shows.
case "$enable_sanitizers" in
*thread*) FORK_STRESS_TIMEOUT_S=60; export FORK_STRESS_TIMEOUT_S ;;
# gcc 12's AddressSanitizer does not hold its allocator's locks across fork:
# a child can inherit one held by another thread and hang in its first malloc
# (seen in CI: calloc in the child's report, a size class's mutex; gdb's stack
# showed no lock of ours).  The plain and ThreadSanitizer builds run the test.
*address*)
    why="AddressSanitizer's allocator (gcc 12) is not fork-safe in a threaded process"
    echo "ok 1 - 60 forks under load # SKIP $why"
    echo "ok 2 - every process wrote its report # SKIP $why"
    exit 0 ;;
esac
"$SC_CLI" --simulate --format=json --output="$tmp/out" -- "$abs_top_builddir/tests/fork_stress" 60 \
    >"$tmp/stdout" 2>"$tmp/stderr"
st=$?
if [ $st -eq 0 ]; then echo "ok 1 - 60 forks under load: every child exited in time"
else echo "not ok 1 - fork_stress failed ($st)"; sed 's/^/# /' "$tmp/stdout" "$tmp/stderr"; fi
# The parent's report and the children's (each made calls): none lost.
n=$(ls "$tmp/out" | grep -c '\.json$')
if [ "$n" -ge 61 ]; then echo "ok 2 - every process wrote its report ($n)"
else echo "not ok 2 - $n reports for 61 processes"; fi
