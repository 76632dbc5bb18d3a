"""seed004_pipeline: sequential vs streamed host-to-device pipeline (seed 004).

Each of ITERS inputs goes host -> device, through a matmul, and back.
Sequential: everything on the default stream.  Streamed: one stream per
input, so copies of one overlap the matmul of another.  With --pageable the
inputs are ordinary (pageable) tensors, so the non_blocking copies are not
asynchronous at all (streamcheck: SC203, at the .to() line below).

    python3 seed004_pipeline.py [--pageable] [--iters N] [--size N]

Prints a checksum of the results on stdout (identical with and without
streamcheck) and the times on stderr, also as sequential_ms= and streamed_ms=
lines for bench/seeds.py.  seed004_pin_peak.py is the seed's other experiment
(the host-RAM peak of pinning).  Exits 77 without torch or a GPU.
"""
import argparse
import sys
import time

try:
    import torch
except ImportError:
    print("seed004_pipeline: torch is not installed; skipping", file=sys.stderr)
    sys.exit(77)
if not torch.cuda.is_available():
    print("seed004_pipeline: no CUDA device; skipping", file=sys.stderr)
    sys.exit(77)


def sequential(inputs):
    for x in inputs:
        a = x.to("cuda", non_blocking=False)
        c = torch.matmul(a, a)
        x.copy_(c, non_blocking=False)


def streamed(inputs, streams):
    for x, s in zip(inputs, streams):
        with torch.cuda.stream(s):
            a = x.to("cuda", non_blocking=True)
            c = torch.matmul(a, a)
            x.copy_(c, non_blocking=True)
    torch.cuda.synchronize()


def make_inputs(n, size, pinned):
    g = torch.Generator().manual_seed(4)
    return [torch.rand(size, size, generator=g).pin_memory() if pinned
            else torch.rand(size, size, generator=g) for _ in range(n)]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pageable", action="store_true", help="do not pin the inputs")
    p.add_argument("--iters", type=int, default=8)
    p.add_argument("--size", type=int, default=2048)
    args = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    streams = [torch.cuda.Stream() for _ in range(args.iters)]
    # Warm-up: context, kernels and allocator out of the timed region.
    sequential(make_inputs(1, args.size, not args.pageable))
    torch.cuda.synchronize()

    sums = []
    for name, run in (("sequential", lambda x: sequential(x)),
                      ("streamed", lambda x: streamed(x, streams))):
        inputs = make_inputs(args.iters, args.size, not args.pageable)
        # Each timed run in the NVTX range of its metric's name, for
        # streamcheck --range=streamed (bench/seeds.py's estimates).
        torch.cuda.nvtx.range_push(name)
        t0 = time.perf_counter()
        run(inputs)
        torch.cuda.synchronize()
        dt = time.perf_counter() - t0
        torch.cuda.nvtx.range_pop()
        sums.append(sum(float(x.double().sum()) for x in inputs))
        print(f"seed004_pipeline: {name:10s} {dt * 1e3:8.2f} ms "
              f"({'pageable' if args.pageable else 'pinned'})", file=sys.stderr)
        print(f"{name}_ms={dt * 1e3:.3f}", file=sys.stderr)   # for bench/seeds.py
    print(f"seed004_pipeline: checksum sequential {sums[0]:.6e} streamed {sums[1]:.6e}")


if __name__ == "__main__":
    main()
