#!/bin/sh
# seeds.sh: the seed-exercise apps (testapps/seed*.cu) on the simulator, in
# every mode the self-test does not run: each mode plainly and under
# streamcheck, same output and exit status, the report exactly what the
# app declares (the declarations hold in every mode), and the same result
# in all modes and twins of one lesson.  Also: every seed kernel has a CPU
# twin under its mangled name, mps-farm.sh skips without a GPU, and
# bench/seeds.py writes the placeholder docs/RESULTS.md holds.  TAP.
. "${top_builddir:-.}/tests/env.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

# LESSON APP ARGS...: one run of a mode; all runs of a lesson must print the same.
run() {
    lesson=$1 app=$2
    shift 2
    name="$app${*:+ $*}"
    d=$tmp/$(echo "$name" | tr ' ' _)
    mkdir -p "$d"
    LD_LIBRARY_PATH="$SC_SIMDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$SC_APPS/$app" "$@" >"$d/plain.out" 2>"$d/plain.err"
    p=$?
    "$SC_CLI" --simulate --format=json --output="$d" --log-level=quiet -- "$SC_APPS/$app" "$@" >"$d/shim.out" 2>"$d/shim.err"
    s=$?
    why=
    if [ $p -ne 0 ] || [ $s -ne 0 ]; then why="exit $p plainly, $s under streamcheck"
    elif ! cmp -s "$d/plain.out" "$d/shim.out"; then why="output differs under streamcheck"
    elif ! grep -q '_ms=' "$d/plain.err"; then why="no time on stderr"
    elif [ "${check:-expect}" = expect ] &&
         ! "$SC_CLI" report --expect "$SC_APPS/$app.expect" "$d"/*.json >"$d/expect" 2>&1; then
        why="report differs from $app.expect: $(tr '\n' ' ' <"$d/expect" | cut -c1-300)"
    fi
    if [ -f "$tmp/$lesson.first" ]; then
        cmp -s "$tmp/$lesson.first" "$d/plain.out" || why="${why:+$why; }result differs from $(cat "$tmp/$lesson.name")"
    else
        cp "$d/plain.out" "$tmp/$lesson.first"
        echo "$name" >"$tmp/$lesson.name"
    fi
    if [ -z "$why" ]; then ok "$name"; else notok "$name: $why"; sed 's/^/# /' "$d/shim.err" | tail -n 5; fi
}

run matmul seed000_matmul_fixed 1
run matmul seed000_matmul_fixed 2
run matmul seed000_matmul_fixed 4
run matmul seed000_matmul 1
run matmul seed000_matmul 2
run matmul seed000_matmul 4
run copies seed001_copies
run copies seed001_copies_fixed
run tensor seed001_tensor_pow concurrent
run tensor seed001_tensor_pow serial
run priority seed001_priority priority
run priority seed001_priority equal
run farm seed002_farm
run farm seed002_farm 4 48 4
run sin seed003_nested_sin events
run sin seed003_nested_sin one
# hostsync: the seed's own host synchronizations; its SC402 count depends on
# timing, so only the output is checked.
check=output
run sin seed003_nested_sin hostsync
check=expect
run pipeline seed004_pipeline streamed
run pipeline seed004_pipeline sequential
run pipeline seed004_pipeline_fixed streamed
run pipeline seed004_pipeline_fixed sequential
run peak seed004_pin_peak alloc
run peak seed004_pin_peak later

# Redirect keeps the results of the legacy-stream version (PG semantics are
# kept within the thread).
d=$tmp/redirect
mkdir -p "$d"
"$SC_CLI" --simulate --redirect=per-thread --format=json --output="$d" --log-level=quiet -- \
    "$SC_APPS/seed000_matmul" >"$d/out" 2>"$d/err"
if [ $? -eq 0 ] && cmp -s "$d/out" "$tmp/matmul.first"; then ok "seed000_matmul under --redirect=per-thread: same result"
else notok "seed000_matmul under --redirect=per-thread"; sed 's/^/# /' "$d/err" | tail -n 5; fi

# The twin table has every seed kernel, under the name nvcc gives it.
if [ -n "$NVCC" ] && [ -x "$NVCC" ]; then
    printf '#include "sc_seed_kernels.cuh"\n' >"$tmp/k.cu"
    if "$NVCC" -c -I"$abs_top_srcdir/kernels" -o "$tmp/k.o" "$tmp/k.cu" 2>"$tmp/k.err"; then
        nm "$tmp/k.o" | awk '$2 == "T" && $3 ~ /^_Z/ && $3 !~ /__device_stub__/ {print $3}' | sort >"$tmp/kernels"
        sed -n 's/^SC_TWIN(\([^,]*\),.*/\1/p' "$abs_top_srcdir/kernels/twins.def" | sort >"$tmp/twins"
        missing=$(comm -23 "$tmp/kernels" "$tmp/twins" | tr '\n' ' ')
        if [ -s "$tmp/kernels" ] && [ -z "$missing" ]; then ok "every seed kernel has a twin ($(wc -l <"$tmp/kernels") kernels)"
        else notok "kernels without a twin in twins.def: ${missing:-none found}"; fi
    else notok "nvcc cannot compile sc_seed_kernels.cuh"; sed 's/^/# /' "$tmp/k.err"; fi
else skip "seed kernel twins" "no nvcc"; fi

# mps-farm.sh: usage errors, and a skip where it cannot run.
farm=$abs_top_srcdir/testapps/mps/mps-farm.sh
sh "$farm" -n 0 >/dev/null 2>&1
if [ $? -eq 2 ]; then ok "mps-farm.sh -n 0 is a usage error"; else notok "mps-farm.sh -n 0 should exit 2"; fi
if nvidia-smi -L >/dev/null 2>&1; then
    skip "mps-farm.sh without a GPU" "a GPU is here (make bench-seeds runs it)"
else
    STREAMCHECK=$SC_CLI TESTAPPS=$SC_APPS sh "$farm" >"$tmp/farm.out" 2>"$tmp/farm.err"
    st=$?
    if [ $st -eq 77 ] && grep -q "no GPU" "$tmp/farm.err"; then ok "mps-farm.sh skips (77) without a GPU"
    else notok "mps-farm.sh without a GPU exited $st"; sed 's/^/# /' "$tmp/farm.err"; fi
fi

# bench/seeds.py writes the placeholder that docs/RESULTS.md holds until a GPU run.
if [ -n "$PYTHON3" ]; then
    if "$PYTHON3" -B "$abs_top_srcdir/bench/seeds.py" --placeholder "$tmp/RESULTS.md" >/dev/null 2>&1 &&
       cmp -s "$tmp/RESULTS.md" "$abs_top_srcdir/docs/RESULTS.md"; then
        ok "docs/RESULTS.md is bench/seeds.py's placeholder"
    elif grep -q "^Generated by bench/seeds.py on" "$abs_top_srcdir/docs/RESULTS.md"; then
        ok "docs/RESULTS.md holds a GPU run of bench/seeds.py"
    else
        notok "docs/RESULTS.md is neither bench/seeds.py's placeholder nor its output"
    fi
else skip "docs/RESULTS.md" "no python3"; fi
echo "1..$n"
exit 0
