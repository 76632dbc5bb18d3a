#!/bin/bash
# tools/overhead-4gpu.sh: detect mode's cost on the training loops of
# tools/gpu-verify.sh's overhead step, several loops at once on a 4-GPU
# host: each loop on a GPU (DDP: two) and a quarter (DDP: half) of the CPUs
# of its own (taskset), its two arms alternating as always, so a pair's
# ratio compares runs that had the same neighbours.  Run from an installed
# tree (.stage, as tools/gpu-verify.sh):
#
#   tools/overhead-4gpu.sh resnet   the ResNet DataLoader loop GPU-bound (12
#                                   workers, batch 128) and host-bound (4
#                                   workers, batch 64), pageable and pinned
#   tools/overhead-4gpu.sh ddp      the DDP loop on two GPUs, pageable and
#                                   pinned
#
# Environment: OPAIRS (default 7), OBUDGET (seconds each loop may start
# pairs for; default 330 for resnet, 280 for ddp: one command each fits the
# lent machines' 10 minutes), OSTEPS (100).  $OUT/overhead.txt gets every
# loop's table, $OUT/overhead.log every loop's log (two files whatever the
# loops).  Exit 77 with fewer than 4 GPUs.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/overhead-4gpu}
mkdir -p "$out"
export PATH=${STAGE:-$root/.stage}/bin:$PATH NCCL_NVLS_ENABLE=0
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ "$ngpu" -ge 4 ] || { echo "overhead-4gpu.sh: needs 4 GPUs ($ngpu here)"; exit 77; }
ncpu=$(nproc)
q=$((ncpu / 4))
t0=$(date +%s)
work=$(mktemp -d)
# CPUs [from, from + n) quarters
cpus() { echo "$(($1 * q))-$((($1 + $2) * q - 1))"; }
# NAME GPUS FIRST_QUARTER QUARTERS LOOP BUDGET
one() {
    mkdir -p "$work/$1"
    CUDA_VISIBLE_DEVICES=$2 OUT=$work/$1 OLOOPS=$5 OPAIRS=${OPAIRS:-7} OBUDGET=$6 OSTEPS=${OSTEPS:-100} \
        taskset -c "$(cpus "$3" "$4")" "$root/tools/gpu-verify.sh" overhead >"$work/$1/stdout" 2>&1 &
}
case ${1:-} in
resnet)
    b=${OBUDGET:-330}
    one a 0 0 1 gpu-pin0 "$b"
    one b 1 1 1 gpu-pin1 "$b"
    one c 2 2 1 host-pin0 "$b"
    one d 3 3 1 host-pin1 "$b" ;;
ddp)
    b=${OBUDGET:-280}
    one a 0,1 0 2 ddp-pin0 "$b"
    one b 2,3 2 2 ddp-pin1 "$b" ;;
*)
    echo "usage: tools/overhead-4gpu.sh resnet|ddp" >&2
    exit 2 ;;
esac
wait
echo "overhead-4gpu.sh $1: $(($(date +%s) - t0)) s, $ncpu CPUs"
for d in "$work"/*/; do cat "$d/overhead.txt" 2>/dev/null; done >>"$out/overhead.txt"
for d in "$work"/*/; do echo "##### $(basename "$d")"; cat "$d/stdout" "$d/overhead.log" 2>/dev/null; done \
    >>"$out/overhead.log"
rm -rf "$work"
cat "$out/overhead.txt"
