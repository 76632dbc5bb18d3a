#!/bin/sh
# tests/sim/exports.sh: the simulated libraries export exactly the
# symbols NVIDIA's do (src/sim/*.exports), under the same sonames and
# version nodes, and nothing of the simulator's own; the runtime and
# cuBLAS do not link the driver.
. "${top_builddir:?}/tests/env.sh"

srcdir="$abs_top_srcdir/src/sim"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-exports.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=1; echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else not_ok "$1"; fi; }

echo "1..19"
for spec in cuda:1: cudart:13:libcudart.so.13 cublas:13:libcublas.so.13 cupti:13:libcupti.so.13; do
    lib=${spec%%:*}; rest=${spec#*:}; major=${rest%%:*}; node=${rest#*:}
    so="$SC_SIMDIR/lib$lib.so.$major"
    nm -D --defined-only "$so" | awk '{print $3}' > "$tmp/$lib.raw"
    sed 's/@.*//' "$tmp/$lib.raw" | grep -vx "$node" | LC_ALL=C sort > "$tmp/$lib.sim"
    grep -v '^#' "$srcdir/lib$lib.exports" | LC_ALL=C sort > "$tmp/$lib.real"
    check "lib$lib.so.$major exports exactly NVIDIA's symbols" \
        'cmp -s "$tmp/$lib.sim" "$tmp/$lib.real" || { diff "$tmp/$lib.real" "$tmp/$lib.sim" | head -20 | sed "s/^/# /"; false; }'
    check "lib$lib.so.$major has soname lib$lib.so.$major" \
        'readelf -d "$so" | grep -q "SONAME.*\[lib$lib.so.$major\]"'
    if [ -n "$node" ]; then
        check "every lib$lib symbol is under version node $node" \
            '! grep -v "@@$node\$" "$tmp/$lib.raw" | grep -vx "$node" | grep -q .'
        check "lib$lib does not link the driver" \
            '! readelf -d "$so" | grep -q "NEEDED.*libcuda" && ! nm -D --undefined-only "$so" | grep -q " cu[A-Z]"'
    else
        check "libcuda symbols are unversioned like NVIDIA's" '! grep -q @ "$tmp/$lib.raw"'
        check "libcuda implements the entry points of drv_api.def" \
            '[ "$(nm -D --defined-only "$so" | grep -c " T ")" -eq "$(grep -c "^SC_DRV(" "$srcdir/drv_api.def")" ]'
    fi
done
# libcuda-procs.txt maps (name, version, variant) onto exactly the exports.
awk '!/^#/ {print $4}' "$srcdir/libcuda-procs.txt" | LC_ALL=C sort > "$tmp/procs"
check "libcuda-procs.txt covers each driver export once" 'cmp -s "$tmp/procs" "$tmp/cuda.real"'
check "libcuda-procs.txt has no duplicate (name, version, variant)" \
    '[ -z "$(awk "!/^#/ {print \$1, \$2, \$3}" "$srcdir/libcuda-procs.txt" | sort | uniq -d)" ]'
check "the driver answers cuGetProcAddress for itself" \
    'grep -qx "cuGetProcAddress 12000 - cuGetProcAddress_v2" "$srcdir/libcuda-procs.txt"'
exit $failed
