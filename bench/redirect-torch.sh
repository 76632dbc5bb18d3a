#!/bin/sh
# redirect-torch.sh: a PyTorch training loop (bench/torch_train.py) natively
# and under streamcheck --redirect=per-thread with every method: the summed
# loss must be the same bits every time, and the throughput within a few
# percent of native.  Native runs twice first, to show the loop itself is
# reproducible.  Needs a GPU and torch; exits 1 on a differing loss.
# The default batch, 512, makes the loop wait on the GPU, so the throughput
# says what redirect costs a training loop; at 64 the loop is bound by the
# host's launch rate, whose run-to-run spread on a shared host (20% and
# more) hides a difference of a few percent (bench/train_bench.py measures
# that case with --batch-size 64 and more pairs).
#
#   redirect-torch.sh [REPS [STEPS [BATCH]]]
# Environment: STREAMCHECK (launcher, default streamcheck on PATH), PYTHON.
set -eu
reps=${1:-3}
steps=${2:-60}
batch=${3:-512}
sc=${STREAMCHECK:-streamcheck}
py=${PYTHON:-python3}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -n | awk '{v[NR] = $1} END {if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
run() {   # run NAME COMMAND...: one run; loss bits and images/s appended to $tmp/NAME
    name=$1; shift
    out=$("$@" 2>"$tmp/err") || { echo "redirect-torch.sh: $name failed:" >&2; cat "$tmp/err" >&2; exit 1; }
    echo "$out" | sed -n 's/^loss_sum=\([^ ]*\) loss=\([^ ]*\) images_per_sec=\(.*\)$/\1 \2 \3/p' >>"$tmp/$name"
}
for r in $(seq "$reps"); do
    run native "$py" "$here/torch_train.py" "$steps" "$batch"
    for m in stream entry handle; do
        run "$m" "$sc" --redirect=per-thread --redirect-method=$m --format=json --output="$tmp/rep-$m" \
            --log-level=quiet -- "$py" "$here/torch_train.py" "$steps" "$batch"
    done
done
want=$(head -n 1 "$tmp/native" | awk '{print $1}')
status=0
printf '%-7s %-28s %-10s %12s %8s %s\n' variant loss_sum loss images_per_s ratio same_bits
nat=$(awk '{print $3}' "$tmp/native" | median)
for v in native stream entry handle; do
    same=yes
    awk -v w="$want" '$1 != w {exit 1}' "$tmp/$v" || { same=NO; status=1; }
    ips=$(awk '{print $3}' "$tmp/$v" | median)
    printf '%-7s %-28s %-10s %12s %8.3f %s\n' "$v" "$(head -n 1 "$tmp/$v" | awk '{print $1}')" \
        "$(head -n 1 "$tmp/$v" | awk '{print $2}')" "$ips" "$(echo "$ips $nat" | awk '{print $1 / $2}')" "$same"
done
for m in stream entry handle; do
    f=$(ls "$tmp/rep-$m"/*.json 2>/dev/null | head -n 1)
    [ -n "$f" ] && echo "$m: $(sed -n 's/.*"\(handoffs\|handoff_waits\)": \([0-9]*\).*/\1=\2/p' "$f" | head -n 2 | tr '\n' ' ')"
done
exit $status
