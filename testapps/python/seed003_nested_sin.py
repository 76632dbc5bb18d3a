"""seed003_nested_sin: seed 003 ("GPU Performance: Parallel Processing vs Overhead").

The nested sine, y = sin(sin(sin(sin(x)))), on a GPU, called ITERS times so
the first call (CUDA context, kernel loading) can be compared with the later
ones (the seed's "Warmup for nested sine").  Three ways:

  gpu      the seed's nested_sin_gpu: x.to("cuda"), four torch.sin,
           torch.cuda.synchronize(), y.cpu(), everything on the default stream
  streams  the seed's nested_sin_gpu_streams: upload, compute and download
           streams, the host synchronizing each before the next; x is not
           pinned, so the "non_blocking" upload is not asynchronous
           (streamcheck: SC203), and the download stream's synchronize comes
           after y.cpu() has already waited (SC402, as the seed notes)
  events   the same three streams ordered with wait_stream (events) and
           pinned host tensors: the host waits once, at the end

    python3 seed003_nested_sin.py [--mode gpu|streams|events] [--size N] [--iters N]

Prints a checksum on stdout (the same in every mode) and first_ms=,
later_ms= (median of the later calls) and elapsed_ms= (all later calls) on
stderr.  Exits 77 without torch or a GPU.
"""
import argparse
import statistics
import sys
import time

try:
    import torch
except ImportError:
    print("seed003_nested_sin: torch is not installed; skipping", file=sys.stderr)
    sys.exit(77)
if not torch.cuda.is_available():
    print("seed003_nested_sin: no CUDA device; skipping", file=sys.stderr)
    sys.exit(77)


def nested_sin_gpu(x):
    x = x.to("cuda")
    x = torch.sin(x)
    x = torch.sin(x)
    x = torch.sin(x)
    x = torch.sin(x)
    torch.cuda.synchronize()
    return x.cpu()


def make_streams():
    return torch.cuda.Stream(), torch.cuda.Stream(), torch.cuda.Stream()


def nested_sin_gpu_streams(x, upload_stream, compute_stream, download_stream):
    x_gpu = torch.empty_like(x, device="cuda")
    with torch.cuda.stream(upload_stream):
        x_gpu.copy_(x, non_blocking=True)
    upload_stream.synchronize()
    with torch.cuda.stream(compute_stream):
        y_gpu = torch.sin(x_gpu)
        y_gpu = torch.sin(y_gpu)
        y_gpu = torch.sin(y_gpu)
        y_gpu = torch.sin(y_gpu)
    compute_stream.synchronize()
    with torch.cuda.stream(download_stream):
        y = y_gpu.cpu()
    download_stream.synchronize()
    return y


def nested_sin_gpu_events(x_pinned, y_pinned, upload_stream, compute_stream, download_stream):
    main = torch.cuda.current_stream()
    x_gpu = torch.empty_like(x_pinned, device="cuda")
    upload_stream.wait_stream(main)                 # x_gpu was allocated on main
    with torch.cuda.stream(upload_stream):
        x_gpu.copy_(x_pinned, non_blocking=True)
    compute_stream.wait_stream(upload_stream)
    with torch.cuda.stream(compute_stream):
        y_gpu = torch.sin(x_gpu)
        y_gpu = torch.sin(y_gpu)
        y_gpu = torch.sin(y_gpu)
        y_gpu = torch.sin(y_gpu)
    download_stream.wait_stream(compute_stream)
    with torch.cuda.stream(download_stream):
        y_pinned.copy_(y_gpu, non_blocking=True)
    # Tensors used on side streams: keep their memory until those finish.
    x_gpu.record_stream(upload_stream)
    x_gpu.record_stream(compute_stream)
    y_gpu.record_stream(download_stream)
    download_stream.synchronize()                   # the one wait, for the result
    return y_pinned


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mode", choices=("gpu", "streams", "events"), default="events")
    p.add_argument("--size", type=int, default=1 << 22)
    p.add_argument("--iters", type=int, default=10)
    args = p.parse_args()
    x = torch.rand(args.size, generator=torch.Generator().manual_seed(3)) * 6 - 3
    if args.mode == "gpu":
        call = lambda: nested_sin_gpu(x)            # noqa: E731
    elif args.mode == "streams":
        up, co, dn = make_streams()
        call = lambda: nested_sin_gpu_streams(x, up, co, dn)   # noqa: E731
    else:
        up, co, dn = make_streams()
        xp, yp = x.pin_memory(), torch.empty(args.size, pin_memory=True)
        call = lambda: nested_sin_gpu_events(xp, yp, up, co, dn)   # noqa: E731
    times = []
    for _ in range(args.iters):
        t0 = time.perf_counter()
        y = call()
        times.append((time.perf_counter() - t0) * 1e3)
    print(f"seed003_nested_sin: {args.size} elements, checksum {float(y.double().sum()):.6e}")
    later = times[1:] or times
    print(f"seed003_nested_sin: {args.mode}\niter_ms={','.join('%.3f' % t for t in times)}\n"
          f"first_ms={times[0]:.3f}\nlater_ms={statistics.median(later):.3f}\n"
          f"elapsed_ms={sum(later):.3f}", file=sys.stderr)


if __name__ == "__main__":
    main()
