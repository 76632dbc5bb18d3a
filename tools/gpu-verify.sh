#!/bin/bash
# tools/gpu-verify.sh: the checks a change to streamcheck must pass on a real
# GPU, in one batched command on a lent machine.  Stage first, here:
#   ./configure --prefix=$PWD/.stage && make && tools/stage-gpu.sh
#   tools/corpus/extract-samples.sh MIRROR      (for the corpus step)
# then, on the GPU with .stage (and .corpus-src) carried:
#   tools/gpu-verify.sh [STEP...]
# Steps (default: selftest corpus resnet measure):
#   selftest    streamcheck --selftest (every bundled app, exact findings)
#   corpus      NVIDIA's samples (static cudart) and our Python programs,
#               natively and under streamcheck (tools/corpus/run.sh)
#   resnet      tools/resnet-verify.py: pinning gain beside SC203's cost,
#               overhead beside the self-estimate, detect and --measure
#   measure     seed 001 (C and PyTorch), pageable and pinned, --measure
#   redirect    the hand-off apps and a PyTorch training loop under every
#               redirect method: same output, same loss bits
#   bench-redirect   bench/redirect.sh (independent threads' speed-up)
#   estimates   bench/seeds.py --estimates --merge (RESULTS.md's column);
#               the gains of the seeds' and apps' comparisons whose kept
#               fix gains 5% or more are measured again first, in the same
#               command (a lent machine's pageable copies differ from the
#               last one's: estimates against an earlier machine's gains
#               moved by up to a third); EST_REMEASURE=KEY,... names them
#               instead ("none": none); EST_RUNS=N: each estimate the
#               median of N runs of each way
#   price       bench/price_check.py: each hazard and its fix alternated,
#               beside the price of detect and measured mode, judged by
#               issue 29's bounds (the DDP pair needs 2 GPUs, else skipped);
#               its table to $OUT/price-check.md, every run to
#               $OUT/price-check.json, the reports into results.tgz
#   profile     STREAMCHECK_PROFILE=1 on the training loop, if present
#   ablate      the training loop with parts of the shim switched off
#               (STREAMCHECK_TEST_ABLATE), to see which part costs what
#   html        HTML reports of measured runs (seed 004 in C and PyTorch,
#               pageable and pinned; the training loop), copied to $OUT/html
#   profiler    torch.profiler under streamcheck and streamcheck --measure:
#               does the user's profile keep its GPU records?
#   handover    testapps/measure_handover (a program with its own CUPTI
#               profiler) natively and under --measure, linked and by dlsym
#   nvtx        NVTX ranges: testapps/nvtx_ranges, and
#               tests/corpus/python/nvtx_step.py (torch.cuda.nvtx.range("step")
#               around each step) plainly, with --range step and under
#               emit_nvtx: each finding's range, call site and via frame
#   graphs      bench/graphs natively and under streamcheck, GPAIRS (7)
#               alternating pairs: capture of 20 kernels and graph launch
#               from the host (cudaGraphsPerfScaling's API times); GCPU
#               (a taskset CPU list) runs both arms on those CPUs
#   pageable    bench/train_bench.py, PAIRS (7) pairs, detect mode on the
#               DataLoader loop with pageable batches (and an arm that never
#               waits before a pageable copy: STREAMCHECK_TEST_ABLATE=drain),
#               then with pinned ones
#   window      bench/train_bench.py, PAIRS (7) pairs: measured mode over
#               the whole run and in a window (WINDOW, default auto: a fifth
#               of the timed steps)
#   overhead    detect mode's cost, bench/train_bench.py, OPAIRS (7) pairs
#               each of OLOOPS (default: gpu-pin0 gpu-pin1 host-pin0
#               host-pin1 gpt2, and ddp-pin0 ddp-pin1 with 2 GPUs): the
#               ResNet DataLoader loop with 12 workers at batch 128 (the
#               GPU bounds it) and with 4 at batch 64 (the workers and the
#               host do), pageable and pinned; GPT-2; DDP on 2 GPUs
#               (torchrun); OSTEPS timed steps (default 100); OBUDGET
#               seconds a loop at most (train_bench --budget; default none);
#               OARMS more arms, NAME:SPEC;NAME:SPEC (train_bench --arm:
#               nosample:STREAMCHECK_GPU_SAMPLE_US=0 is detect mode without
#               the GPU sampler).
#               The loops' tables to $OUT/overhead.txt, their log (every
#               pair as it ends) to $OUT/overhead.log: two files however
#               many loops (a lent machine brings back eight)
#   kinds       bench/train_bench.py, KPAIRS (5) pairs: measured mode with
#               each of its record kinds off in turn (STREAMCHECK_TEST_ABLATE
#               rt, api, ext, copy), then item_loop's host phases a step
#               under each, KROUNDS (2) rounds
#   copies      SC703 on a GPU: copy_pipeline under streamcheck and checked
#               against its expectations, its price against the fix
#               (bench/price_check.py --only copy_pipeline), and
#               multigpu_peer's output natively and under streamcheck (3
#               runs each; the pinned rate's timing once changed it), each
#               to $OUT as it ends
# Environment: ROUNDS (resnet, default 5), MROUNDS (its --measure rounds,
# default 2), PRICE_ONLY (price's pairs, default c,python), PRICE_MODES
# (price's modes: detect, measure, window; default detect,measure), PRICE_BUDGET
# (seconds after which price starts no pair, default 420).  Everything goes
# to $OUT/results.tgz; summaries to stdout.  The benchmarks' logs (each pair
# as it ends) go straight to $OUT: a command cut short by its time limit
# still brings back what it measured.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
stage=${STAGE:-$root/.stage}
out=${OUT:-/tmp/gpu-verify}
res=$(mktemp -d)
mkdir -p "$out"
export PATH=$stage/bin:$PATH PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
apps=$stage/libexec/streamcheck/testapps
t0=$(date +%s)
step() { echo; echo "=== $* ($(( $(date +%s) - t0 )) s)"; }
steps=${*:-selftest corpus resnet measure}

for s in $steps; do case $s in
selftest)
    step selftest
    streamcheck --selftest >"$res/selftest.txt" 2>&1
    grep -vE " pass$| skip " "$res/selftest.txt" | tail -n 30 ;;
corpus)
    step "corpus: samples (static cudart) and Python programs"
    VARIANTS=static DEADLINE=${CORPUS_DEADLINE:-260} RUN_TIMEOUT=90 OUT=$res/corpus \
        "$root/tools/corpus/run.sh" build samples python >"$res/corpus.log" 2>&1
    cat "$res/corpus/table.txt" 2>/dev/null | cut -c1-150 ;;
resnet)
    step "resnet-verify"
    python3 "$root/tools/resnet-verify.py" --rounds "${ROUNDS:-5}" --measure-rounds "${MROUNDS:-2}" \
        --out "$res/resnet" >"$res/resnet.log" 2>&1
    cat "$res/resnet/summary.txt" 2>/dev/null || tail -n 20 "$res/resnet.log" ;;
measure)
    step "measured mode: seed 001, pageable and pinned"
    for a in seed001_copies seed001_copies_fixed; do
        mkdir -p "$res/measure/$a"
        streamcheck --measure --format=json,text,trace --output="$res/measure/$a" -- "$apps/$a" \
            >"$res/measure/$a/out.txt" 2>"$res/measure/$a/err.txt"
        echo "$a: exit $?"; grep -E "^@ (GPU|Estimated)" "$res/measure/$a/err.txt"
        grep -E "^\[(warning|error)\]" "$res/measure/$a/err.txt" | head -n 3
        for t in "$res/measure/$a"/*.trace.json; do
            [ -f "$t" ] && python3 "$root/tests/trace_check.py" "$t" >/dev/null 2>&1 && echo "  trace valid: $(basename "$t")"
        done
    done
    py=$stage/dev/python
    for m in "" --pageable; do
        d=$res/measure/py$m; mkdir -p "$d"
        streamcheck --measure --format=json,text --output="$d" -- python3 "$py/seed001_swimming.py" copies $m \
            >"$d/out.txt" 2>"$d/err.txt"
        echo "seed001_swimming.py copies $m: exit $?"; grep -E "^@ (GPU|Estimated)" "$d/err.txt"
        grep -E "^\[(warning|error)\]" "$d/err.txt" | head -n 3
    done ;;
redirect)
    step "redirect keeps the order: hand-off apps and a training loop"
    # handoff with 300 rounds: past each thread's first 256 legacy
    # submissions the launches take redirect's fast path.
    for a in handoff "handoff cond 300 1" "handoff cxx 300 1" turn_taking redirect_mixed; do
        set -- $a
        [ -x "$apps/$1" ] || continue
        ref=$("$apps/$1" "${@:2}" 2>/dev/null | md5sum)
        for m in stream entry handle; do
            got=$(streamcheck --redirect=per-thread --redirect-method=$m --log-level=quiet -- "$apps/$1" "${@:2}" \
                2>/dev/null | md5sum)
            echo "$a $m: $([ "$got" = "$ref" ] && echo same output || echo DIFFERENT output)"
        done
    done
    if [ -x "$root/bench/redirect-torch.sh" ]; then
        "$root/bench/redirect-torch.sh" >"$res/redirect-torch.log" 2>&1
        tail -n 12 "$res/redirect-torch.log"
    fi ;;
bench-redirect)
    step "bench/redirect.sh"
    (cd "$stage/dev" && "$root/bench/redirect.sh" 5 5 10 4 8 16) >"$res/bench-redirect.log" 2>&1
    tail -n 16 "$res/bench-redirect.log" ;;
estimates)
    step "RESULTS.md: estimates beside measured gains"
    cp "$root/docs/RESULTS-runs.json" "$res/RESULTS-runs.json"
    # comparisons whose programs changed since the kept gains were measured:
    # measured again first (EST_REMEASURE, comma-separated keys); by default
    # those whose kept fix gains 5% or more
    if [ -z "${EST_REMEASURE:-}" ]; then
        EST_REMEASURE=$(python3 - "$res/RESULTS-runs.json" <<'PYEOF'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
keys = []
for k, c in d.get("comparisons", {}).items():
    v = c.get("values", {})
    s, f = v.get("slow") or [], v.get("fast") or []
    # the comparisons an estimates run priced (those of the table), gaining 5% or more
    if c.get("estimates") and s and f and statistics.median(f) > 0 and \
            statistics.median(s) / statistics.median(f) >= 1.05:
        keys.append(k)
print(",".join(keys))
PYEOF
)
        echo "gains measured again first: ${EST_REMEASURE:-none}"
    fi
    if [ "$EST_REMEASURE" = none ]; then EST_REMEASURE=; fi
    if [ -n "${EST_REMEASURE:-}" ]; then
        python3 "$root/bench/seeds.py" --stage "$stage" --merge --only "$EST_REMEASURE" \
            --results "$res/RESULTS.md" --raw "$res/RESULTS-runs.json" --budget-s "${EST_REMEASURE_BUDGET:-120}" \
            >"$res/remeasure.log" 2>&1
        tail -n 12 "$res/remeasure.log"
    fi
    python3 "$root/bench/seeds.py" --stage "$stage" --merge --estimates --only "${EST_ONLY:-apps,seeds}" \
        --results "$res/RESULTS.md" --raw "$res/RESULTS-runs.json" --budget-s "${EST_BUDGET:-200}" \
        --est-runs "${EST_RUNS:-1}" \
        >"$res/estimates.log" 2>&1
    tail -n 30 "$res/estimates.log"; cp "$res/RESULTS.md" "$res/RESULTS-runs.json" "$out"/ 2>/dev/null ;;
price)
    step "prices against the gains of the fixes"
    python3 "$root/bench/price_check.py" --stage "$stage" --only "${PRICE_ONLY:-c,python}" \
        --modes "${PRICE_MODES:-detect,measure}" \
        --budget-s "${PRICE_BUDGET:-420}" --out "$res/price-check.json" --keep "$res/price" \
        >"$res/price-check.md" 2>"$res/price.log"
    echo "price_check.py: exit $?"; cat "$res/price-check.md"; tail -n 3 "$res/price.log"
    cp "$res/price-check.md" "$res/price-check.json" "$out"/ 2>/dev/null ;;
profile)
    step "overhead profile"
    if [ -x "$root/tools/overhead-probe.sh" ]; then
        OUT=$res/profile "$root/tools/overhead-probe.sh" >"$res/profile.log" 2>&1
        tail -n 40 "$res/profile.log"
    else
        echo "no tools/overhead-probe.sh"
    fi ;;
ablate)
    step "overhead ablation (${AROUNDS:-4} rounds)"
    OUT=$res/ablate "$root/tools/overhead-probe.sh" --rounds "${AROUNDS:-4}" --keep "$res/ablate" \
        --arm "nohb:STREAMCHECK_TEST_ABLATE=hb" --arm "noslow:STREAMCHECK_TEST_ABLATE=slow" \
        --arm "msr:--measure" --arm "msrnoapi:--measure STREAMCHECK_TEST_ABLATE=api" \
        >"$res/ablate.log" 2>&1
    find "$res/ablate" -name '*.json' -size +2M -delete
    cat "$res/ablate.log" | tail -n 60 ;;
graphs)
    step "CUDA graphs from the host, native vs streamcheck (${GPAIRS:-7} pairs)"
    ${GCPU:+taskset -c "$GCPU"} sh "$stage/dev/side-by-side.sh" graphs capture_us,launch_us,relaunch_us,instantiate_us \
        "${GPAIRS:-7}" -- "$stage/dev/graphs" 20 200 >"$res/graphs.txt" 2>&1
    cat "$res/graphs.txt"; cp "$res/graphs.txt" "$out"/ ;;
pageable)
    step "detect mode on the DataLoader loop, pageable then pinned batches (${PAIRS:-7} pairs)"
    for pm in 0 1; do
        python3 "$root/bench/train_bench.py" --pairs "${PAIRS:-7}" --pin-memory "$pm" --no-measure \
            $([ "$pm" = 0 ] && echo --ablate drain) >"$res/pageable-$pm.txt" 2>"$out/pageable-$pm.log"
        cat "$res/pageable-$pm.txt"; cp "$res/pageable-$pm.txt" "$out"/
    done ;;
window)
    step "measured mode on the DataLoader loop: the whole run and a window (${PAIRS:-7} pairs)"
    python3 "$root/bench/train_bench.py" --pairs "${PAIRS:-7}" --no-detect --measure-window "${WINDOW:-auto}" \
        >"$res/window.txt" 2>"$out/window.log"
    grep "measure-window=" "$out/window.log" | head -n 1
    cat "$res/window.txt"; cp "$res/window.txt" "$out"/ ;;
overhead)
    ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
    loops=${OLOOPS:-gpu-pin0 gpu-pin1 host-pin0 host-pin1 gpt2 ddp-pin0 ddp-pin1}
    py=$root/tests/corpus/python
    for l in $loops; do
        steps=${OSTEPS:-100} pm=${l##*-pin}
        case $l in
        # each loop one epoch: no DataLoader starts its workers again inside the timed steps
        gpu-pin?) set -- --prog-args "--pin-memory $pm --steps $steps --warmup 15 --batch-size 128 --workers 12
                                      --samples $((128 * (steps + 15)))" ;;
        host-pin?) set -- --prog-args "--pin-memory $pm --steps $steps --warmup 15 --batch-size 64 --workers 4
                                       --samples $((64 * (steps + 15)))" ;;
        gpt2) set -- --prog "$py/gpt2_step.py" --prog-args "--steps $((steps + 10)) --warmup 10" ;;
        ddp-pin?)
            [ "$ngpu" -ge 2 ] || { echo "overhead: $l needs 2 GPUs ($ngpu here); skipped"; continue; }
            set -- --prog "$py/ddp_train.py" --launch "torchrun --standalone --nproc_per_node 2" \
                --prog-args "--pin-memory $pm --steps $((steps * 2 + 20)) --warmup 20
                             --samples $((2 * 256 * (steps * 2 + 20)))" ;;
        *) echo "overhead: unknown loop '$l'"; continue ;;
        esac
        # OARMS: more arms, NAME:SPEC;NAME:SPEC (train_bench.py --arm)
        IFS=';'; for a in ${OARMS:-}; do set -- "$@" --arm "$a"; done; unset IFS
        step "detect mode's cost on $l (${OPAIRS:-7} pairs)"
        echo "=== $l" >>"$out/overhead.log"
        NCCL_NVLS_ENABLE=0 python3 "$root/bench/train_bench.py" --pairs "${OPAIRS:-7}" --budget "${OBUDGET:-0}" \
            --no-measure "$@" >"$res/overhead-$l.txt" 2>>"$out/overhead.log"
        cat "$res/overhead-$l.txt" | tee -a "$out/overhead.txt"; tail -n 3 "$out/overhead.log"
    done ;;
copies)
    step "SC703: copy_pipeline's finding and price, multigpu_peer's output"
    mkdir -p "$res/copies"
    streamcheck --range=pipeline --format=json,text --output="$res/copies" -- "$apps/copy_pipeline" \
        >"$out/copies.txt" 2>&1
    streamcheck report --expect "$apps/copy_pipeline.expect" "$res/copies"/*.json >>"$out/copies.txt" 2>&1
    echo "copy_pipeline under streamcheck, against its expectations: exit $?" | tee -a "$out/copies.txt"
    grep -E "SC703|fixing this|^streamcheck:" "$out/copies.txt" | head -n 4
    python3 "$root/bench/price_check.py" --stage "$stage" --only copy_pipeline --out "$res/copies.json" \
        >>"$out/copies.txt" 2>&1
    grep "^| copy_pipeline" "$out/copies.txt"
    if [ -x "$apps/multigpu_peer" ]; then
        for i in 1 2 3; do
            echo "multigpu_peer native: $("$apps/multigpu_peer" 2>/dev/null)"
            echo "multigpu_peer shim:   $(streamcheck --log-level=quiet -- "$apps/multigpu_peer" 2>/dev/null)"
        done | tee -a "$out/copies.txt"
    fi ;;
kinds)
    step "what measured mode's record kinds cost (${KPAIRS:-5} pairs)"
    python3 "$root/bench/train_bench.py" --pairs "${KPAIRS:-5}" --no-detect --ablate rt,api,ext,copy \
        >"$res/kinds.txt" 2>"$out/kinds.log"
    # The host's own time a step under each arm: item_loop times its phases
    # (prepare the batch, launch the step, read the metrics), and what a
    # record kind adds inside the host's calls is what --measure's replay
    # cannot tell from the program's own work (man libstreamcheck(7)).
    echo "item_loop.py --steps 200 (medians a step, ms), ${KROUNDS:-2} rounds of each arm in turn:" >>"$res/kinds.txt"
    for round in $(seq "${KROUNDS:-2}"); do
        for arm in native measure rt api ext copy; do
            set -- python3 "$root/tests/corpus/python/item_loop.py" --steps 200 --warmup 20 --deterministic
            case $arm in
            native) "$@" >/dev/null 2>"$res/k.err" ;;
            measure) streamcheck --measure --log-level=quiet -- "$@" >/dev/null 2>"$res/k.err" ;;
            *) STREAMCHECK_TEST_ABLATE=$arm streamcheck --measure --log-level=quiet -- "$@" >/dev/null 2>"$res/k.err" ;;
            esac
            echo "  $round ${arm}: $(grep -E '^(images_per_s|phase_)' "$res/k.err" | tr '\n' ' ')" >>"$res/kinds.txt"
        done
    done
    cat "$res/kinds.txt"; cp "$res/kinds.txt" "$out"/ ;;
html)
    step "HTML reports of measured runs"
    mkdir -p "$out/html"
    py=$stage/dev/python
    for a in seed004_pipeline seed004_pipeline_fixed; do
        streamcheck --measure --format=html,json --output="$out/html" -- "$apps/$a" >/dev/null 2>"$res/html-$a.err"
        echo "$a: exit $?; $(tail -n 1 "$res/html-$a.err")"
    done
    for m in "" --pageable; do
        streamcheck --measure --format=html,json --output="$out/html" -- python3 "$py/seed004_pipeline.py" $m \
            >/dev/null 2>"$res/html-py$m.err"
        echo "seed004_pipeline.py $m: exit $?; $(tail -n 1 "$res/html-py$m.err")"
    done
    streamcheck --measure --format=html,json --output="$out/html" -- python3 "$root/tests/corpus/python/train_resnet.py" \
        --pin-memory 0 --steps 20 --warmup 5 >/dev/null 2>"$res/html-resnet.err"
    echo "train_resnet.py --pin-memory 0: exit $?; $(tail -n 1 "$res/html-resnet.err")"
    ls -la "$out/html" ;;
profiler)
    step "torch.profiler under streamcheck"
    prog=$root/tests/corpus/python/profiler_step.py
    echo "native:          $(python3 "$prog" 2>"$res/prof-native.err")"
    echo "streamcheck:     $(streamcheck --log-level=info -- python3 "$prog" 2>"$res/prof-sc.err")"
    echo "  $(grep -E '^streamcheck:' "$res/prof-sc.err" | tail -n 1)"
    echo "--measure:       $(streamcheck --measure --log-level=info -- python3 "$prog" 2>"$res/prof-msr.err")"
    grep -iE "measured mode|cupti|^@ GPU|^streamcheck:" "$res/prof-msr.err" | head -n 8
    grep -iE "warn|error" "$res/prof-msr.err" | grep -v "^streamcheck" | head -n 5 ;;
handover)
    step "CUPTI hand-over: a program with its own profiler"
    for tag in linked dlsym plugin; do
        app=measure_handover arg=""
        [ $tag = dlsym ] && arg=--dlsym
        [ $tag = plugin ] && app=measure_handover_plugin
        echo "$tag native:    $("$apps/$app" $arg 2>&1 | tail -n 1)"
        echo "$tag detect:    $(streamcheck --log-level=warning -- "$apps/$app" $arg 2>"$res/handover-$tag-detect.err" | tail -n 1)"
        grep "cannot find" "$res/handover-$tag-detect.err"
        mkdir -p "$res/handover-$tag"
        echo "$tag --measure: $(streamcheck --measure --format=json,text --output="$res/handover-$tag" -- \
            "$apps/$app" $arg 2>"$res/handover-$tag.err" | tail -n 1)"
        grep -E "^streamcheck\[|^@ GPU" "$res/handover-$tag.err" | cut -c1-240
        python3 - "$res/handover-$tag"/*.streamcheck.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
g = r["processes"][0]["gpu"] or {}
cs = {c["id"]: c["frames"][c["primary"]].get("line") for c in r["callsites"]}
print("  handed_over_ns %s, ops %s; " % (g.get("handed_over_ns"), g.get("ops")) + "; ".join(
    "%s :%s %s %s" % (f["rule"], cs.get(f["callsite"]), f["cost_basis"], f["gpu_lost_ns"]) for f in r["findings"]))
PY
    done ;;
nvtx)
    step "NVTX ranges: nvtx_ranges and nvtx_step.py (torch.cuda.nvtx.range)"
    prog=$root/tests/corpus/python/nvtx_step.py
    echo "native: $(python3 "$prog" 2>&1 | tail -n 1)"
    for run in "app:" "py:" "py-range:--range step" "py-emit:--range step:--emit-nvtx"; do
        tag=${run%%:*} rest=${run#*:} opt=${rest%%:*} arg=${rest#*:}
        [ "$arg" = "$rest" ] && arg=
        d=$res/nvtx/$tag; mkdir -p "$d"
        if [ $tag = app ]; then
            streamcheck --format=json,text,html --output="$d" -- "$apps/nvtx_ranges" >"$d/out.txt" 2>"$d/err.txt"
        else
            streamcheck $opt --format=json,text,html --output="$d" -- python3 "$prog" $arg >"$d/out.txt" 2>"$d/err.txt"
        fi
        echo "$tag ($opt $arg): exit $?, $(tail -n 1 "$d/out.txt")"
        grep -E "^@ (NVTX range|Estimated)|NVTX_INJECTION|--range" "$d/err.txt"
        python3 - "$d"/*.streamcheck.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
p = r["processes"][0]
print("  process nvtx_range %s, nvtx_range_ns %s" % (p.get("nvtx_range"), p.get("nvtx_range_ns")))
cs = {c["id"]: c for c in r["callsites"]}
for f in r["findings"][:12]:
    c = cs.get(f["callsite"]) or {}
    py = c.get("python") or []
    user = [x for x in py if "-packages/" not in x["file"] and "/lib/python3" not in x["file"]]
    at = user[0] if user else (py[0] if py else None)
    where = "%s:%s" % (at["file"].rsplit("/", 1)[-1], at["line"]) if at else \
            "frame %s" % (c["frames"][c["primary"]].get("line") if c.get("frames") else "-")
    via = py[c["via"]] if c.get("via") is not None else None
    print("  %s %-7s x%-4s %-24s range=%r%s" % (f["rule"], f["severity"], f["count"], where, f.get("nvtx_range"),
          " via %s:%s in %s" % (via["file"].split("-packages/")[-1], via["line"], via["function"]) if via else ""))
PY
        grep -B1 -A3 "^  NVTX range" "$d/err.txt" | head -n 12
    done ;;
*)
    echo "gpu-verify.sh: unknown step '$s'" >&2 ;;
esac; done
tar czf "$out/results.tgz" -C "$res" . 2>/dev/null
step "done: $out/results.tgz"
