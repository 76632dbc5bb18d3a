"""train_resnet: a ResNet-18 training loop written the way users write it.

timm's resnet18 (torchvision's if timm is absent), 10 classes, on a synthetic
dataset of random uint8 images turned into normalized floats in __getitem__
(as a transform would), a DataLoader with 4 workers, SGD with momentum,
CrossEntropyLoss, and loss.item() every step.

    python3 train_resnet.py [--pin-memory {0,1}] [--steps N] [--warmup N]
                            [--deterministic] [--samples N] [--batch-size N]
                            [--torch-profiler] [--metrics-on-gpu]

stdout: loss_sum=..., loss_hex=... (the float64 sum of every step's
loss.item(); with --deterministic it is the same run to run, with or
without streamcheck).  stderr: images_per_s=... over the steps after the
warm-up, and timed_window_ns=START,END: those steps on CLOCK_MONOTONIC
(what streamcheck's report times its own work on); under streamcheck also
shim_self_ns_window=N: the shim's own estimate of its time inside those
steps (libstreamcheck's streamcheck_self_ns() at both ends), and
step_end_ns=T1,T2,...: when each timed step ended; cuda_ready_ns=T: when
the model had reached the GPU (just after the first CUDA call, where
streamcheck's --measure-window counts from).  With --pin-memory 0
the batches are pageable, so the
non_blocking copy at the "# corpus: SC203" line is not asynchronous.
With --torch-profiler the whole loop runs inside torch.profiler (GPU
activity only): what CUPTI's tracing costs this loop when PyTorch's own
profiler does it, beside streamcheck --measure.
With --metrics-on-gpu the loss is summed on the GPU (in float64, as
Python's float sums loss.item()) and read once, after the loop: the fix of
the SC403 at loss.item(), bench/price_check.py's resnet_item pair.
Exits 77 without torch or a GPU.
"""
import argparse
import contextlib
import ctypes
import os
import sys
import time

try:
    import torch
    import torch.nn as nn
    from torch.utils.data import DataLoader, Dataset
except ImportError:
    print("train_resnet: torch is not installed; skipping", file=sys.stderr)
    sys.exit(77)
if not torch.cuda.is_available():
    print("train_resnet: no CUDA device; skipping", file=sys.stderr)
    sys.exit(77)

MEAN = torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1)
STD = torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1)


class RandomImages(Dataset):
    """N random 3x224x224 uint8 images (a pool of 256 distinct ones) and labels."""

    def __init__(self, n, size=224, classes=10, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.pool = torch.randint(0, 256, (256, 3, size, size), dtype=torch.uint8, generator=g)
        self.labels = torch.randint(0, classes, (n,), generator=g)
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        img = self.pool[(i * 7) % len(self.pool)]
        x = (img.float() / 255.0 - MEAN) / STD      # ToTensor + Normalize
        if i % 2:
            x = x.flip(2)                           # a fixed "augmentation"
        return x, self.labels[i]


def make_model():
    try:
        import timm
        return timm.create_model("resnet18", num_classes=10)
    except ImportError:
        import torchvision
        return torchvision.models.resnet18(num_classes=10)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pin-memory", type=int, choices=(0, 1), default=1)
    p.add_argument("--steps", type=int, default=60, help="timed steps after the warm-up")
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--samples", type=int, default=3200)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--deterministic", action="store_true")
    p.add_argument("--torch-profiler", action="store_true")
    p.add_argument("--metrics-on-gpu", action="store_true",
                   help="sum the loss on the GPU and read it once, after the loop")
    args = p.parse_args()

    if args.deterministic:
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.manual_seed(0)
        torch.cuda.manual_seed_all(0)
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False
        torch.use_deterministic_algorithms(True, warn_only=True)
    else:
        torch.manual_seed(0)
        torch.backends.cudnn.benchmark = True

    device = torch.device("cuda")
    model = make_model().to(device)
    cuda_ready = time.monotonic_ns()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    criterion = nn.CrossEntropyLoss()
    dataset = RandomImages(args.samples)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True, drop_last=True,
                        num_workers=args.workers, pin_memory=bool(args.pin_memory),
                        generator=torch.Generator().manual_seed(1))

    total = args.warmup + args.steps
    model.train()
    ctx = contextlib.nullcontext()
    if args.torch_profiler:
        from torch.profiler import ProfilerActivity, profile
        ctx = profile(activities=[ProfilerActivity.CUDA])
    with ctx:
        loss_sum, w0, w1 = loop(args, model, optimizer, criterion, loader, total)
    print(f"loss_sum={loss_sum:.6f} loss_hex={float(loss_sum).hex()} steps={total}")
    print(f"images_per_s={args.steps * args.batch_size * 1e9 / (w1 - w0):.1f}", file=sys.stderr)
    print(f"timed_window_ns={w0},{w1}", file=sys.stderr)
    print(f"cuda_ready_ns={cuda_ready}", file=sys.stderr)
    if STEP_ENDS:
        print("step_end_ns=" + ",".join(str(t) for t in STEP_ENDS), file=sys.stderr)
    if SELF_NS:
        print(f"shim_self_ns_window={SELF_AT[1] - SELF_AT[0]}", file=sys.stderr)


# Under streamcheck: the shim's own time so far (None natively).
SELF_NS = getattr(ctypes.CDLL(None), "streamcheck_self_ns", None)
if SELF_NS:
    SELF_NS.restype = ctypes.c_uint64
SELF_AT = [0, 0]
STEP_ENDS = []  # when each timed step ended (loss.item() waits for it)


def loop(args, model, optimizer, criterion, loader, total):
    step = 0
    loss_sum = 0.0
    if args.metrics_on_gpu:
        loss_acc = torch.zeros((), dtype=torch.float64, device="cuda")
    t0 = None
    ends = STEP_ENDS
    while step < total:
        for images, target in loader:
            if step == args.warmup:
                torch.cuda.synchronize()
                t0 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
                SELF_AT[0] = SELF_NS() if SELF_NS else 0
            images = images.cuda(non_blocking=True)  # corpus: SC203
            target = target.cuda(non_blocking=True)  # corpus: SC203-labels
            output = model(images)
            loss = criterion(output, target)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            if args.metrics_on_gpu:
                loss_acc += loss.detach()
            else:
                loss_sum += loss.item()  # corpus: SC403
            step += 1
            if step > args.warmup:
                ends.append(time.clock_gettime_ns(time.CLOCK_MONOTONIC))
            if step == total:
                break
    torch.cuda.synchronize()
    t1 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    SELF_AT[1] = SELF_NS() if SELF_NS else 0
    if args.metrics_on_gpu:
        loss_sum = loss_acc.item()
    return loss_sum, t0, t1


if __name__ == "__main__":
    main()
