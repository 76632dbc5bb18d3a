#!/bin/sh
# tests/sim/twin-names.sh: every kernel nvcc emits for
# kernels/sc_kernels.cuh, kernels/sc_sim_kernels.cuh and
# kernels/sc_seed_kernels.cuh has a CPU twin
# under its mangled name, and every twin names such a kernel, so renaming
# a kernel cannot silently lose its twin.
. "${top_builddir:?}/tests/env.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-twins.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
printf '#include "sc_kernels.cuh"\n#include "sc_sim_kernels.cuh"\n#include "sc_seed_kernels.cuh"\n' > "$tmp/names.cu"
if ! "$NVCC" -cubin -arch=sm_90 -I"$abs_top_srcdir/kernels" -o "$tmp/names.cubin" \
        "$tmp/names.cu" >"$tmp/nvcc.log" 2>&1; then
    echo "1..1"
    echo "not ok 1 - nvcc -cubin of the kernel headers"
    sed 's/^/# /' "$tmp/nvcc.log"
    exit 1
fi
# Kernels are the entry functions of the cubin (STO_CUDA_ENTRY, 0x10, in
# st_other).
readelf -sW "$tmp/names.cubin" | awk '/ FUNC / && /<other>: 10\]/ {print $NF}' \
    | LC_ALL=C sort -u > "$tmp/kernels"
"$abs_top_builddir/tests/sim/twin-list" | LC_ALL=C sort -u > "$tmp/twins"

total=$(($(wc -l < "$tmp/kernels") + $(wc -l < "$tmp/twins") + 1))
echo "1..$total"
n=0
failed=0
n=$((n + 1))
if [ -s "$tmp/kernels" ]; then echo "ok $n - nvcc emitted kernels"
else echo "not ok $n - nvcc emitted no kernels"; failed=1; fi
while read -r k; do
    n=$((n + 1))
    if grep -qx "$k" "$tmp/twins"; then echo "ok $n - kernel $k has a twin"
    else echo "not ok $n - kernel $k has no twin in kernels/twins.def"; failed=1; fi
done < "$tmp/kernels"
while read -r t; do
    n=$((n + 1))
    if grep -qx "$t" "$tmp/kernels"; then echo "ok $n - twin $t is a kernel nvcc emits"
    else echo "not ok $n - twin $t names no kernel of the headers"; failed=1; fi
done < "$tmp/twins"
exit $failed
