"""seed004_pin_peak: seed 004, "Peak CPU Host Memory Usage with Pinning".

The host-RAM peak of a pinned tensor made two ways; run each in its own
process, since the kernel's high-water mark only grows:

  alloc   pinned at allocation: torch.randn(size, pin_memory=True)
  later   pinned later: torch.randn(size).pin_memory(), which allocates a new
          pinned buffer and copies while the pageable tensor still exists,
          so the peak is about twice the size (the seed: +515 MiB against
          +1028 MiB for 512 MiB)

    python3 seed004_pin_peak.py [--mode alloc|later] [--mib N]

The peak is VmHWM of /proc/self/status, reset just before (writing 5 to
/proc/self/clear_refs, proc(5)), minus VmRSS at that point.  Prints a
checksum on stdout (the same in both modes) and delta_mib=, peak_mib=,
base_mib= on stderr.  Exits 77 without torch or a GPU.
"""
import argparse
import sys

try:
    import torch
except ImportError:
    print("seed004_pin_peak: torch is not installed; skipping", file=sys.stderr)
    sys.exit(77)
if not torch.cuda.is_available():
    print("seed004_pin_peak: no CUDA device; skipping", file=sys.stderr)
    sys.exit(77)


def status_kib(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field):
                return int(line.split()[1])
    return -1


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mode", choices=("alloc", "later"), default="alloc")
    p.add_argument("--mib", type=int, default=512)
    args = p.parse_args()
    n = args.mib * (1 << 20) // 4
    torch.cuda.init()
    torch.empty(1, pin_memory=True)         # the pinned allocator itself, outside the peak
    g = torch.Generator().manual_seed(4)
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        print("seed004_pin_peak: cannot reset VmHWM; the peak may include start-up",
              file=sys.stderr)
    base = status_kib("VmRSS:")
    if args.mode == "alloc":
        t = torch.randn(n, generator=g, pin_memory=True)
    else:
        t = torch.randn(n, generator=g).pin_memory()
    peak = status_kib("VmHWM:")
    d = t.to("cuda", non_blocking=True)
    print(f"seed004_pin_peak: {args.mib} MiB, checksum {float(d.double().sum()):.6e}")
    print(f"seed004_pin_peak: {args.mode}\ndelta_mib={(peak - base) / 1024:.1f}\n"
          f"peak_mib={peak / 1024:.1f}\nbase_mib={base / 1024:.1f}", file=sys.stderr)


if __name__ == "__main__":
    main()
