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
# the releases zeroed saves half of it less, or more: under ThreadSanitizer
# on a loaded machine it saved 74% of 86 ms, where 3/4 was asked).  40 ms of
# host work a step keeps the fixed loop host-bound even where the pinned
# rate is slow (a sanitized simulator under load calibrates 1-2 GB/s, and a
# GPU-bound fixed loop rightly saves nothing of the release).  In modes
# keep and fresh it reads each step's result back into a new mapping: each
# of the 8 read-backs carries the first touch of its pages (touch.c), and
# SC203 is reported at the read-back's line 8 times.  Kept (8 buffers
# alive), its fix saves none of the touches (the dump with the touches
# zeroed saves three quarters of them more, or more); unmapped each step,
# the next mapping lands where the last was, one pinned buffer would serve:
# only the first is faulted in apart, the others are left to the copy (as
# natively, touch_again) and the fix saves them (and each unmap: a release).
# In mode loader each batch is received first (a wait, then a shared memory
# file mapped): SC203's saving holds the receipts where the GPU's work
# hides them.
# seed003_nested_sin hostsync: the event recorded after each download counts
# as no submission in the record of the sync that follows.
# seed000_matmul under STREAMCHECK_TEST_OCCUPANCY=1: the dump says its run
# priced with the kernels' occupancy, a one-thread spin (<<<1, 1>>>) holds
# one of the 32 blocks each of the simulated 132 multiprocessors holds
# (1/4224 of the device, where its threads ask 1/270336), and, as a block
# alone on its multiprocessor, half of what the rest of that one adds
# (16.5/4224, 1/256: STREAMCHECK_TEST_SMSHARE's default), and the replay
# prices as its report did (which needs the dump's demands to the float's
# last digit, and the report's bar for each finding: with demands to six
# places, 7 of 10 replays of this app differed; with them exact but no bar,
# 2 of 16, their all-fixed runs by 12 and 52 us).
# TAP.
. "${top_builddir:-.}/tests/env.sh"
echo "1..11"
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
    sed -E 's/( set-up)?( dropped)?$//' "$tmp/$app/replayed" >"$tmp/$app/got"
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

# saving DUMP FINDING: the finding's saving in the replay of DUMP, ns
saving() { "$tool" "$1" | awk -v f="$2" '$1 == "finding" && $2 == f {print $8}'; }
# sc203_part NAME FIELD LO HI ZERO ARGS...: pageable_loop ARGS's dump and
# replays: sets sc203 (SC203's finding in the dump), cnt and sum (its copies
# whose FIELD is LO..HI ns, and those ns added up), with and without
# (SC203's saving, as recorded and in the dump edited by sed script ZERO)
sc203_part() {
    d=$tmp/$1 field=$2 lo=$3 hi=$4 zero=$5
    shift 5
    mkdir -p "$d"
    STREAMCHECK_TEST_PRICE_DUMP="$d/d" "$SC_CLI" --simulate --format=json --output="$d" \
        -- "$SC_APPS/pageable_loop" "$@" >/dev/null 2>&1
    set -- "$d"/d.*
    sc203=$(awk '/^finding / && $4 == "SC203" {print $2}' "$1")
    set -- "$1" $(awk -v f="$sc203" -v k="$field" -v lo="$lo" -v hi="$hi" '$0 ~ "what 5 " && $0 ~ " f " f "," {
        for (i = 1; i < NF; i++) if ($i == k && $(i + 1) >= lo + 0 && $(i + 1) <= hi + 0) {n++; s += $(i + 1)} }
        END {print n + 0, s + 0}' "$1")
    cnt=$2 sum=$3
    sed "$zero" "$1" >"$d/zeroed"
    with=$(saving "$1" "$sc203")
    without=$(saving "$d/zeroed" "$sc203")
}

sc203_part shm release 1 1e18 's/ release [0-9]* / release 0 /' 8 16 1 40 shm
echo "# SC203 (finding $sc203): $cnt copies released, $sum ns in all; saving $with ns, $without with the releases zeroed"
[ -n "$sc203" ] && [ "$cnt" = 8 ] && [ -n "$with" ] && [ -n "$without" ] && [ "$with" -ge $((without + sum / 2)) ]
ok $? "pageable_loop shm: its 8 copies' sources released, and SC203's fix saves the releases too"

# pageable_loop loader receives each batch before it copies it (5 ms
# waiting for it, then a shared memory file mapped), right after the last
# step's sync, as a DataLoader's main thread does without pin_memory: each
# of the 8 copies carries the receipt's time (unmap.c, mmap), from the
# sync's return to the mapping (5 ms or more: a loaded machine, or a
# sanitizer, stretches it).  SC203's fix hands the receipts to a pinning
# thread, which the loop waits for where it received them.  With 30 ms of
# GPU work a step, 16 steps, they are hidden but for the first batch's wait
# (that thread also stages and releases each batch: under ThreadSanitizer on
# a loaded machine 8-14 ms more a batch, which left a loop of 10 ms waiting
# for it), and the saving holds them (the dump with them zeroed saves at
# least half their 5 ms each less; a receipt counts up to twice the
# thread's median, so a long one is not all saved); with 1 ms, 8 steps, the
# pinning thread is the loop's bottleneck, and the saving holds less than a
# quarter of them.
sc203_part loader receive 5000000 1e18 's/ receive [0-9]* [0-9]* / receive 0 0 /' 16 1 30 5 loader
echo "# GPU-bound: SC203 (finding $sc203): $cnt batches received in 5 ms or more, $sum ns in all;" \
    "saving $with ns, $without without them"
[ -n "$sc203" ] && [ "$cnt" = 16 ] && [ -n "$with" ] && [ -n "$without" ] &&
    [ "$with" -ge $((without + cnt * 5000000 / 2)) ]
r=$?
sc203_part bound receive 5000000 1e18 's/ receive [0-9]* [0-9]* / receive 0 0 /' 8 1 1 5 loader
echo "# bound by its receipts: SC203 (finding $sc203): $cnt batches received in 5 ms or more, $sum ns in all;" \
    "saving $with ns, $without without them"
[ $r -eq 0 ] && [ -n "$sc203" ] && [ "$cnt" = 8 ] && [ -n "$with" ] && [ -n "$without" ] &&
    [ "$with" -le $((without + sum / 4)) ]
ok $? "pageable_loop loader: its batches' receipts timed, and SC203's fix saves them where the GPU's work hides them"

# read_backs MODE: pageable_loop MODE's dump, report and replays: sets count
# (SC203 at the read-back's line), nt and again (read-backs touched, of them
# touched again), touch and first (their ns, all and first-time), with and
# without (the read-back finding's saving, as recorded and with the
# touches zeroed).
read_backs() {
    d=$tmp/$1; mkdir -p "$d"
    STREAMCHECK_TEST_PRICE_DUMP="$d/d" "$SC_CLI" --simulate --format=json --output="$d" \
        -- "$SC_APPS/pageable_loop" 8 4 1 40 "$1" >/dev/null 2>&1
    set -- "$1" "$d"/d.*
    set -- "$@" $(awk '/what 5 / && / dir 2 / {
                           for (i = 1; i < NF; i++) if ($i == "touch") { x = $(i + 1); y = $(i + 2) }
                           if (x > 0 || y) { n++; t += x; if (y) a++; else f += x } }
                       END {print n + 0, a + 0, t + 0, f + 0}' "$2")
    nt=$3 again=$4 touch=$5 first=$6
    released=$(awk '/what 5 / && / dir 2 / { for (i = 1; i < NF; i++) if ($i == "release" && $(i + 1) > 0) n++ }
                    END { print n + 0 }' "$2")
    sed 's/ touch [0-9]* [01]\( \|$\)/ touch 0 0\1/' "$2" >"$d/zeroed"
    count=$("$PYTHON3" - "$d"/*.streamcheck.json "$read_back" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
sites = {c["id"]: c for c in r["callsites"]}
at = [f for f in r["findings"] if f["rule"] == "SC203" and any(
    (fr.get("file") or "").endswith("pageable_loop.cu") and fr["line"] == int(sys.argv[2])
    for fr in sites[f["callsite"]]["frames"])]
print(at[0]["count"] if len(at) == 1 else 0)
EOF
)
    # the read-back's finding in the dump: the one its copies to the host count in
    f=$(awk '/what 5 / && / dir 2 / {split($14, a, ","); print a[1]; exit}' "$2")
    with=$(saving "$2" "$f")
    without=$(saving "$d/zeroed" "$f")
    echo "# $1: SC203 at pageable_loop.cu:$read_back x$count (finding $f): $nt read-backs touched ($again again)," \
        "$touch ns in all ($first first), $released released; saving $with ns, $without with the touches zeroed"
}
# seed003_nested_sin hostsync records an event on the download stream after
# each download, then synchronizes it: an event record is no GPU work, so
# the sync's record counts no submission since the download (else half the
# download's busy time went to the event, a kernel of the replay's).
d=$tmp/seed003; mkdir -p "$d"
STREAMCHECK_TEST_PRICE_DUMP="$d/d" "$SC_CLI" --simulate --format=json --output="$d" \
    -- "$SC_APPS/seed003_nested_sin" hostsync 8 1048576 >/dev/null 2>&1
set -- $(awk '/^ *[0-9]+ \+/ { for (i = 1; i < NF; i++) v[$i] = $(i + 1)
                               if (v["what"] >= 8) next   # an event recorded or waited for (a test hook)
                               if (v["what"] == 2 && pw == 0 && pd == 2) { n++; if (v["nsub"] != 0) bad++ }
                               pw = v["what"]; pd = v["dir"] }
              END { print n + 0, bad + 0 }' "$d"/d.*)
echo "# seed003_nested_sin hostsync: $1 syncs right after a download, $2 of them counting a submission"
[ "$1" = 8 ] && [ "$2" = 0 ]
ok $? "seed003_nested_sin hostsync: the event recorded after each download is no submission of the sync's record"

# seed004_pipeline streamed with pageable buffers: SC203 at its upload and
# its download, in the warm-up pass and the timed one (four findings, one
# fix: pinning).  Each finding's report carries what fixing the four at once
# saves, which the replay of the dump gives too (to 0.1%), and which is
# about their savings added up or less (2% more at most: pinning the upload
# and the download at once can save a little more than each alone; an
# ASan build's run came to 1.003 times them).
d=$tmp/seed004; mkdir -p "$d"
STREAMCHECK_TEST_PRICE_DUMP="$d/d" "$SC_CLI" --simulate --format=json --output="$d" \
    -- "$SC_APPS/seed004_pipeline" streamed 8 256 >/dev/null 2>&1
set -- "$d"/d.*
replayed=$("$tool" --together "$1" | awk '$1 == "together" {print $4 " " $6}' | sort -u)
"$PYTHON3" - "$d"/*.streamcheck.json "$replayed" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
f = [x for x in r["findings"] if x["rule"] == "SC203"]
v = sys.argv[2].split()
n, t = (int(v[0]), int(v[1])) if len(v) == 2 else (0, 0)
tog = {(x.get("together_findings"), x.get("together_ns")) for x in f}
total = sum(int(x["cost_ns"]) for x in f)
print("# SC203 x%d: %d ns added up, %s together in the report, %d of %d in the replay" % (len(f), total, tog, t, n))
ok = len(f) == 4 and len(tog) == 1 and n == 4
if ok:
    (rn, rt), = tog
    ok = rn == 4 and abs(rt - t) <= t / 1000 and 0 < rt <= total * 1.02
sys.exit(0 if ok else 1)
EOF
ok $? "seed004_pipeline pageable: its 4 SC203 findings say what pinning them all saves, as the replay does"

mkdir -p "$tmp/occ"
STREAMCHECK_TEST_OCCUPANCY=1 STREAMCHECK_TEST_PRICE_DUMP="$tmp/occ/d" "$SC_CLI" --simulate --format=json \
    --output="$tmp/occ" -- "$SC_APPS/seed000_matmul" 4 128 4 >/dev/null 2>&1
set -- "$tmp/occ"/d.*
"$tool" "$1" | sed -E 's/( set-up)?( dropped)?$//' >"$tmp/occ/got"
{ head -n 1 "$1"; grep '^finding ' "$1"; } >"$tmp/occ/want"
# the spin's calls: demand 1/270336 by its threads, 1/4224 by its occupancy
spins=$(awk '$1 ~ /^[0-9]+$/ { for (i = 1; i < NF; i++) { if ($i == "demand") d = $(i + 1); if ($i == "occ") o = $(i + 1) }
              if (d * 270336 > 0.999 && d * 270336 < 1.001 && o * 256 > 0.999 && o * 256 < 1.001) n++ }
              END { print n + 0 }' "$1")
head -n 1 "$1" | grep -q ' occupancy 1 ' && [ "$spins" -ge 1 ] && cmp -s "$tmp/occ/want" "$tmp/occ/got"
r=$?
[ $r -eq 0 ] || diff "$tmp/occ/want" "$tmp/occ/got" | head -n 10 | sed 's/^/# /'
ok $r "seed000_matmul, occupancy's test hook: priced with it, a one-thread spin 1/256 of the device ($spins calls), replayed alike"

# copy_pipeline under --measure: the dump's device line carries the
# timeline's gaps (the simulator's own between a copy and a kernel are tens
# of us), its first line says the run replayed them (measured mode's
# default), and price_replay, as the dump says, gives its findings' savings
# to the nanosecond; --no-gaps (STREAMCHECK_TEST_GAPS=0's replay) other ones.
mkdir -p "$tmp/gaps"
STREAMCHECK_TEST_PRICE_DUMP="$tmp/gaps/d" "$SC_CLI" --simulate --measure --format=json \
    --output="$tmp/gaps" -- "$SC_APPS/copy_pipeline" 8 16 0.5 >/dev/null 2>&1
set -- "$tmp/gaps"/d.*
"$tool" "$1" | sed -E 's/( set-up)?( dropped)?$//' >"$tmp/gaps/got"
"$tool" --no-gaps "$1" | grep '^finding ' | sed -E 's/( set-up)?( dropped)?$//' >"$tmp/gaps/without"
{ head -n 1 "$1"; grep '^finding ' "$1"; } >"$tmp/gaps/want"
grep '^finding ' "$1" >"$tmp/gaps/with"
gaps=$(sed -n 's/^device 0 .* gaps \([0-9]*\) \([0-9]*\) \([0-9]*\) \([0-9]*\) .*/\1 \2 \3 \4/p' "$1")
set -- $gaps
[ $# -eq 4 ] && [ $(($1 + $2 + $3 + $4)) -gt 0 ] && grep -q ' gaps 1 ' "$tmp/gaps/want" &&
    cmp -s "$tmp/gaps/want" "$tmp/gaps/got" && ! cmp -s "$tmp/gaps/with" "$tmp/gaps/without"
r=$?
[ $r -eq 0 ] || diff "$tmp/gaps/want" "$tmp/gaps/got" | head -n 10 | sed 's/^/# /'
ok $r "copy_pipeline, the GPU's gaps (measured mode's default): gaps ${gaps:-none} ns in the dump, replayed with them alike, without them not"

read_back=$(grep -n 'cudaMemcpyDeviceToHost, s)); // expect: SC203' "$abs_top_srcdir/testapps/pageable_loop.cu" |
    cut -d: -f1)
# touch.c faults pages in with MADV_POPULATE_WRITE, Linux 5.14 and later
if ! uname -r | awk -F. '{ exit !($1 > 5 || ($1 == 5 && $2 >= 14)) }'; then
    echo "ok 10 # SKIP Linux $(uname -r) has no MADV_POPULATE_WRITE"
    echo "ok 11 # SKIP Linux $(uname -r) has no MADV_POPULATE_WRITE"
    exit 0
fi
read_backs keep
[ "$count" = 8 ] && [ "$nt" = 8 ] && [ "$again" = 0 ] && [ -n "$with" ] && [ -n "$without" ] &&
    [ "$without" -ge $((with + touch * 3 / 4)) ]
ok $? "pageable_loop keep: 8 read-backs into fresh pages kept, their first touch timed apart, not saved by SC203's fix"
read_backs fresh
# each mapping where the last was: the replay keeps the first touch only
[ "$count" = 8 ] && [ "$nt" = 8 ] && [ "$again" -ge 4 ] && [ "$released" = 8 ] && [ -n "$with" ] &&
    [ -n "$without" ] &&
    [ "$without" -ge $((with + first * 3 / 4)) ] && [ "$without" -le $((with + first * 5 / 4 + 100000)) ]
ok $? "pageable_loop fresh: 8 read-backs into a new mapping each, each released, all touches but the first saved"
