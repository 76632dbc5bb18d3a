#!/bin/sh
# extract-samples.sh: copy the corpus's NVIDIA cuda-samples (samples.list)
# and the shared Common/ headers out of a git mirror of
# github:NVIDIA/cuda-samples into DEST (default .corpus-src, ignored by git:
# NVIDIA's code is never committed here).
#
#   tools/corpus/extract-samples.sh MIRROR_GITDIR [DEST]
#
# MIRROR_GITDIR is a bare git directory (or a checkout's .git); the newest
# commit (HEAD) is used, or $SAMPLES_REV.  DEST/<NAME>/ gets each sample's
# sources, DEST/Common/ the helpers, DEST/REVISION the commit.
set -eu
[ $# -ge 1 ] || { echo "usage: $0 MIRROR_GITDIR [DEST]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
git_dir=$1
dest=${2:-$(cd "$here/../.." && pwd)/.corpus-src}
rev=${SAMPLES_REV:-HEAD}
g() { git --git-dir="$git_dir" "$@"; }
commit=$(g rev-parse "$rev^{commit}")
rm -rf "$dest"
mkdir -p "$dest/Common"
# Common/: the headers and the one .cpp some samples compile in.
g ls-tree --name-only "$commit" Common/ | while read -r f; do
    case $f in
    *.h|*.hpp|*.hxx|*.cpp) g show "$commit:$f" >"$dest/$f" ;;
    esac
done
grep -v '^#' "$here/samples.list" | while read -r name dir srcs _; do
    [ -n "$name" ] || continue
    mkdir -p "$dest/$name"
    g ls-tree --name-only "$commit" "Samples/$dir/" | while read -r f; do
        case $f in
        *.cu|*.cuh|*.cpp|*.c|*.h|*.hpp) g show "$commit:$f" >"$dest/$name/$(basename "$f")" ;;
        esac
    done
    for s in $(echo "$srcs" | tr , ' '); do
        [ -f "$dest/$name/$s" ] || echo "extract-samples.sh: $name: $s missing at $dir" >&2
    done
done 2>&1 | tee "$dest/.missing" >&2
[ ! -s "$dest/.missing" ] || exit 1
rm -f "$dest/.missing"
echo "$commit" >"$dest/REVISION"
cp "$here/samples.list" "$dest/samples.list"
echo "extract-samples.sh: $(grep -vc '^#' "$here/samples.list") samples of cuda-samples $commit in $dest"
