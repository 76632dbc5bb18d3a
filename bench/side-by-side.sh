#!/bin/sh
# side-by-side.sh: runs a command natively and under streamcheck, alternating,
# REPS times each, in one run; reads "METRIC=value" from its output and
# prints, for each metric, the medians of the two arms and their ratio
# (under streamcheck / native: 1.00 means streamcheck costs nothing; for a
# time metric read it the other way), and the spread: the ratio of each
# pair (run r under streamcheck / native run r), their median, min and max.
#
#   side-by-side.sh LABEL METRICS REPS [STREAMCHECK OPTIONS...] -- COMMAND [ARGS...]
#
# METRICS is one name or several, comma-separated, read from the same runs.
# Environment: STREAMCHECK, the launcher (default: streamcheck on PATH).
set -eu
[ $# -ge 5 ] || { echo "usage: $0 LABEL METRICS REPS [OPTIONS...] -- COMMAND [ARGS...]" >&2; exit 2; }
label=$1 metrics=$2 reps=$3
shift 3
opts=
while [ $# -gt 0 ] && [ "$1" != "--" ]; do opts="$opts $1"; shift; done
[ "${1:-}" = "--" ] || { echo "$0: missing -- before the command" >&2; exit 2; }
shift
sc=${STREAMCHECK:-streamcheck}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
median() { sort -n | awk '{v[NR] = $1} END {if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# arm r METRIC=value lines of one run into $out/all
keep() { sed -n "s/^\([A-Za-z_][A-Za-z0-9_]*\)=\([0-9.eE+-]*\)\$/$1 $2 \1 \2/p" >>"$out/all"; }
for r in $(seq "$reps"); do
    "$@" 2>&1 | keep native "$r"
    # shellcheck disable=SC2086
    "$sc" --format=json --output="$out" --log-level=quiet $opts -- "$@" 2>&1 | keep shim "$r"
done
# A metric printed several times in a run: its last value.
awk '{v[$1 " " $2 " " $3] = $4} END {for (k in v) print k, v[k]}' "$out/all" | sort -k2,2n -k1,1 >"$out/last"
mv "$out/last" "$out/all"
status=0
for metric in $(echo "$metrics" | tr ',' ' '); do
    a=$(awk -v m="$metric" '$1 == "native" && $3 == m {print $4}' "$out/all" | median)
    b=$(awk -v m="$metric" '$1 == "shim" && $3 == m {print $4}' "$out/all" | median)
    if [ -z "$a" ] || [ -z "$b" ]; then
        echo "$label: the command printed no $metric=" >&2
        status=1
        continue
    fi
    printf '%-28s %-18s native %14s  streamcheck %14s  ratio %.4f  (median of %s)\n' \
        "$label" "$metric" "$a" "$b" "$(echo "$b $a" | awk '{print $1 / $2}')" "$reps"
    # The pairs' ratios: run r under streamcheck against native run r.
    awk -v m="$metric" '$3 == m {v[$1 " " $2] = $4}
        END {for (k in v) {split(k, p, " "); if (p[1] == "shim" && v["native " p[2]] > 0)
             print v[k] / v["native " p[2]]}}' "$out/all" | sort -n >"$out/ratios"
    printf '  pairs: ratio median %.4f, min %.4f, max %.4f (%s pairs)\n' "$(median <"$out/ratios")" \
        "$(head -n 1 "$out/ratios")" "$(tail -n 1 "$out/ratios")" "$(wc -l <"$out/ratios" | tr -d ' ')"
    # Every run, in order, so the spread is visible next to the medians.
    printf '  runs: native %s\n        streamcheck %s\n' \
        "$(awk -v m="$metric" '$1 == "native" && $3 == m {printf "%s ", $4}' "$out/all")" \
        "$(awk -v m="$metric" '$1 == "shim" && $3 == m {printf "%s ", $4}' "$out/all")"
done
exit $status
