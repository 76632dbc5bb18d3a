"""ddp_train: a DistributedDataParallel training loop written the way users write it.

One process per GPU (torchrun --nproc_per_node 2), NCCL, a small MLP on a
synthetic dataset of random feature vectors, a DataLoader over a
DistributedSampler (2 workers), SGD with momentum, CrossEntropyLoss, and
loss.item() every step.  The gradient all-reduce of each bucket runs on
ProcessGroupNCCL's stream during the backward pass.

    torchrun --nproc_per_node 2 ddp_train.py [--pin-memory {0,1}] [--steps N] [--warmup N]
                                             [--batch-size N] [--samples N]

stdout, one line per rank: rank=R loss_sum=... loss_hex=... steps=N (the
float64 sum of the rank's loss.item() over every step; the same run to run,
with or without streamcheck); stderr, rank 0: samples_per_s=... over its
steps after the first --warmup (default 5), timed_window_ns=START,END and,
under streamcheck, shim_self_ns_window=N (bench/train_bench.py reads
them).  With --pin-memory 0 the batches are pageable, so the non_blocking
copy at the "# corpus: SC203" line is not asynchronous: one SC203 per
step on each rank.  With --pin-memory 1 clean copies; loss.item() each
step may be an SC403 (tests/corpus/expect.txt).  --metrics-on-gpu sums the loss
on the GPU (float64, in the same order, so the same loss_sum) and reads it
once at the end: SC403's fix, for bench/price_check.py's ddp_item pair.
Exits 77 without torch, without NCCL or with fewer than 2 GPUs
(DDP_TRAIN_MIN_GPUS=1 lets a smoke test run one rank on one GPU); 2 when
not started by torchrun (no RANK/LOCAL_RANK/WORLD_SIZE).
"""
import argparse
import ctypes
import os
import sys
import time

# Before cuBLAS starts: deterministic GEMMs, so loss_sum is the same run to run.
os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
try:
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.utils.data import DataLoader, Dataset, DistributedSampler
except ImportError:
    print("ddp_train: torch is not installed; skipping", file=sys.stderr)
    sys.exit(77)
MIN_GPUS = int(os.environ.get("DDP_TRAIN_MIN_GPUS", "2"))
if not torch.cuda.is_available() or torch.cuda.device_count() < MIN_GPUS:
    print("ddp_train: needs %d CUDA devices, found %d; skipping"
          % (MIN_GPUS, torch.cuda.device_count() if torch.cuda.is_available() else 0), file=sys.stderr)
    sys.exit(77)
if not dist.is_available() or not dist.is_nccl_available():
    print("ddp_train: this torch has no NCCL; skipping", file=sys.stderr)
    sys.exit(77)

FEATURES, HIDDEN, CLASSES = 1024, 2048, 10


class RandomVectors(Dataset):
    """N random feature vectors (a pool of 512 distinct ones) and labels."""

    def __init__(self, n, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.pool = torch.randn(512, FEATURES, generator=g)
        self.labels = torch.randint(0, CLASSES, (n,), generator=g)
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        x = self.pool[(i * 7) % len(self.pool)] * 0.5 + 0.1   # a fixed "transform"
        return x, self.labels[i]


def make_model():
    return nn.Sequential(
        nn.Linear(FEATURES, HIDDEN), nn.ReLU(),
        nn.Linear(HIDDEN, HIDDEN), nn.ReLU(),
        nn.Linear(HIDDEN, HIDDEN), nn.ReLU(),
        nn.Linear(HIDDEN, CLASSES),
    )


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pin-memory", type=int, choices=(0, 1), default=1)
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--warmup", type=int, default=5, help="steps before the timed ones (in --steps)")
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--samples", type=int, default=16384)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--metrics-on-gpu", action="store_true",
                   help="sum the loss on the GPU, read once at the end (no .item() each step)")
    args = p.parse_args()
    if not 0 <= args.warmup < args.steps:
        p.error("--warmup must be at least 0 and less than --steps")
    for var in ("RANK", "LOCAL_RANK", "WORLD_SIZE"):
        if var not in os.environ:
            print("ddp_train: %s is not set; start it with torchrun --nproc_per_node 2" % var,
                  file=sys.stderr)
            sys.exit(2)
    rank = int(os.environ["RANK"])
    local_rank = int(os.environ["LOCAL_RANK"])
    world = int(os.environ["WORLD_SIZE"])

    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)
    try:   # device_id (torch >= 2.3): NCCL starts now, not at the first collective
        dist.init_process_group("nccl", rank=rank, world_size=world, device_id=device)
    except TypeError:
        dist.init_process_group("nccl", rank=rank, world_size=world)
    torch.manual_seed(0)
    torch.use_deterministic_algorithms(True, warn_only=True)

    model = DDP(make_model().to(device), device_ids=[local_rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    dataset = RandomVectors(args.samples)
    sampler = DistributedSampler(dataset, num_replicas=world, rank=rank, shuffle=True, seed=1,
                                 drop_last=True)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler, drop_last=True,
                        num_workers=args.workers, pin_memory=bool(args.pin_memory))

    self_ns = getattr(ctypes.CDLL(None), "streamcheck_self_ns", None)   # under streamcheck only
    if self_ns:
        self_ns.restype = ctypes.c_uint64
    step, epoch, loss_sum, t0, s0 = 0, 0, 0.0, 0, 0
    loss_acc = torch.zeros((), dtype=torch.float64, device=device) if args.metrics_on_gpu else None
    model.train()
    while step < args.steps:
        sampler.set_epoch(epoch)
        for x, target in loader:
            if step == args.warmup:
                torch.cuda.synchronize()
                t0 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
                s0 = self_ns() if self_ns else 0
            x = x.to(device, non_blocking=True)  # corpus: SC203
            target = target.to(device, non_blocking=True)  # corpus: SC203-labels
            output = model(x)
            loss = criterion(output, target)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            if loss_acc is None:
                loss_sum += loss.item()  # corpus: SC403
            else:
                loss_acc += loss.detach().double()
            step += 1
            if step == args.steps:
                break
        epoch += 1
    if loss_acc is not None:
        loss_sum = loss_acc.item()
    torch.cuda.synchronize()
    t1 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    s1 = self_ns() if self_ns else 0
    if rank == 0:
        timed = args.steps - args.warmup
        print(f"samples_per_s={timed * args.batch_size * 1e9 / (t1 - t0):.1f}", file=sys.stderr)
        print(f"timed_window_ns={t0},{t1}", file=sys.stderr)
        if self_ns:
            print(f"shim_self_ns_window={s1 - s0}", file=sys.stderr, flush=True)
    # one write, so that the ranks' lines on a shared pipe do not interleave
    sys.stdout.flush()
    os.write(1, f"rank={rank} loss_sum={loss_sum:.6f} loss_hex={float(loss_sum).hex()} steps={step}\n".encode())
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
