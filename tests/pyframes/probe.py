#!/usr/bin/env python3
"""probe.py: does streamcheck see this thread's Python frames?

Usage: python3 probe.py PATH/TO/libpyprobe.so

libpyprobe.so (tests/pyframes/pyprobe.c) exports sc_probe(), which runs the
shim's sc_py_capture() and writes the frames it found, innermost first, as
"file:line:function" lines.  We call it from known lines and check the
innermost frames name them.  ctypes.CDLL releases the GIL for the call, as
PyTorch does around its ops; ctypes.PyDLL keeps it.

Prints one PASS or FAIL line a check, then "N passed, N failed"; exits 0
when all passed, 1 otherwise, 2 on bad usage.
"""
import ctypes
import re
import sys
import threading

HERE = None          # co_filename of this module: what the shim must report
MARK = {}            # marker -> line number, from the markers on code lines
BUF = 1 << 16
results = []


def load_marks():
    with open(__file__, encoding="utf-8") as f:
        for no, text in enumerate(f, 1):
            m = re.search(r"\S.*  # @(\w+)$", text.rstrip())
            if m:
                MARK[m.group(1)] = no


def newbuf():
    return ctypes.create_string_buffer(BUF)


def parse(n, buf):
    frames = []
    for line in buf.value.decode("utf-8", "replace").splitlines():
        file, lno, func = line.rsplit(":", 2)
        frames.append((file, int(lno), func))
    return n, frames


def check(name, frames, want, n=None):
    """want: the innermost frames expected, as (line marker, function);
    a function of None accepts any name (used where "?" is allowed)."""
    ok = len(frames) >= len(want)
    if ok:
        for got, (mark, func) in zip(frames, want):
            if got[0] != HERE or got[1] != MARK[mark] or (func is not None and got[2] != func):
                ok = False
    results.append(ok)
    exp = ["%s:%d:%s" % (HERE, MARK[m], f or "*") for m, f in want]
    if ok:
        print("PASS %s" % name)
    else:
        print("FAIL %s" % name)
        print("  want (innermost first): %s" % exp)
        print("  got  (%s captured): %s" % (n if n is not None else len(frames),
                                          ["%s:%d:%s" % g for g in frames[:6]]))


# -- the cases --------------------------------------------------------------
def outer(fn):
    def inner():
        buf = newbuf()
        n = fn(buf, BUF)  # @inner
        return parse(n, buf)
    return inner()  # @outer


def gen(fn):
    buf = newbuf()
    n = fn(buf, BUF)  # @gen
    yield parse(n, buf)


def drive_gen(fn):
    return next(gen(fn))  # @drive_gen


async def coro(fn):
    buf = newbuf()
    n = fn(buf, BUF)  # @coro
    return parse(n, buf)


def drive_coro(fn):
    c = coro(fn)
    try:
        c.send(None)  # @drive_coro
    except StopIteration as e:
        return e.value


def via_c(fn):
    got = []

    def key(x):
        buf = newbuf()
        n = fn(buf, BUF)  # @key
        got.append(parse(n, buf))
        return x
    sorted([0], key=key)  # @via_c
    return got[0]


class Widget:
    def __init__(self, fn):
        buf = newbuf()
        n = fn(buf, BUF)  # @init
        self.got = parse(n, buf)


def make_widget(fn):
    return Widget(fn).got  # @make_widget


def ƒunc(fn):
    buf = newbuf()
    n = fn(buf, BUF)  # @nonascii
    return parse(n, buf)


def call_nonascii(fn):
    return ƒunc(fn)  # @call_nonascii


def short(cost):
    return cost(100000, 1)


def cost_deep(cost, k):
    return cost(100000, 4) if k == 0 else cost_deep(cost, k - 1)


def deep(fn, k):
    if k == 0:
        buf = newbuf()
        n = fn(buf, BUF)  # @deep
        return parse(n, buf)
    return deep(fn, k - 1)  # @deep_rec


def main():
    global HERE
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    HERE = outer.__code__.co_filename
    load_marks()
    print("# Python %s" % sys.version.replace("\n", " "))
    if not (3, 11) <= sys.version_info[:2] <= (3, 13):
        print("# streamcheck reads the frames of CPython 3.11 to 3.13: expect failures")

    cdll = ctypes.CDLL(sys.argv[1])
    pydll = ctypes.PyDLL(sys.argv[1])
    nogil, gil = cdll.sc_probe, pydll.sc_probe
    for f in (nogil, gil):
        f.argtypes = [ctypes.c_char_p, ctypes.c_int]
        f.restype = ctypes.c_int
    nested = [("inner", "outer.<locals>.inner"), ("outer", "outer")]

    n, fr = outer(nogil)
    check("GIL released (CDLL): the call's line, then its caller's", fr, nested, n)
    n, fr = outer(gil)
    check("GIL held (PyDLL): the same answer", fr, nested, n)

    box = {}
    t = threading.Thread(target=lambda: box.setdefault("r", outer(nogil)))
    t.start()
    t.join()
    n, fr = box["r"]
    check("second Python thread, GIL released", fr, nested, n)
    t = threading.Thread(target=lambda: box.__setitem__("r", outer(gil)))
    t.start()
    t.join()
    n, fr = box["r"]
    check("second Python thread, GIL held", fr, nested, n)

    for f, how in ((nogil, "released"), (gil, "held")):
        n, fr = drive_gen(f)
        check("generator frame, GIL %s" % how, fr, [("gen", "gen"), ("drive_gen", "drive_gen")], n)
        n, fr = drive_coro(f)
        check("coroutine frame, GIL %s" % how, fr, [("coro", "coro"), ("drive_coro", "drive_coro")], n)
        n, fr = via_c(f)
        check("Python called back from C (sorted key=), GIL %s" % how, fr,
              [("key", "via_c.<locals>.key"), ("via_c", "via_c")], n)

    # __init__ run many times, so the interpreter specializes the call (3.13
    # then runs __init__ behind a shim frame that must not show).
    bad = None
    for i in range(200):
        n, fr = make_widget(nogil)
        if len(fr) < 2 or fr[0][1] != MARK["init"] or fr[1][1] != MARK["make_widget"]:
            bad = (i, n, fr)
            break
    check("__init__, 200 times (specialized)", bad[2] if bad else fr,
          [("init", "Widget.__init__"), ("make_widget", "make_widget")], bad[1] if bad else n)

    # A non-ASCII name may read as "?" (its UTF-8 is not cached unless the
    # interpreter made it); the line must be right either way.
    n, fr = call_nonascii(nogil)
    check("non-ASCII function name: right lines", fr, [("nonascii", None), ("call_nonascii", "call_nonascii")], n)
    if fr and fr[0][2] not in ("ƒunc", "?"):
        results.append(False)
        print("FAIL non-ASCII function name: read as %r" % fr[0][2])

    # Once the interpreter has made its UTF-8 (here on request), it is read.
    api = ctypes.pythonapi.PyUnicode_AsUTF8
    api.argtypes, api.restype = [ctypes.py_object], ctypes.c_char_p
    api(getattr(ƒunc.__code__, "co_qualname", "ƒunc"))
    api(ƒunc.__code__.co_name)
    n, fr = call_nonascii(nogil)
    check("non-ASCII function name, UTF-8 cached: read", fr,
          [("nonascii", "ƒunc"), ("call_nonascii", "call_nonascii")], n)

    # Code from a file whose name is not ASCII: its frame reads as "?" or as
    # its name, and the frames around it stay right.
    src = "def f(fn, buf, size):\n    return fn(buf, size)\n"
    ns = {}
    exec(compile(src, "/tmp/dätei.py", "exec"), ns)
    buf = newbuf()
    n, fr = parse(ns["f"](nogil, buf, BUF), buf)  # @call_dätei
    ok = len(fr) >= 2 and fr[0][0] in ("?", "/tmp/dätei.py") and fr[0][1] == 2 and fr[0][2] == "f" \
        and fr[1] == (HERE, MARK["call_dätei"], "main")
    results.append(ok)
    print("%s non-ASCII file name: %s" % ("PASS" if ok else "FAIL", fr[:2]))

    # Frames of installed packages are passed over until the program's own,
    # the innermost of them kept before it (the library code that made the
    # call); when there is none, the innermost are kept after all.
    lib = {}
    exec(compile(src, "/opt/x/site-packages/fake.py", "exec"), lib)
    buf = newbuf()
    n, fr = parse(lib["f"](nogil, buf, BUF), buf)  # @call_lib
    want = [("/opt/x/site-packages/fake.py", 2, "f"), (HERE, MARK["call_lib"], "main"),
            (HERE, MARK["main_call"], "<module>")]
    ok = fr[:3] == want
    results.append(ok)
    print("%s a library frame innermost: kept, then the program's: %s" % ("PASS" if ok else "FAIL", fr[:3]))
    # ... however deep the library's stack: 300 frames of it (a framework's
    # fit loop) and the program's frame is still found, after the innermost.
    rec = "def g(fn, buf, size, k):\n    if k == 0:\n        return fn(buf, size)\n" \
          "    return g(fn, buf, size, k - 1)\n"
    exec(compile(rec, "/opt/x/site-packages/fw/loop.py", "exec"), lib)
    buf = newbuf()
    n, fr = parse(lib["g"](nogil, buf, BUF, 300), buf)  # @call_deep_lib
    want = [("/opt/x/site-packages/fw/loop.py", 3, "g"), (HERE, MARK["call_deep_lib"], "main")]
    ok = fr[:2] == want
    results.append(ok)
    print("%s 300 library frames deep: the innermost, then the program's: %s" % ("PASS" if ok else "FAIL", fr[:2]))
    buf = newbuf()
    t = threading.Thread(target=lib["f"], args=(nogil, buf, BUF))
    t.start()
    t.join()
    fr = parse(0, buf)[1]
    ok = len(fr) >= 2 and fr[0] == ("/opt/x/site-packages/fake.py", 2, "f") and fr[1][2] == "Thread.run"
    results.append(ok)
    print("%s only library frames: the innermost kept: %s" % ("PASS" if ok else "FAIL", fr[:2]))

    n, fr = deep(nogil, 200)
    check("200 frames deep: the innermost", fr, [("deep", "deep"), ("deep_rec", "deep")], n)
    if n > 32:
        results.append(False)
        print("FAIL 200 frames deep: %d frames captured, at most 32 expected" % n)

    # Eight threads at once, each calling many times with the GIL released
    # while the others run Python: each must see its own frames, always.
    errors = []

    def worker(k):
        for i in range(2000):
            n, fr = outer(nogil)  # @worker
            if len(fr) < 3 or fr[0][1] != MARK["inner"] or fr[1][1] != MARK["outer"] \
                    or fr[2][1] != MARK["worker"]:
                errors.append((k, i, fr[:3]))
                return
            sum(range(k * 10))

    ts = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    results.append(not errors)
    print("%s 8 threads x 2000 calls, GIL released: own frames every time%s" % (
        "PASS" if not errors else "FAIL", "" if not errors else ": %r" % (errors[0],)))

    cost = cdll.sc_probe_cost
    cost.argtypes, cost.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_double
    print("# cost of a sc_py_capture(): %.0f ns for 1 frame of a short function, "
          "%.0f ns for 4 frames (the default depth) 4 calls deep" % (short(cost), cost_deep(cost, 3)))

    passed = sum(results)
    print("%d passed, %d failed" % (passed, len(results) - passed))
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())  # @main_call
