#!/bin/sh
# price-replay.sh: bench/price_replay prices a dump the way the program's
# own report did.  Two simulator runs leave their pricing model
# (STREAMCHECK_TEST_PRICE_DUMP): host_sync_loop (SC403 each step) and
# multithread_default_stream (four threads on the legacy stream, SC103);
# replayed, each gives the dump's own window, replays and every finding's
# saving, to the nanosecond.  A file that is not a dump is refused (exit 2).
# pageable_loop in mode shm unmaps each batch after its pageable copy (a
# DataLoader's batches in shared memory): each of its 8 copies carries the
# release's time (unmap.c), and SC203's saving holds it (the same dump with
# the releases zeroed saves three quarters of it less, or more).  40 ms of
# host work a step keeps the fixed loop host-bound even where the pinned
# rate is slow (a sanitized simulator under load calibrates 1-2 GB/s, and a
# GPU-bound fixed loop rightly saves nothing of the release).
# TAP.
. "${top_builddir:-.}/tests/env.sh"
echo "1..4"
n=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-replay.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
tool=$abs_top_builddir/bench/price_replay
for app in host_sync_loop multithread_default_stream; do
    mkdir -p "$tmp/$app"
    STREAMCHECK_TEST_PRICE_DUMP="$tmp/$app/d" "$SC_CLI" --simulate --format=json --output="$tmp/$app" \
        -- "$SC_APPS/$app" >/dev/null 2>&1
    set -- "$tmp/$app"/d.*
    "$tool" "$1" >"$tmp/$app/replayed" 2>&1
    rc=$?
    # the dump's own lines: its first (less 'loop' in older dumps) and its findings
    { head -n 1 "$1"; grep '^finding ' "$1"; } >"$tmp/$app/want"
    sed 's/ set-up$//' "$tmp/$app/replayed" >"$tmp/$app/got"
    [ $rc -eq 0 ] && [ -s "$tmp/$app/want" ] && [ "$(grep -c '^finding ' "$tmp/$app/want")" -gt 0 ] &&
        cmp -s "$tmp/$app/want" "$tmp/$app/got"
    r=$?
    [ $r -eq 0 ] || diff "$tmp/$app/want" "$tmp/$app/got" | head -n 10 | sed 's/^/# /'
    ok $r "$app: the replay of its dump prices as its report did ($(grep -c '^finding ' "$tmp/$app/want") findings)"
done
printf 'window 1 model 1 fixed 1\nnot a dump line\n' >"$tmp/bad"
"$tool" "$tmp/bad" >/dev/null 2>"$tmp/bad.err"
[ $? -eq 2 ] && grep -q "bad:2: not a line of a pricing model's dump" "$tmp/bad.err"
ok $? "a file that is not a dump: refused at its line, exit status 2"

d=$tmp/shm; mkdir -p "$d"
STREAMCHECK_TEST_PRICE_DUMP="$d/d" "$SC_CLI" --simulate --format=json --output="$d" \
    -- "$SC_APPS/pageable_loop" 8 16 1 40 shm >/dev/null 2>&1
set -- "$d"/d.*
sc203=$(awk '/^finding / && $4 == "SC203" {print $2}' "$1")
released=$(awk -v f="$sc203" '$0 ~ "what 5 " && $0 ~ " f " f "," && $NF > 0 {n++; s += $NF} END {print n + 0, s + 0}' "$1")
sed 's/ release [0-9]*$/ release 0/' "$1" >"$d/zeroed"
with=$("$tool" "$1" | awk -v f="$sc203" '$1 == "finding" && $2 == f {print $8}')
without=$("$tool" "$d/zeroed" | awk -v f="$sc203" '$1 == "finding" && $2 == f {print $8}')
set -- $released
echo "# SC203 (finding $sc203): $1 copies released, $2 ns in all; saving $with ns, $without with the releases zeroed"
[ -n "$sc203" ] && [ "$1" = 8 ] && [ -n "$with" ] && [ -n "$without" ] && [ "$with" -ge $((without + $2 * 3 / 4)) ]
ok $? "pageable_loop shm: its 8 copies' sources released, and SC203's fix saves the releases too"
