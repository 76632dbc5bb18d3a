#!/bin/sh
# tools/stage-gpu.sh: prepare the ignored .stage folder for a lent GPU.
#
# Installs the configured build (configure --prefix=$PWD/.stage), copies in
# the shared libraries the GPU host lacks (libunwind, libdw, libelf) and the
# developer pieces tools/gpu-session.sh uses (.stage/dev).  Then run, on the
# GPU, with .stage carried:  tools/gpu-session.sh [STEP...]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
stage=$(sed -n "s/^prefix = //p" Makefile)
case $stage in "$root"/*) ;; *) echo "stage-gpu.sh: configure with --prefix=\$PWD/.stage first (prefix is $stage)" >&2; exit 2 ;; esac
make -s install >/dev/null
make -s tests/late_dlopen tests/libscdlopen.la tests/dlopen_helper.expect bench/launch_overhead bench/queue_mapping \
    bench/graphs
for l in libunwind.so.8 libdw.so.1 libelf.so.1; do
    p=$(ldconfig -p | awk -v l="$l" '$1 == l && /x86-64/ {print $NF; exit}')
    [ -n "$p" ] || { echo "stage-gpu.sh: $l not found here" >&2; exit 1; }
    cp -L "$p" "$stage/lib/$l"
done
dev=$stage/dev
rm -rf "$dev"; mkdir -p "$dev"
cp tests/late_dlopen tests/.libs/libscdlopen.so tests/dlopen_helper.expect \
   bench/launch_overhead bench/queue_mapping bench/graphs bench/side-by-side.sh bench/redirect.sh bench/torch_step.py "$dev"/
cp -r testapps/python "$dev"/
du -sh "$stage"
