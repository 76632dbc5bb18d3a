"""seed000_matmul_streams: seed 000, Exercises 1 and 2 ("CUDA streams").

Independent matrix multiplications spread over 1, 2 or 4 created streams
(Exercise 1: two streams, Exercise 2: four).  Four products C_j = A_j @ B_j,
REPS times each, product j on stream j % STREAMS; with --default-stream they
all go to the default stream, the way the exercise starts (streamcheck: SC101
at the matmul line while the streams exist).  Small products leave SMs idle,
so streams can overlap them; the seed's 10000 x 10000 products fill a GPU by
themselves, which is why its speed-up is small.

    python3 seed000_matmul_streams.py [--streams {1,2,4}] [--default-stream]
                                      [--size N] [--reps R]

Prints a checksum on stdout (the same for every stream count, with and
without streamcheck) and elapsed_ms= (after a warm-up pass) on stderr.
Exits 77 without torch or a GPU.
"""
import argparse
import sys
import time

try:
    import torch
except ImportError:
    print("seed000_matmul_streams: torch is not installed; skipping", file=sys.stderr)
    sys.exit(77)
if not torch.cuda.is_available():
    print("seed000_matmul_streams: no CUDA device; skipping", file=sys.stderr)
    sys.exit(77)

PAIRS = 4


def run(a, b, c, streams, reps, default_stream):
    main = torch.cuda.current_stream()
    if default_stream:
        # The exercise's starting point: every product on the default stream.
        for _ in range(reps):
            for j in range(PAIRS):
                torch.matmul(a[j], b[j], out=c[j])
        return
    for s in streams:
        s.wait_stream(main)          # the operands were made on the default stream
    for _ in range(reps):
        for j in range(PAIRS):
            with torch.cuda.stream(streams[j % len(streams)]):
                torch.matmul(a[j], b[j], out=c[j])
    for s in streams:
        main.wait_stream(s)          # the results are read on the default stream


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--streams", type=int, choices=(1, 2, 4), default=4)
    p.add_argument("--default-stream", action="store_true",
                   help="all products on the default stream (the hazard)")
    p.add_argument("--size", type=int, default=1024)
    p.add_argument("--reps", type=int, default=10)
    args = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    g = torch.Generator(device="cuda").manual_seed(0)
    n = args.size
    a = [torch.randn(n, n, device="cuda", generator=g) for _ in range(PAIRS)]
    b = [torch.randn(n, n, device="cuda", generator=g) for _ in range(PAIRS)]
    c = [torch.empty(n, n, device="cuda") for _ in range(PAIRS)]
    streams = [torch.cuda.Stream() for _ in range(args.streams)]

    run(a, b, c, streams, 1, args.default_stream)     # warm-up: kernels, handles
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("timed")               # for streamcheck --range=timed
    t0 = time.perf_counter()
    run(a, b, c, streams, args.reps, args.default_stream)
    torch.cuda.synchronize()
    dt = time.perf_counter() - t0
    torch.cuda.nvtx.range_pop()

    total = sum(float(x.double().sum()) for x in c)
    print(f"seed000_matmul_streams: {PAIRS} products of {n}x{n}, checksum {total:.6e}")
    where = "default stream" if args.default_stream else f"{args.streams} stream(s)"
    print(f"seed000_matmul_streams: {where}, {args.reps} reps\nelapsed_ms={dt * 1e3:.3f}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
