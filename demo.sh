#!/bin/sh
# demo.sh: from a fresh clone to a first report.
#
# Installs the Debian packages that are missing (with sudo when not root),
# builds streamcheck, and runs a few of its hazard apps under it: on the GPU
# when this machine has one, on streamcheck's CPU simulator otherwise.
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

# Run from the build tree: tests/env.sh says where the pieces are.
. ./tests/env.sh
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    where="the GPU" sim=
else
    where="the CPU simulator (no GPU here)" sim=--simulate
fi
run() {
    echo
    echo "================ streamcheck $sim testapps/$1   (on $where)"
    echo "---------------- $2"
    ./src/streamcheck $sim "testapps/$1" || true
}
run default_stream "a second stream's work serializes with the legacy default stream (SC101)"
run pageable_copy "cudaMemcpyAsync from malloc'd memory is not asynchronous (SC203)"
run device_sync "cudaDeviceSynchronize where one stream's result was needed (SC401)"
run default_stream_fixed "the same work as default_stream, fixed: no findings"
echo
echo "demo: every bundled app, checked against what it declares: ./src/streamcheck --selftest $sim"
echo "demo: the rules: ./src/streamcheck --list-rules; the manual: man -l man/streamcheck.1"
