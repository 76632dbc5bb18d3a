"""item_loop: a training loop that reads its metrics every step, written the way users write it.

A small CNN (four 3x3 convolutions with batch norm, ReLU and max pooling, a
linear head) learns 10 classes of synthetic 64x64 images.  Each step the
main thread prepares the batch on the CPU as a torchvision transform
would, image by image: a random crop of the padded image, a random
horizontal flip, scaling to [0, 1] and normalization (a few ms a step).
The batch goes to the GPU from pinned memory (non_blocking), then forward,
backward and an SGD step with momentum, and the step's loss and accuracy
are read with .item() for the progress numbers (the "# corpus: SC403"
lines).  Each read waits for the step's GPU work, so the GPU idles while
the host prepares the next batch, and the host idles while the GPU works.

--metrics-on-gpu is the fix: the loss and the correct count are summed on
the GPU and read once, after the loop, so the host prepares batch k+1
while the GPU runs step k.  Both ways compute the same numbers.  Sized on
an H100 (16 CPUs) with a condensed copy of this loop, batch 128,
deterministic: the host prepares a batch in about 6 ms, the GPU runs a
step in about 10; 16.4 ms a step with the reads, 10.5 ms without (1.57x),
so the 200 timed steps take about 3 s.

    python3 item_loop.py [--metrics-on-gpu] [--steps N] [--warmup N]
                         [--batch-size N] [--deterministic]

stdout: loss_sum=... loss_hex=... correct=N steps=N (the float64 sum of
every step's loss and the number of correct predictions; with
--deterministic the same run to run, either way, with or without
streamcheck).  stderr: images_per_s=... over the steps after the warm-up,
timed_window_ns=START,END: those steps on CLOCK_MONOTONIC, step_end_ns=
T1,T2,...: when the host finished each timed step, phase_prep_ms=,
phase_launch_ms=, phase_read_ms=: the median timed step's host time
preparing the batch, submitting its work and reading its metrics,
cuda_ready_ns=T: when the model had reached the GPU (where streamcheck's
--measure-window counts from), and under streamcheck
shim_self_ns_window=N (the shim's own time inside the window), as
train_resnet.py prints them.  Exits 77 without torch or a GPU.
"""
import argparse
import ctypes
import os
import sys
import time

try:
    import torch
    import torch.nn as nn
except ImportError:
    print("item_loop: torch is not installed; skipping", file=sys.stderr)
    sys.exit(77)
if not torch.cuda.is_available():
    print("item_loop: no CUDA device; skipping", file=sys.stderr)
    sys.exit(77)

SIZE, PAD, CLASSES, POOL = 64, 4, 10, 512
MEAN = torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1)
STD = torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1)


class Images:
    """POOL uint8 images, each a class pattern plus noise, kept padded for cropping."""

    def __init__(self, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.labels = torch.randint(0, CLASSES, (POOL,), generator=g)
        patterns = torch.rand(CLASSES, 3, SIZE, SIZE, generator=g) * 160
        noise = torch.rand(POOL, 3, SIZE, SIZE, generator=g) * 96
        imgs = (patterns[self.labels] + noise).to(torch.uint8)
        self.padded = nn.functional.pad(imgs, (PAD, PAD, PAD, PAD))
        self.gen = torch.Generator().manual_seed(seed + 1)

    def batch(self, n):
        """The next n images, augmented one by one in this thread, and their labels."""
        idx = torch.randint(0, POOL, (n,), generator=self.gen)
        shift = torch.randint(0, 2 * PAD + 1, (n, 2), generator=self.gen).tolist()
        flip = torch.rand(n, generator=self.gen).lt(0.5).tolist()
        out = torch.empty(n, 3, SIZE, SIZE)
        for k, i in enumerate(idx.tolist()):
            dy, dx = shift[k]
            img = self.padded[i, :, dy:dy + SIZE, dx:dx + SIZE]
            if flip[k]:
                img = img.flip(2)
            out[k] = (img.float() / 255.0 - MEAN) / STD
        return out, self.labels[idx]


def make_model():
    def block(cin, cout):
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]
    return nn.Sequential(
        *block(3, 64), *block(64, 128), nn.MaxPool2d(2),
        *block(128, 256), nn.MaxPool2d(2),
        *block(256, 256), nn.MaxPool2d(2),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(256, CLASSES))


# Under streamcheck: the shim's own time so far (None natively).
SELF_NS = getattr(ctypes.CDLL(None), "streamcheck_self_ns", None)
if SELF_NS:
    SELF_NS.restype = ctypes.c_uint64


def now():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


def train(args, model, optimizer, criterion, data):
    """The loop; returns (loss sum, correct count, window start, window end, step ends, shim self ns)."""
    device = torch.device("cuda")
    total = args.warmup + args.steps
    loss_sum, correct = 0.0, 0
    if args.metrics_on_gpu:
        loss_acc = torch.zeros((), dtype=torch.float64, device=device)
        correct_acc = torch.zeros((), dtype=torch.int64, device=device)
    t0 = self0 = 0
    ends = []
    phases = {"prep": [], "launch": [], "read": []}
    for step in range(total):
        if step == args.warmup:
            torch.cuda.synchronize()
            t0 = now()
            self0 = SELF_NS() if SELF_NS else 0
        p0 = now()
        x, y = data.batch(args.batch_size)
        p1 = now()
        x = x.pin_memory().to(device, non_blocking=True)
        y = y.pin_memory().to(device, non_blocking=True)
        output = model(x)
        loss = criterion(output, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if args.metrics_on_gpu:
            loss_acc += loss.detach()
            correct_acc += (output.argmax(1) == y).sum()
            p2 = now()
        else:
            p2 = now()
            loss_sum += loss.item()  # corpus: SC403
            correct += (output.argmax(1) == y).sum().item()  # corpus: SC403-acc
        if step >= args.warmup:
            ends.append(now())
            for k, a, b in (("prep", p0, p1), ("launch", p1, p2), ("read", p2, ends[-1])):
                phases[k].append(b - a)
    torch.cuda.synchronize()
    t1 = now()
    self1 = SELF_NS() if SELF_NS else 0
    if args.metrics_on_gpu:
        loss_sum, correct = loss_acc.item(), int(correct_acc.item())
    return loss_sum, correct, t0, t1, ends, self1 - self0, phases


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--metrics-on-gpu", action="store_true",
                   help="sum the loss and the correct count on the GPU, read them once at the end (the fix)")
    p.add_argument("--steps", type=int, default=200, help="timed steps after the warm-up")
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--deterministic", action="store_true")
    args = p.parse_args()
    if args.steps < 1 or args.warmup < 0 or args.batch_size < 1:
        p.error("--steps and --batch-size must be positive, --warmup not negative")

    torch.manual_seed(0)
    if args.deterministic:
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False
        torch.use_deterministic_algorithms(True, warn_only=True)
    else:
        torch.backends.cudnn.benchmark = True
    model = make_model().cuda()
    cuda_ready = now()   # just after the first CUDA calls: where --measure-window counts from
    model.train()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9, weight_decay=5e-4)
    criterion = nn.CrossEntropyLoss()
    loss_sum, correct, t0, t1, ends, self_ns, phases = train(args, model, optimizer, criterion, Images())

    total = args.warmup + args.steps
    print(f"loss_sum={loss_sum:.6f} loss_hex={float(loss_sum).hex()} correct={correct} steps={total}")
    print(f"images_per_s={args.steps * args.batch_size * 1e9 / (t1 - t0):.1f}", file=sys.stderr)
    print(f"timed_window_ns={t0},{t1}", file=sys.stderr)
    print(f"cuda_ready_ns={cuda_ready}", file=sys.stderr)
    print("step_end_ns=" + ",".join(str(t) for t in ends), file=sys.stderr)
    # the host's time a timed step in each phase, median in ms: the batch's
    # preparation, the submissions (copies, forward, backward, step, the
    # metrics' kernels), the metrics' reads (the waits; ~0 with the fix)
    for k, v in phases.items():
        print("phase_%s_ms=%.3f" % (k, sorted(v)[len(v) // 2] / 1e6), file=sys.stderr)
    if SELF_NS:
        print(f"shim_self_ns_window={self_ns}", file=sys.stderr)


if __name__ == "__main__":
    main()
