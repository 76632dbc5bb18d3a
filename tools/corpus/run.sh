#!/bin/bash
# tools/corpus/run.sh: the corpus of real programs on a lent GPU, in one go.
#
#   tools/corpus/run.sh [STEP...]    steps: build samples python resnet-pairs
#                                    (default: all four, in that order)
#
# build         build the extracted cuda-samples (build-samples.sh), static
#               and -cudart shared, into $SRC/bin
# samples       each sample natively, then under streamcheck; same exit
#               status and result lines?  findings vs tests/corpus/expect.txt
# python        tests/corpus/python/*.py likewise (77: skipped)
# resnet-pairs  train_resnet.py --pin-memory 0 vs 1 natively, alternated,
#               $PAIRS pairs (default 5): median images/s, the spread, the
#               measured cost per step of pageable batches beside
#               streamcheck's SC203 blocked time per call (from the python
#               step's report, if it ran)
#
# Environment: STAGE (installed tree, default .stage; its bin goes first on
# PATH), SRC (extracted samples, default .corpus-src), OUT (default
# /tmp/corpus-out), PAIRS, SAMPLES (names, default all of samples.list),
# VARIANTS (default "static shared"), PY_CASES (default all), RUN_TIMEOUT
# (seconds per run, default 120), DEADLINE (seconds: no new run starts
# after it, so the table still comes back within the device's 600 s;
# default 540).
# $OUT gets corpus.log (everything printed), table.txt (the summary table),
# details.txt (each run's summary; "strict" is streamcheck report --expect on
# the resolved expectations, which judges notes too), results.tgz (every
# report, output and log).  See tools/corpus/README.md.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/tools/corpus
stage=${STAGE:-$root/.stage}
src=${SRC:-$root/.corpus-src}
out=${OUT:-/tmp/corpus-out}
pairs=${PAIRS:-5}
tmo=${RUN_TIMEOUT:-120}
deadline=${DEADLINE:-540}
pydir=$root/tests/corpus/python
expect=$root/tests/corpus/expect.txt
res=$(mktemp -d)
mkdir -p "$out" "$res/corpus"
export PATH=$stage/bin:$PATH PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
steps=${*:-build samples python resnet-pairs}
table=$res/table.txt
: >"$table"
t0=$(date +%s)
step() { echo; echo "=== $* ($(( $(date +%s) - t0 )) s)"; }

# result_lines KIND FILE: the deterministic lines of a program's stdout.
result_lines() {
    case $1 in
    py) grep -E '^(loss_sum|checksum)=' "$2" ;;
    *) grep -iE 'pass|fail|waiv|error|correct|result' "$2" | grep -viE 'time|[0-9]+\.[0-9]+ ?(ms|s|sec|gb/s|gflop)' ;;
    esac
}

# one KIND CASE LABEL COMMAND...: natively, then under streamcheck.
one() {
    kind=$1 case=$2 label=$3; shift 3
    d=$res/corpus/$label
    mkdir -p "$d/report"
    if [ $(( $(date +%s) - t0 )) -ge "$deadline" ]; then
        printf '%-30s not run (DEADLINE %s s reached)\n' "$label" "$deadline" | tee -a "$table"; return
    fi
    timeout "$tmo" "$@" >"$d/native.out" 2>"$d/native.err"; a=$?
    if [ $a -eq 77 ]; then
        printf '%-34s skip (%s)\n' "$label" "$(tail -n 1 "$d/native.err" | cut -c1-60)" | tee -a "$table"
        return
    fi
    timeout "$tmo" streamcheck --format=json,text --output="$d/report" -- "$@" >"$d/sc.out" 2>"$d/sc.err"; b=$?
    result_lines "$kind" "$d/native.out" >"$d/native.res"
    result_lines "$kind" "$d/sc.out" >"$d/sc.res"
    if [ ! -s "$d/native.res" ]; then same=no-result
    elif cmp -s "$d/native.res" "$d/sc.res"; then same=same
    else same=DIFFERENT; fi
    rc="$a/$b"; [ $a -eq $b ] || rc="$a/$b!"
    python3 "$here/summarize.py" --top 8 --expect "$expect" --case "$case" --src "$pydir" --src "$src" \
        --write-expect "$d/resolved.expect" "$d/report" >"$d/summary.txt" 2>&1
    row=$(python3 "$here/summarize.py" --row --expect "$expect" --case "$case" --src "$pydir" --src "$src" "$d/report" 2>&1)
    strict=-
    if ls "$d"/report/*.json >/dev/null 2>&1 && [ -s "$d/resolved.expect" ]; then
        if streamcheck report --expect "$d/resolved.expect" "$d"/report/*.json >"$d/strict.txt" 2>&1; then strict=holds; else strict=FAILS; fi
    fi
    printf "%-30s rc %-6s out %-9s %s\n" "$label" "$rc" "$same" "$row" | head -n 1 | cut -c1-170 | tee -a "$table"
    printf "%s\n" "$row" | tail -n +2 | cut -c1-120 | tee -a "$table"
    [ "$same" = DIFFERENT ] && { diff "$d/native.res" "$d/sc.res" | head -n 4 | sed 's/^/      /' | tee -a "$table"; }
    { echo "--- $label (strict: $strict): $*"; cat "$d/summary.txt"; grep -E '^streamcheck:' "$d/sc.err" | tail -n 1
      # a program that failed natively too: why, in its own words
      [ $a -eq 0 ] || { echo "native exit status $a; its stderr ended:"; tail -n 6 "$d/native.err" | cut -c1-200 |
                        sed 's/^/    /'; }; } >>"$res/details.txt"
}

sample_names() {
    if [ -n "${SAMPLES:-}" ]; then echo "$SAMPLES"; else grep -v '^#' "$src/samples.list" | awk 'NF {print $1}'; fi
}

run_steps() {
for s in $steps; do case $s in
build)
    step "build the cuda-samples ($(cat "$src/REVISION" 2>/dev/null))"
    nvcc --version | tail -n 2 | head -n 1
    JOBS=${JOBS:-$(nproc)} "$here/build-samples.sh" "$src" "$src/bin" | grep -v '^built' ; cp "$src/bin/build.log" "$res/build.log"
    echo "built: $(grep -c '^built' "$src/bin/summary") of $(wc -l <"$src/bin/summary")" ;;
samples)
    step "cuda-samples, natively and under streamcheck"
    echo "--- samples" >>"$table"
    for n in $(sample_names); do
        for v in ${VARIANTS:-static shared}; do
            b=$src/bin/$n; [ "$v" = shared ] && b=$src/bin/$n.shared
            [ -x "$b" ] || { printf '%-34s not built\n' "$(basename "$b")" | tee -a "$table"; continue; }
            # The samples find their data relative to the working directory.
            (cd "$src/$n" && one sample "$n" "$(basename "$b")" "$b")
        done
    done ;;
python)
    step "Python programs, natively and under streamcheck"
    echo "--- python" >>"$table"
    cases=${PY_CASES:-train_resnet-pin0 train_resnet-pin1 lightning_train-pin0 lightning_train-pin1 gpt2_step compile_step-default compile_step-reduce-overhead cupy_streams jax_loop}
    for c in $cases; do case $c in
        train_resnet-pin0) one py "$c" "$c" python3 "$pydir/train_resnet.py" --pin-memory 0 --deterministic --steps 40 --warmup 10 ;;
        train_resnet-pin1) one py "$c" "$c" python3 "$pydir/train_resnet.py" --pin-memory 1 --deterministic --steps 40 --warmup 10 ;;
        lightning_train-pin?) one py "$c" "$c" python3 "$pydir/lightning_train.py" --pin-memory "${c##*-pin}" --steps 40 --warmup 10 ;;
        compile_step-*) one py "$c" "$c" python3 "$pydir/compile_step.py" --mode "${c#compile_step-}" ;;
        item_loop) one py "$c" "$c" python3 "$pydir/item_loop.py" --deterministic ;;
        *) one py "$c" "$c" python3 "$pydir/$c.py" ;;
    esac; done ;;
resnet-pairs)
    step "train_resnet: pin_memory 0 vs 1, natively, $pairs pairs (cudnn.benchmark, not deterministic)"
    : >>"$res/pairs.txt"
    for _ in $(seq "$pairs"); do
        [ $(( $(date +%s) - t0 )) -lt "$deadline" ] || { echo "DEADLINE $deadline s reached" | tee -a "$table"; break; }
        for p in 0 1; do
            timeout "$tmo" python3 "$pydir/train_resnet.py" --pin-memory $p --steps 60 --warmup 15 >/dev/null 2>"$res/pairs.err"
            echo "pin$p $(sed -n 's/^images_per_s=//p' "$res/pairs.err")" | tee -a "$res/pairs.txt"
        done
    done
    python3 - "$res/pairs.txt" "$res/corpus/train_resnet-pin0/report" <<'PYEOF' | tee -a "$table"
import glob, json, statistics, sys
v = {"pin0": [], "pin1": []}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 2:
        v[f[0]].append(float(f[1]))
print("--- resnet-pairs (64 images/step)")
if not v["pin0"] or not v["pin1"]:
    print("no numbers"); sys.exit(0)
m = {}
for k in ("pin0", "pin1"):
    m[k] = statistics.median(v[k])
    print(f"{k}: median {m[k]:8.1f} images/s  min {min(v[k]):8.1f}  max {max(v[k]):8.1f}  (n={len(v[k])})")
ms = {k: 64e3 / m[k] for k in m}
print(f"pinning gain: {m['pin1'] / m['pin0']:.3f}x; per step {ms['pin0']:.2f} -> {ms['pin1']:.2f} ms "
      f"(measured cost of pageable batches: {ms['pin0'] - ms['pin1']:.2f} ms/step)")
sc = []
for f in glob.glob(sys.argv[2] + "/*.json"):
    d = json.load(open(f))
    sc += [x for x in d.get("findings", []) if x["rule"] == "SC203"]
for x in sc:
    n = max(1, x.get("count", 0))
    print(f"streamcheck SC203 ({x.get('driver_api')}, {x.get('bytes', 0) // n} B/call): blocked "
          f"{x.get('blocked_ns', 0) / 1e6 / n:.2f} ms/call, lost {x.get('lost_ns', 0) / 1e6 / n:.2f} ms/call, x{n}")
if not sc:
    print("streamcheck SC203: none in the python step's train_resnet-pin0 report (or the step did not run)")
PYEOF
    ;;
*) echo "unknown step $s" ;;
esac; done
step "done"
echo
echo "=============== corpus summary (rc native/streamcheck, result lines, warnings, notes, expectations, top warnings)"
cat "$table"
}

run_steps 2>&1 | tee "$out/corpus.log"
cp "$table" "$out/table.txt"
[ -f "$res/details.txt" ] && cp "$res/details.txt" "$out/details.txt"
tar -C "$res" -czf "$out/results.tgz" . 2>/dev/null
rm -rf "$res"
