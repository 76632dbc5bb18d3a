"""readback_loop: a loop that reads each step's result back to the CPU, written the way users write it.

Each step the GPU computes a large result (a float tensor of --mib MiB:
an elementwise update of a state that stays on the GPU), and the host
reads it back with .cpu() to work on it (a strided sample summed on the
CPU, as a logger or a post-processing step would).  .cpu() copies into
a new pageable tensor each step: the copy is not asynchronous (the host
waits while the driver stages it), and above glibc's largest mmap
threshold (32 MiB) each new tensor is a fresh mapping, whose pages the
copy faults in while the host waits.  --pinned is the fix: one pinned
buffer, allocated once, the copy queued into it (non_blocking) and waited
for before the host reads it.  Both ways compute the same numbers.

    python3 readback_loop.py [--pinned] [--mib N] [--steps N] [--warmup N]

stdout: checksum=... (the float64 sum of every step's sample, the same
either way, with or without streamcheck).  stderr: step_ms= (the timed
steps' mean, ms), timed_window_ns=START,END on CLOCK_MONOTONIC,
cuda_ready_ns=T (where streamcheck's --measure-window counts from) and the
host's time a timed step in each phase, median in ms: phase_gpu_ms= (the
step's kernels queued), phase_read_ms= (the read-back, its wait
included), phase_host_ms= (the CPU's work on the result).  Exits 77
without torch or a GPU.
"""
import argparse
import sys
import time

try:
    import torch
except ImportError:
    print("readback_loop: torch is not installed; skipping", file=sys.stderr)
    sys.exit(77)
if not torch.cuda.is_available():
    print("readback_loop: no CUDA device; skipping", file=sys.stderr)
    sys.exit(77)


def now():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pinned", action="store_true",
                   help="read back into one pinned buffer, allocated once (the fix)")
    p.add_argument("--mib", type=int, default=64, help="size of each step's result (default 64 MiB)")
    p.add_argument("--steps", type=int, default=40, help="timed steps after the warm-up")
    p.add_argument("--warmup", type=int, default=5)
    args = p.parse_args()
    if args.mib < 1 or args.steps < 1 or args.warmup < 0:
        p.error("--mib and --steps must be positive, --warmup not negative")
    n = args.mib << 18   # floats
    device = torch.device("cuda")
    g = torch.Generator(device=device).manual_seed(0)
    state = torch.rand(n, generator=g, device=device)
    cuda_ready = now()   # just after the first CUDA calls: where --measure-window counts from
    buf = torch.empty(n, pin_memory=True) if args.pinned else None
    total, checksum = args.warmup + args.steps, 0.0
    phases = {"gpu": [], "read": [], "host": []}
    t0 = 0
    for step in range(total):
        if step == args.warmup:
            torch.cuda.synchronize()
            t0 = now()
        p0 = now()
        state.mul_(0.999).add_(0.001 * step)
        result = torch.sin(state)
        p1 = now()
        if args.pinned:
            buf.copy_(result, non_blocking=True)
            torch.cuda.current_stream().synchronize()
            out = buf
        else:
            out = result.cpu()  # corpus: SC203
        p2 = now()
        checksum += float(out[::4096].double().sum())
        if step >= args.warmup:
            for k, a, b in (("gpu", p0, p1), ("read", p1, p2), ("host", p2, now())):
                phases[k].append(b - a)
        del out
    torch.cuda.synchronize()
    t1 = now()
    print(f"checksum={checksum:.6f}")
    print(f"step_ms={(t1 - t0) / 1e6 / args.steps:.3f}", file=sys.stderr)
    print(f"timed_window_ns={t0},{t1}", file=sys.stderr)
    print(f"cuda_ready_ns={cuda_ready}", file=sys.stderr)
    for k, v in phases.items():
        print("phase_%s_ms=%.3f" % (k, sorted(v)[len(v) // 2] / 1e6), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
