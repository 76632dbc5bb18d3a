"""compile_step: a small CNN trained through torch.compile.

    python3 compile_step.py [--mode default|reduce-overhead] [--steps N]

--mode default is torch.compile(model); reduce-overhead replays CUDA graphs
(torch.compile(model, mode="reduce-overhead")).  Fixed synthetic batches
made on the GPU, SGD, .item() of the loss every 10 steps.
stdout: loss_sum=... loss_hex=...; stderr: steps_per_s=...
Exits 77 without torch, a GPU, or a working torch.compile (triton).
"""
import argparse
import sys
import time

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError:
    print("compile_step: torch is not installed; skipping", file=sys.stderr)
    sys.exit(77)
if not torch.cuda.is_available():
    print("compile_step: no CUDA device; skipping", file=sys.stderr)
    sys.exit(77)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 32, 3, padding=1)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        self.fc1 = nn.Linear(64 * 8 * 8, 256)
        self.fc2 = nn.Linear(256, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        return self.fc2(F.relu(self.fc1(x)))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mode", choices=("default", "reduce-overhead"), default="default")
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--batch-size", type=int, default=128)
    args = p.parse_args()

    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.deterministic = True
    model = Net().cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    try:
        cmodel = torch.compile(model) if args.mode == "default" else torch.compile(model, mode=args.mode)
    except Exception as e:   # no triton, no compiler
        print(f"compile_step: torch.compile unavailable ({e}); skipping", file=sys.stderr)
        sys.exit(77)
    g = torch.Generator(device="cuda").manual_seed(1)
    xs = [torch.randn(args.batch_size, 3, 32, 32, device="cuda", generator=g) for _ in range(4)]
    ys = [torch.randint(0, 10, (args.batch_size,), device="cuda", generator=g) for _ in range(4)]

    def train_step(x, y):
        optimizer.zero_grad(set_to_none=True)
        loss = F.cross_entropy(cmodel(x), y)
        loss.backward()
        optimizer.step()
        return loss

    loss_sum = 0.0
    t0 = None
    for step in range(args.steps):
        if step == 0:
            try:
                loss = train_step(xs[0], ys[0])   # compiles here
            except Exception as e:
                if "triton" in str(e).lower() or "compiler" in str(e).lower():
                    print(f"compile_step: torch.compile unavailable ({e}); skipping", file=sys.stderr)
                    sys.exit(77)
                raise
            continue
        if step == 10:
            torch.cuda.synchronize()
            t0 = time.perf_counter()
        loss = train_step(xs[step % 4], ys[step % 4])
        if step % 10 == 9:
            loss_sum += loss.item()
    torch.cuda.synchronize()
    dt = time.perf_counter() - t0
    print(f"loss_sum={loss_sum:.6f} loss_hex={float(loss_sum).hex()} mode={args.mode}")
    print(f"steps_per_s={(args.steps - 10) / dt:.1f}", file=sys.stderr)


if __name__ == "__main__":
    main()
