#!/bin/sh
# bench-sim.sh: the GPU benchmarks' own machinery, run on the simulator so it
# does not rot between GPU sessions (the figures themselves mean nothing
# here).  bench/graphs prints its four figures natively and under
# streamcheck, where the capture's launches are never judged and every
# graph launch and capture end is counted; bench/side-by-side.sh prints,
# per figure, the medians, the pairs' ratios and every run, and fails on a
# figure the command does not print.  TAP.
. "${top_builddir:-.}/tests/env.sh"
echo "1..6"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-bench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
graphs=$abs_top_builddir/bench/graphs
figures() { grep -c '^\(capture\|instantiate\|launch\|relaunch\)_us=[0-9.]*$' "$1"; }

sc_sim "$graphs" 20 5 >"$tmp/native.out" 2>/dev/null
[ "$(figures "$tmp/native.out")" = 4 ]
echo "$([ $? = 0 ] && echo ok || echo not ok) 1 - bench/graphs prints its four figures on the simulator"

"$SC_CLI" --simulate --format=json,text --output="$tmp" -- "$graphs" 20 5 >"$tmp/sc.out" 2>"$tmp/sc.err"
rules=$(grep -o '"rule": "SC[0-9]*"' "$tmp"/*.streamcheck.json | sort -u | sed 's/.*"\(SC[0-9]*\)"/\1/' | tr '\n' ' ')
warned=$(awk -F'"' '/"rule": /{r=$4} /"severity": "warning"/{print r}' "$tmp"/*.streamcheck.json | sort -u | tr '\n' ' ')
# The bench times each repetition on the host between its waits: SC402 and
# SC403 may come or not, as the run's timing falls; the graph API itself
# draws nothing.  Where the host runs slowly (a sanitizer's runtime, a
# loaded machine), not waiting each repetition saves enough to make SC403 a
# warning: the time it prices is the simulator's and the machine's, not the
# graph API's, so SC403 may be either.  No other rule may warn.
[ "$(figures "$tmp/sc.out")" = 4 ] && [ -z "$(echo "$rules" | tr ' ' '\n' | grep -v '^\(SC402\|SC403\|\)$')" ] &&
    [ -z "$(echo "$warned" | tr ' ' '\n' | grep -v '^\(SC403\|\)$')" ] &&
    grep -q '^  cuGraphLaunch  *30$' "$tmp/sc.err" && grep -q '^  cuStreamEndCapture  *15$' "$tmp/sc.err"
r=$?
echo "$([ $r = 0 ] && echo ok || echo not ok) 2 - under streamcheck: the same figures, SC402 and SC403 at most, no warning but SC403's, every graph launch and capture counted"
echo "# rules found: ${rules:-none}; warnings: ${warned:-none}"
[ $r = 0 ] || tail -n 30 "$tmp/sc.err" | sed 's/^/# /'

# After each repetition's synchronization waited, the run log records the
# thread's next call (runlog.h, watch).  The capture that comes next gives
# the GPU no work: it stays on the fast path, and the graph launch is the
# call recorded, with none of the capture's 20 launches counted as work
# submitted before it.  So the slow path sees the 16 synchronizations, the
# stream's first kernel and three calls of set-up and tear-down (the
# stream's creation and destruction among them), not the 30 captures'
# begins and first launches.
STREAMCHECK_PROFILE=1 STREAMCHECK_TEST_PRICE_DUMP="$tmp/dump" "$SC_CLI" --simulate --log-level=info -- \
    "$graphs" 20 5 >/dev/null 2>"$tmp/prof.err"
slow=$(sed -n 's/^  slow path (less the real call)  *\([0-9]*\) .*/\1/p' "$tmp/prof.err")
launches=$(awk '/^thread/ {t++; next} t == 1 && prev == 2 && $6 == 0 && $10 == 0 {n++} t == 1 {prev = $6}
                END {print n + 0}' "$tmp"/dump.*)
[ "$slow" = 20 ] && [ "$launches" = 15 ]
echo "$([ $? = 0 ] && echo ok || echo not ok) 3 - a capture after a wait stays on the fast path: 20 slow calls (got ${slow:-none}); each of the 15 graph launches recorded after its repetition's wait, the capture's 20 launches no submissions (got $launches)"

# The profile's walk rows: every walk counted once among those whose depth
# is told, never more frames needed than walked (a stack this short ends
# before the walk's first want: each needs all it has, none more than
# depth + 16).
row() { sed -n "s/^ *$1  *\([0-9]*\)  *\([0-9]*\) frames .*/\1 \2/p" "$tmp/prof.err"; }
walks=$(row 'call-site walks (native)') need=$(row "frames needed, to the program's depth-th")
long=$(sed -n 's/^ *walked again: needed more than depth + 16  *\([0-9]*\) .*/\1/p' "$tmp/prof.err")
[ -n "$walks" ] && [ "${walks%% *}" -gt 0 ] && [ "$need" = "$walks" ] && [ "$long" = 0 ]
echo "$([ $? = 0 ] && echo ok || echo not ok) 4 - profile: the frames each walk needed, for every walk (walks, frames: ${walks:-none}; needed: ${need:-none}; over depth + 16: ${long:-none})"

# ThreadSanitizer's runtime, preloaded into the shell that runs
# side-by-side.sh, crashes it: its figures are left to the other builds.
case "$enable_sanitizers" in
*thread*)
    echo "ok 5 - side-by-side.sh # SKIP the shell does not run with ThreadSanitizer's runtime preloaded"
    echo "ok 6 - side-by-side.sh # SKIP the shell does not run with ThreadSanitizer's runtime preloaded"
    exit 0 ;;
esac
sc_sim env STREAMCHECK="$SC_CLI" sh "$abs_top_srcdir/bench/side-by-side.sh" graphs \
    capture_us,launch_us 2 -- "$graphs" 20 5 >"$tmp/sbs.out" 2>"$tmp/sbs.err"
st=$?
[ $st = 0 ] && [ "$(grep -c '^graphs  *\(capture\|launch\)_us  *native  *[0-9.]*  streamcheck  *[0-9.]*  ratio [0-9.]*  (median of 2)$' "$tmp/sbs.out")" = 2 ] &&
    [ "$(grep -c '^  pairs: ratio median [0-9.]*, min [0-9.]*, max [0-9.]* (2 pairs)$' "$tmp/sbs.out")" = 2 ] &&
    [ "$(grep -c '^  runs: native [0-9.]* [0-9.]* $' "$tmp/sbs.out")" = 2 ]
echo "$([ $? = 0 ] && echo ok || echo not ok) 5 - side-by-side.sh: each figure's medians, its pairs' spread and its runs"
sed 's/^/# /' "$tmp/sbs.out"

sc_sim env STREAMCHECK="$SC_CLI" sh "$abs_top_srcdir/bench/side-by-side.sh" graphs \
    launch_us,nothing_us 1 -- "$graphs" 20 2 >"$tmp/bad.out" 2>"$tmp/bad.err"
[ $? = 1 ] && grep -q "graphs: the command printed no nothing_us=" "$tmp/bad.err" && grep -q '^graphs  *launch_us' "$tmp/bad.out"
echo "$([ $? = 0 ] && echo ok || echo not ok) 6 - side-by-side.sh fails on a figure the command does not print, after the others"
