"""cupy_streams: CuPy work on two created streams and on the default stream.

CuPy 14 carries its own static CUDA runtime, so only the driver layer sees
its work; streamcheck's report groups the driver calls by calling library.

    python3 cupy_streams.py
Prints a checksum on stdout.  Exits 77 without CuPy or a GPU.
"""
import sys

try:
    import cupy as cp
except ImportError:
    print("cupy_streams: cupy is not installed; skipping", file=sys.stderr)
    sys.exit(77)
try:
    if cp.cuda.runtime.getDeviceCount() < 1:
        raise RuntimeError
except Exception:
    print("cupy_streams: no CUDA device; skipping", file=sys.stderr)
    sys.exit(77)


def main():
    rs = cp.random.RandomState(7)
    a = rs.random_sample((1024, 1024), dtype=cp.float32)
    b = rs.random_sample((1024, 1024), dtype=cp.float32)
    s1 = cp.cuda.Stream(non_blocking=True)
    s2 = cp.cuda.Stream(non_blocking=True)
    with s1:
        c1 = a @ b
        for _ in range(4):
            c1 = cp.tanh(c1 @ b)
    with s2:
        c2 = cp.sin(a) * 3
        for _ in range(4):
            c2 = c2 + cp.cos(b)
    # Default-stream work while s1 and s2 exist: legacy stream (SC101).
    c3 = a + b
    s1.synchronize()
    s2.synchronize()
    total = float(c1.sum() + c2.sum() + c3.sum())
    host = cp.asnumpy(c3)          # a blocking device-to-host copy
    print(f"cupy_streams: checksum {total:.4e} {float(host[0, 0]):.6f}")


if __name__ == "__main__":
    main()
