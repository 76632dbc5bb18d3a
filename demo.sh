#!/bin/sh
# demo.sh: from a fresh clone to a first report.
#
# Installs the Debian packages that are missing (with sudo when not root),
# builds streamcheck, and runs a hazard app under it and then its fix: on the
# GPU when this machine has one, on streamcheck's CPU simulator otherwise.
# Needs the CUDA 13 toolkit (nvcc) at /usr/local/cuda or CUDA_HOME.
set -e
cd "$(dirname "$0")"

packages="autoconf automake libtool pkg-config make gcc g++ check libunwind-dev libdw-dev python3 python3-jsonschema groff-base"
missing=
for p in $packages; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "demo: installing$missing"
    if [ "$(id -u)" -eq 0 ]; then sudo=; else sudo=sudo; fi
    $sudo apt-get update
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
fi

[ -x configure ] || ./autogen.sh
[ -f Makefile ] || ./configure --with-cuda="${CUDA_HOME:-/usr/local/cuda}"
make -j"$(nproc 2>/dev/null || echo 2)"

# The launcher finds the shim and the test apps beside it in the build tree.
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    where="the GPU" sim=
else
    where="the CPU simulator: no GPU here" sim=--simulate
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/streamcheck-demo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
elapsed() { sed -n 's/^elapsed_ms=//p' "$1"; }

echo
echo "================ streamcheck $sim testapps/host_sync_loop   (on $where)"
echo "---------------- each of 10 steps: 10 ms of GPU work, cudaStreamSynchronize, then 8 ms of host work"
echo "---------------- before the next launch, so the GPU idles while the host works"
./src/streamcheck $sim testapps/host_sync_loop 10 10 8 each >"$tmp/hazard.out" 2>"$tmp/hazard.err" || true
cat "$tmp/hazard.out" "$tmp/hazard.err"

echo
echo "================ the fix: the same steps, one cudaStreamSynchronize after the loop"
./src/streamcheck $sim testapps/host_sync_loop 10 10 8 end >"$tmp/fixed.out" 2>"$tmp/fixed.err" || true
cat "$tmp/fixed.out"; grep "^elapsed_ms=" "$tmp/fixed.err"
grep -E '^@ (Estimated cost|All fixed)|^streamcheck:' "$tmp/fixed.err"

echo
saved=$(grep -m1 '^  Saves' "$tmp/hazard.err" | sed 's/.*fixing this saves \([0-9.]* [a-z]*\).*/\1/')
a=$(elapsed "$tmp/hazard.err") b=$(elapsed "$tmp/fixed.err")
if [ -n "$a" ] && [ -n "$b" ]; then
    echo "demo: the hazard ran in $a ms and its fix in $b ms; streamcheck predicted the fix would save ${saved:-?}."
fi
echo "demo: more hazards and their fixes: ./src/streamcheck $sim testapps/pageable_copy, testapps/pageable_copy_fixed,"
echo "      testapps/multithread_default_stream (and the same with --redirect per-thread)"
echo "demo: every bundled app, checked against what it declares: ./src/streamcheck --selftest $sim"
echo "demo: the rules: ./src/streamcheck --list-rules; the manual: man -l man/streamcheck.1"
