#!/bin/sh
# redirect.sh: what --redirect=per-thread buys, against the recompile it
# imitates.  For T host threads on the legacy stream (testapps/
# multithread_default_stream), in one run: the plain build (once), the
# plain build under streamcheck --redirect=per-thread by each method
# (entry, handle, stream), and the build with nvcc --default-stream
# per-thread.  Median of REPS runs each, with CUDA_DEVICE_MAX_CONNECTIONS at
# its default and at 32.  The ratio is the speed-up of redirect over the
# speed-up of the recompile (t_recompiled / t_redirected): 1.00 means
# redirect is as good.  Checksums of all variants must be identical.
# Needs a GPU.
#
#   redirect.sh [REPS [SPIN_MS [KERNELS [THREADS...]]]]
# Environment: STREAMCHECK (launcher), TESTAPPS (directory of the apps).
set -eu
reps=${1:-5}
spin=${2:-5}
kernels=${3:-10}
shift $(( $# < 3 ? $# : 3 ))
threads=${*:-4 8 16}
sc=${STREAMCHECK:-streamcheck}
apps=${TESTAPPS:-$(dirname "$("$sc" --help >/dev/null 2>&1 && command -v "$sc")")/../libexec/streamcheck/testapps}
plain=$apps/multithread_default_stream
pt=$apps/multithread_default_stream_pt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -n | awk '{v[NR] = $1} END {if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# run NAME COMMAND...: one timed run; elapsed goes to $tmp/NAME.t, output to $tmp/NAME.out
run() {
    name=$1; shift
    "$@" >"$tmp/out" 2>"$tmp/err" || { echo "redirect.sh: $name failed:" >&2; cat "$tmp/err" >&2; exit 1; }
    sed -n 's/^elapsed_ms=//p' "$tmp/err" >>"$tmp/$name.t"
    cat "$tmp/out" >>"$tmp/$name.out"
}
printf '%-7s %-3s %9s %9s %9s %9s %11s %7s %7s %7s %s\n' conn T plain_ms entry_ms handle_ms stream_ms recompiled_ms entry handle stream checksums
status=0
for conn in default 32; do
    for t in $threads; do
        rm -f "$tmp"/*.t "$tmp"/*.out
        if [ "$conn" = default ]; then unset CUDA_DEVICE_MAX_CONNECTIONS || true
        else CUDA_DEVICE_MAX_CONNECTIONS=$conn; export CUDA_DEVICE_MAX_CONNECTIONS; fi
        run plain "$plain" "$t" "$spin" "$kernels"
        for r in $(seq "$reps"); do
            for m in entry handle stream; do
                run $m "$sc" --redirect=per-thread --redirect-method=$m --format=json --output="$tmp" --log-level=quiet -- "$plain" "$t" "$spin" "$kernels"
            done
            run recompiled "$pt" "$t" "$spin" "$kernels"
        done
        unset CUDA_DEVICE_MAX_CONNECTIONS || true
        p=$(median <"$tmp/plain.t") c=$(median <"$tmp/recompiled.t")
        e=$(median <"$tmp/entry.t") h=$(median <"$tmp/handle.t") s=$(median <"$tmp/stream.t")
        same=identical
        for v in entry handle stream recompiled; do
            # Every run of a variant printed the plain run's line.
            [ "$(sort -u "$tmp/$v.out")" = "$(cat "$tmp/plain.out")" ] || { same=DIFFERENT; status=1; }
        done
        printf '%-7s %-3s %9s %9s %9s %9s %11s %7.3f %7.3f %7.3f %s\n' "$conn" "$t" "$p" "$e" "$h" "$s" "$c" \
            "$(echo "$c $e" | awk '{print $1 / $2}')" "$(echo "$c $h" | awk '{print $1 / $2}')" \
            "$(echo "$c $s" | awk '{print $1 / $2}')" "$same"
        echo "  conn=$conn T=$t" >>"$tmp/raw"
        for v in plain entry handle stream recompiled; do
            printf '      %-10s %s\n' "$v" "$(tr '\n' ' ' <"$tmp/$v.t")" >>"$tmp/raw"
        done
    done
done
echo "runs, in ms, in the order above:"
cat "$tmp/raw"
exit $status
