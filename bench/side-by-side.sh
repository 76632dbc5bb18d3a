#!/bin/sh
# side-by-side.sh: runs a command natively and under streamcheck, alternating,
# REPS times each, in one run; reads "METRIC=value" from its output and
# prints the medians and their ratio (under streamcheck / native: 1.00 means
# streamcheck costs nothing; for a time metric read it the other way).
#
#   side-by-side.sh LABEL METRIC REPS [STREAMCHECK OPTIONS...] -- COMMAND [ARGS...]
#
# Environment: STREAMCHECK, the launcher (default: streamcheck on PATH).
set -eu
[ $# -ge 5 ] || { echo "usage: $0 LABEL METRIC REPS [OPTIONS...] -- COMMAND [ARGS...]" >&2; exit 2; }
label=$1 metric=$2 reps=$3
shift 3
opts=
while [ $# -gt 0 ] && [ "$1" != "--" ]; do opts="$opts $1"; shift; done
[ "${1:-}" = "--" ] || { echo "$0: missing -- before the command" >&2; exit 2; }
shift
sc=${STREAMCHECK:-streamcheck}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
value() { "$@" 2>/dev/null | sed -n "s/^$metric=//p" | tail -n 1; }
median() { sort -n | awk '{v[NR] = $1} END {if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
for r in $(seq "$reps"); do
    echo "native $(value "$@")" >>"$out/all"
    # shellcheck disable=SC2086
    echo "shim $(value "$sc" --format=json --output="$out" --log-level=quiet $opts -- "$@")" >>"$out/all"
done
a=$(awk '$1 == "native" {print $2}' "$out/all" | median)
b=$(awk '$1 == "shim" {print $2}' "$out/all" | median)
[ -n "$a" ] && [ -n "$b" ] || { echo "$label: the command printed no $metric=" >&2; exit 1; }
printf '%-28s %-18s native %14s  streamcheck %14s  ratio %.4f  (median of %s)\n' \
    "$label" "$metric" "$a" "$b" "$(echo "$b $a" | awk '{print $1 / $2}')" "$reps"
# Every run, in order, so the spread is visible next to the medians.
printf '  runs: native %s\n        streamcheck %s\n' \
    "$(awk '$1 == "native" {printf "%s ", $2}' "$out/all")" "$(awk '$1 == "shim" {printf "%s ", $2}' "$out/all")"
