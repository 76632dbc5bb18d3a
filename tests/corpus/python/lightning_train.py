"""lightning_train: train_resnet's ResNet-18 loop under Lightning's Trainer, written the way users write it.

A LightningModule around the same model (timm's resnet18, else
torchvision's), CrossEntropyLoss and SGD with momentum, on train_resnet's
synthetic images through a DataLoader with 4 workers; Trainer(max_steps,
one GPU, no logger, no checkpoints, no progress bar).  Lightning moves each
batch to the GPU itself (its batch_to_device: tensor.to(device,
non_blocking=True)), so with --pin-memory 0 the copies from the pageable
batches are not asynchronous: SC203, whose line is the program's own
trainer.fit() call ("# corpus: SC203"), the copy's Lightning frame beside
it as "via".  The loss is summed on the GPU (float64) and read once, at the
end, so no step waits on the host.

    python3 lightning_train.py [--pin-memory {0,1}] [--steps N] [--warmup N]
                               [--batch-size N] [--samples N] [--workers N]

stdout: loss_sum=..., loss_hex=... (with deterministic algorithms, the same
run to run, with or without streamcheck).  stderr: images_per_s=... over
the steps after the warm-up, and timed_window_ns=START,END.  --samples
defaults to one epoch of the steps (no DataLoader restart inside them).
Exits 77 without torch, Lightning or a GPU.
"""
import argparse
import os
import sys
import time

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
try:
    import torch
    import torch.nn as nn
    from torch.utils.data import DataLoader
except ImportError:
    print("lightning_train: torch is not installed; skipping", file=sys.stderr)
    sys.exit(77)
try:
    import lightning as L
except ImportError:
    try:
        import pytorch_lightning as L
    except ImportError:
        print("lightning_train: Lightning is not installed; skipping", file=sys.stderr)
        sys.exit(77)
if not torch.cuda.is_available():
    print("lightning_train: no CUDA device; skipping", file=sys.stderr)
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_resnet import RandomImages, make_model  # noqa: E402


class Classifier(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.model = make_model()
        self.criterion = nn.CrossEntropyLoss()
        self.register_buffer("loss_acc", torch.zeros((), dtype=torch.float64), persistent=False)

    def training_step(self, batch, batch_idx):
        images, target = batch
        loss = self.criterion(self.model(images), target)
        self.loss_acc += loss.detach().double()
        return loss

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)


class StepTimer(L.Callback):
    """The wall time from the start of step `warmup` to the end of training."""

    def __init__(self, warmup):
        self.warmup, self.t0, self.t1 = warmup, None, None

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        if trainer.global_step == self.warmup and self.t0 is None:
            torch.cuda.synchronize()
            self.t0 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)

    def on_train_end(self, trainer, pl_module):
        torch.cuda.synchronize()
        self.t1 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pin-memory", type=int, choices=(0, 1), default=1)
    p.add_argument("--steps", type=int, default=60, help="timed steps after the warm-up")
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--samples", type=int, default=0, help="dataset size (default: one epoch of the steps)")
    p.add_argument("--workers", type=int, default=4)
    args = p.parse_args()
    if args.steps < 1 or args.warmup < 0 or args.batch_size < 1:
        p.error("--steps and --batch-size must be at least 1, --warmup at least 0")
    total = args.warmup + args.steps
    samples = args.samples or args.batch_size * total

    L.seed_everything(0, workers=True)
    loader = DataLoader(RandomImages(samples), batch_size=args.batch_size, shuffle=True, drop_last=True,
                        num_workers=args.workers, pin_memory=bool(args.pin_memory),
                        generator=torch.Generator().manual_seed(1))
    model = Classifier()
    timer = StepTimer(args.warmup)
    trainer = L.Trainer(accelerator="gpu", devices=1, max_steps=total, max_epochs=-1, logger=False,
                        enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False,
                        deterministic="warn", benchmark=False, callbacks=[timer])
    torch.backends.cudnn.deterministic = True   # as train_resnet --deterministic: the same loss_sum run to run
    trainer.fit(model, loader)  # corpus: SC203
    loss_sum = model.loss_acc.item()
    print(f"loss_sum={loss_sum:.6f} loss_hex={float(loss_sum).hex()} steps={trainer.global_step}")
    if timer.t0 is not None and timer.t1 is not None and timer.t1 > timer.t0:
        print(f"images_per_s={args.steps * args.batch_size * 1e9 / (timer.t1 - timer.t0):.1f}", file=sys.stderr)
        print(f"timed_window_ns={timer.t0},{timer.t1}", file=sys.stderr)


if __name__ == "__main__":
    main()
