#!/bin/sh
# train-bench.sh: bench/train_bench.py's own machinery, without a GPU (its
# figures need one): a fake nvidia-smi says there is one, a fake launcher
# runs the command as given, and a fake loop prints a rate and one loss line
# per rank, in either order.  --budget stops before the pair that would
# outrun it and still prints the summary; the rate's unit is the loop's;
# the ranks' loss bits are compared by rank; a --prog that does not exist
# is refused; --arm adds an arm whose settings reach the program.  TAP.
. "${top_builddir:-.}/tests/env.sh"
echo "1..4"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-tb.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
bench=$abs_top_srcdir/bench/train_bench.py
if [ -z "$PYTHON3" ]; then
    for i in 1 2 3 4; do echo "ok $i - train_bench.py # SKIP no python3"; done
    exit 0
fi
mkdir "$tmp/bin"
printf '#!/bin/sh\necho "GPU 0: a fake"\n' >"$tmp/bin/nvidia-smi"
printf '#!/bin/sh\nwhile [ "$1" != "--" ]; do shift; done\nshift\nexec "$@"\n' >"$tmp/bin/launch"
chmod +x "$tmp/bin/nvidia-smi" "$tmp/bin/launch"
cat >"$tmp/loop.py" <<'PY'
import os, sys, time
time.sleep(0.4)
first, second = (1, 0) if os.getpid() % 2 else (0, 1)
for r in (first, second):
    print(f"rank={r} loss_sum={r + 1}.0 loss_hex=0x1p+{r} steps=3")
print(f"tokens_per_s={os.environ.get('FAKE_RATE', '1000.0')}", file=sys.stderr)
PY

PATH=$tmp/bin:$PATH STREAMCHECK=launch "$PYTHON3" "$bench" --pairs 5 --budget 1.5 --no-measure \
    --prog "$tmp/loop.py" --prog-args "" >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st = 0 ] && grep -q '^train_bench: --budget 1.5 s: 1 of 5 pairs run$' "$tmp/err" &&
    grep -q '^loop.py (), 1 of 5 pairs (--budget 1.5 s)$' "$tmp/out" &&
    grep -q '^  native  *median  *1000.0 tokens/s' "$tmp/out"
echo "$([ $? = 0 ] && echo ok || echo not ok) 1 - --budget: one pair of 5 fits 1.5 s, and the summary says so, in the loop's unit"
sed 's/^/# /' "$tmp/out"

grep -q '^  loss: the same bits in all 2 runs (0x1p+0,0x1p+1)$' "$tmp/out"
echo "$([ $? = 0 ] && echo ok || echo not ok) 2 - the ranks' loss bits are compared by rank, whichever printed first"

PATH=$tmp/bin:$PATH "$PYTHON3" "$bench" --prog "$tmp/nothing.py" >/dev/null 2>"$tmp/err2"
[ $? = 2 ] && grep -q -- "--prog $tmp/nothing.py: no such file" "$tmp/err2"
echo "$([ $? = 0 ] && echo ok || echo not ok) 3 - a --prog that does not exist is refused"

PATH=$tmp/bin:$PATH STREAMCHECK=launch "$PYTHON3" "$bench" --pairs 1 --no-measure --prog "$tmp/loop.py" \
    --prog-args "" --arm "fast:FAKE_RATE=2000.0 --log-level=quiet" >"$tmp/out4" 2>"$tmp/err4"
[ $? = 0 ] && grep -q '^  arm-fast  *median  *2000.0 tokens/s' "$tmp/out4" &&
    grep -q '^  streamcheck  *median  *1000.0 tokens/s' "$tmp/out4" && grep -q 'ratio 2.0000' "$tmp/out4"
echo "$([ $? = 0 ] && echo ok || echo not ok) 4 - --arm NAME:SPEC: one more arm, its VAR=VALUE in the program's environment"
