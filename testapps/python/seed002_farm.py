"""seed002_farm: seed 002 ("Nvidia MPS"), Exercise 4: one small GPU job.

The exercise's job (a matmul of two random matrices, timed), repeated ITEMS
times so that one instance takes long enough to measure, and small enough
(--size) that it does not fill a GPU: several instances side by side then
gain from MPS.  testapps/mps/mps-farm.sh runs N of them at once, without and
with the MPS control daemon:

    mps-farm.sh -n 8 -- python3 seed002_farm.py --items 200 --size 1024

Prints a checksum on stdout (the same in every instance), items= and
elapsed_ms= (the items, after a warm-up item) on stderr.
Exits 77 without torch or a GPU.
"""
import argparse
import sys
import time

try:
    import torch
except ImportError:
    print("seed002_farm: torch is not installed; skipping", file=sys.stderr)
    sys.exit(77)
if not torch.cuda.is_available():
    print("seed002_farm: no CUDA device; skipping", file=sys.stderr)
    sys.exit(77)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--items", type=int, default=100)
    p.add_argument("--size", type=int, default=1024)
    args = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    g = torch.Generator(device="cuda").manual_seed(2)
    a = torch.randn(args.size, args.size, device="cuda", generator=g)
    b = torch.randn(args.size, args.size, device="cuda", generator=g)
    c = torch.matmul(a, b)              # warm-up
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("timed")  # for streamcheck --range=timed
    t0 = time.perf_counter()
    for _ in range(args.items):
        torch.matmul(a, b, out=c)
    torch.cuda.synchronize()
    dt = time.perf_counter() - t0
    torch.cuda.nvtx.range_pop()
    print(f"seed002_farm: {args.items} matmuls {args.size}x{args.size}, "
          f"checksum {float(c.double().sum()):.6e}")
    print(f"items={args.items}\nelapsed_ms={dt * 1e3:.3f}", file=sys.stderr)


if __name__ == "__main__":
    main()
