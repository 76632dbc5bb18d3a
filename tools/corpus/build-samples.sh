#!/bin/sh
# build-samples.sh: build the extracted cuda-samples (extract-samples.sh)
# with nvcc directly, each twice: OUTDIR/NAME (nvcc's default, the CUDA
# runtime linked statically) and OUTDIR/NAME.shared (-cudart shared).
#
#   tools/corpus/build-samples.sh [SRC] [OUTDIR]    (default .corpus-src, SRC/bin)
#
# Environment: NVCC (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc),
# ARCH (default sm_90, the H100), JOBS (parallel builds, default: cores).
# Flags: -g -O2 -arch=$ARCH -I SRC/Common, plus the extra column of
# samples.list (cuBLAS, cuSPARSE, OpenMP).  -g so findings name sample
# file:line.  Prints one line per build; OUTDIR/build.log has the details.
# Exit 1 if any build failed (the others are still built).
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "${1:-$here/../../.corpus-src}" && pwd) || exit 2
out=${2:-$src/bin}
mkdir -p "$out"; out=$(cd "$out" && pwd)
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
arch=${ARCH:-sm_90}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
list=$src/samples.list; [ -f "$list" ] || list=$here/samples.list
: >"$out/build.log"

# one NAME SOURCES EXTRA CUDART
one() {
    name=$1 srcs=$2 extra=$3 rt=$4
    bin=$out/$name; [ "$rt" = shared ] && bin=$out/$name.shared
    files=; for s in $(echo "$srcs" | tr , ' '); do files="$files $src/$name/$s"; done
    x=; [ "$extra" = - ] || x=$(echo "$extra" | tr , ' ')
    t0=$(date +%s)
    # shellcheck disable=SC2086
    if "$nvcc" -g -O2 -arch="$arch" -cudart "$rt" -I"$src/Common" -I"$src/$name" -o "$bin" $files $x >"$bin.buildlog" 2>&1; then
        echo "built  $(basename "$bin") ($(( $(date +%s) - t0 )) s)"
    else
        echo "FAILED $(basename "$bin"): $nvcc -g -O2 -arch=$arch -cudart $rt -I$src/Common$files $x"
    fi
}

grep -v '^#' "$list" | awk 'NF >= 3 {print $1, $3, ($4 == "" ? "-" : $4)}' | while read -r name srcs extra; do
    for rt in static shared; do echo "$name $srcs $extra $rt"; done
done >"$out/jobs"
# Parallel, without xargs -P's shell function trouble: JOBS background workers.
i=0
while [ $i -lt "$jobs" ]; do
    awk -v i=$i -v n="$jobs" '(NR - 1) % n == i' "$out/jobs" | while read -r a b c d; do one "$a" "$b" "$c" "$d"; done >"$out/worker.$i" &
    i=$((i + 1))
done
wait
cat "$out"/worker.* | sort -k2 | tee "$out/summary"
for f in "$out"/*.buildlog; do [ -s "$f" ] && { echo "== $f"; cat "$f"; }; done >>"$out/build.log"
rm -f "$out"/worker.* "$out"/*.buildlog "$out/jobs"
! grep -q '^FAILED' "$out/summary"
