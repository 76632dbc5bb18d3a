#!/bin/sh
# Regenerate the build system.  Needs autoconf, automake, libtool and pkg-config.
set -e
cd "$(dirname "$0")"
for tool in autoreconf automake libtoolize pkg-config; do
    command -v "$tool" >/dev/null 2>&1 || {
        case $tool in
            autoreconf) pkg=autoconf ;; libtoolize) pkg=libtool ;; *) pkg=$tool ;;
        esac
        echo "autogen.sh: $tool not found (Debian package: $pkg)" >&2
        exit 1
    }
done
aclocal_dir=$(aclocal --print-ac-dir)
[ -f "$aclocal_dir/pkg.m4" ] || { echo "autogen.sh: pkg.m4 not found in $aclocal_dir (Debian package: pkg-config)" >&2; exit 1; }
mkdir -p m4 build-aux
autoreconf -fi
# The TAP driver is not copied by --add-missing unless referenced from configure.ac.
cp -f "$(automake --print-libdir)/tap-driver.sh" build-aux/tap-driver.sh
