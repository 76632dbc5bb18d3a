#!/usr/bin/env python3
"""pyframes_cost.py: what reading the Python frames of a hazard's call costs.

The shim reads the calling thread's Python frames on every slow call that
commits a finding (pyframes.c, sc_py_capture), passing over the frames of
installed packages until the program's own.  Under a Hugging Face model a
CUDA call sits 30 or more package frames deep, each of them tested against
the places packages live (sc_pyframe_is_library).  This times one capture
at the default depth (4) from under 0, 10, 20 and 40 frames of a package
installed where Debian's pip puts them (.../lib/python3.X/dist-packages/),
with the program's own frames below: the median of 7 timings of 20,000
captures each (tests/pyframes/pyprobe.c, sc_probe_cost).

    python3 bench/pyframes_cost.py [tests/pyframes/.libs/libpyprobe.so]

libpyprobe.so is built by `make check` (or `make tests/pyframes/libpyprobe.la`).
"""
import ctypes
import os
import statistics
import sys
import tempfile

MODULE = '''def down(n, f, *a):
    if n == 0:
        return f(*a)
    return down(n - 1, f, *a)
'''


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    probe = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "tests", "pyframes", ".libs",
                                                                "libpyprobe.so")
    if not os.path.exists(probe):
        print("pyframes_cost.py: %s not found: run make tests/pyframes/libpyprobe.la" % probe, file=sys.stderr)
        return 2
    lib = ctypes.CDLL(probe)
    lib.sc_probe_cost.restype = ctypes.c_double
    lib.sc_probe_cost.argtypes = [ctypes.c_int, ctypes.c_int]
    with tempfile.TemporaryDirectory() as tmp:
        pkgs = os.path.join(tmp, "usr", "local", "lib", "python3.12", "dist-packages")
        os.makedirs(os.path.join(pkgs, "deeplib"))
        with open(os.path.join(pkgs, "deeplib", "__init__.py"), "w", encoding="utf-8") as f:
            f.write(MODULE)
        sys.path.insert(0, pkgs)
        import deeplib  # noqa: E402  (written just above)
        print("pyframes_cost: one sc_py_capture (depth 4) under N frames of %s, ns (median of 7 x 20000)" %
              os.path.join("...", "lib", "python3.12", "dist-packages"))
        deeplib.down(0, lib.sc_probe_cost, 20000, 4)   # warm: names interned, line tables read once
        for n in (0, 10, 20, 40):
            runs = [deeplib.down(n, lib.sc_probe_cost, 20000, 4) for _ in range(7)]
            if min(runs) < 0:
                print("pyframes_cost.py: no Python frame was read (see the probe's stderr)", file=sys.stderr)
                return 1
            print("  %2d package frames: %7.0f ns (runs %.0f-%.0f)" % (n, statistics.median(runs), min(runs),
                                                                     max(runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
