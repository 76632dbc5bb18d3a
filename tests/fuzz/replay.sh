#!/bin/sh
# replay.sh: runs the fuzz seed corpora through the fuzz targets' entry
# points, built with the ordinary compiler (make fuzz does the fuzzing).
set -u
: "${top_srcdir:?run through make check}" "${top_builddir:?run through make check}"
. "$top_srcdir/tests/golden/tap.sh"
for t in json suppress; do
    out=$("$top_builddir/tests/fuzz/replay-$t" "$top_srcdir/tests/fuzz/corpus/$t" 2>&1)
    st=$?
    if [ $st -eq 0 ]; then
        ok "fuzz-$t corpus: $out"
    else
        not_ok "fuzz-$t corpus (exit $st)"
        printf '%s\n' "$out" | tail -20 | diag
    fi
done
tap_done
