"""seed001_swimming: seed 001 ("Swimming in streams"), its three experiments.

copies       matmuls on stream s1, device-to-host copies on s2, host-to-device
             copies on s3 (the seed's non_blocking_streams).  With --pageable
             the host tensors are not pinned: the D2H copies go into ordinary
             tensors and the H2D copies come from them, so non_blocking=True
             does not make them asynchronous (streamcheck: SC203 at both
             copy lines) and s3 cannot overlap s2.
tensorcores  TF32 matmuls (tensor cores) on s1 beside torch.pow(x, 3) (CUDA
             cores) on s2; --serial puts both on one stream.
priority     a low-priority stream full of large matmuls, then a chain of
             short kernels on a high-priority stream, timed; --equal gives
             both the same priority.  In PyTorch a lower number is a higher
             priority (torch.cuda.Stream(priority=-1)); the seed's "1 is high"
             is from older releases.

    python3 seed001_swimming.py copies [--pageable] [--count N] [--size N]
    python3 seed001_swimming.py tensorcores [--serial] [--count N] [--size N]
    python3 seed001_swimming.py priority [--equal] [--count N] [--size N]

Prints checksums on stdout (identical with and without streamcheck, and
between the two ways of each experiment) and elapsed_ms= on stderr.
Exits 77 without torch or a GPU.
"""
import argparse
import sys
import time

try:
    import torch
except ImportError:
    print("seed001_swimming: torch is not installed; skipping", file=sys.stderr)
    sys.exit(77)
if not torch.cuda.is_available():
    print("seed001_swimming: no CUDA device; skipping", file=sys.stderr)
    sys.exit(77)

cuda = torch.device("cuda")


def timed(fn):
    fn()                                   # warm-up: kernels, allocator, handles
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("timed")    # what bench/seeds.py estimates (--range=timed)
    t0 = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    ms = (time.perf_counter() - t0) * 1e3
    torch.cuda.nvtx.range_pop()
    return ms


def copies(args):
    g = torch.Generator().manual_seed(1)
    n, count, chunk = args.size, args.count, args.chunk
    matrix_on_gpu = [torch.rand(n, n, generator=g).to(cuda) for _ in range(count)]
    data_on_gpu = [torch.rand(chunk, generator=g).to(cuda) for _ in range(count)]
    data_on_cpu = [torch.rand(chunk, generator=g) for _ in range(count)]
    if not args.pageable:
        data_on_cpu = [x.pin_memory() for x in data_on_cpu]
    # Where the downloads land: pinned, or ordinary (pageable) tensors.
    landed = [torch.empty(chunk, pin_memory=not args.pageable) for _ in range(count)]
    uploaded = [torch.empty(chunk, device=cuda) for _ in range(count)]
    products = [torch.empty(n, n, device=cuda) for _ in range(count)]
    s1, s2, s3 = torch.cuda.Stream(), torch.cuda.Stream(), torch.cuda.Stream()
    torch.cuda.synchronize()

    def work():
        with torch.cuda.stream(s1):
            for i in range(count):
                torch.matmul(matrix_on_gpu[i], matrix_on_gpu[i], out=products[i])
        with torch.cuda.stream(s2):
            for i in range(count):
                landed[i].copy_(data_on_gpu[i], non_blocking=True)
        with torch.cuda.stream(s3):
            for i in range(count):
                uploaded[i].copy_(data_on_cpu[i], non_blocking=True)
    ms = timed(work)
    sums = (sum(float(x.double().sum()) for x in products),
            sum(float(x.double().sum()) for x in landed),
            sum(float(x.double().sum()) for x in uploaded))
    print("seed001_swimming copies: checksum products %.6e downloads %.6e uploads %.6e" % sums)
    return ms, "pageable" if args.pageable else "pinned"


def tensorcores(args):
    torch.backends.cuda.matmul.allow_tf32 = True
    g = torch.Generator(device="cuda").manual_seed(2)
    matrix_on_gpu = [torch.rand(args.size, args.size, device=cuda, generator=g)
                     for _ in range(args.count)]
    products = [torch.empty_like(x) for x in matrix_on_gpu]
    cubes = [torch.empty_like(x) for x in matrix_on_gpu]
    s1 = torch.cuda.Stream()
    s2 = s1 if args.serial else torch.cuda.Stream()
    main = torch.cuda.current_stream()

    def work():
        s1.wait_stream(main)
        s2.wait_stream(main)
        with torch.cuda.stream(s1):
            for i in range(len(matrix_on_gpu)):
                torch.matmul(matrix_on_gpu[i], matrix_on_gpu[i], out=products[i])
        with torch.cuda.stream(s2):
            for i in range(len(matrix_on_gpu)):
                torch.pow(matrix_on_gpu[i], 3, out=cubes[i])
        main.wait_stream(s1)
        main.wait_stream(s2)
    ms = timed(work)
    print("seed001_swimming tensorcores: checksum products %.6e cubes %.6e"
          % (sum(float(x.double().sum()) for x in products),
             sum(float(x.double().sum()) for x in cubes)))
    return ms, "serial" if args.serial else "concurrent"


def priority(args):
    torch.backends.cuda.matmul.allow_tf32 = False
    g = torch.Generator(device="cuda").manual_seed(3)
    big = torch.rand(args.size, args.size, device=cuda, generator=g)
    big_out = torch.empty_like(big)
    small = torch.rand(1 << 14, device=cuda, generator=g)
    small_out = torch.empty_like(small)
    low = torch.cuda.Stream(priority=0)
    high = torch.cuda.Stream(priority=0 if args.equal else -1)
    main = torch.cuda.current_stream()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def work():
        low.wait_stream(main)
        high.wait_stream(main)
        with torch.cuda.stream(low):       # the backlog
            for _ in range(args.count):
                torch.matmul(big, big, out=big_out)
        with torch.cuda.stream(high):      # the short chain, timed on the GPU
            start.record()
            y = small
            for _ in range(args.count):
                y = torch.pow(y, 1.0001)
            small_out.copy_(y)
            stop.record()
        main.wait_stream(low)
        main.wait_stream(high)
    timed(work)
    print("seed001_swimming priority: checksum %.6e %.6e"
          % (float(big_out.double().sum()), float(small_out.double().sum())))
    return start.elapsed_time(stop), "equal" if args.equal else "high priority"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="experiment", required=True)
    c = sub.add_parser("copies")
    c.add_argument("--pageable", action="store_true", help="host tensors not pinned (the hazard)")
    c.add_argument("--count", type=int, default=16)
    c.add_argument("--size", type=int, default=1024)
    c.add_argument("--chunk", type=int, default=1 << 22)
    t = sub.add_parser("tensorcores")
    t.add_argument("--serial", action="store_true", help="matmul and pow on one stream")
    t.add_argument("--count", type=int, default=64)
    t.add_argument("--size", type=int, default=1024)
    q = sub.add_parser("priority")
    q.add_argument("--equal", action="store_true", help="both streams at the same priority")
    q.add_argument("--count", type=int, default=20)
    q.add_argument("--size", type=int, default=4096)
    args = p.parse_args()
    ms, how = {"copies": copies, "tensorcores": tensorcores, "priority": priority}[args.experiment](args)
    print(f"seed001_swimming {args.experiment}: {how}\nelapsed_ms={ms:.3f}", file=sys.stderr)


if __name__ == "__main__":
    main()
