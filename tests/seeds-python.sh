#!/bin/sh
# seeds-python.sh: the PyTorch versions of the seed exercises
# (testapps/python/seed*.py), each way each seed contrasts, on a GPU: the
# same stdout plainly, under streamcheck and under --redirect=per-thread.
# Where torch or a GPU is missing the scripts exit 77, and this says SKIP
# (the TAP driver would take 77 for an error).  TAP.
. "${top_builddir:-.}/tests/env.sh"
py=${PYTHON3:-python3}
dir=$abs_top_srcdir/testapps/python
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE
n=0

# Every script at least parses, here too.
for f in "$dir"/seed*.py; do
    n=$((n + 1))
    if "$py" -c 'import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])' "$f" 2>"$tmp/err"; then
        echo "ok $n - $(basename "$f") parses"
    else
        echo "not ok $n - $(basename "$f") does not parse"; sed 's/^/# /' "$tmp/err"
    fi
done

"$py" "$dir/seed002_farm.py" --items 1 --size 64 >/dev/null 2>"$tmp/probe"
case $? in
0) reason= ;;
77) reason=$(tail -n 1 "$tmp/probe") ;;
*) reason= ;;
esac

# SCRIPT ARGS...: plainly, under streamcheck, under redirect; same stdout.
variant() {
    n=$((n + 1))
    name="$*"
    if [ -n "$reason" ]; then echo "ok $n - $name # SKIP $reason"; return; fi
    d=$tmp/$n
    mkdir -p "$d"
    script=$dir/$1
    shift
    "$py" "$script" "$@" >"$d/plain.out" 2>"$d/plain.err"; a=$?
    "$SC_CLI" --format=json --output="$d" --log-level=quiet -- "$py" "$script" "$@" >"$d/shim.out" 2>"$d/shim.err"; b=$?
    "$SC_CLI" --redirect=per-thread --format=json --output="$d" --log-level=quiet -- "$py" "$script" "$@" \
        >"$d/redir.out" 2>"$d/redir.err"; c=$?
    if [ $a -eq 0 ] && [ $b -eq 0 ] && [ $c -eq 0 ] && [ -s "$d/plain.out" ] &&
       cmp -s "$d/plain.out" "$d/shim.out" && cmp -s "$d/plain.out" "$d/redir.out" &&
       grep -q '_ms=' "$d/plain.err"; then
        echo "ok $n - $name"
    else
        echo "not ok $n - $name (exit $a/$b/$c)"
        for f in plain.out shim.out redir.out; do sed "s/^/# $f: /" "$d/$f"; done
        tail -n 5 "$d/shim.err" | sed 's/^/# /'
    fi
}

variant seed000_matmul_streams.py --streams 1 --size 256 --reps 2
variant seed000_matmul_streams.py --streams 4 --size 256 --reps 2
variant seed000_matmul_streams.py --default-stream --size 256 --reps 2
variant seed001_swimming.py copies --count 4 --size 256 --chunk 65536
variant seed001_swimming.py copies --pageable --count 4 --size 256 --chunk 65536
variant seed001_swimming.py tensorcores --count 4 --size 256
variant seed001_swimming.py tensorcores --serial --count 4 --size 256
variant seed001_swimming.py priority --count 4 --size 512
variant seed001_swimming.py priority --equal --count 4 --size 512
variant seed002_farm.py --items 4 --size 256
variant seed003_nested_sin.py --mode gpu --size 65536 --iters 3
variant seed003_nested_sin.py --mode streams --size 65536 --iters 3
variant seed003_nested_sin.py --mode events --size 65536 --iters 3
variant seed004_pipeline.py --iters 4 --size 256
variant seed004_pipeline.py --pageable --iters 4 --size 256
variant seed004_pin_peak.py --mode alloc --mib 16
variant seed004_pin_peak.py --mode later --mib 16
echo "1..$n"
exit 0
