#!/bin/sh
# pyframes.sh: the shim reads the calling thread's Python frames without the
# GIL (src/shim/pyframes.c): tests/pyframes/probe.py calls sc_py_capture() through
# ctypes from known lines, with the GIL released and held, from a second
# thread, a generator, a coroutine, a C callback, a specialized __init__.
# Runs the python3 on PATH (PYFRAMES_PYTHON overrides).  TAP; skipped
# without a python3 that has ctypes (as tests/golden/junit.sh: under
# tap-driver.sh a skip is "1..0 # SKIP" and exit 0, exit 77 is an error).
. "${top_builddir:-.}/tests/env.sh"
py=${PYFRAMES_PYTHON:-python3}
if ! command -v "$py" >/dev/null 2>&1 || ! "$py" -c 'import ctypes' >/dev/null 2>&1; then
    echo "1..0 # SKIP no $py with ctypes"
    exit 0
fi
if ! "$py" -c 'import sys; sys.exit(not (3, 11) <= sys.version_info[:2] <= (3, 13))'; then
    echo "1..0 # SKIP $py is $("$py" -c 'import platform; print(platform.python_version())'): streamcheck reads 3.11 to 3.13"
    exit 0
fi
lib="$abs_top_builddir/tests/pyframes/$LT_OBJDIR/libpyprobe.so"
if [ ! -f "$lib" ]; then
    echo "Bail out! $lib not built"
    exit 1
fi
# A sanitized probe needs its runtime loaded before Python's own code.
pre=
[ -n "$SAN_RUNTIME" ] && pre="$SAN_RUNTIME"
# ThreadSanitizer's runtime preloaded into Debian 12's python3 crashes it
# at start, before any of our code runs.
if [ -n "$pre" ] && ! LD_PRELOAD="$pre" "$py" -c pass >/dev/null 2>&1; then
    echo "1..0 # SKIP $py does not start with $pre preloaded"
    exit 0
fi
out=$(LD_PRELOAD="$pre${LD_PRELOAD:+ $LD_PRELOAD}" "$py" "$abs_top_srcdir/tests/pyframes/probe.py" "$lib" 2>&1)
st=$?
echo "$out" | awk -v st="$st" '
    /^PASS / { n++; sub(/^PASS /, ""); print "ok " n " - " $0; next }
    /^FAIL / { n++; sub(/^FAIL /, ""); print "not ok " n " - " $0; next }
    /^#/ { print; next }
    { print "# " $0 }
    END {
        if (st != 0 && st != 1) { n++; print "not ok " n " - probe.py exited " st }
        if (n == 0) { n++; print "not ok 1 - probe.py reported nothing" }
        print "1.." n
    }'
