#!/bin/sh
# lookups.sh: the simulator's runtime asks the driver for what NVIDIA's CUDA
# 13.0 runtime asks for.  Every entry of src/sim/rt_drv.def must appear in
# src/sim/cudart13-driver-lookups.txt (recorded from the real runtime on an
# H100) at the same version with flags 0, and a per-thread one also at its
# per-thread version with flags 2.  TAP.
. "${top_builddir:-.}/tests/env.sh"
def="$abs_top_srcdir/src/sim/rt_drv.def"
log="$abs_top_srcdir/src/sim/cudart13-driver-lookups.txt"
# Known differences, each with its reason:
#  cuDevicePrimaryCtxReset 11000 0: the real runtime asks for version 7000
#    (the same parameters); the simulator's driver implements only the
#    11000 ABI and answers 7000 with a stub.
known="cuDevicePrimaryCtxReset 11000 0"
echo "1..2"
want=$(sed -n 's/^SC_RT_DRV(\([A-Za-z0-9_]*\), *\([0-9]*\)).*/\1 \2 0/p
               s/^SC_RT_DRV_PT(\([A-Za-z0-9_]*\), *\([0-9]*\), *\([0-9]*\),.*/\1 \2 0\
\1 \3 2/p' "$def")
n=$(echo "$want" | grep -c .)
if [ "$n" -ge 50 ]; then echo "ok 1 - rt_drv.def gives $n lookups"; else echo "not ok 1 - only $n lookups read from rt_drv.def"; fi
miss=
have=$(sed -n 's/^\[fakecuda\] cuGetProcAddress_v2("\([A-Za-z0-9_]*\)", ver=\([0-9]*\), flags=\([0-9]*\)).*/\1 \2 \3/p' "$log")
echo "$want" | { while read -r name ver flags; do
        echo "$known" | grep -qx "$name $ver $flags" && continue
        echo "$have" | grep -qx "$name $ver $flags" || miss="$miss $name@$ver/flags=$flags"
    done
    if [ -z "$miss" ]; then echo "ok 2 - every lookup of the simulated runtime is one the real runtime makes"
    else echo "not ok 2 - the real CUDA 13.0 runtime never asks for:$miss"; fi; }
