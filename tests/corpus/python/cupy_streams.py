"""cupy_streams: CuPy streams the way CuPy's documentation shows them.

Host data in pinned buffers (cupyx.empty_pinned), a copy-compute-copy
pipeline over NSTREAMS non-blocking streams (cupy.cuda.Stream(
non_blocking=True), `with stream:`), ndarray.set / get with stream=,
events to time and to order a final reduction, stream.synchronize().
Device buffers are allocated before the streams get work, so the pool
does not grow while they run.

    python3 cupy_streams.py [--chunks N] [--streams N] [--n N]

stdout: checksum=... (deterministic); stderr: elapsed_ms=...
Exits 77 without CuPy or a GPU.
"""
import argparse
import sys

try:
    import numpy as np
    import cupy
    import cupyx
except ImportError:
    print("cupy_streams: cupy is not installed; skipping", file=sys.stderr)
    sys.exit(77)
try:
    if cupy.cuda.runtime.getDeviceCount() < 1:
        raise RuntimeError("no device")
except Exception:
    print("cupy_streams: no CUDA device; skipping", file=sys.stderr)
    sys.exit(77)

scale_and_sin = cupy.ElementwiseKernel(
    "float32 x, float32 a", "float32 y", "y = sinf(a * x) + x", "scale_and_sin")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--chunks", type=int, default=16)
    p.add_argument("--streams", type=int, default=4)
    p.add_argument("--n", type=int, default=1 << 20, help="elements per chunk")
    args = p.parse_args()

    rng = np.random.default_rng(0)
    # Pinned host memory, filled in place.
    h_in = [cupyx.empty_pinned((args.n,), dtype=np.float32) for _ in range(args.chunks)]
    h_out = [cupyx.empty_pinned((args.n,), dtype=np.float32) for _ in range(args.chunks)]
    for h in h_in:
        h[...] = rng.random(args.n, dtype=np.float32)

    streams = [cupy.cuda.Stream(non_blocking=True) for _ in range(args.streams)]
    d_in = [cupy.empty((args.n,), dtype=cupy.float32) for _ in range(args.chunks)]
    d_out = [cupy.empty((args.n,), dtype=cupy.float32) for _ in range(args.chunks)]
    partial = cupy.zeros((args.chunks,), dtype=cupy.float32)
    done = [cupy.cuda.Event(disable_timing=True) for _ in range(args.chunks)]

    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    start.record(streams[0])
    for i in range(args.chunks):
        stream = streams[i % len(streams)]
        with stream:
            d_in[i].set(h_in[i], stream=stream)              # H2D from pinned: async
            scale_and_sin(d_in[i], cupy.float32(2.0), d_out[i])
            cupy.sum(d_out[i], out=partial[i])  # a 0-d view: CuPy 14 wants out as many dims as the sum
            d_out[i].get(stream=stream, out=h_out[i])         # D2H into pinned: async
            done[i].record(stream)

    # The reduction waits for every chunk through events, not a device sync.
    final = streams[0]
    for e in done:
        final.wait_event(e)
    with final:
        total = cupy.empty((), dtype=cupy.float64)
        cupy.sum(partial.astype(cupy.float64), out=total)
        result = cupyx.empty_pinned((), dtype=np.float64)
        total.get(stream=final, out=result)
    stop.record(final)
    for s in streams:
        s.synchronize()
    stop.synchronize()
    ms = cupy.cuda.get_elapsed_time(start, stop)
    host_sum = sum(float(h.astype(np.float64).sum()) for h in h_out)
    print(f"checksum={float(result):.3f} host_sum={host_sum:.3f} chunks={args.chunks}")
    print(f"elapsed_ms={ms:.3f}", file=sys.stderr)


if __name__ == "__main__":
    main()
