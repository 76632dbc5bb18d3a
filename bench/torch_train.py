"""torch_train: a small CNN training loop whose loss must be bit-identical
natively and under streamcheck --redirect=per-thread (every method).

PyTorch's autograd engine runs the backward pass on a thread of its own
(one per device) while the main thread waits in backward(): both threads
queue work on the legacy default stream, and the legacy stream orders the
backward pass after the forward pass.  Redirect must keep that order
(man streamcheck.1, REDIRECT MODE); a lost order shows as a different loss.

Deterministic: fixed seeds, synthetic data made on the host, cuDNN in
deterministic mode, deterministic algorithms (CUBLAS_WORKSPACE_CONFIG is
set here if unset).  Prints the summed loss exactly (float.hex) and
images per second:
    loss_sum=0x1.5a3b2c...p+7 loss=173.3704 images_per_sec=2798.1
Usage: torch_train.py [STEPS [BATCH]]   Exits 77 without torch or a GPU.

It also takes bench/train_bench.py's options (--steps N --warmup N
--batch-size N; the
batches are pinned, so --pin-memory 1 only) and then prints, on stderr,
what train_bench reads: images_per_s=, timed_window_ns=START,END,
step_end_ns=T1,T2,... (when each timed step was queued), and under
streamcheck shim_self_ns_window= (the shim's own estimate of its time
inside the timed steps).  So train_bench measures this loop with
TRAIN_BENCH_PROG=bench/torch_train.py.
"""
import argparse
import ctypes
import os
import sys
import time

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
try:
    import torch
except ImportError:
    sys.exit(77)
if not torch.cuda.is_available():
    sys.exit(77)

ap = argparse.ArgumentParser(description="a small CNN training loop, bit-identical under redirect")
ap.add_argument("pos", nargs="*", type=int, metavar="STEPS [BATCH]")
ap.add_argument("--steps", type=int)
ap.add_argument("--warmup", type=int, default=10)
ap.add_argument("--batch-size", type=int)
ap.add_argument("--pin-memory", type=int, choices=(1,), default=1)
args = ap.parse_args()
if len(args.pos) > 2:
    ap.error("at most STEPS and BATCH")
STEPS = args.steps if args.steps is not None else (args.pos[0] if args.pos else 60)
BATCH = args.batch_size if args.batch_size is not None else (args.pos[1] if len(args.pos) > 1 else 64)
WARMUP = args.warmup
if STEPS < 1 or BATCH < 1 or WARMUP < 0:
    ap.error("STEPS and BATCH must be at least 1, --warmup at least 0")
# Under streamcheck: the shim's own time so far (None natively).
SELF_NS = getattr(ctypes.CDLL(None), "streamcheck_self_ns", None)
if SELF_NS:
    SELF_NS.restype = ctypes.c_uint64

torch.manual_seed(0)
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
# warn_only: an op without a deterministic kernel warns instead of failing;
# redirect-torch.sh runs the native loop more than once, so a loop that is
# not reproducible by itself shows there.
torch.use_deterministic_algorithms(True, warn_only=True)


def block(cin, cout, stride):
    return torch.nn.Sequential(
        torch.nn.Conv2d(cin, cout, 3, stride, 1, bias=False), torch.nn.BatchNorm2d(cout), torch.nn.ReLU(inplace=True),
        torch.nn.Conv2d(cout, cout, 3, 1, 1, bias=False), torch.nn.BatchNorm2d(cout), torch.nn.ReLU(inplace=True))


class SpatialMean(torch.nn.Module):
    """Global average pooling whose backward is deterministic (that of
    AdaptiveAvgPool2d on CUDA is not)."""

    def forward(self, x):
        return x.mean(dim=(2, 3))


model = torch.nn.Sequential(
    block(3, 32, 1), block(32, 64, 2), block(64, 128, 2), block(128, 256, 2),
    SpatialMean(), torch.nn.Linear(256, 10)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
loss_fn = torch.nn.CrossEntropyLoss()

# Synthetic data, made on the host with its own generator, copied per step
# (pinned, non_blocking: the copies are legacy-stream work too).
g = torch.Generator().manual_seed(1)
xs = torch.randn(8, BATCH, 3, 32, 32, generator=g).pin_memory()
ys = torch.randint(0, 10, (8, BATCH), generator=g).pin_memory()


def step(i):
    x = xs[i % 8].cuda(non_blocking=True)
    y = ys[i % 8].cuda(non_blocking=True)
    opt.zero_grad(set_to_none=True)
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    return loss


losses = []
for i in range(WARMUP):
    losses.append(step(i).detach())
torch.cuda.synchronize()
w0 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
s0 = SELF_NS() if SELF_NS else 0
ends = []
for i in range(WARMUP, WARMUP + STEPS):
    losses.append(step(i).detach())
    ends.append(time.clock_gettime_ns(time.CLOCK_MONOTONIC))
torch.cuda.synchronize()
w1 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
s1 = SELF_NS() if SELF_NS else 0
dt = (w1 - w0) / 1e9
# Summed on the host, in order, in double precision: the same bits for the
# same losses.
total = 0.0
for v in torch.stack(losses).double().cpu().tolist():
    total += v
print(f"loss_sum={total.hex()} loss={total:.4f} images_per_sec={STEPS * BATCH / dt:.1f}")
print(f"images_per_s={STEPS * BATCH / dt:.1f}", file=sys.stderr)
print(f"timed_window_ns={w0},{w1}", file=sys.stderr)
# When each timed step's work was queued (the last one: when it finished):
# train_bench's per-chunk rates, which a passing disturbance hits in one
# chunk rather than in the whole run.
ends[-1] = w1
print("step_end_ns=" + ",".join(str(t) for t in ends), file=sys.stderr)
if SELF_NS:
    print(f"shim_self_ns_window={s1 - s0}", file=sys.stderr)
